package protobuf_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/api"
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
		for _, into := range []protobuf.Kinded{&api.Pod{}, &api.Secret{}, &api.Node{}, &api.Deployment{}, &api.Lease{}, &api.PodList{}, &api.Status{}, &api.CustomResourceDefinition{}} {
			if _, _, err := protobuf.Decode(data, into); err == nil {
				_, err := protobuf.Encode(into)
				require.NoError(t, err)
			}
		}
		// The raw message form, as inside a watch event or a list.
		var pod api.Pod
		_ = protobuf.Unmarshal(data, &pod)
		_, _, _ = protobuf.DecodeWatchEvent(data)
	})
}
