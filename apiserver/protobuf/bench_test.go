package protobuf_test

import (
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/protobuf"
)

func TestConcurrentFirstUse(t *testing.T) {
	// Plans are built on first use; many goroutines doing so at once
	// (under -race) must agree on the bytes.
	codec := protobuf.New()
	pod := goldenObject(t, "pod")
	want := readGolden(t, "pod.pb.hex")
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := codec.Encode(pod)
			if err == nil && string(got) != string(want) {
				err = errDiffer
			}
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
}

var errDiffer = errors.New("bytes differ from the golden ones")

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
		var pod api.Pod
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
		var pod api.Pod
		if err := json.Unmarshal(data, &pod); err != nil {
			b.Fatal(err)
		}
	}
}
