package protobuf_test

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/protobuf"
)

// goldenKinds are the kinds of the golden objects; the goldens' bytes were
// written by k8s.io/apimachinery's protobuf serializer over k8s.io/api
// v0.37.2 types (e2e/protocompat regenerates and checks them).
var goldenKinds = map[string]func() protobuf.Kinded{
	"Pod":           func() protobuf.Kinded { return &corev1.Pod{} },
	"Secret":        func() protobuf.Kinded { return &corev1.Secret{} },
	"ConfigMap":     func() protobuf.Kinded { return &corev1.ConfigMap{} },
	"Deployment":    func() protobuf.Kinded { return &appsv1.Deployment{} },
	"Lease":         func() protobuf.Kinded { return &coordinationv1.Lease{} },
	"Node":          func() protobuf.Kinded { return &corev1.Node{} },
	"Service":       func() protobuf.Kinded { return &corev1.Service{} },
	"Status":        func() protobuf.Kinded { return &metav1.Status{} },
	"Event":         func() protobuf.Kinded { return &corev1.Event{} },
	"Scale":         func() protobuf.Kinded { return &autoscalingv1.Scale{} },
	"Binding":       func() protobuf.Kinded { return &corev1.Binding{} },
	"DeleteOptions": func() protobuf.Kinded { return &metav1.DeleteOptions{} },
	"CustomResourceDefinition": func() protobuf.Kinded {
		return &apiextensionsv1.CustomResourceDefinition{}
	},
}

func readGolden(t testing.TB, name string) []byte {
	t.Helper()
	h, err := os.ReadFile(filepath.Join("testdata", "golden", name))
	require.NoError(t, err)
	b, err := hex.DecodeString(strings.TrimSpace(string(h)))
	require.NoError(t, err)
	return b
}

// goldenObject reads testdata/golden/<name>.json into its kubesim type.
func goldenObject(t testing.TB, name string) protobuf.Kinded {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "golden", name+".json"))
	require.NoError(t, err)
	var tm metav1.TypeMeta
	require.NoError(t, json.Unmarshal(data, &tm))
	newObj, ok := goldenKinds[tm.Kind]
	require.True(t, ok, "kind %s", tm.Kind)
	obj := newObj()
	require.NoError(t, json.Unmarshal(data, obj))
	return obj
}

func goldenNames(t testing.TB) []string {
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "*.json"))
	require.NoError(t, err)
	var names []string
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		if name != "podlist" {
			names = append(names, name)
		}
	}
	require.NotEmpty(t, names)
	return names
}

func TestEncodeMatchesKubernetesBytes(t *testing.T) {
	for _, name := range goldenNames(t) {
		t.Run(name, func(t *testing.T) {
			got, err := protobuf.Encode(goldenObject(t, name))
			require.NoError(t, err)
			require.Equal(t, hex.EncodeToString(readGolden(t, name+".pb.hex")), hex.EncodeToString(got))
		})
	}
}

func TestDecodeKubernetesBytes(t *testing.T) {
	for _, name := range goldenNames(t) {
		t.Run(name, func(t *testing.T) {
			want := goldenObject(t, name)
			got := goldenKinds[api.TypeMetaOf(want).Kind]()
			apiVersion, kind, err := protobuf.Decode(readGolden(t, name+".pb.hex"), got)
			require.NoError(t, err)
			require.Equal(t, api.TypeMetaOf(want).APIVersion, apiVersion)
			require.Equal(t, api.TypeMetaOf(want).Kind, kind)
			require.Equal(t, want, got)
		})
	}
}

func TestEncodeListMatchesKubernetesBytes(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "golden", "podlist.json"))
	require.NoError(t, err)
	var list corev1.PodList
	require.NoError(t, json.Unmarshal(data, &list))
	got, err := protobuf.EncodeList("v1", "PodList", list.ListMeta, api.Items(&list))
	require.NoError(t, err)
	want := readGolden(t, "podlist.pb.hex")
	require.Equal(t, hex.EncodeToString(want), hex.EncodeToString(got))

	// The same bytes decode back into the list type.
	var back corev1.PodList
	_, _, err = protobuf.Decode(want, &back)
	require.NoError(t, err)
	list.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "PodList"}
	// Items carry no TypeMeta in protobuf (it lives in the envelope only),
	// so they come back without it, as client-go's do.
	for i := range list.Items {
		list.Items[i].TypeMeta = metav1.TypeMeta{}
	}
	require.Equal(t, list, back)
}

func TestWatchEventFrameMatchesKubernetesBytes(t *testing.T) {
	pod := goldenObject(t, "pod")
	msg, err := protobuf.EncodeWatchEvent("ADDED", pod)
	require.NoError(t, err)
	frame := protobuf.Frame(msg)
	require.Equal(t, hex.EncodeToString(readGolden(t, "watch-added-pod.frame.hex")), hex.EncodeToString(frame))

	// And it reads back: frame, event, enveloped object.
	read, err := protobuf.ReadFrame(strings.NewReader(string(frame)))
	require.NoError(t, err)
	typ, raw, err := protobuf.DecodeWatchEvent(read)
	require.NoError(t, err)
	require.Equal(t, "ADDED", typ)
	require.True(t, protobuf.HasMagic(raw), "the object inside a watch event is enveloped")
	var back corev1.Pod
	_, _, err = protobuf.Decode(raw, &back)
	require.NoError(t, err)
	require.Equal(t, pod, &back)
}
