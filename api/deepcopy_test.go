package api

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/api/resource"
)

var (
	timeType     = reflect.TypeOf(time.Time{})
	quantityType = reflect.TypeOf(resource.Quantity{})
	intstrType   = reflect.TypeOf(intstr.IntOrString{})
	rawType      = reflect.TypeOf(json.RawMessage{})
)

// fill sets every exported field reachable from v to a non-zero value that
// depends on seed: two elements in every slice and map, every pointer set.
func fill(v reflect.Value, seed int, depth int) { fillOnPath(v, seed, depth, map[reflect.Type]int{}) }

// fillOnPath is fill remembering the struct types on the way down: a
// recursive type (JSONSchemaProps holds JSONSchemaProps in a dozen fields)
// is filled twice deep, which proves its copy deep, instead of a dozen
// levels of a dozen branches each (which took minutes under -race).
func fillOnPath(v reflect.Value, seed int, depth int, onPath map[reflect.Type]int) {
	if depth > 12 {
		return
	}
	if v.Kind() == reflect.Struct {
		if onPath[v.Type()] >= 2 {
			return
		}
		onPath[v.Type()]++
		defer func() { onPath[v.Type()]-- }()
	}
	fill := func(v reflect.Value, seed, depth int) { fillOnPath(v, seed, depth, onPath) }
	switch v.Type() {
	case timeType:
		v.Set(reflect.ValueOf(time.Date(2026, 1, 2, 3, 4, seed, 0, time.UTC)))
		return
	case quantityType:
		v.Set(reflect.ValueOf(resource.MustParse(fmt.Sprintf("%dm", seed+1))))
		return
	case intstrType:
		v.Set(reflect.ValueOf(intstr.FromString(fmt.Sprintf("%d%%", seed))))
		return
	case rawType:
		v.Set(reflect.ValueOf(json.RawMessage(fmt.Sprintf(`{"seed":%d}`, seed))))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d", seed))
	case reflect.Bool:
		v.SetBool(seed%2 == 1)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(seed))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(seed))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(seed))
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fill(p.Elem(), seed, depth+1)
		v.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := 0; i < 2; i++ {
			fill(s.Index(i), seed+i, depth+1)
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		for i := 0; i < 2; i++ {
			k := reflect.New(v.Type().Key()).Elem()
			fill(k, seed*10+i, depth+1)
			e := reflect.New(v.Type().Elem()).Elem()
			fill(e, seed+i, depth+1)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Interface:
		v.Set(reflect.ValueOf(map[string]any{"a": []any{"b", int64(seed)}, "c": map[string]any{"d": true}}))
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), seed, depth+1)
			}
		}
	}
}

// mutate changes every leaf reachable from v in place, writing through
// pointers, slices and maps, as a careless user of a copy would.
func mutate(v reflect.Value) {
	switch v.Type() {
	case timeType:
		v.Set(reflect.ValueOf(v.Interface().(time.Time).Add(time.Hour)))
		return
	case quantityType:
		v.Set(reflect.ValueOf(resource.MustParse("42")))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(v.String() + "-mutated")
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(v.Int() + 100)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(v.Uint() + 100)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(v.Float() + 100)
	case reflect.Pointer:
		if !v.IsNil() {
			mutate(v.Elem())
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			mutate(v.Index(i))
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(v.MapIndex(k))
			mutate(e)
			v.SetMapIndex(k, e)
		}
	case reflect.Interface:
		if !v.IsNil() {
			mutateJSON(v.Elem().Interface())
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				mutate(v.Field(i))
			}
		}
	}
}

func mutateJSON(x any) {
	switch x := x.(type) {
	case map[string]any:
		for k, v := range x {
			mutateJSON(v)
			x[k+"-mutated"] = "x"
			break
		}
	case []any:
		for i := range x {
			mutateJSON(x[i])
			x[i] = "mutated"
		}
	}
}

// assertNoSharing walks a and b in parallel and fails on any pointer,
// slice or map they share.
func assertNoSharing(t *testing.T, a, b reflect.Value, path string) {
	t.Helper()
	if a.Type() == timeType {
		return // a value; its *Location is shared by design, as in Kubernetes
	}
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			assert.Equal(t, a.IsNil(), b.IsNil(), "%s: nil-ness differs", path)
			return
		}
		assert.NotEqual(t, a.Pointer(), b.Pointer(), "%s: pointer shared", path)
		assertNoSharing(t, a.Elem(), b.Elem(), path)
	case reflect.Slice:
		if a.Len() > 0 {
			assert.NotEqual(t, a.Pointer(), b.Pointer(), "%s: slice shared", path)
		}
		for i := 0; i < a.Len() && i < b.Len(); i++ {
			assertNoSharing(t, a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i))
		}
	case reflect.Map:
		if a.IsNil() {
			return
		}
		assert.NotEqual(t, a.Pointer(), b.Pointer(), "%s: map shared", path)
		for _, k := range a.MapKeys() {
			bv := b.MapIndex(k)
			if assert.True(t, bv.IsValid(), "%s[%v] missing", path, k) {
				assertNoSharing(t, a.MapIndex(k), bv, fmt.Sprintf("%s[%v]", path, k))
			}
		}
	case reflect.Interface:
		if !a.IsNil() && !b.IsNil() {
			assertNoSharing(t, a.Elem(), b.Elem(), path)
		}
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			assertNoSharing(t, a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name)
		}
	}
}

// deepCopyOf calls the DeepCopy method of p (a pointer to a struct).
func deepCopyOf(t *testing.T, p any) any {
	m := reflect.ValueOf(p).MethodByName("DeepCopy")
	require.True(t, m.IsValid(), "%T has no DeepCopy", p)
	return m.Call(nil)[0].Interface()
}

func TestDeepCopySharesNothing(t *testing.T) {
	all := generatedStructs()
	require.Greater(t, len(all), 50, "the generated type list is suspiciously short")
	for _, zero := range all {
		typ := reflect.TypeOf(zero).Elem()
		t.Run(typ.Name(), func(t *testing.T) {
			orig := reflect.New(typ)
			fill(orig.Elem(), 1, 0)
			cp := deepCopyOf(t, orig.Interface())
			require.IsType(t, orig.Interface(), cp)
			require.Equal(t, orig.Interface(), cp, "the copy differs from the original")
			assertNoSharing(t, orig.Elem(), reflect.ValueOf(cp).Elem(), typ.Name())

			// Changing every leaf of the copy leaves the original as filled.
			mutate(reflect.ValueOf(cp).Elem())
			want := reflect.New(typ)
			fill(want.Elem(), 1, 0)
			assert.Equal(t, want.Interface(), orig.Interface(), "mutating the copy changed the original")
			assert.NotEqual(t, want.Interface(), cp, "mutate did not change the copy")
		})
	}
}

func TestDeepCopyNil(t *testing.T) {
	var p *Pod
	assert.Nil(t, p.DeepCopy())
	var rl ResourceList
	assert.Nil(t, rl.DeepCopy())
	empty := ResourceList{}
	assert.NotNil(t, empty.DeepCopy())
	// Nil fields stay nil and empty ones stay empty, so JSON is unchanged.
	pod := &Pod{ObjectMeta: ObjectMeta{Labels: map[string]string{}}}
	c := pod.DeepCopy()
	assert.NotNil(t, c.Labels)
	assert.Nil(t, c.Annotations)
	assert.Nil(t, c.Spec.Containers)
}

func TestObjectsAndLists(t *testing.T) {
	for _, o := range generatedObjects() {
		typ := reflect.TypeOf(o).Elem()
		t.Run(typ.Name(), func(t *testing.T) {
			fill(reflect.ValueOf(o).Elem(), 1, 0)
			c := o.DeepCopyObject()
			require.IsType(t, o, c)
			assert.Equal(t, o, c)
			Meta(c).Name = "changed"
			TypeMetaOf(c).Kind = "Changed"
			assert.Equal(t, "s1", Meta(o).Name)
			assert.Equal(t, "s1", TypeMetaOf(o).Kind)
		})
	}
	for _, l := range generatedLists() {
		typ := reflect.TypeOf(l).Elem()
		t.Run(typ.Name(), func(t *testing.T) {
			fill(reflect.ValueOf(l).Elem(), 1, 0)
			items := l.GetItems()
			require.Len(t, items, 2)
			// Items point into the list.
			Meta(items[0]).Name = "via-items"
			assert.Equal(t, "via-items", reflect.ValueOf(l).Elem().FieldByName("Items").Index(0).FieldByName("Name").String())
			c := l.DeepCopyObject()
			require.IsType(t, l, c)
			assert.Equal(t, l, c)
			c.GetListMeta().ResourceVersion = "changed"
			Meta(c.GetItems()[1]).Name = "changed"
			assert.Equal(t, "s1", l.GetListMeta().ResourceVersion)
			assert.Equal(t, "s2", Meta(l.GetItems()[1]).Name)
		})
	}
	var nilPod *Pod
	assert.Nil(t, nilPod.DeepCopyObject())
}

func TestDeepCopyJSONValue(t *testing.T) {
	in := map[string]any{"a": []any{int64(1), 2.5, "s", true, nil, json.Number("3")}, "m": map[string]any{"x": "y"}}
	out := DeepCopyJSON(in)
	assert.Equal(t, in, out)
	out["m"].(map[string]any)["x"] = "z"
	out["a"].([]any)[0] = "changed"
	assert.Equal(t, "y", in["m"].(map[string]any)["x"])
	assert.Equal(t, int64(1), in["a"].([]any)[0])
	assert.Nil(t, DeepCopyJSON(nil))
	assert.Equal(t, Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), DeepCopyJSONValue(Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)))
	assert.PanicsWithValue(t, "cannot deep copy *int", func() { DeepCopyJSONValue(new(int)) })
}
