package protocompat

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/kinds"
	"github.com/kubesim/kubesim/apiserver/protobuf"
)

// pbField is what one side says of one protobuf field number.
type pbField struct {
	tags  string // protobuf, protobuf_key and protobuf_val tags
	json  string // the JSON name (Go name for inline fields); "" for blanks
	shape string // value, pointer, slice, map, bytes, raw
	kind  reflect.Kind
	blank bool
}

func fieldNumber(t *testing.T, tag string) int {
	parts := strings.Split(tag, ",")
	require.GreaterOrEqual(t, len(parts), 2, tag)
	n, err := strconv.Atoi(parts[1])
	require.NoError(t, err, tag)
	return n
}

var (
	rawMessage   = reflect.TypeFor[json.RawMessage]()
	fieldsV1     = reflect.TypeFor[metav1.FieldsV1]()
	rawExtension = reflect.TypeFor[runtime.RawExtension]()
	// kubesimRawExtension is api.RawExtension, runtime.RawExtension held
	// by value (a ControllerRevision's data).
	kubesimRawExtension = reflect.TypeFor[api.RawExtension]()
)

func shapeOf(t reflect.Type) string {
	switch {
	case t == rawMessage || t == rawExtension || t == kubesimRawExtension || t == reflect.PointerTo(fieldsV1):
		return "raw"
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8:
		return "bytes"
	case t.Kind() == reflect.Pointer:
		return "pointer"
	case t.Kind() == reflect.Slice:
		return "slice"
	case t.Kind() == reflect.Map:
		return "map"
	}
	return "value"
}

func protobufFields(t *testing.T, typ reflect.Type) map[int]pbField {
	out := map[int]pbField{}
	for i := 0; i < typ.NumField(); i++ {
		sf := typ.Field(i)
		pb, ok := sf.Tag.Lookup("protobuf")
		if !ok || pb == "-" {
			continue
		}
		f := pbField{
			tags:  fmt.Sprintf("protobuf:%q protobuf_key:%q protobuf_val:%q", pb, sf.Tag.Get("protobuf_key"), sf.Tag.Get("protobuf_val")),
			shape: shapeOf(sf.Type),
			kind:  sf.Type.Kind(),
			blank: sf.Name == "_",
		}
		if !f.blank {
			f.json = strings.Split(sf.Tag.Get("json"), ",")[0]
			if f.json == "" || f.json == "-" {
				f.json = sf.Name
			}
		}
		n := fieldNumber(t, pb)
		_, dup := out[n]
		require.False(t, dup, "%s has field number %d twice", typ, n)
		out[n] = f
	}
	return out
}

// TestTagsEqualKubernetes checks the facts: for every kubesim type and the
// Kubernetes type it mirrors, the same field numbers with the same tags,
// the modelled fields under the same JSON names and of the same shape (a
// pointer where Kubernetes has a pointer, so that both write the same
// bytes), the others recorded as blank fields that write what Kubernetes
// writes.
func TestTagsEqualKubernetes(t *testing.T) {
	for _, pair := range typePairs {
		t.Run(pair.kubesim.Name(), func(t *testing.T) {
			ours := protobufFields(t, pair.kubesim)
			theirs := protobufFields(t, pair.real)
			for n, real := range theirs {
				our, ok := ours[n]
				if !assertTrue(t, ok, "field %d (%s) of %s is not recorded in kubesim", n, real.tags, pair.real) {
					continue
				}
				require.Equal(t, real.tags, our.tags, "field %d", n)
				if our.blank {
					if real.shape == "value" {
						require.NotEqual(t, reflect.Struct, real.kind, "field %d of %s: a struct held by value must be modelled", n, pair.real)
						require.Equal(t, real.kind, our.kind, "field %d: Kubernetes always writes it, so the blank field needs its kind", n)
					} else {
						require.Equal(t, reflect.Struct, our.kind, "field %d: Kubernetes omits it when empty: struct{}", n)
					}
					continue
				}
				require.Equal(t, real.json, our.json, "field %d", n)
				require.Equal(t, real.shape, our.shape, "field %d (%s)", n, our.json)
			}
			for n, our := range ours {
				_, ok := theirs[n]
				require.True(t, ok, "kubesim field %d (%s) is not in %s", n, our.tags, pair.real)
			}
		})
	}
}

func assertTrue(t *testing.T, ok bool, format string, args ...any) bool {
	t.Helper()
	if !ok {
		t.Errorf(format, args...)
	}
	return ok
}

// TestEveryTaggedTypeIsChecked walks every struct reachable from the
// built-in kinds and requires it in typePairs, so a type added later
// cannot escape TestTagsEqualKubernetes.
func TestEveryTaggedTypeIsChecked(t *testing.T) {
	paired := map[reflect.Type]bool{}
	for _, p := range typePairs {
		paired[p.kubesim] = true
	}
	selfWritten := map[reflect.Type]bool{}
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(typ reflect.Type) {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice || typ.Kind() == reflect.Map {
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct || seen[typ] || typ == reflect.TypeFor[api.TypeMeta]() {
			return
		}
		seen[typ] = true
		if reflect.PointerTo(typ).Implements(reflect.TypeFor[protobuf.Unmarshaler]()) {
			selfWritten[typ] = true // Time, MicroTime, Quantity, RawExtension
			return
		}
		require.True(t, paired[typ], "%s has no Kubernetes twin in typePairs", typ)
		for i := 0; i < typ.NumField(); i++ {
			if typ.Field(i).Name != "_" {
				walk(typ.Field(i).Type)
			}
		}
	}
	roots := []any{&api.Status{}, &api.DeleteOptions{}, &api.WatchEvent{}, &api.APIResourceList{}, &api.APIGroupList{}, &api.APIVersions{}, &api.PartialObjectMetadataList{}, &api.APIServiceList{}}
	for _, r := range kinds.Builtin() {
		roots = append(roots, r.New())
	}
	for _, r := range roots {
		walk(reflect.TypeOf(r))
	}
	require.Len(t, selfWritten, 4)
}

// structOf strips pointers, slices and maps down to a struct type, or nil.
func structOf(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	return t
}

// walkPairs follows a kubesim type and its Kubernetes twin side by side,
// field number by field number, and returns every pair of struct types met
// on the way: the types as they are actually nested in each kind (a type
// shared by apiextensions v1 and v1beta1 is paired with both).
func walkPairs(ours, theirs reflect.Type, seen map[[2]reflect.Type]bool) {
	key := [2]reflect.Type{ours, theirs}
	if seen[key] || reflect.PointerTo(ours).Implements(reflect.TypeFor[protobuf.Unmarshaler]()) {
		return
	}
	seen[key] = true
	byNum := map[string]reflect.Type{}
	for i := 0; i < theirs.NumField(); i++ {
		if pb := theirs.Field(i).Tag.Get("protobuf"); pb != "" {
			byNum[strings.Split(pb, ",")[1]] = theirs.Field(i).Type
		}
	}
	for i := 0; i < ours.NumField(); i++ {
		f := ours.Field(i)
		pb := f.Tag.Get("protobuf")
		if pb == "" || pb == "-" || f.Name == "_" {
			continue
		}
		o, r := structOf(f.Type), byNum[strings.Split(pb, ",")[1]]
		if o == nil || r == nil || structOf(r) == nil {
			continue
		}
		walkPairs(o, structOf(r), seen)
	}
}

// TestTagsEqualKubernetesAsNested checks the tags of every pair of types
// met by walking each kind side by side with its Kubernetes twin.
func TestTagsEqualKubernetesAsNested(t *testing.T) {
	scheme := realScheme(t)
	seen := map[[2]reflect.Type]bool{}
	for gvk, newObj := range kubesimKinds() {
		real, err := scheme.New(gvk)
		require.NoError(t, err, gvk)
		walkPairs(reflect.TypeOf(newObj()).Elem(), reflect.TypeOf(real).Elem(), seen)
	}
	require.Greater(t, len(seen), len(typePairs)/2)
	for pair := range seen {
		t.Run(pair[0].Name()+"~"+pair[1].PkgPath()+"."+pair[1].Name(), func(t *testing.T) {
			ours, theirs := protobufFields(t, pair[0]), protobufFields(t, pair[1])
			require.Equal(t, len(theirs), len(ours), "%s has %d protobuf fields, kubesim's %s %d", pair[1], len(theirs), pair[0], len(ours))
			for n, real := range theirs {
				require.Equal(t, real.tags, ours[n].tags, "field %d", n)
			}
		})
	}
}
