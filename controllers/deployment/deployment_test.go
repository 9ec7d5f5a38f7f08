package deployment

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/apiservertest"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/client/cache"
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/controllers/replicaset"
	"github.com/kubesim/kubesim/runmode"
)

type harness struct {
	t         *testing.T
	ctx       context.Context
	env       *apiservertest.Env
	ctrls     []*controllers.Controller
	autoReady bool
	check     func()
	steps     int
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	env := apiservertest.New(t)
	informers := detectingInformers(t)
	rsc, err := replicaset.New(replicaset.Config{Client: env.Client, Informers: informers, Clock: env.Clock, Mode: runmode.Step})
	require.NoError(t, err)
	dc, err := New(Config{Client: env.Client, Informers: informers, Clock: env.Clock, Mode: runmode.Step})
	require.NoError(t, err)
	require.Len(t, dc.Controllers(), 1)
	assert.Equal(t, "deployment", dc.Controllers()[0].Name())
	return &harness{t: t, ctx: context.Background(), env: env, autoReady: true,
		ctrls: append(dc.Controllers(), rsc.Controllers()...)}
}

// run drives both controllers one reconcile at a time, each after a fresh
// Sync, marking new pods ready and checking invariants after every step,
// until neither has anything ready to do. The clock does not move.
func (h *harness) run() {
	h.t.Helper()
	for range 2000 {
		stepped := false
		for _, c := range h.ctrls {
			require.NoError(h.t, c.Sync(h.ctx))
			info, ok := c.Step(h.ctx)
			if !ok {
				continue
			}
			stepped = true
			h.steps++
			require.NoError(h.t, info.Err, "%s reconciling %s", c.Name(), info.Key)
			if h.autoReady {
				h.readyAll()
			}
			if h.check != nil {
				h.check()
			}
		}
		if !stepped {
			return
		}
	}
	h.t.Fatal("controllers did not settle")
}

func (h *harness) activePods() []*corev1.Pod {
	h.t.Helper()
	l, err := h.env.Client.Pods().List(h.ctx, "default", client.ListOptions{})
	require.NoError(h.t, err)
	var out []*corev1.Pod
	for _, p := range l.Items {
		if replicaset.IsPodActive(p) {
			out = append(out, p)
		}
	}
	return out
}

func (h *harness) readyAll() {
	h.t.Helper()
	for _, p := range h.activePods() {
		if api.IsPodReady(p) {
			continue
		}
		p.Status.Phase = corev1.PodRunning
		p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionTrue,
			LastTransitionTime: metav1.NewTime(h.env.Clock.Now())})
		_, err := h.env.Client.Pods().UpdateStatus(h.ctx, p)
		require.NoError(h.t, err)
	}
}

func (h *harness) replicaSets() []*appsv1.ReplicaSet {
	h.t.Helper()
	l, err := h.env.Client.ReplicaSets().List(h.ctx, "default", client.ListOptions{})
	require.NoError(h.t, err)
	out := l.Items
	sort.Slice(out, func(i, j int) bool { return Revision(out[i]) < Revision(out[j]) })
	return out
}

func (h *harness) deployment(name string) *appsv1.Deployment {
	h.t.Helper()
	d, err := h.env.Client.Deployments().Get(h.ctx, "default", name)
	require.NoError(h.t, err)
	return d
}

func (h *harness) setImage(name, image string) {
	h.t.Helper()
	d := h.deployment(name)
	d.Spec.Template.Spec.Containers[0].Image = image
	_, err := h.env.Client.Deployments().Update(h.ctx, d)
	require.NoError(h.t, err)
}

func (h *harness) events(reason string) []string {
	h.t.Helper()
	l, err := h.env.Client.Events().List(h.ctx, "default", client.ListOptions{})
	require.NoError(h.t, err)
	var out []string
	for _, e := range l.Items {
		if e.Reason == reason {
			out = append(out, e.Message)
		}
	}
	return out
}

func newDeployment(name string, n int32) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: appsv1.DeploymentSpec{
			Replicas: &n,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx:1"}}},
			},
		},
	}
}

func (h *harness) create(d *appsv1.Deployment) *appsv1.Deployment {
	h.t.Helper()
	out, err := h.env.Client.Deployments().Create(h.ctx, d)
	require.NoError(h.t, err)
	return out
}

func condition(d *appsv1.Deployment, t appsv1.DeploymentConditionType) appsv1.DeploymentCondition {
	if c := GetDeploymentCondition(&d.Status, t); c != nil {
		return *c
	}
	return appsv1.DeploymentCondition{}
}

// rolloutStatus is what `kubectl rollout status` prints for d
// (DeploymentStatusViewer).
func rolloutStatus(d *appsv1.Deployment) string {
	if d.Generation > d.Status.ObservedGeneration {
		return "Waiting for deployment spec update to be observed..."
	}
	if c := condition(d, appsv1.DeploymentProgressing); c.Reason == TimedOutReason {
		return `deployment "` + d.Name + `" exceeded its progress deadline`
	}
	switch {
	case d.Status.UpdatedReplicas < *d.Spec.Replicas:
		return "Waiting: not all updated"
	case d.Status.Replicas > d.Status.UpdatedReplicas:
		return "Waiting: old replicas pending termination"
	case d.Status.AvailableReplicas < d.Status.UpdatedReplicas:
		return "Waiting: updated replicas not available"
	}
	return `deployment "` + d.Name + `" successfully rolled out`
}

func TestCreatesReplicaSetWithHashAndCompletes(t *testing.T) {
	h := newHarness(t)
	d := h.create(newDeployment("web", 3))
	h.run()

	rss := h.replicaSets()
	require.Len(t, rss, 1)
	rs := rss[0]
	hash := controllers.ComputeHash(&d.Spec.Template, nil)
	assert.Equal(t, "web-"+hash, rs.Name)
	assert.Equal(t, map[string]string{"app": "web", "pod-template-hash": hash}, rs.Labels)
	assert.Equal(t, map[string]string{"app": "web", "pod-template-hash": hash}, rs.Spec.Selector.MatchLabels)
	assert.Equal(t, hash, rs.Spec.Template.Labels["pod-template-hash"])
	assert.Equal(t, "1", rs.Annotations[api.RevisionAnnotation])
	assert.Equal(t, "3", rs.Annotations[api.DesiredReplicasAnnotation])
	assert.Equal(t, "4", rs.Annotations[api.MaxReplicasAnnotation], "3 + 25% surge rounded up")
	assert.True(t, api.IsControlledBy(&rs.ObjectMeta, &d.ObjectMeta))
	assert.Equal(t, int32(3), *rs.Spec.Replicas)
	for _, p := range h.activePods() {
		assert.Equal(t, hash, p.Labels["pod-template-hash"])
	}

	got := h.deployment("web")
	assert.Equal(t, "1", got.Annotations[api.RevisionAnnotation])
	assert.Equal(t, int64(1), got.Generation, "the revision annotation does not bump the generation")
	assert.Equal(t, appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: 3, UpdatedReplicas: 3, ReadyReplicas: 3, AvailableReplicas: 3},
		appsv1.DeploymentStatus{ObservedGeneration: got.Status.ObservedGeneration, Replicas: got.Status.Replicas,
			UpdatedReplicas: got.Status.UpdatedReplicas, ReadyReplicas: got.Status.ReadyReplicas,
			AvailableReplicas: got.Status.AvailableReplicas, UnavailableReplicas: got.Status.UnavailableReplicas})
	avail := condition(got, appsv1.DeploymentAvailable)
	assert.Equal(t, corev1.ConditionTrue, avail.Status)
	assert.Equal(t, MinimumReplicasAvailable, avail.Reason)
	assert.Equal(t, "Deployment has minimum availability.", avail.Message)
	prog := condition(got, appsv1.DeploymentProgressing)
	assert.Equal(t, corev1.ConditionTrue, prog.Status)
	assert.Equal(t, NewRSAvailableReason, prog.Reason)
	assert.Equal(t, `ReplicaSet "web-`+hash+`" has successfully progressed.`, prog.Message)
	assert.Equal(t, `deployment "web" successfully rolled out`, rolloutStatus(got))
	assert.Equal(t, []string{"Scaled up replica set web-" + hash + " from 0 to 3"}, h.events("ScalingReplicaSet"))

	// Nothing more to do: another sync writes nothing.
	rv := got.ResourceVersion
	h.ctrls[0].Enqueue("default/web", controllers.Cause{Event: "test"})
	h.run()
	assert.Equal(t, rv, h.deployment("web").ResourceVersion)
}

func TestRollingUpdateStaysWithinSurgeAndUnavailability(t *testing.T) {
	for _, tc := range []struct {
		name                   string
		replicas               int32
		surge, unavailable     intstr.IntOrString
		maxTotal, minAvailable int
	}{
		{"percentages", 4, intstr.FromString("25%"), intstr.FromString("25%"), 5, 3},
		{"surge only", 3, intstr.FromInt32(1), intstr.FromInt32(0), 4, 3},
		{"unavailable only", 3, intstr.FromInt32(0), intstr.FromInt32(1), 3, 2},
		{"wide", 5, intstr.FromString("40%"), intstr.FromString("40%"), 7, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			d := newDeployment("web", tc.replicas)
			d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &tc.surge, MaxUnavailable: &tc.unavailable}}
			h.create(d)
			h.run()
			require.Len(t, h.activePods(), int(tc.replicas))

			maxSeen, minSeen := 0, 1000
			h.check = func() {
				pods := h.activePods()
				ready := 0
				for _, p := range pods {
					if api.IsPodReady(p) {
						ready++
					}
				}
				maxSeen, minSeen = max(maxSeen, len(pods)), min(minSeen, ready)
				require.LessOrEqual(t, len(pods), tc.maxTotal, "pods above replicas+maxSurge after step %d", h.steps)
				require.GreaterOrEqual(t, ready, tc.minAvailable, "available below replicas-maxUnavailable after step %d", h.steps)
			}
			h.setImage("web", "nginx:2")
			h.run()

			rss := h.replicaSets()
			require.Len(t, rss, 2)
			assert.Equal(t, int32(0), *rss[0].Spec.Replicas)
			assert.Equal(t, tc.replicas, *rss[1].Spec.Replicas)
			assert.Equal(t, "2", rss[1].Annotations[api.RevisionAnnotation])
			for _, p := range h.activePods() {
				assert.Equal(t, "nginx:2", p.Spec.Containers[0].Image)
			}
			got := h.deployment("web")
			assert.Equal(t, "2", got.Annotations[api.RevisionAnnotation])
			assert.Equal(t, `deployment "web" successfully rolled out`, rolloutStatus(got))
			assert.Equal(t, tc.replicas, got.Status.UpdatedReplicas)
			assert.Equal(t, tc.replicas, got.Status.Replicas)
			assert.Equal(t, `ReplicaSet "`+rss[1].Name+`" has successfully progressed.`, condition(got, appsv1.DeploymentProgressing).Message)
			if tc.maxTotal > int(tc.replicas) {
				assert.Greater(t, maxSeen, int(tc.replicas), "the rollout used its surge")
			}
			assert.Less(t, minSeen, 1000)
			scaling := strings.Join(h.events("ScalingReplicaSet"), "\n")
			assert.Contains(t, scaling, "Scaled up replica set "+rss[1].Name+" from 0 to ")
			assert.Contains(t, scaling, "Scaled down replica set "+rss[0].Name+" from ")
		})
	}
}

func TestRecreateStopsOldPodsBeforeStartingNew(t *testing.T) {
	h := newHarness(t)
	d := newDeployment("web", 3)
	d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
	h.create(d)
	h.run()
	require.Len(t, h.activePods(), 3)

	sawEmpty := false
	h.check = func() {
		images := map[string]bool{}
		pods := h.activePods()
		for _, p := range pods {
			images[p.Spec.Containers[0].Image] = true
		}
		require.LessOrEqual(t, len(images), 1, "old and new pods together after step %d", h.steps)
		require.LessOrEqual(t, len(pods), 3)
		sawEmpty = sawEmpty || len(pods) == 0
	}
	h.setImage("web", "nginx:2")
	h.run()
	assert.True(t, sawEmpty, "all old pods went before new ones came")
	pods := h.activePods()
	require.Len(t, pods, 3)
	for _, p := range pods {
		assert.Equal(t, "nginx:2", p.Spec.Containers[0].Image)
	}
	rss := h.replicaSets()
	require.Len(t, rss, 2)
	assert.Equal(t, int32(0), *rss[0].Spec.Replicas)
	assert.Equal(t, "3", rss[1].Annotations[api.DesiredReplicasAnnotation])
	assert.Equal(t, "3", rss[1].Annotations[api.MaxReplicasAnnotation], "no surge with Recreate")
	assert.Equal(t, `deployment "web" successfully rolled out`, rolloutStatus(h.deployment("web")))
}

// undo does what `kubectl rollout undo --to-revision` does: patch the
// template back to the one the ReplicaSet of that revision has, without
// its pod-template-hash label.
func (h *harness) undo(name string, revision int64) {
	h.t.Helper()
	for _, rs := range h.replicaSets() {
		if Revision(rs) != revision {
			continue
		}
		tmpl := rs.Spec.Template.DeepCopy()
		delete(tmpl.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
		patch, err := json.Marshal([]any{map[string]any{"op": "replace", "path": "/spec/template", "value": tmpl}})
		require.NoError(h.t, err)
		_, err = h.env.Client.Deployments().Patch(h.ctx, "default", name, client.JSONPatch, patch)
		require.NoError(h.t, err)
		return
	}
	h.t.Fatalf("no revision %d", revision)
}

func TestRevisionsAndUndoReuseTheFirstReplicaSet(t *testing.T) {
	h := newHarness(t)
	h.create(newDeployment("web", 2))
	h.run()
	first := h.replicaSets()[0]
	h.setImage("web", "nginx:2")
	h.run()
	rss := h.replicaSets()
	require.Len(t, rss, 2)
	assert.Equal(t, []int64{1, 2}, []int64{Revision(rss[0]), Revision(rss[1])})
	assert.Equal(t, "2", h.deployment("web").Annotations[api.RevisionAnnotation])

	h.undo("web", 1)
	h.run()
	rss = h.replicaSets()
	require.Len(t, rss, 2, "undo reuses the first ReplicaSet")
	reused := rss[1]
	assert.Equal(t, first.UID, reused.UID)
	assert.Equal(t, "3", reused.Annotations[api.RevisionAnnotation])
	assert.Equal(t, "1", reused.Annotations[api.RevisionHistoryAnnotation])
	assert.Equal(t, int32(2), *reused.Spec.Replicas)
	assert.Equal(t, int32(0), *rss[0].Spec.Replicas)
	got := h.deployment("web")
	assert.Equal(t, "3", got.Annotations[api.RevisionAnnotation])
	assert.Equal(t, `deployment "web" successfully rolled out`, rolloutStatus(got))
	for _, p := range h.activePods() {
		assert.Equal(t, "nginx:1", p.Spec.Containers[0].Image)
	}
}

func TestOldReplicaSetsBeyondHistoryLimitAreDeleted(t *testing.T) {
	h := newHarness(t)
	d := newDeployment("web", 1)
	limit := int32(1)
	d.Spec.RevisionHistoryLimit = &limit
	h.create(d)
	h.run()
	for _, img := range []string{"nginx:2", "nginx:3", "nginx:4"} {
		h.setImage("web", img)
		h.run()
	}
	rss := h.replicaSets()
	require.Len(t, rss, 2, "the new ReplicaSet and one old one")
	assert.Equal(t, []int64{3, 4}, []int64{Revision(rss[0]), Revision(rss[1])}, "the oldest went first")
	assert.Equal(t, "nginx:3", rss[0].Spec.Template.Spec.Containers[0].Image)
}

func TestProgressDeadlineAndAvailability(t *testing.T) {
	h := newHarness(t)
	h.autoReady = false
	d := newDeployment("web", 2)
	deadline := int32(60)
	d.Spec.ProgressDeadlineSeconds = &deadline
	h.create(d)
	h.run()
	got := h.deployment("web")
	rsName := h.replicaSets()[0].Name
	assert.Equal(t, corev1.ConditionFalse, condition(got, appsv1.DeploymentAvailable).Status)
	assert.Equal(t, MinimumReplicasUnavailable, condition(got, appsv1.DeploymentAvailable).Reason)
	assert.Equal(t, "Deployment does not have minimum availability.", condition(got, appsv1.DeploymentAvailable).Message)
	prog := condition(got, appsv1.DeploymentProgressing)
	assert.Equal(t, corev1.ConditionTrue, prog.Status)
	assert.Contains(t, []string{NewReplicaSetReason, ReplicaSetUpdatedReason}, prog.Reason)
	assert.Equal(t, int32(2), got.Status.UnavailableReplicas)

	// Nothing becomes ready: at the deadline the controller looks again.
	next, ok := h.ctrls[0].NextDeadline()
	require.True(t, ok, "the deployment is requeued for its deadline")
	assert.False(t, next.After(h.env.Clock.Now().Add(62*time.Second)), next)
	h.env.Clock.SetTime(next)
	h.run()
	got = h.deployment("web")
	prog = condition(got, appsv1.DeploymentProgressing)
	assert.Equal(t, corev1.ConditionFalse, prog.Status)
	assert.Equal(t, TimedOutReason, prog.Reason)
	assert.Equal(t, `ReplicaSet "`+rsName+`" has timed out progressing.`, prog.Message)
	assert.Equal(t, `deployment "web" exceeded its progress deadline`, rolloutStatus(got))

	// Pods becoming ready bring the rollout to completion after all.
	h.readyAll()
	h.run()
	got = h.deployment("web")
	assert.Equal(t, corev1.ConditionTrue, condition(got, appsv1.DeploymentAvailable).Status)
	prog = condition(got, appsv1.DeploymentProgressing)
	assert.Equal(t, NewRSAvailableReason, prog.Reason)
	assert.Equal(t, `deployment "web" successfully rolled out`, rolloutStatus(got))
}

func TestScalingResizesTheReplicaSet(t *testing.T) {
	h := newHarness(t)
	h.create(newDeployment("web", 2))
	h.run()
	d := h.deployment("web")
	n := int32(5)
	d.Spec.Replicas = &n
	_, err := h.env.Client.Deployments().Update(h.ctx, d)
	require.NoError(t, err)
	h.run()
	rss := h.replicaSets()
	require.Len(t, rss, 1)
	assert.Equal(t, int32(5), *rss[0].Spec.Replicas)
	assert.Equal(t, "5", rss[0].Annotations[api.DesiredReplicasAnnotation])
	assert.Len(t, h.activePods(), 5)
	assert.Contains(t, h.events("ScalingReplicaSet"), "Scaled up replica set "+rss[0].Name+" from 2 to 5")
}

func TestAdoptsAnOrphanReplicaSet(t *testing.T) {
	h := newHarness(t)
	d := newDeployment("web", 2)
	hash := controllers.ComputeHash(&d.Spec.Template, nil)
	two := int32(2)
	tmpl := d.Spec.Template.DeepCopy()
	tmpl.Labels = cloneWithHash(tmpl.Labels, hash)
	_, err := h.env.Client.ReplicaSets().Create(h.ctx, &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: "web-" + hash, Namespace: "default", Labels: tmpl.Labels},
		Spec:       appsv1.ReplicaSetSpec{Replicas: &two, Selector: &metav1.LabelSelector{MatchLabels: tmpl.Labels}, Template: *tmpl},
	})
	require.NoError(t, err)
	created := h.create(d)
	h.run()
	rss := h.replicaSets()
	require.Len(t, rss, 1)
	assert.True(t, api.IsControlledBy(&rss[0].ObjectMeta, &created.ObjectMeta))
	assert.Equal(t, `deployment "web" successfully rolled out`, rolloutStatus(h.deployment("web")))
}

// detectingInformers builds private informers watched by a cache mutation
// detector, checked when the test ends: the controller must copy what it
// changes.
func detectingInformers(t *testing.T) *cache.Factory {
	d := cache.NewMutationDetector()
	t.Cleanup(func() {
		if err := d.Check(); err != nil {
			t.Error(err)
		}
	})
	return cache.NewFactory(cache.FactoryConfig{Detector: d})
}
