package protocompat

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
)

var update = flag.Bool("update", false, "rewrite the product's protobuf goldens from the real serializer")

// goldenDir holds the golden bytes the product's own tests compare
// kubesim's codec with; this test proves they are what the real
// serializer writes (and writes them with -update).
const goldenDir = "../../apiserver/protobuf/testdata/golden"

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join(goldenDir, name)
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(hex.EncodeToString(got)+"\n"), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, strings.TrimSpace(string(want)), hex.EncodeToString(got), name)
}

func TestGoldensAreKubernetesBytes(t *testing.T) {
	scheme := realScheme(t)
	real := protobuf.NewSerializer(scheme, scheme)
	raw := protobuf.NewRawSerializer(scheme, scheme)
	files, err := filepath.Glob(filepath.Join(goldenDir, "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		var tm metav1.TypeMeta
		require.NoError(t, json.Unmarshal(data, &tm))
		gvk := schema.FromAPIVersionAndKind(tm.APIVersion, tm.Kind)
		obj, err := scheme.New(gvk)
		require.NoError(t, err, name)
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		require.NoError(t, dec.Decode(obj), name)
		obj.GetObjectKind().SetGroupVersionKind(gvk)
		encoded := realEncode(t, real, obj)
		checkGolden(t, name+".pb.hex", encoded)

		if name == "pod" {
			// The watch frame of an ADDED event for the same pod.
			event := &metav1.WatchEvent{Type: "ADDED", Object: runtime.RawExtension{Raw: encoded}}
			var msg, frame bytes.Buffer
			require.NoError(t, raw.Encode(event, &msg))
			_, err := protobuf.LengthDelimitedFramer.NewFrameWriter(&frame).Write(msg.Bytes())
			require.NoError(t, err)
			checkGolden(t, "watch-added-pod.frame.hex", frame.Bytes())
		}
		if name == "podlist" {
			require.IsType(t, &corev1.PodList{}, obj)
		}
	}
}
