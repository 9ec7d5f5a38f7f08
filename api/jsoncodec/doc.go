// Package jsoncodec is the one place that decides how kubesim writes and
// reads its own JSON: the registry's stored values, the API server's
// answers and the events of a JSON watch, and on the other side the
// client's request bodies, answers and watch events. It simulates the JSON
// serializer of k8s.io/apimachinery/pkg/runtime/serializer/json, which
// kube-apiserver and client-go use for the same jobs.
//
// It writes with github.com/go-json-experiment/json (encoding/json v2, what
// the standard library is becoming) set to encoding/json's own semantics
// (jsonv1.DefaultOptionsV1: legacy omitempty, nil slices and maps as null,
// HTML escaping, sorted map keys, the types' MarshalJSON methods called as
// encoding/json calls them), so that every byte is what encoding/json.Marshal
// would write: goldens, clients' caches and the tests that compare stored
// bytes depend on it, and the TestBytesSameAsEncodingJSON tests
// (api/jsoncodec_test.go) hold every built-in kind to it. One exception is
// handled here: a string holding invalid UTF-8 (see Marshal). It is faster because v2 encodes without encoding/json's
// per-call reflection on interfaces and, for the types that have them
// (unstructured.Unstructured), calls MarshalJSONTo/UnmarshalJSONFrom, which
// write to and read from the stream instead of allocating a []byte per
// value; metav1.Time and metav1.MicroTime, whose methods allocate so, are
// written and read by functions of this package that do the same
// (timeMarshalers, timeUnmarshalers).
//
// It reads case-sensitively (names are matched exactly, as Kubernetes'
// decoder sigs.k8s.io/json does; what kubesim writes always has the exact
// names), otherwise with encoding/json's semantics. Request
// bodies are not decoded here: apiserver/handlers' decoder owns the
// fieldValidation rules (Strict, Warn, Ignore) for them.
//
// Left out: pretty printing (kubectl's -o json indents on its side), YAML,
// and streaming a value to a writer as it is encoded (objects are small
// and the answer is written in one call).
package jsoncodec
