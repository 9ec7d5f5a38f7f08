package protobuf

import (
	"fmt"
	"reflect"
	"sync"
)

// Marshaler is implemented by the few types whose protobuf form is not one
// field per Go field: Time and MicroTime (a Timestamp message), Quantity
// (its canonical string). It appends the message body, without tag or
// length; the codec writes those. Kubernetes gives the same types
// hand-written Marshal methods (time_proto.go, quantity_proto.go).
type Marshaler interface {
	AppendProtobuf(b []byte) []byte
}

// Unmarshaler reads a message body written by Marshaler. It is implemented
// with a pointer receiver.
type Unmarshaler interface {
	UnmarshalProtobuf(data []byte) error
}

// Codec encodes and decodes tagged structs. It caches one plan per Go
// type, so the work of reading tags is done once; it is safe for
// concurrent use. The API server holds one Codec for its lifetime.
type Codec struct {
	plans  sync.Map // reflect.Type -> *plan
	failed sync.Map // reflect.Type -> error, for Supports on untagged types
}

// New returns a Codec with an empty plan cache.
func New() *Codec { return &Codec{} }

// structOf returns the struct value v holds or points to.
func structOf(v any) (reflect.Value, error) {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return reflect.Value{}, fmt.Errorf("protobuf: nil %T", v)
		}
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.Struct {
		return reflect.Value{}, fmt.Errorf("protobuf: %T is not a struct", v)
	}
	return rv, nil
}

// Supports reports whether v's type, and every type it holds, carries
// protobuf tags, so that Marshal loses nothing. Custom resources and
// unstructured objects (maps) do not: they are served as JSON only, as
// kube-apiserver does.
func (c *Codec) Supports(v any) bool {
	t := reflect.TypeOf(v)
	if t == nil {
		return false
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return false
	}
	_, err := c.planFor(t)
	return err == nil
}

// Marshal returns the message bytes of v, a tagged struct or a pointer to
// one, without envelope: what generated Marshal methods return.
func (c *Codec) Marshal(v any) ([]byte, error) {
	return c.AppendMarshal(nil, v)
}

// AppendMarshal appends the message bytes of v to b.
func (c *Codec) AppendMarshal(b []byte, v any) ([]byte, error) {
	rv, err := structOf(v)
	if err != nil {
		return nil, err
	}
	p, err := c.planFor(rv.Type())
	if err != nil {
		return nil, err
	}
	return appendMessage(b, p, rv), nil
}

// Unmarshal reads message bytes into v, a pointer to a tagged struct.
// Fields present in data are set, others left as they are (reset v first
// for a fresh object). An unknown field number, a wrong wire type or
// truncated data is an error, and v may then be partly filled.
func (c *Codec) Unmarshal(data []byte, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("protobuf: Unmarshal needs a non-nil pointer to a struct, not %T", v)
	}
	p, err := c.planFor(rv.Elem().Type())
	if err != nil {
		return err
	}
	return decodeMessage(data, p, rv.Elem(), 0)
}
