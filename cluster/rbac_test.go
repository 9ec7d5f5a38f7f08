package cluster

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/audit"
	"github.com/kubesim/kubesim/apiserver/rbacregistry"
	"github.com/kubesim/kubesim/apiserver/request"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/runmode"
	"github.com/kubesim/kubesim/stepper"
)

// lockedBuffer is an audit log's output that a test reads while the
// cluster writes it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// events decodes the audit events written so far.
func (l *lockedBuffer) events(t *testing.T) []audit.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []audit.Event
	sc := bufio.NewScanner(bytes.NewReader(l.b.Bytes()))
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		var ev audit.Event
		require.NoError(t, json.Unmarshal(sc.Bytes(), &ev))
		out = append(out, ev)
	}
	return out
}

func newAuditLog(out *lockedBuffer, c clock.Clock) *audit.Log {
	n := 0
	var mu sync.Mutex
	return &audit.Log{Out: out, Clock: c, NewID: func() string {
		mu.Lock()
		defer mu.Unlock()
		n++
		return fmt.Sprint(n)
	}}
}

// forbidden lists the audited requests that were refused with a 403.
func forbidden(events []audit.Event) []string {
	var out []string
	for _, ev := range events {
		// Refused by an authorizer or by NodeRestriction; not by
		// NamespaceLifecycle (an event in a terminating namespace).
		if ev.ResponseStatus != nil && ev.ResponseStatus.Code == 403 &&
			(strings.Contains(ev.ResponseStatus.Message, `is forbidden: User "`) || strings.Contains(ev.ResponseStatus.Message, `is forbidden: node "`)) {
			out = append(out, fmt.Sprintf("%s %s %s: %s", ev.User.Username, ev.Verb, ev.RequestURI, ev.ResponseStatus.Message))
		}
	}
	return out
}

// usersOf lists the users that made audited requests.
func usersOf(events []audit.Event) map[string]bool {
	out := map[string]bool{}
	for _, ev := range events {
		out[ev.User.Username] = true
	}
	return out
}

func int32p(i int32) *int32 { return &i }

func podTemplate(app string) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": app}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx:1.25",
			EnvFrom: []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "settings"}}}}}}},
	}
}

// workload exercises every built-in component: a Deployment (deployment
// and replicaset controllers, scheduler, kubelets, the ConfigMap its pods
// read), a StatefulSet with its Service (statefulset and endpoint
// controllers), a namespace deleted with its contents (namespace
// controller, garbage collector), and the root CA and default service
// account of a new namespace.
func workload(t *testing.T, ctx context.Context, cl *client.Client, settle func()) {
	ns := func(name string) *corev1.Namespace {
		return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	}
	_, err := cl.Namespaces().Create(ctx, ns("team"))
	require.NoError(t, err)
	_, err = cl.ConfigMaps().Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "settings", Namespace: "team"}, Data: map[string]string{"A": "1"}})
	require.NoError(t, err)
	settle()
	_, err = cl.Deployments().Create(ctx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "team"},
		Spec: appsv1.DeploymentSpec{Replicas: int32p(3), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, Template: podTemplate("web")}})
	require.NoError(t, err)
	_, err = cl.Services().Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "team"},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "db"}, Ports: []corev1.ServicePort{{Port: 5432}}}})
	require.NoError(t, err)
	_, err = cl.StatefulSets().Create(ctx, &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "team"},
		Spec: appsv1.StatefulSetSpec{Replicas: int32p(2), ServiceName: "db", Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}, Template: podTemplate("db")}})
	require.NoError(t, err)
	settle()
	pods, err := cl.Pods().List(ctx, "team", client.ListOptions{})
	require.NoError(t, err)
	running := 0
	for _, p := range pods.Items {
		if p.Status.Phase == corev1.PodRunning {
			running++
		}
	}
	require.Equal(t, 5, running, "every pod runs")
	// A rolling update, then the namespace and everything in it goes.
	d, err := cl.Deployments().Get(ctx, "team", "web")
	require.NoError(t, err)
	d.Spec.Template.Spec.Containers[0].Image = "nginx:1.26"
	_, err = cl.Deployments().Update(ctx, d)
	require.NoError(t, err)
	settle()
	batchAndDaemons(t, ctx, cl, settle)
	// The garbage collector deletes the Deployment's ReplicaSets and pods.
	require.NoError(t, cl.Deployments().Delete(ctx, "team", "web", nil))
	settle()
	require.NoError(t, cl.Namespaces().Delete(ctx, "", "team", nil))
	settle()
}

// batchAndDaemons runs a Job to completion and past its TTL (job and
// ttl-after-finished controllers) and a DaemonSet (daemonset controller)
// in the namespace team.
func batchAndDaemons(t *testing.T, ctx context.Context, cl *client.Client, settle func()) {
	done := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"kubesim.io/behaviour": "exit-after=1s"}},
		Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "main", Image: "busybox"}}}}
	ttl := int32(0)
	_, err := cl.Jobs().Create(ctx, &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "once", Namespace: "team"},
		Spec: batchv1.JobSpec{Template: done, TTLSecondsAfterFinished: &ttl}})
	require.NoError(t, err)
	_, err = cl.DaemonSets().Create(ctx, &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "team"},
		Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "agent"}}, Template: podTemplate("agent")}})
	require.NoError(t, err)
	settle()
}

// The whole cluster under --authorization-mode Node,RBAC, in step mode:
// every component acts as its own user, and none is ever refused.
func TestEveryComponentRunsUnderRBACInStepMode(t *testing.T) {
	var out lockedBuffer
	c, err := newTestCluster(t, Config{Mode: runmode.Step, Seed: 7, NodeCount: 3, AuthorizationMode: "Node,RBAC",
		Audit: newAuditLog(&out, clock.Real{})})
	require.NoError(t, err)
	defer c.Close()
	settle := func() {
		_, err := c.RunUntilStable(bg, stepper.Limits{})
		require.NoError(t, err)
	}
	settle()
	workload(t, bg, c.Client("test"), settle)
	_, err = c.Client("t").Namespaces().Get(bg, "", "team")
	assert.True(t, api.IsNotFound(err), "the namespace is gone")

	// A node fails: the node controller taints it and evicts its pods.
	// A CronJob, and two minutes for it to fire.
	_, err = c.Client("test").CronJobs().Create(bg, &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "tick", Namespace: "default"},
		Spec: batchv1.CronJobSpec{Schedule: "* * * * *", JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"kubesim.io/behaviour": "exit-after=1s"}},
			Spec:       corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "main", Image: "busybox"}}}}}}}})
	require.NoError(t, err)
	_, err = c.Advance(bg, 2*time.Minute, stepper.Limits{})
	require.NoError(t, err)
	k, _ := c.Kubelet("node-1")
	k.Stop()
	_, err = c.Advance(bg, 6*time.Minute, stepper.Limits{})
	require.NoError(t, err)

	events := out.events(t)
	assert.Empty(t, forbidden(events), "no component was refused")
	for _, e := range c.Trace() {
		assert.NotContains(t, e.Err, `is forbidden: User "`, "the trace records no refusal: %s", e)
		assert.NotContains(t, e.Err, `is forbidden: node "`, "the trace records no refusal: %s", e)
	}
	users := usersOf(events)
	for _, u := range []string{"system:kube-scheduler", "system:kube-controller-manager", "system:node:node-2",
		"system:serviceaccount:kube-system:replicaset-controller", "system:serviceaccount:kube-system:deployment-controller",
		"system:serviceaccount:kube-system:statefulset-controller", "system:serviceaccount:kube-system:namespace-controller",
		"system:serviceaccount:kube-system:generic-garbage-collector", "system:serviceaccount:kube-system:endpoint-controller",
		"system:serviceaccount:kube-system:service-account-controller", "system:serviceaccount:kube-system:node-controller",
		"system:serviceaccount:kube-system:job-controller", "system:serviceaccount:kube-system:ttl-after-finished-controller",
		"system:serviceaccount:kube-system:daemon-set-controller", "system:serviceaccount:kube-system:cronjob-controller"} {
		assert.True(t, users[u], "%s made requests", u)
	}
}

// The same in live mode, with every loop in its goroutines.
func TestEveryComponentRunsUnderRBACLive(t *testing.T) {
	var out lockedBuffer
	c, err := newTestCluster(t, Config{NodeCount: 2, UnsafeNoFsync: true, AuthorizationMode: "Node,RBAC", Audit: newAuditLog(&out, clock.Real{})})
	require.NoError(t, err)
	defer c.Close()
	ctx, cancel := context.WithCancel(bg)
	defer cancel()
	require.NoError(t, c.Start(ctx))
	cl := c.Client("test")
	settle := func() {}
	// Live: wait for what each step needs instead of stepping.
	require.Eventually(t, func() bool {
		sa, err := cl.ServiceAccounts().List(ctx, "default", client.ListOptions{})
		return err == nil && len(sa.Items) > 0
	}, 30*time.Second, 50*time.Millisecond, "the default service account")
	_, err = cl.Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "live"}})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		_, err := cl.ServiceAccounts().Get(ctx, "live", "default")
		return err == nil
	}, 30*time.Second, 50*time.Millisecond)
	_, err = cl.Deployments().Create(ctx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "live"},
		Spec: appsv1.DeploymentSpec{Replicas: int32p(2), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}}})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		d, err := cl.Deployments().Get(ctx, "live", "web")
		return err == nil && d.Status.AvailableReplicas == 2
	}, 30*time.Second, 50*time.Millisecond)
	require.NoError(t, cl.Namespaces().Delete(ctx, "", "live", nil))
	require.Eventually(t, func() bool {
		_, err := cl.Namespaces().Get(ctx, "", "live")
		return api.IsNotFound(err)
	}, 30*time.Second, 50*time.Millisecond)
	_ = settle
	assert.Empty(t, forbidden(out.events(t)), "no component was refused")
	assert.True(t, usersOf(out.events(t))["system:node:node-1"])
	assert.False(t, strings.Contains(strings.Join(forbidden(out.events(t)), "\n"), "system:"), "")
}

// Every controller of the controller manager has its bootstrap role: a
// controller added to the wiring table without one (or under a switch
// name whose service account has none) fails here before it is refused
// at run time.
func TestEveryControllerHasItsRole(t *testing.T) {
	c := stepCluster(t)
	roles := map[string]bool{}
	for _, r := range rbacregistry.ControllerRoles() {
		roles[r.Name] = true
	}
	for _, w := range c.controllerManager() {
		if !slices.Contains(ControllerNames, w.name) || slices.Contains(apiServerOwnLoops, w.name) {
			continue
		}
		if w.name == ingressNginxSwitch {
			// An add-on's, not kube-controller-manager's: its role comes
			// with its install, and TestIngressNginxEndToEnd runs it
			// under RBAC.
			assert.Equal(t, "system:serviceaccount:ingress-nginx:ingress-nginx", c.identity(w.name, w.userAgent)(&request.Info{Verb: "create", IsResourceRequest: true}).Name)
			continue
		}
		u := c.identity(w.name, w.userAgent)(&request.Info{Verb: "create", IsResourceRequest: true})
		sa := strings.TrimPrefix(u.Name, "system:serviceaccount:kube-system:")
		assert.True(t, roles[sa], "controller %s acts as %s, which has no system:controller: role", w.name, u.Name)
	}
}

// A controller whose binding is gone is refused, and the refusal is in
// the audit log with the real wording: what the tests above would see.
func TestAControllerWithoutItsBindingIsRefused(t *testing.T) {
	var out lockedBuffer
	c, err := newTestCluster(t, Config{Mode: runmode.Step, Seed: 7, NodeCount: 1, AuthorizationMode: "Node,RBAC", Audit: newAuditLog(&out, clock.Real{})})
	require.NoError(t, err)
	defer c.Close()
	cl := c.Client("test")
	crbs := client.Dynamic(cl, client.ResourceInfo{Group: api.RBACGroupName, Version: "v1", Resource: "clusterrolebindings"})
	require.NoError(t, crbs.Delete(bg, "", "system:controller:replicaset-controller", nil))
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	_, err = cl.ReplicaSets().Create(bg, rs("web", 1))
	require.NoError(t, err)
	_, _ = c.RunUntilStable(bg, stepper.Limits{MaxSteps: 200}) // the refused key is retried
	refused := forbidden(out.events(t))
	require.NotEmpty(t, refused)
	inTrace := false
	for _, e := range c.Trace() {
		inTrace = inTrace || strings.Contains(e.Err, `is forbidden: User "system:serviceaccount:kube-system:replicaset-controller"`)
	}
	assert.True(t, inTrace, "the refusal is in the trace too")
	assert.Contains(t, refused[0], `system:serviceaccount:kube-system:replicaset-controller create /api/v1/namespaces/default/pods: pods is forbidden: User "system:serviceaccount:kube-system:replicaset-controller" cannot create resource "pods" in API group "" in the namespace "default"`)
}

// At start the bootstrap policy is reconciled: a role a user trimmed gets
// its rules back, unless its autoupdate annotation says "false"; a
// binding gets its subjects back.
func TestBootstrapPolicyIsReconciledAtStart(t *testing.T) {
	dir := t.TempDir()
	start := func() *Cluster {
		c, err := newTestCluster(t, Config{Mode: runmode.Step, Seed: 1, NodeCount: 1, DataDir: dir, AuthorizationMode: "Node,RBAC", APIServerOnly: true})
		require.NoError(t, err)
		return c
	}
	c := start()
	cl := c.Client("test")
	sched, err := cl.ClusterRoles().Get(bg, "", "system:kube-scheduler")
	require.NoError(t, err)
	want := len(sched.Rules)
	sched.Rules = sched.Rules[:1]
	_, err = cl.ClusterRoles().Update(bg, sched)
	require.NoError(t, err)
	basic, err := cl.ClusterRoles().Get(bg, "", "system:basic-user")
	require.NoError(t, err)
	basic.Rules = basic.Rules[:1]
	basic.Annotations[api.AutoUpdateAnnotation] = "false"
	_, err = cl.ClusterRoles().Update(bg, basic)
	require.NoError(t, err)
	b, err := cl.ClusterRoleBindings().Get(bg, "", "system:kube-scheduler")
	require.NoError(t, err)
	b.Subjects = nil
	_, err = cl.ClusterRoleBindings().Update(bg, b)
	require.NoError(t, err)
	require.NoError(t, c.Close())

	c = start()
	defer c.Close()
	cl = c.Client("test")
	sched, err = cl.ClusterRoles().Get(bg, "", "system:kube-scheduler")
	require.NoError(t, err)
	assert.Len(t, sched.Rules, want, "autoupdate: the rules are back")
	basic, err = cl.ClusterRoles().Get(bg, "", "system:basic-user")
	require.NoError(t, err)
	assert.Len(t, basic.Rules, 1, "autoupdate false: left alone")
	b, err = cl.ClusterRoleBindings().Get(bg, "", "system:kube-scheduler")
	require.NoError(t, err)
	assert.Equal(t, "system:kube-scheduler", b.Subjects[0].Name)
}
