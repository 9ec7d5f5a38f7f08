package api

import (
	"encoding/json"
	"fmt"
	"reflect"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// The types fill sets as a whole rather than field by field: their fields
// hold a value in a form of their own (a time, a canonical quantity, an
// embedded JSON document).
var (
	timeType     = reflect.TypeOf(time.Time{})
	quantityType = reflect.TypeOf(resource.Quantity{})
	intstrType   = reflect.TypeOf(intstr.IntOrString{})
	rawType      = reflect.TypeOf(json.RawMessage{})
	rawExtType   = reflect.TypeOf(runtime.RawExtension{})
	fieldsV1Type = reflect.TypeOf(metav1.FieldsV1{})
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
	case rawExtType:
		v.Set(reflect.ValueOf(runtime.RawExtension{Raw: []byte(fmt.Sprintf(`{"seed":%d}`, seed))}))
		return
	case fieldsV1Type:
		v.Set(reflect.ValueOf(metav1.FieldsV1{Raw: []byte(fmt.Sprintf(`{"f:seed%d":{}}`, seed))}))
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
