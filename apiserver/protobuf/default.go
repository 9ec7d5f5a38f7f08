package protobuf

import "github.com/kubesim/kubesim/api"

// shared serves the package-level functions. It is the one package-level
// value of kubesim's codecs, and it is not a registry: it holds only plans
// derived from Go types (what the struct tags say), which are the same
// for every caller and never change, so no caller can see another's
// state through it — the same reasoning as encoding/json's own cache of
// struct fields. Code that wants its own cache holds a Codec from New.
var shared = New()

// Marshal returns the message bytes of a tagged struct (see Codec.Marshal).
func Marshal(v any) ([]byte, error) { return shared.Marshal(v) }

// Unmarshal reads message bytes into a tagged struct (see Codec.Unmarshal).
func Unmarshal(data []byte, v any) error { return shared.Unmarshal(data, v) }

// Supports reports whether v's type carries protobuf tags throughout (see
// Codec.Supports).
func Supports(v any) bool { return shared.Supports(v) }

// Encode writes obj enveloped, as kube-apiserver does (see Codec.Encode).
func Encode(obj Kinded) ([]byte, error) { return shared.Encode(obj) }

// Decode reads an enveloped message into into (see Codec.Decode).
func Decode(data []byte, into Kinded) (apiVersion, kind string, err error) {
	return shared.Decode(data, into)
}

// EncodeList writes a list kind enveloped (see Codec.EncodeList).
func EncodeList(apiVersion, kind string, meta api.ListMeta, items []api.Object) ([]byte, error) {
	return shared.EncodeList(apiVersion, kind, meta, items)
}

// EncodeWatchEvent writes one watch event, to be framed (see
// Codec.EncodeWatchEvent).
func EncodeWatchEvent(eventType string, obj Kinded) ([]byte, error) {
	return shared.EncodeWatchEvent(eventType, obj)
}
