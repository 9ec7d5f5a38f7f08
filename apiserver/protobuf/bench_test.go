package protobuf_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/apiserver/protobuf"
)

// The golden pod, a realistic running pod, both ways, against
// encoding/json for scale.
func BenchmarkEncodePod(b *testing.B) {
	pod := goldenObject(b, "pod")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := protobuf.Encode(pod); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodePod(b *testing.B) {
	data := readGolden(b, "pod.pb.hex")
	b.ReportAllocs()
	for b.Loop() {
		var pod corev1.Pod
		if _, _, err := protobuf.Decode(data, &pod); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodePodJSON(b *testing.B) {
	pod := goldenObject(b, "pod")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(pod); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodePodJSON(b *testing.B) {
	data, err := json.Marshal(goldenObject(b, "pod"))
	require.NoError(b, err)
	b.ReportAllocs()
	for b.Loop() {
		var pod corev1.Pod
		if err := json.Unmarshal(data, &pod); err != nil {
			b.Fatal(err)
		}
	}
}
