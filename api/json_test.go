package api

import (
	"bytes"
	"encoding/json"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// newForKind returns a new value of the type the JSON document names.
func newForKind(t *testing.T, doc []byte) any {
	var tm struct {
		Kind string `json:"kind"`
		Type string `json:"type"`
	}
	require.NoError(t, json.Unmarshal(doc, &tm))
	if tm.Kind == "" && tm.Type != "" {
		return &WatchEvent{}
	}
	for _, s := range servedStructs() {
		if reflect.TypeOf(s).Elem().Name() == tm.Kind {
			return reflect.New(reflect.TypeOf(s).Elem()).Interface()
		}
	}
	t.Fatalf("no type for kind %q", tm.Kind)
	return nil
}

// roundTrip decodes doc strictly (an unknown field fails: our types would
// drop it) and checks that encoding gives the same JSON back.
func roundTrip(t *testing.T, doc []byte) any {
	t.Helper()
	obj := newForKind(t, doc)
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(obj))
	out, err := json.Marshal(obj)
	require.NoError(t, err)
	assert.JSONEq(t, string(doc), string(out))
	return obj
}

func TestRoundTripKubectlOutput(t *testing.T) {
	for _, name := range []string{"pod.json", "deployment.json", "node.json", "service.json"} {
		t.Run(name, func(t *testing.T) {
			doc, err := os.ReadFile("testdata/" + name)
			require.NoError(t, err)
			roundTrip(t, doc)
		})
	}
	var docs []json.RawMessage
	raw, err := os.ReadFile("testdata/others.json")
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &docs))
	require.Greater(t, len(docs), 15)
	for _, doc := range docs {
		obj := newForKind(t, doc)
		t.Run(reflect.TypeOf(obj).Elem().Name(), func(t *testing.T) { roundTrip(t, doc) })
	}
}

func TestDecodedPod(t *testing.T) {
	doc, err := os.ReadFile("testdata/pod.json")
	require.NoError(t, err)
	var pod Pod
	require.NoError(t, json.Unmarshal(doc, &pod))
	assert.Equal(t, "web-7d4b9c8f6d-x2k9p", pod.Name) // promoted from ObjectMeta
	assert.Equal(t, "Pod", pod.Kind)                  // promoted from TypeMeta
	assert.Equal(t, GroupVersionKind{Version: "v1", Kind: "Pod"}, pod.GroupVersionKind())
	assert.Equal(t, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), pod.CreationTimestamp.UTC())
	c := pod.Spec.Containers[0]
	assert.Equal(t, int64(100), c.Resources.Requests.Cpu().MilliValue())
	assert.Equal(t, int64(64*1024*1024), c.Resources.Requests.Memory().Value())
	assert.Equal(t, intstr.FromString("http"), c.ReadinessProbe.HTTPGet.Port)
	assert.Equal(t, PodRunning, pod.Status.Phase)
	assert.Equal(t, PodReady, pod.Status.Conditions[2].Type)
	assert.True(t, pod.Status.Conditions[2].LastProbeTime.IsZero())
	ref := GetControllerOf(&pod.ObjectMeta)
	require.NotNil(t, ref)
	assert.Equal(t, "ReplicaSet", ref.Kind)

	var d Deployment
	doc, err = os.ReadFile("testdata/deployment.json")
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(doc, &d))
	surge, err := intstr.GetScaledValueFromIntOrPercent(d.Spec.Strategy.RollingUpdate.MaxSurge, int(*d.Spec.Replicas), true)
	require.NoError(t, err)
	assert.Equal(t, 1, surge)
	assert.Equal(t, "1", d.Annotations[RevisionAnnotation])
}

func TestZeroValuesMarshalLikeKubernetes(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"empty pod", &Pod{}, `{"metadata":{},"spec":{"containers":null},"status":{}}`},
		{"empty deployment", &Deployment{}, `{"metadata":{},"spec":{"selector":null,"template":{"metadata":{},"spec":{"containers":null}},"strategy":{}},"status":{}}`},
		{"service port", ServicePort{Port: 80, TargetPort: intstr.FromInt32(8080)}, `{"port":80,"targetPort":8080}`},
		{"container status", ContainerStatus{Name: "c"}, `{"name":"c","state":{},"lastState":{},"ready":false,"restartCount":0,"image":"","imageID":""}`},
		{"condition", Condition{Type: "Ready", Status: metav1.ConditionTrue}, `{"type":"Ready","status":"True","lastTransitionTime":null,"reason":"","message":""}`},
		{"owner", OwnerReference{APIVersion: "v1", Kind: "Pod", Name: "p", UID: "u"}, `{"apiVersion":"v1","kind":"Pod","name":"p","uid":"u"}`},
		{"resources", ResourceRequirements{Requests: ResourceList{ResourceCPU: resource.MustParse("0.1")}}, `{"requests":{"cpu":"100m"}}`},
		{"secret bytes", Secret{Data: map[string][]byte{"k": []byte("v")}}, `{"metadata":{},"data":{"k":"dg=="}}`},
		{"list", PodList{Items: []Pod{}}, `{"metadata":{},"items":[]}`},
		{"watch event", WatchEvent{Type: string(WatchEventAdded), Object: RawExtension{Raw: json.RawMessage(`{"a":1}`)}}, `{"type":"ADDED","object":{"a":1}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.in)
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(b))
		})
	}
}

func TestSchemaStrings(t *testing.T) {
	assert.Equal(t, "pods", GroupResource{Resource: "pods"}.String())
	assert.Equal(t, "replicasets.apps", GroupResource{Group: "apps", Resource: "replicasets"}.String())
	assert.Equal(t, "Pod", GroupKind{Kind: "Pod"}.String())
	assert.Equal(t, "ReplicaSet.apps", GroupKind{Group: "apps", Kind: "ReplicaSet"}.String())
	assert.Equal(t, "apps/v1, Kind=Deployment", GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}.String())
	assert.Equal(t, "/v1, Kind=Pod", GroupVersionKind{Version: "v1", Kind: "Pod"}.String())
	assert.Equal(t, "apps/v1, Resource=deployments", GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}.String())
	assert.Equal(t, "v1", GroupVersion{Version: "v1"}.String())
	assert.Equal(t, "apps/v1", GroupVersion{Group: "apps", Version: "v1"}.String())

	for in, want := range map[string]GroupVersion{"": {}, "v1": {Version: "v1"}, "apps/v1": {Group: "apps", Version: "v1"}} {
		got, err := ParseGroupVersion(in)
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
	_, err := ParseGroupVersion("a/b/c")
	assert.EqualError(t, err, "unexpected GroupVersion string: a/b/c")
	assert.Equal(t, GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, FromAPIVersionAndKind("apps/v1", "Deployment"))

	var tm TypeMeta
	tm.SetGroupVersionKind(GroupVersionKind{Group: "apps", Version: "v1", Kind: "ReplicaSet"})
	assert.Equal(t, TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"}, tm)
	gvr := GroupVersion{Group: "apps", Version: "v1"}.WithResource("deployments")
	assert.Equal(t, GroupResource{Group: "apps", Resource: "deployments"}, gvr.GroupResource())
}

func TestControllerRef(t *testing.T) {
	owner := ObjectMeta{Name: "web", UID: "u1"}
	ref := NewControllerRef(&owner, GroupVersionKind{Group: "apps", Version: "v1", Kind: "ReplicaSet"})
	assert.Equal(t, "apps/v1", ref.APIVersion)
	assert.True(t, *ref.Controller)
	assert.True(t, *ref.BlockOwnerDeletion)
	no := false
	child := ObjectMeta{OwnerReferences: []OwnerReference{{UID: "other", Controller: &no}, *ref}}
	assert.Equal(t, ref, GetControllerOf(&child))
	assert.True(t, IsControlledBy(&child, &owner))
	assert.False(t, IsControlledBy(&child, &ObjectMeta{UID: "other"}))
	assert.Nil(t, GetControllerOf(&ObjectMeta{}))
}

func TestResourceListAccessors(t *testing.T) {
	rl := ResourceList{ResourceCPU: resource.MustParse("2"), ResourceMemory: resource.MustParse("1Gi")}
	assert.Equal(t, "2", rl.Cpu().String())
	assert.Equal(t, "1Gi", rl.Memory().String())
	assert.True(t, rl.Pods().IsZero())
	q := rl.Cpu()
	q.Add(resource.MustParse("1"))
	assert.Equal(t, "2", rl.Cpu().String(), "accessors return copies")
}

func FuzzTimeUnmarshalJSON(f *testing.F) {
	for _, s := range []string{`null`, `"2026-01-02T03:04:05Z"`, `"2026-01-02T04:04:05+01:00"`, `"2026-01-02T03:04:05.123456Z"`, `"x"`, `5`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var tm Time
		if err := json.Unmarshal(b, &tm); err == nil {
			out, err := json.Marshal(tm)
			if err != nil {
				return // years outside 0-9999 cannot be printed, as in Kubernetes
			}
			var back Time
			require.NoError(t, json.Unmarshal(out, &back), "%s", out)
			require.True(t, back.Equal(&Time{Time: tm.Truncate(time.Second)}), "%s -> %s", b, out)
		}
		var mt MicroTime
		if err := json.Unmarshal(b, &mt); err == nil {
			if out, err := json.Marshal(mt); err == nil {
				var back MicroTime
				require.NoError(t, json.Unmarshal(out, &back), "%s", out)
				require.True(t, back.Time.Equal(mt.Truncate(time.Microsecond)), "%s -> %s", b, out)
			}
		}
	})
}
