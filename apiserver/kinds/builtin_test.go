package kinds

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/schema"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/store"
	"github.com/kubesim/kubesim/store/boltstore"
)

func TestBuiltinResources(t *testing.T) {
	all := Builtin()
	names := map[string]*registry.Resource{}
	for _, r := range all {
		// Versions of one resource share its name (HPAs at autoscaling/v2
		// and v1); the first listed is the preferred one.
		if first, ok := names[r.Name]; ok && first.Group != r.Group {
			// One name in two groups is one storage served twice: core
			// and events.k8s.io Events, as in kube-apiserver.
			require.Equal(t, "events", r.Name)
			require.Equal(t, first.GroupResource(), r.StorageGroupResource, r.Name)
		} else if ok {
			require.Equal(t, first.Group, r.Group, r.Name)
			require.NotEqual(t, first.Version, r.Version, r.Name)
		} else {
			names[r.Name] = r
		}
		assert.NotEmpty(t, r.Kind)
		assert.Equal(t, r.Kind+"List", r.ListKind)
		assert.NotNil(t, r.Strategy, r.Name)
		assert.NotNil(t, r.Schema, r.Name)
		assert.True(t, r.StrategicMergePatch, r.Name)
		obj := r.New()
		assert.NotNil(t, api.Meta(obj))
	}
	assert.NotContains(t, names, "bindings")
	for name, want := range map[string]struct {
		group, short string
		namespaced   bool
		status       bool
		scale        bool
		all          bool
	}{
		"namespaces":   {"", "ns", false, true, false, false},
		"nodes":        {"", "no", false, true, false, false},
		"pods":         {"", "po", true, true, false, true},
		"services":     {"", "svc", true, true, false, true},
		"endpoints":    {"", "ep", true, false, false, false},
		"configmaps":   {"", "cm", true, false, false, false},
		"secrets":      {"", "", true, false, false, false},
		"events":       {"", "ev", true, false, false, false},
		"replicasets":  {"apps", "rs", true, true, true, true},
		"deployments":  {"apps", "deploy", true, true, true, true},
		"statefulsets": {"apps", "sts", true, true, true, true},
		"leases":       {"coordination.k8s.io", "", true, false, false, false},
	} {
		r := names[name]
		require.NotNil(t, r, name)
		assert.Equal(t, want.group, r.Group, name)
		assert.Equal(t, "v1", r.Version, name)
		if want.short != "" {
			assert.Equal(t, []string{want.short}, r.ShortNames, name)
		} else {
			assert.Empty(t, r.ShortNames, name)
		}
		assert.Equal(t, want.namespaced, r.Namespaced, name)
		assert.Equal(t, want.status, r.StatusSubresource, name)
		assert.Equal(t, want.scale, r.Scale != nil, name)
		if want.all {
			assert.Equal(t, []string{"all"}, r.Categories, name)
		} else {
			assert.Empty(t, r.Categories, name)
		}
	}
	assert.Equal(t, &registry.ScaleSubresource{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas", LabelSelectorPath: ".spec.selector"},
		names["deployments"].Scale)
	assert.Contains(t, names["pods"].CreateSubresources, "binding")
	assert.Equal(t, "Binding", names["pods"].CreateSubresources["binding"].Resource.Kind)

	// Each call builds new values: changing one does not change the next.
	all[0].ShortNames[0] = "changed"
	all[0].Table.Columns[0].Name = "changed"
	again := Builtin()
	assert.Equal(t, "ns", again[0].ShortNames[0])
	assert.Equal(t, "Name", again[0].Table.Columns[0].Name)
}

func TestSchemasCarryPatchMergeKeys(t *testing.T) {
	pod := schema.NewNode(builtin(t, "pods").Schema)
	containers := pod.Field("spec").Field("containers")
	strategy, key := containers.PatchStrategy()
	assert.Equal(t, "merge", strategy)
	assert.Equal(t, "name", key)
	_, key = containers.Elem().Field("ports").PatchStrategy()
	assert.Equal(t, "containerPort", key)
	_, key = containers.Elem().Field("env").PatchStrategy()
	assert.Equal(t, "name", key)

	deploy := schema.NewNode(builtin(t, "deployments").Schema)
	_, key = deploy.Field("spec").Field("template").Field("spec").Field("containers").PatchStrategy()
	assert.Equal(t, "name", key)
	_, key = schema.NewNode(builtin(t, "services").Schema).Field("spec").Field("ports").PatchStrategy()
	assert.Equal(t, "port", key)
}

func TestPodGracePeriodAndFields(t *testing.T) {
	res := builtin(t, "pods")
	p := validPod()
	DefaultPodSpec(&p.Spec)
	assert.Equal(t, int64(0), res.GracePeriod(p, nil), "an unbound pod goes at once")
	p.Spec.NodeName = "node-1"
	assert.Equal(t, int64(30), res.GracePeriod(p, nil))
	assert.Equal(t, int64(5), res.GracePeriod(p, ptr(int64(5))))
	assert.Equal(t, int64(1), res.GracePeriod(p, ptr(int64(-3))))
	p.Status.Phase = corev1.PodSucceeded
	assert.Equal(t, int64(0), res.GracePeriod(p, nil), "a finished pod goes at once")

	f := res.Fields(p)
	assert.Equal(t, "node-1", f["spec.nodeName"])
	assert.Equal(t, "Succeeded", f["status.phase"])
	assert.Equal(t, "default-scheduler", f["spec.schedulerName"])
	for _, k := range []string{"spec.restartPolicy", "spec.serviceAccountName", "status.podIP", "status.nominatedNodeName"} {
		assert.Contains(t, f, k)
	}
	ev := builtin(t, "events").Fields(&corev1.Event{InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "web", UID: "u"}, Reason: "Scheduled", Type: "Normal",
		Source: corev1.EventSource{Component: "kubelet"}})
	assert.Equal(t, "Pod", ev["involvedObject.kind"])
	assert.Equal(t, "u", ev["involvedObject.uid"])
	assert.Equal(t, "kubelet", ev["source"])
	assert.Equal(t, "default-scheduler", builtin(t, "events").Fields(&corev1.Event{ReportingController: "default-scheduler"})["source"],
		"events of the new API fall back to reportingComponent")
	assert.Equal(t, "Scheduled", ev["reason"])
	for _, k := range []string{"involvedObject.namespace", "involvedObject.name", "involvedObject.apiVersion", "involvedObject.resourceVersion", "involvedObject.fieldPath", "reportingComponent", "type"} {
		assert.Contains(t, ev, k)
	}
}

// builtinStores opens a bbolt store in a temporary directory and makes a
// registry store over it for each built-in resource, in Builtin's order,
// on one fake clock; decorate puts each resource's storage decorations
// (the conversions of the versions not stored as they are served, the
// Services' allocators) between its store and the bbolt one.
func builtinStores(t *testing.T, decorate bool) ([]*registry.Store, *clock.Fake) {
	t.Helper()
	db, err := boltstore.Open(boltstore.Config{Path: filepath.Join(t.TempDir(), "kubesim.db"), UnsafeNoFsync: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	clk := clock.NewFake(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	ids := registry.NewIDs(rand.Reader)
	var out []*registry.Store
	for _, r := range Builtin() {
		var storage store.Interface = db
		if decorate && r.DecorateStorage != nil {
			storage = r.DecorateStorage(storage)
		}
		st, err := registry.NewStore(registry.Config{Resource: r, Storage: storage, Clock: clk, IDs: ids})
		require.NoError(t, err)
		out = append(out, st)
	}
	return out, clk
}

// stores is builtinStores without decorations, keyed by resource name.
func stores(t *testing.T) (map[string]*registry.Store, *clock.Fake) {
	all, clk := builtinStores(t, false)
	out := map[string]*registry.Store{}
	for _, st := range all {
		r := st.Resource()
		// events.k8s.io Events keep "events" for the core group's.
		if prev, ok := out[r.Name]; !ok || prev.Resource().Group == r.Group {
			out[r.Name] = st
		}
	}
	return out, clk
}

func TestThroughTheRegistry(t *testing.T) {
	ctx := context.Background()
	st, clk := stores(t)
	pods := st["pods"]

	// Create: defaults, Pending status, client status dropped.
	in := validPod()
	in.Status.Phase = corev1.PodRunning
	obj, err := pods.Create(ctx, "default", in, registry.CreateOptions{})
	require.NoError(t, err)
	pod := obj.(*corev1.Pod)
	assert.Equal(t, corev1.PodPending, pod.Status.Phase)
	assert.Equal(t, corev1.PodQOSBestEffort, pod.Status.QOSClass)
	assert.Equal(t, corev1.RestartPolicyAlways, pod.Spec.RestartPolicy)

	// Invalid creates are refused with Kubernetes' message.
	bad := validPod()
	bad.Name = "bad"
	bad.Spec.Containers[0].Image = ""
	_, err = pods.Create(ctx, "default", bad, registry.CreateOptions{})
	require.True(t, api.IsInvalid(err), "%v", err)
	assert.Equal(t, `Pod "bad" is invalid: spec.containers[0].image: Required value`, err.Error())

	// Update: the image may change, a port may not.
	_, _, err = pods.Update(ctx, "default", "web", func(cur api.Object) (api.Object, error) {
		p := cur.(*corev1.Pod)
		p.Spec.Containers[0].Image = "nginx:1.28"
		return p, nil
	}, registry.UpdateOptions{})
	require.NoError(t, err)
	_, _, err = pods.Update(ctx, "default", "web", func(cur api.Object) (api.Object, error) {
		p := cur.(*corev1.Pod)
		p.Spec.Containers[0].Ports[0].ContainerPort = 8080
		return p, nil
	}, registry.UpdateOptions{})
	require.True(t, api.IsInvalid(err), "%v", err)
	assert.Contains(t, err.Error(), "spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`")

	// An update may not bind either.
	_, _, err = pods.Update(ctx, "default", "web", func(cur api.Object) (api.Object, error) {
		p := cur.(*corev1.Pod)
		p.Spec.NodeName = "node-1"
		return p, nil
	}, registry.UpdateOptions{})
	require.True(t, api.IsInvalid(err), "%v", err)

	// Bind once; the second binding is a Conflict.
	binding := pods.Resource().CreateSubresources["binding"]
	bind := func(node string) (api.Object, error) {
		b := &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"}, Target: corev1.ObjectReference{Kind: "Node", Name: node}}
		return binding.Create(ctx, pods, "default", "web", b)
	}
	out, err := bind("node-1")
	require.NoError(t, err)
	raw, err := json.Marshal(out)
	require.NoError(t, err)
	assert.JSONEq(t, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":201}`, string(raw))
	assert.NotSame(t, api.Meta(out), api.Meta(api.DeepCopy(out)))
	obj, err = pods.Get(ctx, "default", "web")
	require.NoError(t, err)
	pod = obj.(*corev1.Pod)
	assert.Equal(t, "node-1", pod.Spec.NodeName)
	require.Len(t, pod.Status.Conditions, 1)
	assert.Equal(t, corev1.PodScheduled, pod.Status.Conditions[0].Type)
	assert.Equal(t, corev1.ConditionTrue, pod.Status.Conditions[0].Status)

	_, err = bind("node-2")
	require.True(t, api.IsConflict(err), "%v", err)
	assert.Equal(t, `Operation cannot be fulfilled on pods/binding "web": pod web is already assigned to node "node-1"`, err.Error())

	// A pod held back by a scheduling gate refuses a binding.
	gated := validPod()
	gated.Name = "gated"
	gated.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "example.com/quota"}}
	_, err = pods.Create(ctx, "default", gated, registry.CreateOptions{})
	require.NoError(t, err)
	_, err = binding.Create(ctx, pods, "default", "gated", &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "gated"}, Target: corev1.ObjectReference{Name: "node-1"}})
	require.True(t, api.IsConflict(err), "%v", err)
	assert.Equal(t, `Operation cannot be fulfilled on pods/binding "gated": pod gated has non-empty .spec.schedulingGates`, err.Error())

	// A binding for a pod that does not exist is NotFound.
	_, err = binding.Create(ctx, pods, "default", "ghost", &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "ghost"}, Target: corev1.ObjectReference{Name: "node-1"}})
	require.True(t, api.IsNotFound(err), "%v", err)

	// The kubelet's status write still works on a bound pod.
	_, _, err = pods.Update(ctx, "default", "web", func(cur api.Object) (api.Object, error) {
		p := cur.(*corev1.Pod)
		p.Status.Phase = corev1.PodRunning
		return p, nil
	}, registry.UpdateOptions{Subresource: "status"})
	require.NoError(t, err)

	// Deleting a bound pod is graceful: it stays with a deletionTimestamp.
	clk.Step(time.Minute)
	res, err := pods.Delete(ctx, "default", "web", nil, false)
	require.NoError(t, err)
	assert.False(t, res.Deleted)
	obj, err = pods.Get(ctx, "default", "web")
	require.NoError(t, err)
	pod = obj.(*corev1.Pod)
	require.NotNil(t, pod.DeletionTimestamp)
	assert.Equal(t, int64(30), *pod.DeletionGracePeriodSeconds)
	_, total, status, _ := PodStatusCells(pod, clk.Now())
	assert.Equal(t, "Terminating", status)
	assert.Equal(t, 1, total)

	// A pod being deleted refuses a binding.
	unbound := validPod()
	unbound.Name = "late"
	unbound.Finalizers = []string{"example.com/hold"}
	_, err = pods.Create(ctx, "default", unbound, registry.CreateOptions{})
	require.NoError(t, err)
	_, err = pods.Delete(ctx, "default", "late", nil, false)
	require.NoError(t, err)
	_, err = binding.Create(ctx, pods, "default", "late", &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "late"}, Target: corev1.ObjectReference{Name: "node-1"}})
	require.True(t, api.IsConflict(err), "%v", err)
	assert.Equal(t, `Operation cannot be fulfilled on pods/binding "late": pod late is being deleted, cannot be assigned to a host`, err.Error())

	// An unbound pod without finalizers is deleted at once.
	gone := validPod()
	gone.Name = "gone"
	_, err = pods.Create(ctx, "default", gone, registry.CreateOptions{})
	require.NoError(t, err)
	res, err = pods.Delete(ctx, "default", "gone", nil, false)
	require.NoError(t, err)
	assert.True(t, res.Deleted)
}

func TestWorkloadsAndNamespacesThroughTheRegistry(t *testing.T) {
	ctx := context.Background()
	st, _ := stores(t)

	obj, err := st["deployments"].Create(ctx, "default", validDeployment(), registry.CreateOptions{})
	require.NoError(t, err)
	assert.Equal(t, int32(1), *obj.(*appsv1.Deployment).Spec.Replicas)
	_, _, err = st["deployments"].Update(ctx, "default", "web", func(cur api.Object) (api.Object, error) {
		d := cur.(*appsv1.Deployment)
		d.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web", "v": "2"}}
		d.Spec.Template.Labels["v"] = "2"
		return d, nil
	}, registry.UpdateOptions{})
	require.True(t, api.IsInvalid(err), "%v", err)
	assert.Contains(t, err.Error(), "spec.selector: Invalid value: v1.LabelSelector{")
	assert.Contains(t, err.Error(), "field is immutable")

	// Namespaces: Active with the kubernetes finalizer; delete waits.
	obj, err = st["namespaces"].Create(ctx, "", &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}}, registry.CreateOptions{})
	require.NoError(t, err)
	assert.Equal(t, corev1.NamespaceActive, obj.(*corev1.Namespace).Status.Phase)
	res, err := st["namespaces"].Delete(ctx, "", "team-a", nil, false)
	require.NoError(t, err)
	assert.False(t, res.Deleted)
	obj, err = st["namespaces"].Get(ctx, "", "team-a")
	require.NoError(t, err)
	assert.Equal(t, corev1.NamespaceTerminating, obj.(*corev1.Namespace).Status.Phase)
	dropFinalizers := func(cur api.Object) (api.Object, error) {
		ns := cur.(*corev1.Namespace)
		ns.Spec.Finalizers = nil
		return ns, nil
	}
	// A plain update may not drop spec.finalizers, even now.
	obj, _, err = st["namespaces"].Update(ctx, "", "team-a", dropFinalizers, registry.UpdateOptions{})
	require.NoError(t, err)
	assert.Equal(t, []corev1.FinalizerName{corev1.FinalizerKubernetes}, obj.(*corev1.Namespace).Spec.Finalizers)
	// The namespace controller removes it through namespaces/finalize:
	// the namespace goes.
	_, _, err = st["namespaces"].Update(ctx, "", "team-a", dropFinalizers, registry.UpdateOptions{Subresource: "finalize"})
	require.NoError(t, err)
	_, err = st["namespaces"].Get(ctx, "", "team-a")
	require.True(t, api.IsNotFound(err), "%v", err)

	_, err = st["services"].Create(ctx, "default", &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "1web"}, Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}}, registry.CreateOptions{})
	require.True(t, api.IsInvalid(err), "%v", err)
	assert.Contains(t, err.Error(), "a DNS-1035 label must consist of")
}
