package kinds

import (
	"maps"
	"reflect"
	"slices"
	"testing"

	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/schema"
)

// TestBuiltinSchemasShared checks that the built-in kinds' schemas, made by
// one schema.Generator that shares the structs met in several kinds, are
// each exactly what FromGoType makes of the kind alone, and that they do
// share: a Pod's spec and a ReplicaSet's template spec are one PodSpec
// description (made separately, the schemas held 10.8 MiB; shared, 1.9).
func TestBuiltinSchemasShared(t *testing.T) {
	resources := Builtin()
	byKind := map[string]*registry.Resource{}
	for _, r := range resources {
		if r.Schema == nil || r.New == nil {
			continue
		}
		byKind[r.GroupVersionKind().String()] = r
		alone := schema.FromGoType(reflect.TypeOf(r.New()).Elem())
		if !reflect.DeepEqual(r.Schema, alone) {
			t.Errorf("%s: the shared schema differs from FromGoType's", r.GroupVersionKind())
		}
	}
	if len(byKind) < 40 {
		t.Fatalf("only %d built-in kinds have a schema", len(byKind))
	}
	pod, rs := byKind["/v1, Kind=Pod"], byKind["apps/v1, Kind=ReplicaSet"]
	if pod == nil || rs == nil {
		t.Fatalf("no Pod or ReplicaSet among %v", slices.Sorted(maps.Keys(byKind)))
	}
	podSpec := pod.Schema.Properties["spec"].Properties
	rsPodSpec := rs.Schema.Properties["spec"].Properties["template"].Properties["spec"].Properties
	if len(podSpec) == 0 || reflect.ValueOf(podSpec).UnsafePointer() != reflect.ValueOf(rsPodSpec).UnsafePointer() {
		t.Errorf("a Pod's spec and a ReplicaSet's template spec are described twice, not shared")
	}
}
