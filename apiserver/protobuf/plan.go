package protobuf

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/kubesim/kubesim/api"
)

// A plan is what the codec knows about one Go struct type: its protobuf
// fields in field-number order. Plans are built once per type from the
// struct tags and then only read.
type plan struct {
	name   string // the Go type name, for error messages as gogo words them
	fields []field
	byNum  map[protowire.Number]*field
}

// shape is how a field holds its values.
type shape int

const (
	single  shape = iota // a value, written even when zero (proto2, non-nullable)
	pointer              // *T, written when non-nil
	slice                // []T, one record per element
	mapping              // map[K]V, one entry message {key=1, value=2} per key
)

// field is one protobuf field of a struct.
type field struct {
	num   protowire.Number
	name  string // Go field name, for "wrong wireType ... for field X"
	index int
	shape shape
	// blank marks a `_` field: a field of the Kubernetes type that kubesim
	// does not model. It is skipped when read; when zeroWire is set it is
	// written as a zero value, because Kubernetes writes it always.
	blank    bool
	zeroWire protowire.Type
	writes   bool // blank and written as zero
	elem     *value
	key, val *value // mapping only
}

// kind is the wire form of one value.
type kind int

const (
	kBool kind = iota
	kInt
	kUint
	kDouble
	kFloat
	kString
	kBytes   // []byte
	kRaw     // json.RawMessage: a message {bytes raw = 1} (RawExtension, FieldsV1)
	kMessage // a struct with a plan
	kCustom  // a type that implements Marshaler and Unmarshaler
)

// value describes one value of a field (the element of a slice or pointer,
// the key or value of a map).
type value struct {
	kind kind
	typ  reflect.Type
	plan *plan // kMessage
}

// wire is the wire type a value is written with.
func (v *value) wire() protowire.Type {
	switch v.kind {
	case kBool, kInt, kUint:
		return protowire.VarintType
	case kDouble:
		return protowire.Fixed64Type
	case kFloat:
		return protowire.Fixed32Type
	}
	return protowire.BytesType
}

// scalar reports whether the value may come packed in a repeated field.
func (v *value) scalar() bool { return v.wire() != protowire.BytesType }

var (
	rawMessageType  = reflect.TypeFor[json.RawMessage]()
	bytesType       = reflect.TypeFor[[]byte]()
	typeMetaType    = reflect.TypeFor[api.TypeMeta]()
	marshalerType   = reflect.TypeFor[Marshaler]()
	unmarshalerType = reflect.TypeFor[Unmarshaler]()
)

// planFor returns the plan of struct type t, building it (and the plans of
// the structs it holds) on first use.
func (c *Codec) planFor(t reflect.Type) (*plan, error) {
	if p, ok := c.plans.Load(t); ok {
		return p.(*plan), nil
	}
	if e, ok := c.failed.Load(t); ok {
		return nil, e.(error)
	}
	building := map[reflect.Type]*plan{}
	if _, err := build(t, building); err != nil {
		c.failed.Store(t, err)
		return nil, err
	}
	for bt, bp := range building {
		c.plans.LoadOrStore(bt, bp)
	}
	got, _ := c.plans.Load(t)
	return got.(*plan), nil
}

// build makes the plan of t. building holds the plans under construction,
// so that a type that contains itself (through a pointer or slice) ends.
// A struct with no fields on the wire gets an empty plan: an empty
// message, as CustomResourceSubresourceStatus is in Kubernetes.
func build(t reflect.Type, building map[reflect.Type]*plan) (*plan, error) {
	if p, ok := building[t]; ok {
		return p, nil
	}
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("protobuf: %s is not a struct", t)
	}
	p := &plan{name: t.Name(), byNum: map[protowire.Number]*field{}}
	building[t] = p
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		tag, ok := sf.Tag.Lookup("protobuf")
		switch {
		case ok && tag == "-":
			continue // kubesim's own field, not in the Kubernetes API
		case ok:
		case sf.Anonymous && sf.Type == typeMetaType:
			// TypeMeta travels in the envelope, never inside the message,
			// as in Kubernetes where the embedded TypeMeta has no tag.
			continue
		case sf.Tag.Get("json") == "-" && sf.Name != "_":
			continue // in neither JSON nor protobuf
		case sf.IsExported() || sf.Name == "_":
			// Writing the rest and dropping this field silently would lose
			// data: the type is not protobuf-capable (Supports is false).
			return nil, fmt.Errorf("protobuf: field %s.%s has no protobuf tag", t, sf.Name)
		default:
			continue // unexported state (Quantity's mantissa) is the type's own business
		}
		num, err := tagNumber(tag)
		if err != nil {
			return nil, fmt.Errorf("protobuf: field %s.%s: %w", t, sf.Name, err)
		}
		f := field{num: num, name: sf.Name, index: i}
		if sf.Name == "_" {
			f.blank = true
			switch sf.Type.Kind() {
			case reflect.Struct: // struct{}: a pointer, list or map Kubernetes omits when empty
			case reflect.String:
				f.writes, f.zeroWire = true, protowire.BytesType
			case reflect.Bool, reflect.Int32, reflect.Int64:
				f.writes, f.zeroWire = true, protowire.VarintType
			default:
				return nil, fmt.Errorf("protobuf: blank field %d of %s has unsupported type %s", num, t, sf.Type)
			}
		} else if err := describe(&f, sf.Type, building); err != nil {
			return nil, fmt.Errorf("protobuf: field %s.%s: %w", t, sf.Name, err)
		}
		if _, dup := p.byNum[num]; dup {
			return nil, fmt.Errorf("protobuf: %s has field number %d twice", t, num)
		}
		p.fields = append(p.fields, f)
		p.byNum[num] = nil
	}
	// Generated Kubernetes code writes fields in field-number order,
	// whatever the order of the Go fields.
	sort.Slice(p.fields, func(i, j int) bool { return p.fields[i].num < p.fields[j].num })
	for i := range p.fields {
		p.byNum[p.fields[i].num] = &p.fields[i]
	}
	return p, nil
}

// tagNumber reads the field number of a tag such as "bytes,1,opt,name=metadata".
// The wire type word is not used: the Go type decides it, as in generated
// code (the tag of ServiceSpec.healthCheckNodePort says bytes, yet the field
// is an int32 written as a varint).
func tagNumber(tag string) (protowire.Number, error) {
	parts := strings.Split(tag, ",")
	if len(parts) < 2 {
		return 0, fmt.Errorf("malformed protobuf tag %q", tag)
	}
	n, err := strconv.Atoi(parts[1])
	if err != nil || n <= 0 || protowire.Number(n) > protowire.MaxValidNumber {
		return 0, fmt.Errorf("malformed protobuf tag %q", tag)
	}
	return protowire.Number(n), nil
}

// describe sets the shape and values of f from the Go type of the field.
func describe(f *field, t reflect.Type, building map[reflect.Type]*plan) error {
	switch {
	case t == rawMessageType || t == bytesType || t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8:
		f.shape = single
	case t.Kind() == reflect.Pointer:
		f.shape = pointer
		t = t.Elem()
	case t.Kind() == reflect.Slice:
		f.shape = slice
		t = t.Elem()
	case t.Kind() == reflect.Map:
		f.shape = mapping
		if t.Key().Kind() != reflect.String {
			return fmt.Errorf("map key %s is not a string", t.Key())
		}
		k, err := describeValue(t.Key(), building)
		if err != nil {
			return err
		}
		v, err := describeValue(t.Elem(), building)
		if err != nil {
			return err
		}
		f.key, f.val = k, v
		return nil
	default:
		f.shape = single
	}
	v, err := describeValue(t, building)
	if err != nil {
		return err
	}
	f.elem = v
	return nil
}

// describeValue says how one value of type t is written.
func describeValue(t reflect.Type, building map[reflect.Type]*plan) (*value, error) {
	v := &value{typ: t}
	switch {
	case t == rawMessageType:
		v.kind = kRaw
		return v, nil
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8:
		v.kind = kBytes
		return v, nil
	case reflect.PointerTo(t).Implements(unmarshalerType) && t.Implements(marshalerType):
		v.kind = kCustom
		return v, nil
	}
	switch t.Kind() {
	case reflect.Bool:
		v.kind = kBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.kind = kInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.kind = kUint
	case reflect.Float64:
		v.kind = kDouble
	case reflect.Float32:
		v.kind = kFloat
	case reflect.String:
		v.kind = kString
	case reflect.Struct:
		p, err := build(t, building)
		if err != nil {
			return nil, err
		}
		v.kind, v.plan = kMessage, p
	default:
		return nil, fmt.Errorf("type %s has no protobuf form", t)
	}
	return v, nil
}
