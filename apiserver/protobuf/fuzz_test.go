package protobuf_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/apiserver/protobuf"
)

// FuzzDecode feeds arbitrary bytes to Decode and Unmarshal: they may fail
// but never panic, and what they accept encodes again.
func FuzzDecode(f *testing.F) {
	for _, name := range goldenNames(f) {
		f.Add(readGolden(f, name+".pb.hex"))
	}
	f.Add(readGolden(f, "podlist.pb.hex"))
	f.Add([]byte("k8s\x00"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, into := range []protobuf.Kinded{&corev1.Pod{}, &corev1.Secret{}, &corev1.Node{}, &appsv1.Deployment{}, &coordinationv1.Lease{}, &corev1.PodList{}, &metav1.Status{}, &apiextensionsv1.CustomResourceDefinition{}} {
			if _, _, err := protobuf.Decode(data, into); err == nil {
				_, err := protobuf.Encode(into)
				require.NoError(t, err)
			}
		}
		// The raw message form, as inside a watch event or a list.
		var pod corev1.Pod
		_ = protobuf.Unmarshal(data, &pod)
		_, _, _ = protobuf.DecodeWatchEvent(data)
	})
}
