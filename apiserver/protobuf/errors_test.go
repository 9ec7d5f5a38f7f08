package protobuf_test

import (
	"io"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protowire"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/apiserver/protobuf"
)

// envelope builds magic + Unknown around raw by hand, so that the tests
// below do not depend on Encode.
func envelope(apiVersion, kind string, raw []byte) []byte {
	var tm []byte
	tm = protowire.AppendTag(tm, 1, protowire.BytesType)
	tm = protowire.AppendString(tm, apiVersion)
	tm = protowire.AppendTag(tm, 2, protowire.BytesType)
	tm = protowire.AppendString(tm, kind)
	b := []byte("k8s\x00")
	b = protowire.AppendTag(b, 1, protowire.BytesType)
	b = protowire.AppendBytes(b, tm)
	b = protowire.AppendTag(b, 2, protowire.BytesType)
	return protowire.AppendBytes(b, raw)
}

func TestDecodeErrorsAreWordedAsKubernetes(t *testing.T) {
	valid, err := protobuf.Encode(&corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: metav1.ObjectMeta{Name: "a"}})
	require.NoError(t, err)

	// The words of k8s.io/apimachinery's protobuf serializer and of the
	// gogo-generated Unmarshal methods.
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "empty data"},
		{"json", []byte(`{"kind":"Pod"}`), "provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]"},
		{"magic only", []byte("k8s\x00"), "empty body"},
		{"truncated", valid[:len(valid)-7], "unexpected EOF"},
		{"truncated varint", append([]byte("k8s\x00"), 0x0a, 0x80), "unexpected EOF"},
		{"no kind", envelope("v1", "", nil), `Object 'Kind' is missing in 'runtime.TypeMeta{APIVersion:"v1", Kind:""}'`},
		{"no version", envelope("", "Pod", nil), `Object 'apiVersion' is missing in 'runtime.TypeMeta{APIVersion:"", Kind:"Pod"}'`},
		{"wrong wire type", envelope("v1", "Pod", []byte{0x0a, 0x02, 0x08, 0x01}), "proto: wrong wireType = 0 for field Name"},
		{"wrong wire type of a scalar", envelope("v1", "Pod", []byte{0x0a, 0x02, 0x3a, 0x00}), "proto: wrong wireType = 2 for field Generation"},
		{"illegal tag", envelope("v1", "Pod", []byte{0x02, 0x00}), "proto: Pod: illegal tag 0 (wire type 2)"},
		{"end group", envelope("v1", "Pod", []byte{0x0c}), "proto: Pod: wiretype end group for non-group"},
		{"bad quantity", envelope("v1", "Pod", badQuantityPod()), quantityError},
		{"varint overflow", envelope("v1", "Pod", []byte{0x0a, 0x0b, 0x38, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}), "proto: integer overflow"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var pod corev1.Pod
			_, _, err := protobuf.Decode(tc.data, &pod)
			require.EqualError(t, err, tc.want)
		})
	}
}

// badQuantityPod is a Pod message whose container asks for cpu "x".
func badQuantityPod() []byte {
	nest := func(num protowire.Number, body []byte) []byte {
		return protowire.AppendBytes(protowire.AppendTag(nil, num, protowire.BytesType), body)
	}
	quantity := nest(1, []byte("x"))
	entry := append(nest(1, []byte("cpu")), nest(2, quantity)...)
	resources := nest(1, entry)     // limits
	container := nest(8, resources) // resources
	spec := nest(2, container)      // containers
	return nest(2, spec)            // spec
}

var quantityError = func() string {
	_, err := resource.ParseQuantity("x")
	return err.Error()
}()

func TestDecodeTakesMissingKindFromTheTarget(t *testing.T) {
	// As the real decoder fills a missing kind from the type it decodes into.
	pod := corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}}
	apiVersion, kind, err := protobuf.Decode(envelope("", "", nil), &pod)
	require.NoError(t, err)
	require.Equal(t, "v1", apiVersion)
	require.Equal(t, "Pod", kind)
}

func TestEveryTruncationFails(t *testing.T) {
	// Cut the message of a full object anywhere inside a field: the
	// decoder must say so, never return a half object silently. (A cut
	// between two top-level fields is a valid, shorter message.)
	pod := &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: metav1.ObjectMeta{Name: "a", Labels: map[string]string{"k": "v"}}}
	msg, err := protobuf.Marshal(pod)
	require.NoError(t, err)
	boundaries := map[int]bool{0: true}
	for rest := msg; len(rest) > 0; {
		num, typ, n := protowire.ConsumeField(rest)
		require.Positive(t, n, "field %d type %d", num, typ)
		rest = rest[n:]
		boundaries[len(msg)-len(rest)] = true
	}
	for cut := 1; cut < len(msg); cut++ {
		var back corev1.Pod
		err := protobuf.Unmarshal(msg[:cut], &back)
		if boundaries[cut] {
			require.NoError(t, err, "cut at %d", cut)
			continue
		}
		require.ErrorIs(t, err, io.ErrUnexpectedEOF, "cut at %d", cut)
	}
}

func TestBlankFieldsAreReadPast(t *testing.T) {
	// A real client writes fields kubesim does not model (selfLink,
	// hostPID, and a pod's overhead here): they are read past.
	var spec []byte
	spec = protowire.AppendTag(spec, 12, protowire.VarintType) // hostPID
	spec = protowire.AppendVarint(spec, 1)
	spec = protowire.AppendTag(spec, 32, protowire.BytesType) // overhead entry
	spec = protowire.AppendBytes(spec, []byte{0x0a, 0x03, 'c', 'p', 'u', 0x12, 0x05, 0x0a, 0x03, '1', '0', '0'})
	spec = protowire.AppendTag(spec, 10, protowire.BytesType) // nodeName
	spec = protowire.AppendString(spec, "n1")
	var meta []byte
	meta = protowire.AppendTag(meta, 4, protowire.BytesType) // selfLink
	meta = protowire.AppendString(meta, "/api/v1/x")
	var raw []byte
	raw = protowire.AppendTag(raw, 1, protowire.BytesType)
	raw = protowire.AppendBytes(raw, meta)
	raw = protowire.AppendTag(raw, 2, protowire.BytesType)
	raw = protowire.AppendBytes(raw, spec)
	var pod corev1.Pod
	_, _, err := protobuf.Decode(envelope("v1", "Pod", raw), &pod)
	require.NoError(t, err)
	require.Equal(t, "n1", pod.Spec.NodeName)
}

func TestMarshalNeedsAStruct(t *testing.T) {
	_, err := protobuf.Marshal(42)
	require.Error(t, err)
	_, err = protobuf.Marshal((*corev1.Pod)(nil))
	require.Error(t, err)
	require.Error(t, protobuf.Unmarshal(nil, corev1.Pod{}))
	_, _, err = protobuf.Decode([]byte("k8s\x00\x0a\x00"), (*corev1.Pod)(nil))
	require.Error(t, err)
}

func TestFrame(t *testing.T) {
	f := protobuf.Frame([]byte("abc"))
	require.Equal(t, []byte{0, 0, 0, 3, 'a', 'b', 'c'}, f)
	_, err := protobuf.ReadFrame(readerOf(f[:5]))
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)
	_, err = protobuf.ReadFrame(readerOf(nil))
	require.ErrorIs(t, err, io.EOF)
}

type byteReader struct{ b []byte }

func (r *byteReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.b)
	r.b = r.b[n:]
	return n, nil
}

func readerOf(b []byte) io.Reader { return &byteReader{b} }
