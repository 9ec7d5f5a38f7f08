package protobuf

import (
	"fmt"
	"reflect"
	"slices"
)

// Message is what the generated code of k8s.io/api and k8s.io/apimachinery
// (generated.pb.go, written by go-to-protobuf with gogo) gives every type of
// the API: its size, its bytes written back to front into a buffer of that
// size, and a reader. Every built-in kind has it.
type Message interface {
	Size() int
	MarshalToSizedBuffer(dAtA []byte) (int, error)
	Unmarshal(dAtA []byte) error
}

// message returns v as a Message, or an error when v has no protobuf form
// or is a nil pointer (the generated code would dereference it).
func message(v any) (Message, error) {
	m, ok := v.(Message)
	if !ok {
		return nil, fmt.Errorf("protobuf: %T has no protobuf form", v)
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && rv.IsNil() {
		return nil, fmt.Errorf("protobuf: nil %T", v)
	}
	return m, nil
}

// Supports reports whether v has a protobuf form: the generated code of a
// built-in kind. Custom resources and unstructured objects do not: they are
// served as JSON only, as kube-apiserver does.
func Supports(v any) bool {
	_, ok := v.(Message)
	return ok
}

// Marshal returns the message bytes of v without envelope: what the
// generated Marshal methods return.
func Marshal(v any) ([]byte, error) {
	return AppendMarshal(nil, v)
}

// AppendMarshal appends the message bytes of v to b.
func AppendMarshal(b []byte, v any) ([]byte, error) {
	m, err := message(v)
	if err != nil {
		return nil, err
	}
	return appendMessage(b, m)
}

// appendMessage appends m's bytes, growing b once to the size m reports.
func appendMessage(b []byte, m Message) ([]byte, error) {
	size := m.Size()
	start := len(b)
	b = slices.Grow(b, size)[:start+size]
	if _, err := m.MarshalToSizedBuffer(b[start:]); err != nil {
		return nil, err
	}
	return b, nil
}

// Unmarshal reads message bytes into v, a pointer to a built-in kind, with
// its generated Unmarshal: fields present in data are set, others left as
// they are (reset v first for a fresh object).
func Unmarshal(data []byte, v any) error {
	m, err := message(v)
	if err != nil {
		return err
	}
	return m.Unmarshal(data)
}
