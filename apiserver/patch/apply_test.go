package patch

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	t0 = "2026-01-01T00:00:00Z"
	t1 = "2026-01-01T00:01:00Z"
	t2 = "2026-01-01T00:02:00Z"
)

const appliedWeb = `{
  "apiVersion": "apps/v1", "kind": "Deployment",
  "metadata": {"name": "web", "labels": {"app": "web"}},
  "spec": {
    "replicas": 2,
    "template": {"spec": {"containers": [{"name": "web", "image": "nginx:1.25",
      "ports": [{"containerPort": 80, "protocol": "TCP"}]}]}}
  }
}`

// fieldsOf returns the fieldsV1 of the entry of manager with operation op.
func fieldsOf(t *testing.T, managed []ManagedFields, manager, op string) string {
	t.Helper()
	for _, m := range managed {
		if m.Manager == manager && m.Operation == op {
			return string(m.FieldsV1)
		}
	}
	return ""
}

func TestApplyCreate(t *testing.T) {
	got, managed, err := Apply(nil, js(t, appliedWeb), "kubectl", nil, false, deploymentSchema, t0)
	require.NoError(t, err)
	assert.Equal(t, js(t, appliedWeb), got)
	require.Len(t, managed, 1)
	assert.Equal(t, ManagedFields{Manager: "kubectl", Operation: "Apply", APIVersion: "apps/v1", Time: t0, FieldsType: "FieldsV1",
		FieldsV1: json.RawMessage(`{"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:replicas":{},"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"web\"}":{".":{},"f:image":{},"f:name":{},"f:ports":{"k:{\"containerPort\":80,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{},"f:protocol":{}}}}}}}}}`)},
		managed[0])
}

func TestApplyConflicts(t *testing.T) {
	// Created by client-side apply: an Update by kubectl-client-side-apply.
	live := js(t, appliedWeb)
	csa := UpdateManagedFields(nil, live, "kubectl-client-side-apply", nil, deploymentSchema, t0)

	tests := []struct {
		name    string
		applied string
		force   bool
		err     string
	}{
		{name: "changed field owned by another manager", applied: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":3}}`,
			err: `Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps/v1: .spec.replicas`},
		{name: "two conflicts", applied: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":3,"template":{"spec":{"containers":[{"name":"web","image":"nginx:2"}]}}}}`,
			err: "Apply failed with 2 conflicts: conflicts with \"kubectl-client-side-apply\" using apps/v1:\n- .spec.replicas\n- .spec.template.spec.containers[name=\"web\"].image"},
		{name: "same value is shared, no conflict", applied: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":2}}`},
		{name: "force takes over", applied: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":3}}`, force: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, managed, err := Apply(live, js(t, tt.applied), "kubectl", csa, tt.force, deploymentSchema, t1)
			if tt.err != "" {
				var cerr *ConflictError
				require.ErrorAs(t, err, &cerr)
				assert.Equal(t, tt.err, cerr.Error())
				assert.Equal(t, Conflict{Manager: `"kubectl-client-side-apply" using apps/v1`, Field: ".spec.replicas"}, cerr.Conflicts[0])
				return
			}
			require.NoError(t, err)
			replicas := got["spec"].(map[string]any)["replicas"]
			csaFields := fieldsOf(t, managed, "kubectl-client-side-apply", "Update")
			if tt.force {
				assert.Equal(t, int64(3), replicas)
				assert.NotContains(t, csaFields, "f:replicas")
			} else {
				assert.Equal(t, int64(2), replicas)
				assert.Contains(t, csaFields, "f:replicas")
			}
			assert.Equal(t, `{"f:spec":{"f:replicas":{}}}`, fieldsOf(t, managed, "kubectl", "Apply"))
			// The rest of the object is untouched by a partial apply.
			assert.Equal(t, live["spec"].(map[string]any)["template"], got["spec"].(map[string]any)["template"])
		})
	}
}

func TestApplyRemovesDroppedFields(t *testing.T) {
	first := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","labels":{"app":"web","tier":"front"}},"data":{"a":"1","b":"2"}}`
	second := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","labels":{"app":"web"}},"data":{"a":"1"}}`
	schema := obj(map[string]*testSchema{"metadata": metadataSchema, "data": stringMap})
	live, managed, err := Apply(nil, js(t, first), "kubectl", nil, false, schema, t0)
	require.NoError(t, err)

	// Someone else also sets data.b, with an Update.
	updated := copyMap(live)
	updated["data"].(map[string]any)["b"] = "2"
	updated["data"].(map[string]any)["c"] = "3"
	managed = UpdateManagedFields(live, updated, "editor", managed, schema, t1)
	assert.Equal(t, `{"f:data":{"f:c":{}}}`, fieldsOf(t, managed, "editor", "Update"), "b kept its value: not changed, not taken")

	got, managed, err := Apply(updated, js(t, second), "kubectl", managed, false, schema, t2)
	require.NoError(t, err)
	assert.Equal(t, js(t, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","labels":{"app":"web"}},"data":{"a":"1","c":"3"}}`), got)
	assert.Equal(t, `{"f:data":{"f:a":{}},"f:metadata":{"f:labels":{"f:app":{}}}}`, fieldsOf(t, managed, "kubectl", "Apply"))

	// Had editor changed b, it would own it and b would stay.
	changed := copyMap(live)
	changed["data"].(map[string]any)["b"] = "22"
	managed2 := UpdateManagedFields(live, changed, "editor", nil, schema, t1)
	_, applyManaged, err := Apply(nil, js(t, first), "kubectl", nil, false, schema, t0)
	require.NoError(t, err)
	managed2 = append(managed2, applyManaged...)
	got, _, err = Apply(changed, js(t, second), "kubectl", managed2, false, schema, t2)
	require.NoError(t, err)
	assert.Equal(t, "22", got["data"].(map[string]any)["b"])
}

func TestApplyMergesKeyedLists(t *testing.T) {
	live, managed, err := Apply(nil, js(t, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","finalizers":["mine"]},
	  "spec":{"template":{"spec":{"containers":[{"name":"web","image":"a"},{"name":"old","image":"b"}]}}}}`), "kubectl", nil, false, deploymentSchema, t0)
	require.NoError(t, err)
	// A webhook-like writer adds a sidecar and a finalizer.
	injected := copyMap(live)
	spec := injected["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
	spec["containers"] = append(spec["containers"].([]any), map[string]any{"name": "sidecar", "image": "envoy"})
	injected["metadata"].(map[string]any)["finalizers"] = []any{"mine", "theirs"}
	managed = UpdateManagedFields(live, injected, "injector", managed, deploymentSchema, t1)
	assert.Equal(t, `{"f:metadata":{"f:finalizers":{"v:\"theirs\"":{}}},"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"sidecar\"}":{".":{},"f:image":{},"f:name":{}}}}}}}`,
		fieldsOf(t, managed, "injector", "Update"))

	// Re-apply: drop "old" and "mine", change web's image, add "new" first.
	got, _, err := Apply(injected, js(t, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},
	  "spec":{"template":{"spec":{"containers":[{"name":"new","image":"n"},{"name":"web","image":"a2"}]}}}}`), "kubectl", managed, false, deploymentSchema, t2)
	require.NoError(t, err)
	assert.Equal(t, `{"metadata":{"finalizers":["theirs"],"name":"web"},"spec":{"template":{"spec":{"containers":[{"image":"n","name":"new"},{"image":"a2","name":"web"},{"image":"envoy","name":"sidecar"}]}}}}`,
		asJSON(t, map[string]any{"metadata": got["metadata"], "spec": got["spec"]}))
}

func TestUpdateTakesOwnershipFromApplier(t *testing.T) {
	live, managed, err := Apply(nil, js(t, appliedWeb), "kubectl", nil, false, deploymentSchema, t0)
	require.NoError(t, err)
	// kubectl scale: a merge patch of the scale subresource, an Update.
	scaled := copyMap(live)
	scaled["spec"].(map[string]any)["replicas"] = int64(5)
	managed = UpdateManagedFields(live, scaled, "kubectl", managed, deploymentSchema, t1)
	assert.Equal(t, `{"f:spec":{"f:replicas":{}}}`, fieldsOf(t, managed, "kubectl", "Update"))
	assert.NotContains(t, fieldsOf(t, managed, "kubectl", "Apply"), "f:replicas")
	// Entries are sorted as Kubernetes sorts them: Apply before Update.
	require.Len(t, managed, 2)
	assert.Equal(t, []string{"Apply", "Update"}, []string{managed[0].Operation, managed[1].Operation})
	assert.Equal(t, t1, managed[1].Time)

	// Applying replicas: 2 again now conflicts with the Update.
	_, _, err = Apply(scaled, js(t, appliedWeb), "kubectl", managed, false, deploymentSchema, t2)
	var cerr *ConflictError
	require.ErrorAs(t, err, &cerr)
	assert.Equal(t, `Apply failed with 1 conflict: conflict with "kubectl" using apps/v1: .spec.replicas`, cerr.Error())
}

func TestUpdateManagedFieldsCreate(t *testing.T) {
	cm := js(t, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"default","uid":"u","labels":{"app":"x"}},"data":{"a":"1"}}`)
	schema := obj(map[string]*testSchema{"metadata": metadataSchema, "data": stringMap})
	managed := UpdateManagedFields(nil, cm, "kubectl-create", nil, schema, t0)
	require.Len(t, managed, 1)
	assert.Equal(t, ManagedFields{Manager: "kubectl-create", Operation: "Update", APIVersion: "v1", Time: t0, FieldsType: "FieldsV1",
		FieldsV1: json.RawMessage(`{"f:data":{".":{},"f:a":{}},"f:metadata":{"f:labels":{".":{},"f:app":{}}}}`)}, managed[0])

	// A write that changes nothing records nothing.
	same := UpdateManagedFields(cm, copyMap(cm), "other", managed, schema, t1)
	assert.Equal(t, managed, same)

	// Removing a field removes it from its owner.
	removed := copyMap(cm)
	delete(removed["data"].(map[string]any), "a")
	after := UpdateManagedFields(cm, removed, "other", managed, schema, t1)
	assert.Equal(t, `{"f:data":{},"f:metadata":{"f:labels":{".":{},"f:app":{}}}}`, fieldsOf(t, after, "kubectl-create", "Update"))
}

func TestApplyRejects(t *testing.T) {
	_, _, err := Apply(nil, js(t, appliedWeb), "", nil, false, nil, t0)
	var perr *Error
	require.ErrorAs(t, err, &perr)
	assert.Equal(t, 400, perr.Code)
	assert.Equal(t, "fieldManager: Required value: is required for apply patch", perr.Message)

	_, _, err = Apply(nil, js(t, `{"metadata":{"managedFields":[]}}`), "m", nil, false, nil, t0)
	require.ErrorAs(t, err, &perr)
	assert.Equal(t, 400, perr.Code)
}

func TestFieldsV1RoundTrip(t *testing.T) {
	raw := json.RawMessage(`{"f:metadata":{"f:finalizers":{".":{},"v:\"a\"":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"web\"}":{".":{},"f:image":{}}},"f:items":{"i:0":{}}}}`)
	set, err := decodeFieldsV1(raw)
	require.NoError(t, err)
	assert.Equal(t, 5, set.len())
	assert.JSONEq(t, string(raw), string(encodeFieldsV1(set)))

	var strs []string
	for _, p := range set.sorted() {
		strs = append(strs, p.String())
	}
	assert.Equal(t, []string{".metadata.finalizers", `.metadata.finalizers[="a"]`, ".spec.containers[name=\"web\"]", ".spec.containers[name=\"web\"].image", ".spec.items[0]"}, strs[:5])

	for _, bad := range []string{`[]`, `{"x":{}}`, `{"f:a":1}`, `{"i:x":{}}`} {
		_, err := decodeFieldsV1(json.RawMessage(bad))
		assert.Error(t, err, bad)
	}
}

func TestManagedFieldsOnObject(t *testing.T) {
	o := js(t, `{"metadata":{"name":"x"}}`)
	m := []ManagedFields{{Manager: "a", Operation: "Apply", APIVersion: "v1", Time: t0, FieldsType: "FieldsV1", FieldsV1: json.RawMessage(`{"f:data":{}}`)}}
	require.NoError(t, SetManagedFields(o, m))
	assert.Equal(t, `{"metadata":{"managedFields":[{"apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:data":{}},"manager":"a","operation":"Apply","time":"2026-01-01T00:00:00Z"}],"name":"x"}}`, asJSON(t, o))
	got, err := GetManagedFields(o)
	require.NoError(t, err)
	assert.Equal(t, m, got)
	require.NoError(t, SetManagedFields(o, nil))
	assert.Equal(t, `{"metadata":{"name":"x"}}`, asJSON(t, o))
}

func TestApplyConflictsWithSeveralManagers(t *testing.T) {
	live := js(t, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1","b":"2","c":"3"}}`)
	schema := obj(map[string]*testSchema{"metadata": metadataSchema, "data": stringMap})
	managed := []ManagedFields{
		{Manager: "zeta", Operation: "Update", APIVersion: "v1", Time: t0, FieldsType: "FieldsV1", FieldsV1: json.RawMessage(`{"f:data":{"f:a":{}}}`)},
		{Manager: "alpha", Operation: "Apply", APIVersion: "v1", Time: t0, FieldsType: "FieldsV1", FieldsV1: json.RawMessage(`{"f:data":{"f:b":{},"f:c":{}}}`)},
	}
	_, _, err := Apply(live, js(t, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"x","b":"y","c":"z"}}`), "me", managed, false, schema, t1)
	var cerr *ConflictError
	require.ErrorAs(t, err, &cerr)
	assert.Equal(t, "Apply failed with 3 conflicts: conflicts with \"alpha\":\n- .data.b\n- .data.c\nconflicts with \"zeta\" using v1:\n- .data.a", cerr.Error())
	assert.Len(t, cerr.Conflicts, 3)
}

func FuzzApply(f *testing.F) {
	f.Add([]byte(webDeployment), []byte(appliedWeb), []byte(`{"f:spec":{"f:replicas":{}}}`), false)
	f.Add([]byte(`{"metadata":{"finalizers":["a",{"x":1}]},"spec":{"template":{"spec":{"containers":[{"name":1},{"image":"x"}]}}}}`),
		[]byte(`{"metadata":{"finalizers":[null,"a"]},"spec":{"template":{"spec":{"containers":[{"name":1,"ports":[{"containerPort":80}]}]}}}}`),
		[]byte(`{"f:metadata":{"f:finalizers":{"v:\"a\"":{}}},"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\"name\":1}":{".":{},"f:image":{}},"i:0":{}}}}}}`), true)
	f.Fuzz(func(t *testing.T, liveJSON, appliedJSON, fields []byte, force bool) {
		live, err := DecodeObject(liveJSON)
		if err != nil {
			return
		}
		applied, err := DecodeObject(appliedJSON)
		if err != nil {
			return
		}
		managed := []ManagedFields{{Manager: "other", Operation: "Update", APIVersion: "v1", FieldsV1: fields}}
		before := asJSON(t, live)
		for _, s := range []Schema{deploymentSchema, nil} {
			out, newManaged, err := Apply(live, applied, "me", managed, force, s, t1)
			if err == nil {
				asJSON(t, out)
				_ = UpdateManagedFields(live, out, "editor", newManaged, s, t2)
			}
		}
		if asJSON(t, live) != before {
			t.Fatalf("live object modified")
		}
	})
}
