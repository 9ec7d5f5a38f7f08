package clientgo

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	coordinationv1ac "k8s.io/client-go/applyconfigurations/coordination/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	"github.com/kubesim/kubesim/e2e/framework"
)

// wait bounds every wait for the control plane to act: generous for a
// loaded machine, yet a hang fails the test rather than the run.
const wait = 30 * time.Second

// poll is how often a bounded wait looks again.
const poll = 20 * time.Millisecond

// object is what every built-in kind is to a generic test.
type object interface {
	runtime.Object
	metav1.Object
}

// typedClient is the part of a generated client (ConfigMapInterface,
// DeploymentInterface...) that every kind has: the verbs a test runs the
// same way on each.
type typedClient[T object, L runtime.Object, C any] interface {
	Create(ctx context.Context, obj T, opts metav1.CreateOptions) (T, error)
	Update(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error)
	Get(ctx context.Context, name string, opts metav1.GetOptions) (T, error)
	List(ctx context.Context, opts metav1.ListOptions) (L, error)
	Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
	Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (T, error)
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
	Apply(ctx context.Context, obj C, opts metav1.ApplyOptions) (T, error)
}

// exerciseKind runs every verb on one kind through its generated client —
// create, get, update, merge/strategic/JSON patch, server-side apply,
// list, delete — with a watch open from the list's resourceVersion, and
// checks the effect of each: the object read back, and the watch events.
func exerciseKind[T object, L runtime.Object, C any](t *testing.T, c typedClient[T, L, C], obj T, apply func(labels map[string]string) C) {
	t.Helper()
	ctx := t.Context()
	name := obj.GetName()
	sel := "e2e=" + name
	obj.SetLabels(map[string]string{"e2e": name})

	list, err := c.List(ctx, metav1.ListOptions{LabelSelector: sel})
	require.NoError(t, err, "list")
	lm, err := meta.ListAccessor(list)
	require.NoError(t, err)
	require.NotEmpty(t, lm.GetResourceVersion(), "a list has a resourceVersion")
	items, err := meta.ExtractList(list)
	require.NoError(t, err)
	require.Empty(t, items)
	w, err := c.Watch(ctx, metav1.ListOptions{LabelSelector: sel, ResourceVersion: lm.GetResourceVersion()})
	require.NoError(t, err, "watch")
	defer w.Stop()

	created, err := c.Create(ctx, obj, metav1.CreateOptions{})
	require.NoError(t, err, "create")
	require.Equal(t, name, created.GetName())
	require.NotEmpty(t, created.GetUID())
	require.NotEmpty(t, created.GetResourceVersion())
	ts := created.GetCreationTimestamp()
	require.False(t, ts.IsZero(), "creationTimestamp is set")

	got, err := c.Get(ctx, name, metav1.GetOptions{})
	require.NoError(t, err, "get")
	require.Equal(t, created.GetUID(), got.GetUID())
	require.Equal(t, name, got.GetLabels()["e2e"])

	// Update: read, change, write; a controller may write between the
	// two (a node's lifecycle), which is a Conflict to retry, as every
	// client does.
	var updated T
	require.NoError(t, retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := c.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		l := cur.GetLabels()
		l["updated"] = "yes"
		cur.SetLabels(l)
		updated, err = c.Update(ctx, cur, metav1.UpdateOptions{})
		return err
	}), "update")
	require.Equal(t, "yes", updated.GetLabels()["updated"])
	require.NotEqual(t, created.GetResourceVersion(), updated.GetResourceVersion())

	merged, err := c.Patch(ctx, name, types.MergePatchType, []byte(`{"metadata":{"annotations":{"merge":"yes"}}}`), metav1.PatchOptions{})
	require.NoError(t, err, "merge patch")
	require.Equal(t, "yes", merged.GetAnnotations()["merge"])

	strategic, err := c.Patch(ctx, name, types.StrategicMergePatchType, []byte(`{"metadata":{"annotations":{"strategic":"yes"}}}`), metav1.PatchOptions{})
	require.NoError(t, err, "strategic merge patch")
	require.Equal(t, map[string]string{"merge": "yes", "strategic": "yes"}, pick(strategic.GetAnnotations(), "merge", "strategic"))

	jsonPatched, err := c.Patch(ctx, name, types.JSONPatchType, []byte(`[{"op":"add","path":"/metadata/annotations/json","value":"yes"},{"op":"remove","path":"/metadata/annotations/merge"}]`), metav1.PatchOptions{})
	require.NoError(t, err, "JSON patch")
	assert.Equal(t, "yes", jsonPatched.GetAnnotations()["json"])
	assert.NotContains(t, jsonPatched.GetAnnotations(), "merge")
	assert.Equal(t, "yes", jsonPatched.GetAnnotations()["strategic"])

	// Server-side apply of a label by a manager of its own: it is added,
	// and the fields other managers set stay.
	applied, err := c.Apply(ctx, apply(map[string]string{"applied": "yes"}), metav1.ApplyOptions{FieldManager: "e2e-apply", Force: true})
	require.NoError(t, err, "apply")
	assert.Equal(t, "yes", applied.GetLabels()["applied"])
	assert.Equal(t, "yes", applied.GetLabels()["updated"])
	assert.Equal(t, name, applied.GetLabels()["e2e"])
	assert.True(t, hasManager(applied.GetManagedFields(), "e2e-apply", metav1.ManagedFieldsOperationApply), "managedFields name the applier: %v", applied.GetManagedFields())

	list, err = c.List(ctx, metav1.ListOptions{LabelSelector: "applied=yes," + sel})
	require.NoError(t, err, "list")
	items, err = meta.ExtractList(list)
	require.NoError(t, err)
	require.Len(t, items, 1)
	im, err := meta.Accessor(items[0])
	require.NoError(t, err)
	require.Equal(t, created.GetUID(), im.GetUID())

	require.NoError(t, c.Delete(ctx, name, metav1.DeleteOptions{}), "delete")
	require.Eventually(t, func() bool {
		_, err := c.Get(ctx, name, metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	}, wait, poll, "%s is gone after delete", name)

	// The watch saw the object come, change and go, decoded into the
	// generated type.
	seen := map[watch.EventType]int{}
	timeout := time.After(wait)
	for seen[watch.Deleted] == 0 {
		select {
		case ev, ok := <-w.ResultChan():
			require.True(t, ok, "watch closed early; saw %v", seen)
			require.NotEqual(t, watch.Error, ev.Type, "watch error: %v", ev.Object)
			o, ok := ev.Object.(T)
			require.True(t, ok, "watch event of %T", ev.Object)
			require.Equal(t, name, o.GetName())
			seen[ev.Type]++
		case <-timeout:
			t.Fatalf("no DELETED event within %v; saw %v", wait, seen)
		}
	}
	assert.Equal(t, 1, seen[watch.Added], "events %v", seen)
	assert.GreaterOrEqual(t, seen[watch.Modified], 5, "update, 3 patches and apply each modify: %v", seen)
}

func pick(m map[string]string, keys ...string) map[string]string {
	out := map[string]string{}
	for _, k := range keys {
		if v, ok := m[k]; ok {
			out[k] = v
		}
	}
	return out
}

func hasManager(mf []metav1.ManagedFieldsEntry, manager string, op metav1.ManagedFieldsOperationType) bool {
	for _, e := range mf {
		if e.Manager == manager && e.Operation == op {
			return true
		}
	}
	return false
}

func podSpec() corev1.PodSpec {
	return corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx:1.27"}}}
}

func podTemplate(app string) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": app}}, Spec: podSpec()}
}

// TestTypedClientsetEveryKind runs every verb of the generated clientset,
// with its default content type (protobuf for built-in kinds), on every
// built-in kind kubesim serves.
func TestTypedClientsetEveryKind(t *testing.T) {
	k := framework.Start(t, framework.Options{Nodes: 1})
	cs, log := recordingClientset(t, k)
	ns := "e2e-typed"
	_, err := cs.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	require.NoError(t, err)

	t.Run("namespaces", func(t *testing.T) {
		exerciseKind(t, cs.CoreV1().Namespaces(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "e2e-ns"}},
			func(l map[string]string) *corev1ac.NamespaceApplyConfiguration {
				return corev1ac.Namespace("e2e-ns").WithLabels(l)
			})
	})
	t.Run("nodes", func(t *testing.T) {
		exerciseKind(t, cs.CoreV1().Nodes(), &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "e2e-node"}},
			func(l map[string]string) *corev1ac.NodeApplyConfiguration {
				return corev1ac.Node("e2e-node").WithLabels(l)
			})
	})
	t.Run("pods", func(t *testing.T) {
		exerciseKind(t, cs.CoreV1().Pods(ns), &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "e2e-pod"}, Spec: podSpec()},
			func(l map[string]string) *corev1ac.PodApplyConfiguration {
				return corev1ac.Pod("e2e-pod", ns).WithLabels(l)
			})
	})
	t.Run("services", func(t *testing.T) {
		exerciseKind(t, cs.CoreV1().Services(ns), &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "e2e-svc"},
			Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "e2e"}, Ports: []corev1.ServicePort{{Port: 80}}}},
			func(l map[string]string) *corev1ac.ServiceApplyConfiguration {
				return corev1ac.Service("e2e-svc", ns).WithLabels(l)
			})
	})
	t.Run("endpoints", func(t *testing.T) {
		// Endpoints written by hand belong to a Service without a
		// selector, which the endpoints controller leaves alone.
		_, err := cs.CoreV1().Services(ns).Create(t.Context(), &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "e2e-ep"},
			Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}}, metav1.CreateOptions{})
		require.NoError(t, err)
		exerciseKind(t, cs.CoreV1().Endpoints(ns), &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: "e2e-ep"},
			Subsets: []corev1.EndpointSubset{{Addresses: []corev1.EndpointAddress{{IP: "10.1.2.3"}}, Ports: []corev1.EndpointPort{{Port: 80}}}}},
			func(l map[string]string) *corev1ac.EndpointsApplyConfiguration {
				return corev1ac.Endpoints("e2e-ep", ns).WithLabels(l)
			})
	})
	t.Run("configmaps", func(t *testing.T) {
		exerciseKind(t, cs.CoreV1().ConfigMaps(ns), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "e2e-cm"}, Data: map[string]string{"k": "v"}},
			func(l map[string]string) *corev1ac.ConfigMapApplyConfiguration {
				return corev1ac.ConfigMap("e2e-cm", ns).WithLabels(l)
			})
	})
	t.Run("secrets", func(t *testing.T) {
		exerciseKind(t, cs.CoreV1().Secrets(ns), &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "e2e-secret"}, Data: map[string][]byte{"k": {0, 1, 2, 0xff}}},
			func(l map[string]string) *corev1ac.SecretApplyConfiguration {
				return corev1ac.Secret("e2e-secret", ns).WithLabels(l)
			})
	})
	t.Run("events", func(t *testing.T) {
		exerciseKind(t, cs.CoreV1().Events(ns), &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "e2e-event"},
			InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: ns, Name: "e2e-pod", APIVersion: "v1"},
			Reason:         "Tested", Message: "by client-go", Type: corev1.EventTypeNormal, Count: 1,
			Source: corev1.EventSource{Component: "e2e"}},
			func(l map[string]string) *corev1ac.EventApplyConfiguration {
				return corev1ac.Event("e2e-event", ns).WithLabels(l)
			})
	})
	t.Run("replicasets", func(t *testing.T) {
		exerciseKind(t, cs.AppsV1().ReplicaSets(ns), &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "e2e-rs"},
			Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To[int32](0), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "e2e-rs"}}, Template: podTemplate("e2e-rs")}},
			func(l map[string]string) *appsv1ac.ReplicaSetApplyConfiguration {
				return appsv1ac.ReplicaSet("e2e-rs", ns).WithLabels(l)
			})
	})
	t.Run("deployments", func(t *testing.T) {
		exerciseKind(t, cs.AppsV1().Deployments(ns), &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "e2e-deploy"},
			Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](0), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "e2e-deploy"}}, Template: podTemplate("e2e-deploy")}},
			func(l map[string]string) *appsv1ac.DeploymentApplyConfiguration {
				return appsv1ac.Deployment("e2e-deploy", ns).WithLabels(l)
			})
	})
	t.Run("statefulsets", func(t *testing.T) {
		exerciseKind(t, cs.AppsV1().StatefulSets(ns), &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "e2e-sts"},
			Spec: appsv1.StatefulSetSpec{Replicas: ptr.To[int32](0), ServiceName: "e2e-sts", Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "e2e-sts"}}, Template: podTemplate("e2e-sts")}},
			func(l map[string]string) *appsv1ac.StatefulSetApplyConfiguration {
				return appsv1ac.StatefulSet("e2e-sts", ns).WithLabels(l)
			})
	})
	t.Run("leases", func(t *testing.T) {
		exerciseKind(t, cs.CoordinationV1().Leases(ns), &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "e2e-lease"},
			Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To("e2e"), LeaseDurationSeconds: ptr.To[int32](15)}},
			func(l map[string]string) *coordinationv1ac.LeaseApplyConfiguration {
				return coordinationv1ac.Lease("e2e-lease", ns).WithLabels(l)
			})
	})

	// All of it went over protobuf both ways.
	for _, prefix := range []string{"/api/v1/", "/apis/apps/v1/", "/apis/coordination.k8s.io/v1/"} {
		assertProtobuf(t, log, prefix)
	}
}

// TestTypedClientsetRoundTrip checks that what a client writes comes back
// whole through the default (protobuf) codec: bytes, quantities, times,
// nested structs.
func TestTypedClientsetRoundTrip(t *testing.T) {
	k := framework.Start(t, framework.Options{APIServerOnly: true})
	cs := k.Clientset(t)
	ctx := t.Context()
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "bytes", Namespace: "default"},
		Data: map[string][]byte{"bin": {0, 1, 2, 0xfe, 0xff}, "empty": {}}, Type: corev1.SecretTypeOpaque}
	_, err := cs.CoreV1().Secrets("default").Create(ctx, secret, metav1.CreateOptions{})
	require.NoError(t, err)
	got, err := cs.CoreV1().Secrets("default").Get(ctx, "bytes", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, []byte{0, 1, 2, 0xfe, 0xff}, got.Data["bin"])
	assert.Equal(t, corev1.SecretTypeOpaque, got.Type)

	renew := metav1.NewMicroTime(time.Date(2026, 3, 4, 5, 6, 7, 123456000, time.UTC))
	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "times", Namespace: "default"},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To("a"), LeaseDurationSeconds: ptr.To[int32](7), RenewTime: &renew, LeaseTransitions: ptr.To[int32](3)}}
	_, err = cs.CoordinationV1().Leases("default").Create(ctx, lease, metav1.CreateOptions{})
	require.NoError(t, err)
	gotLease, err := cs.CoordinationV1().Leases("default").Get(ctx, "times", metav1.GetOptions{})
	require.NoError(t, err)
	require.NotNil(t, gotLease.Spec.RenewTime)
	assert.True(t, renew.Equal(gotLease.Spec.RenewTime), "renewTime %v, want %v (microseconds kept)", gotLease.Spec.RenewTime, renew)
	assert.Equal(t, int32(7), *gotLease.Spec.LeaseDurationSeconds)
	assert.Equal(t, int32(3), *gotLease.Spec.LeaseTransitions)

	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "nested", Namespace: "default"},
		Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](0), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "n"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "n"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox",
					Command: []string{"sh", "-c", "sleep 1"},
					Env:     []corev1.EnvVar{{Name: "A", Value: "1"}},
					Ports:   []corev1.ContainerPort{{ContainerPort: 8080, Protocol: corev1.ProtocolTCP}}}}}}}}
	_, err = cs.AppsV1().Deployments("default").Create(ctx, dep, metav1.CreateOptions{})
	require.NoError(t, err)
	gotDep, err := cs.AppsV1().Deployments("default").Get(ctx, "nested", metav1.GetOptions{})
	require.NoError(t, err)
	c := gotDep.Spec.Template.Spec.Containers[0]
	assert.Equal(t, []string{"sh", "-c", "sleep 1"}, c.Command)
	assert.Equal(t, []corev1.EnvVar{{Name: "A", Value: "1"}}, c.Env)
	assert.Equal(t, int32(8080), c.Ports[0].ContainerPort)
	assert.Equal(t, "n", gotDep.Spec.Selector.MatchLabels["app"])
	assert.Equal(t, int32(0), *gotDep.Spec.Replicas)
}
