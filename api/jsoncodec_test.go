package api

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubesim/kubesim/api/jsoncodec"
)

// sameAsEncodingJSON checks that jsoncodec writes v exactly as
// encoding/json does, and that what it reads back from those bytes is what
// encoding/json reads: stored values, answers and watch frames must not
// change by a byte when the codec does.
func sameAsEncodingJSON(t *testing.T, name string, v any) {
	t.Helper()
	want, wantErr := json.Marshal(v)
	got, err := jsoncodec.Marshal(v)
	if wantErr != nil {
		assert.Error(t, err, "%s: encoding/json failed (%v), jsoncodec did not", name, wantErr)
		return
	}
	require.NoError(t, err, name)
	if !assert.Equal(t, string(want), string(got), "%s: bytes differ from encoding/json's", name) {
		return
	}
	typ := reflect.TypeOf(v)
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	fromStd, fromCodec := reflect.New(typ), reflect.New(typ)
	require.NoError(t, json.Unmarshal(want, fromStd.Interface()), name)
	require.NoError(t, jsoncodec.Unmarshal(want, fromCodec.Interface()), name)
	assert.Equal(t, fromStd.Interface(), fromCodec.Interface(), "%s: decoded differently from encoding/json", name)
}

func TestBytesSameAsEncodingJSONForTheFixtures(t *testing.T) {
	for _, name := range []string{"pod.json", "deployment.json", "node.json", "service.json"} {
		doc, err := os.ReadFile("testdata/" + name)
		require.NoError(t, err)
		obj := newForKind(t, doc)
		require.NoError(t, json.Unmarshal(doc, obj))
		sameAsEncodingJSON(t, name, obj)
	}
	var docs []json.RawMessage
	raw, err := os.ReadFile("testdata/others.json")
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &docs))
	for i, doc := range docs {
		obj := newForKind(t, doc)
		require.NoError(t, json.Unmarshal(doc, obj))
		sameAsEncodingJSON(t, fmt.Sprintf("others.json[%d]", i), obj)
	}
}

// Every struct with a generated DeepCopy (every built-in kind and all its
// parts), filled with values from several seeds, zero, and with strings
// that encoding/json escapes: HTML characters, U+2028, control characters
// and invalid UTF-8.
func TestBytesSameAsEncodingJSONForEveryType(t *testing.T) {
	for _, zero := range servedStructs() {
		typ := reflect.TypeOf(zero).Elem()
		sameAsEncodingJSON(t, typ.Name()+" zero", reflect.New(typ).Interface())
		for seed := 0; seed < 3; seed++ {
			v := reflect.New(typ)
			fill(v.Elem(), seed, 0)
			sameAsEncodingJSON(t, fmt.Sprintf("%s seed %d", typ.Name(), seed), v.Interface())
		}
		v := reflect.New(typ)
		fill(v.Elem(), 5, 0)
		awkwardStrings(v.Elem())
		sameAsEncodingJSON(t, typ.Name()+" awkward strings", v.Interface())
	}
}

// awkwardStrings replaces every string field reachable from v with one
// encoding/json must escape or repair.
func awkwardStrings(v reflect.Value) {
	const awkward = "<a href=\"x\">&amp;</a>\u2028\u2029\t\x01\xff\xfe ü €"
	switch v.Kind() {
	case reflect.String:
		if v.CanSet() {
			v.SetString(awkward)
		}
	case reflect.Pointer:
		if !v.IsNil() {
			awkwardStrings(v.Elem())
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			v.SetBytes([]byte(awkward))
			return
		}
		for i := 0; i < v.Len(); i++ {
			awkwardStrings(v.Index(i))
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(v.MapIndex(k))
			awkwardStrings(e)
			v.SetMapIndex(k, e)
		}
	case reflect.Struct:
		if v.Type() == timeType || v.Type() == quantityType || v.Type() == intstrType {
			return
		}
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				awkwardStrings(v.Field(i))
			}
		}
	}
}

// The types with their own JSON methods, at the edges of what they hold.
func TestBytesSameAsEncodingJSONForTheMethodTypes(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 123456789, time.FixedZone("x", 3600))
	values := map[string]any{
		"time":               metav1.NewTime(at),
		"zero time":          metav1.Time{},
		"time pointer":       &metav1.Time{Time: at},
		"nil time pointer":   (*metav1.Time)(nil),
		"micro time":         metav1.NewMicroTime(at),
		"zero micro time":    metav1.MicroTime{},
		"duration":           metav1.Duration{Duration: 90 * time.Second},
		"quantity":           resource.MustParse("1.5Gi"),
		"small quantity":     resource.MustParse("100m"),
		"exponent quantity":  resource.MustParse("12e6"),
		"zero quantity":      resource.Quantity{},
		"int":                intstr.FromInt32(-8080),
		"string":             intstr.FromString("25%<&>"),
		"zero intorstring":   intstr.IntOrString{},
		"resource list":      corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("1Mi")},
		"raw extension":      runtime.RawExtension{Raw: []byte(`{ "a" : "<b>" }`)},
		"json":               JSON{Raw: []byte(` [1, 2.50, "x&y"] `)},
		"raw message in any": map[string]any{"o": json.RawMessage(`{"b" : 1,"a":"\u003c"}`)},
		"floats":             map[string]any{"a": 1e21, "b": 1e-7, "c": 0.1, "d": float32(3.4e38), "e": -0.0},
		"big ints":           map[string]any{"a": int64(1) << 62, "b": uint64(1) << 63},
		"unicode keys":       map[string]int{"é": 1, "e": 2, "<": 3, "\xff": 4, "Z": 5},
	}
	for name, v := range values {
		want, err := json.Marshal(v)
		require.NoError(t, err, name)
		got, err := jsoncodec.Marshal(v)
		require.NoError(t, err, name)
		assert.Equal(t, string(want), string(got), name)
	}
	// Read back, in a struct as the types are met (encoding/json calls
	// UnmarshalJSON, jsoncodec UnmarshalJSONFrom): the same value or both
	// an error, for good values and bad.
	accepts := func(v any, docs ...string) {
		t.Helper()
		typ := reflect.TypeOf(v)
		for _, doc := range docs {
			holder := reflect.StructOf([]reflect.StructField{{Name: "V", Type: typ, Tag: `json:"v"`}})
			a, b := reflect.New(holder), reflect.New(holder)
			in := []byte(`{"v":` + doc + `}`)
			errA, errB := json.Unmarshal(in, a.Interface()), jsoncodec.Unmarshal(in, b.Interface())
			assert.Equal(t, errA == nil, errB == nil, "%s %s: encoding/json %v, jsoncodec %v", typ, doc, errA, errB)
			assert.Equal(t, a.Interface(), b.Interface(), "%s %s", typ, doc)
		}
	}
	timeDocs := []string{`"2026-01-02T03:04:05Z"`, `"2026-01-02T03:04:05+01:00"`, `"2026-01-02T03:04:05.123456Z"`,
		`null`, `5`, `"bad"`, `""`, `"\u0032026-01-02T03:04:05Z"`, `{}`}
	accepts(metav1.Time{}, timeDocs...)
	accepts(&metav1.Time{}, timeDocs...)
	accepts(metav1.MicroTime{}, timeDocs...)
	accepts(metav1.Duration{}, `"1m30s"`, `"0s"`, `null`, `5`, `"x"`)
	accepts(resource.Quantity{}, `"1.5Gi"`, `"100m"`, `" 1 "`, `"\u0031"`, `2`, `0.5`, `1e3`, `null`, `true`, `"x"`, `""`, `{}`, `[1]`)
	accepts(intstr.IntOrString{}, `"25%"`, `""`, `"\u003c"`, `80`, `-1`, `-0`, `1.5`, `1e2`, `2147483647`, `2147483648`, `-2147483649`, `null`, `true`, `{}`)
}

// Stored values are read case-sensitively: a case variant of a name sets
// nothing (encoding/json would set the field).
func TestUnmarshalMatchesNamesCaseSensitively(t *testing.T) {
	var d appsv1.Deployment
	require.NoError(t, jsoncodec.Unmarshal([]byte(`{"spec":{"Replicas":3,"paused":true}}`), &d))
	assert.Nil(t, d.Spec.Replicas)
	assert.True(t, d.Spec.Paused)
}
