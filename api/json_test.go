package api

import (
	"bytes"
	"encoding/json"
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
	"k8s.io/apimachinery/pkg/runtime/schema"
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
		return &metav1.WatchEvent{}
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
	var pod corev1.Pod
	require.NoError(t, json.Unmarshal(doc, &pod))
	assert.Equal(t, "web-7d4b9c8f6d-x2k9p", pod.Name) // promoted from ObjectMeta
	assert.Equal(t, "Pod", pod.Kind)                  // promoted from TypeMeta
	assert.Equal(t, schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, pod.GroupVersionKind())
	assert.Equal(t, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), pod.CreationTimestamp.UTC())
	c := pod.Spec.Containers[0]
	assert.Equal(t, int64(100), c.Resources.Requests.Cpu().MilliValue())
	assert.Equal(t, int64(64*1024*1024), c.Resources.Requests.Memory().Value())
	assert.Equal(t, intstr.FromString("http"), c.ReadinessProbe.HTTPGet.Port)
	assert.Equal(t, corev1.PodRunning, pod.Status.Phase)
	assert.Equal(t, corev1.PodReady, pod.Status.Conditions[2].Type)
	assert.True(t, pod.Status.Conditions[2].LastProbeTime.IsZero())
	ref := GetControllerOf(&pod.ObjectMeta)
	require.NotNil(t, ref)
	assert.Equal(t, "ReplicaSet", ref.Kind)

	var d appsv1.Deployment
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
		{"empty pod", &corev1.Pod{}, `{"metadata":{},"spec":{"containers":null},"status":{}}`},
		{"empty deployment", &appsv1.Deployment{}, `{"metadata":{},"spec":{"selector":null,"template":{"metadata":{},"spec":{"containers":null}},"strategy":{}},"status":{}}`},
		{"service port", corev1.ServicePort{Port: 80, TargetPort: intstr.FromInt32(8080)}, `{"port":80,"targetPort":8080}`},
		{"container status", corev1.ContainerStatus{Name: "c"}, `{"name":"c","state":{},"lastState":{},"ready":false,"restartCount":0,"image":"","imageID":""}`},
		{"condition", metav1.Condition{Type: "Ready", Status: metav1.ConditionTrue}, `{"type":"Ready","status":"True","lastTransitionTime":null,"reason":"","message":""}`},
		{"owner", metav1.OwnerReference{APIVersion: "v1", Kind: "Pod", Name: "p", UID: "u"}, `{"apiVersion":"v1","kind":"Pod","name":"p","uid":"u"}`},
		{"resources", corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("0.1")}}, `{"requests":{"cpu":"100m"}}`},
		{"secret bytes", corev1.Secret{Data: map[string][]byte{"k": []byte("v")}}, `{"metadata":{},"data":{"k":"dg=="}}`},
		{"list", corev1.PodList{Items: []corev1.Pod{}}, `{"metadata":{},"items":[]}`},
		{"watch event", metav1.WatchEvent{Type: string(WatchEventAdded), Object: runtime.RawExtension{Raw: json.RawMessage(`{"a":1}`)}}, `{"type":"ADDED","object":{"a":1}}`},
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
	assert.Equal(t, "pods", schema.GroupResource{Resource: "pods"}.String())
	assert.Equal(t, "replicasets.apps", schema.GroupResource{Group: "apps", Resource: "replicasets"}.String())
	assert.Equal(t, "Pod", schema.GroupKind{Kind: "Pod"}.String())
	assert.Equal(t, "ReplicaSet.apps", schema.GroupKind{Group: "apps", Kind: "ReplicaSet"}.String())
	assert.Equal(t, "apps/v1, Kind=Deployment", schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}.String())
	assert.Equal(t, "/v1, Kind=Pod", schema.GroupVersionKind{Version: "v1", Kind: "Pod"}.String())
	assert.Equal(t, "apps/v1, Resource=deployments", schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}.String())
	assert.Equal(t, "v1", schema.GroupVersion{Version: "v1"}.String())
	assert.Equal(t, "apps/v1", schema.GroupVersion{Group: "apps", Version: "v1"}.String())

	for in, want := range map[string]schema.GroupVersion{"": {}, "v1": {Version: "v1"}, "apps/v1": {Group: "apps", Version: "v1"}} {
		got, err := schema.ParseGroupVersion(in)
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
	_, err := schema.ParseGroupVersion("a/b/c")
	assert.EqualError(t, err, "unexpected GroupVersion string: a/b/c")
	assert.Equal(t, schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, schema.FromAPIVersionAndKind("apps/v1", "Deployment"))

	var tm metav1.TypeMeta
	tm.SetGroupVersionKind(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "ReplicaSet"})
	assert.Equal(t, metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"}, tm)
	gvr := schema.GroupVersion{Group: "apps", Version: "v1"}.WithResource("deployments")
	assert.Equal(t, schema.GroupResource{Group: "apps", Resource: "deployments"}, gvr.GroupResource())
}

func TestControllerRef(t *testing.T) {
	owner := metav1.ObjectMeta{Name: "web", UID: "u1"}
	ref := NewControllerRef(&owner, schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "ReplicaSet"})
	assert.Equal(t, "apps/v1", ref.APIVersion)
	assert.True(t, *ref.Controller)
	assert.True(t, *ref.BlockOwnerDeletion)
	no := false
	child := metav1.ObjectMeta{OwnerReferences: []metav1.OwnerReference{{UID: "other", Controller: &no}, *ref}}
	assert.Equal(t, ref, GetControllerOf(&child))
	assert.True(t, IsControlledBy(&child, &owner))
	assert.False(t, IsControlledBy(&child, &metav1.ObjectMeta{UID: "other"}))
	assert.Nil(t, GetControllerOf(&metav1.ObjectMeta{}))
}

func TestResourceListAccessors(t *testing.T) {
	rl := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("1Gi")}
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
		var tm metav1.Time
		if err := json.Unmarshal(b, &tm); err == nil {
			out, err := json.Marshal(tm)
			if err != nil {
				return // years outside 0-9999 cannot be printed, as in Kubernetes
			}
			var back metav1.Time
			require.NoError(t, json.Unmarshal(out, &back), "%s", out)
			require.True(t, back.Equal(&metav1.Time{Time: tm.Truncate(time.Second)}), "%s -> %s", b, out)
		}
		var mt metav1.MicroTime
		if err := json.Unmarshal(b, &mt); err == nil {
			if out, err := json.Marshal(mt); err == nil {
				var back metav1.MicroTime
				require.NoError(t, json.Unmarshal(out, &back), "%s", out)
				require.True(t, back.Time.Equal(mt.Truncate(time.Microsecond)), "%s -> %s", b, out)
			}
		}
	})
}
