package clientgo

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	autoscalingv1ac "k8s.io/client-go/applyconfigurations/autoscaling/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	"github.com/kubesim/kubesim/e2e/framework"
)

// TestPodBindingAndStatus binds a pod that no scheduler takes (its
// schedulerName is nobody's) through pods/binding, as a custom scheduler
// does; the node's kubelet then runs it. Before that, pods/status is
// written through UpdateStatus and a status patch, and a plain Update
// leaves the status alone.
func TestPodBindingAndStatus(t *testing.T) {
	k := framework.Start(t, framework.Options{Nodes: 1})
	cs, log := recordingClientset(t, k)
	defer assertProtobuf(t, log, "/api")
	ctx := t.Context()
	pods := cs.CoreV1().Pods("default")
	spec := podSpec()
	spec.SchedulerName = "e2e-manual-scheduler"
	pod, err := pods.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "manual"}, Spec: spec}, metav1.CreateOptions{})
	require.NoError(t, err)
	require.Empty(t, pod.Spec.NodeName)

	pod.Status.Conditions = append(pod.Status.Conditions, corev1.PodCondition{Type: "e2e.kubesim.io/Checked", Status: corev1.ConditionTrue, Reason: "Checked"})
	pod, err = pods.UpdateStatus(ctx, pod, metav1.UpdateOptions{})
	require.NoError(t, err, "update pods/status")
	require.True(t, hasPodCondition(pod, "e2e.kubesim.io/Checked"))

	// The main resource ignores status: the condition written here is
	// dropped, the label kept.
	pod.Labels = map[string]string{"touched": "yes"}
	pod.Status.Conditions = append(pod.Status.Conditions, corev1.PodCondition{Type: "e2e.kubesim.io/Ignored", Status: corev1.ConditionTrue})
	pod, err = pods.Update(ctx, pod, metav1.UpdateOptions{})
	require.NoError(t, err)
	assert.Equal(t, "yes", pod.Labels["touched"])
	assert.False(t, hasPodCondition(pod, "e2e.kubesim.io/Ignored"), "status written through the main resource is ignored")

	pod, err = pods.Patch(ctx, "manual", types.MergePatchType, []byte(`{"status":{"message":"patched"}}`), metav1.PatchOptions{}, "status")
	require.NoError(t, err, "patch pods/status")
	assert.Equal(t, "patched", pod.Status.Message)
	assert.True(t, hasPodCondition(pod, "e2e.kubesim.io/Checked"))

	require.NoError(t, pods.Bind(ctx, &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "manual"},
		Target: corev1.ObjectReference{Kind: "Node", Name: "node-1"}}, metav1.CreateOptions{}), "create pods/binding")
	pod, err = pods.Get(ctx, "manual", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, "node-1", pod.Spec.NodeName)
	require.Eventually(t, func() bool {
		p, err := pods.Get(ctx, "manual", metav1.GetOptions{})
		return err == nil && p.Status.Phase == corev1.PodRunning
	}, wait, poll, "node-1's kubelet runs the bound pod")
}

func hasPodCondition(p *corev1.Pod, typ corev1.PodConditionType) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == typ {
			return true
		}
	}
	return false
}

// TestScaleSubresource scales a Deployment, a ReplicaSet and a
// StatefulSet through their scale subresource (autoscaling/v1 Scale,
// as kubectl scale and the HPA do): read, update, patch and apply, each
// landing in spec.replicas; the controllers then make the pods.
func TestScaleSubresource(t *testing.T) {
	k := framework.Start(t, framework.Options{Nodes: 1})
	cs, log := recordingClientset(t, k)
	defer assertProtobuf(t, log, "/api")
	ctx := t.Context()
	ns := "default"
	sel := func(app string) *metav1.LabelSelector {
		return &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}
	}

	deploys := cs.AppsV1().Deployments(ns)
	_, err := deploys.Create(ctx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](1), Selector: sel("web"), Template: podTemplate("web")}}, metav1.CreateOptions{})
	require.NoError(t, err)
	scale, err := deploys.GetScale(ctx, "web", metav1.GetOptions{})
	require.NoError(t, err, "get deployments/scale")
	assert.Equal(t, int32(1), scale.Spec.Replicas)
	assert.Equal(t, "web", scale.Name)
	require.NotEmpty(t, scale.ResourceVersion, "a Scale carries its object's resourceVersion")
	// The Scale's resourceVersion is the Deployment's: the deployment
	// controller's status writes make a read-then-update a Conflict to
	// retry, as kubectl scale and the HPA do.
	require.NoError(t, retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := deploys.GetScale(ctx, "web", metav1.GetOptions{})
		if err != nil {
			return err
		}
		cur.Spec.Replicas = 2
		scale, err = deploys.UpdateScale(ctx, "web", cur, metav1.UpdateOptions{})
		return err
	}), "update deployments/scale")
	assert.Equal(t, int32(2), scale.Spec.Replicas)
	d, err := deploys.Get(ctx, "web", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, int32(2), *d.Spec.Replicas)
	require.Eventually(t, func() bool {
		d, err := deploys.Get(ctx, "web", metav1.GetOptions{})
		return err == nil && d.Status.ReadyReplicas == 2
	}, wait, poll, "the deployment's pods become ready")
	sc, err := deploys.GetScale(ctx, "web", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, int32(2), sc.Status.Replicas, "scale status mirrors the deployment's")
	assert.Equal(t, "app=web", sc.Status.Selector)

	rss := cs.AppsV1().ReplicaSets(ns)
	_, err = rss.Create(ctx, &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "rs"},
		Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To[int32](0), Selector: sel("rs"), Template: podTemplate("rs")}}, metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = rss.Patch(ctx, "rs", types.MergePatchType, []byte(`{"spec":{"replicas":3}}`), metav1.PatchOptions{}, "scale")
	require.NoError(t, err, "patch replicasets/scale")
	rs, err := rss.Get(ctx, "rs", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, int32(3), *rs.Spec.Replicas)
	rsScale, err := rss.ApplyScale(ctx, "rs", autoscalingv1ac.Scale().WithSpec(autoscalingv1ac.ScaleSpec().WithReplicas(1)),
		metav1.ApplyOptions{FieldManager: "e2e-scaler", Force: true})
	require.NoError(t, err, "apply replicasets/scale")
	assert.Equal(t, int32(1), rsScale.Spec.Replicas)
	require.Eventually(t, func() bool {
		rs, err := rss.Get(ctx, "rs", metav1.GetOptions{})
		return err == nil && *rs.Spec.Replicas == 1 && rs.Status.Replicas == 1
	}, wait, poll, "the replicaset converges on the applied scale")

	sts := cs.AppsV1().StatefulSets(ns)
	_, err = sts.Create(ctx, &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "db"},
		Spec: appsv1.StatefulSetSpec{Replicas: ptr.To[int32](0), ServiceName: "db", Selector: sel("db"), Template: podTemplate("db")}}, metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = sts.UpdateScale(ctx, "db", &autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: ns}, Spec: autoscalingv1.ScaleSpec{Replicas: 2}}, metav1.UpdateOptions{})
	require.NoError(t, err, "update statefulsets/scale")
	require.Eventually(t, func() bool {
		_, err0 := cs.CoreV1().Pods(ns).Get(ctx, "db-0", metav1.GetOptions{})
		_, err1 := cs.CoreV1().Pods(ns).Get(ctx, "db-1", metav1.GetOptions{})
		return err0 == nil && err1 == nil
	}, wait, poll, "the statefulset makes db-0 and db-1")
}

// TestStatusSubresources writes status through UpdateStatus for kinds
// whose status a client may own (a Service's load balancer, a
// Namespace's conditions, a Node's), and checks that Update of the main
// resource leaves it alone.
func TestStatusSubresources(t *testing.T) {
	k := framework.Start(t, framework.Options{APIServerOnly: true})
	cs, log := recordingClientset(t, k)
	defer assertProtobuf(t, log, "/api")
	ctx := t.Context()

	svcs := cs.CoreV1().Services("default")
	svc, err := svcs.Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "lb"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Ports: []corev1.ServicePort{{Port: 80}}}}, metav1.CreateOptions{})
	require.NoError(t, err)
	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.10"}}
	svc, err = svcs.UpdateStatus(ctx, svc, metav1.UpdateOptions{})
	require.NoError(t, err, "update services/status")
	require.Len(t, svc.Status.LoadBalancer.Ingress, 1)
	svc.Status.LoadBalancer.Ingress = nil
	svc.Labels = map[string]string{"x": "y"}
	svc, err = svcs.Update(ctx, svc, metav1.UpdateOptions{})
	require.NoError(t, err)
	assert.Equal(t, "192.0.2.10", svc.Status.LoadBalancer.Ingress[0].IP, "Update does not write status")

	nodes := cs.CoreV1().Nodes()
	node, err := nodes.Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "status-node"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	node.Status.Capacity = corev1.ResourceList{corev1.ResourceCPU: mustQuantity(t, "4"), corev1.ResourceMemory: mustQuantity(t, "8Gi")}
	node.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady"}}
	node, err = nodes.UpdateStatus(ctx, node, metav1.UpdateOptions{})
	require.NoError(t, err, "update nodes/status")
	got, err := nodes.Get(ctx, "status-node", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, "8Gi", ptr.To(got.Status.Capacity[corev1.ResourceMemory]).String())
	assert.Equal(t, int64(4), ptr.To(got.Status.Capacity[corev1.ResourceCPU]).Value())
	require.Len(t, got.Status.Conditions, 1)
	assert.Equal(t, corev1.NodeReady, got.Status.Conditions[0].Type)

	nsc := cs.CoreV1().Namespaces()
	n, err := nsc.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "status-ns"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	assert.Equal(t, corev1.NamespaceActive, n.Status.Phase, "a new namespace is Active")
	n, err = nsc.Patch(ctx, "status-ns", types.StrategicMergePatchType,
		[]byte(`{"status":{"conditions":[{"type":"E2EChecked","status":"True","reason":"Checked"}]}}`), metav1.PatchOptions{}, "status")
	require.NoError(t, err, "patch namespaces/status")
	require.Len(t, n.Status.Conditions, 1)
	assert.Equal(t, corev1.NamespaceConditionType("E2EChecked"), n.Status.Conditions[0].Type)
}

func mustQuantity(t *testing.T, s string) resource.Quantity {
	t.Helper()
	q, err := resource.ParseQuantity(s)
	require.NoError(t, err)
	return q
}
