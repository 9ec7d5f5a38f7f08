package statefulset_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/controllers/statefulset"
	"github.com/kubesim/kubesim/runmode"
	"github.com/kubesim/kubesim/stepper"
)

var bg = context.Background()

func newCluster(t *testing.T) (*cluster.Cluster, *client.Client) {
	c, err := cluster.New(cluster.Config{DetectCacheMutations: true, Mode: runmode.Step, Seed: 7, NodeCount: 3})
	require.NoError(t, err)
	t.Cleanup(func() {
		if err := c.CheckCacheMutations(); err != nil {
			t.Error(err)
		}
		c.Close()
	})
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	return c, c.Client("test")
}

func newSet(name string, replicas int32, policy appsv1.PodManagementPolicyType) *appsv1.StatefulSet {
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: appsv1.StatefulSetSpec{
			Replicas: &replicas, ServiceName: "nginx", PodManagementPolicy: policy,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx:1.25"}}},
			},
		},
	}
}

// podsOf maps pod name to pod for a label selector.
func podsOf(t *testing.T, cl *client.Client, selector string) map[string]*corev1.Pod {
	t.Helper()
	l, err := cl.Pods().List(bg, "default", client.ListOptions{LabelSelector: selector})
	require.NoError(t, err)
	out := map[string]*corev1.Pod{}
	for _, p := range l.Items {
		out[p.Name] = p
	}
	return out
}

func healthy(p *corev1.Pod) bool { return p != nil && statefulset.IsHealthy(p) }

// stepUntilStable steps the cluster one unit at a time, calling check
// with the pods before and after each step.
func stepUntilStable(t *testing.T, c *cluster.Cluster, cl *client.Client, selector string, check func(before, after map[string]*corev1.Pod)) {
	t.Helper()
	before := podsOf(t, cl, selector)
	for range 5000 {
		_, did, err := c.Step(bg)
		require.NoError(t, err)
		if !did {
			n, err := c.RunUntilStable(bg, stepper.Limits{MaxSteps: 1})
			if err == nil && n == 0 {
				return
			}
		}
		after := podsOf(t, cl, selector)
		check(before, after)
		before = after
	}
	t.Fatal("never stable")
}

func TestOrderedReadyLifecycle(t *testing.T) {
	c, cl := newCluster(t)
	_, err := cl.StatefulSets().Create(bg, newSet("web", 3, ""))
	require.NoError(t, err)

	// Each new pod appears only when every lower ordinal is Running and Ready.
	stepUntilStable(t, c, cl, "app=web", func(before, after map[string]*corev1.Pod) {
		for name := range after {
			if before[name] != nil {
				continue
			}
			var ord int
			_, _ = fmt.Sscanf(name, "web-%d", &ord)
			for i := range ord {
				assert.True(t, healthy(before[fmt.Sprintf("web-%d", i)]), "%s created before web-%d was Running and Ready", name, i)
			}
		}
	})
	pods := podsOf(t, cl, "app=web")
	require.Len(t, pods, 3)
	set, err := cl.StatefulSets().Get(bg, "default", "web")
	require.NoError(t, err)
	rev := statefulset.Revision(set)
	for i := range 3 {
		name := fmt.Sprintf("web-%d", i)
		p := pods[name]
		require.NotNil(t, p, name)
		assert.True(t, healthy(p), name)
		assert.Equal(t, name, p.Spec.Hostname)
		assert.Equal(t, "nginx", p.Spec.Subdomain)
		assert.Equal(t, name, p.Labels[appsv1.StatefulSetPodNameLabel])
		assert.Equal(t, rev, p.Labels[appsv1.ControllerRevisionHashLabelKey])
		assert.Equal(t, set.UID, api.GetControllerOf(&p.ObjectMeta).UID)
		assert.NotEmpty(t, p.Spec.NodeName)
	}
	assert.Equal(t, appsv1.StatefulSetStatus{ObservedGeneration: set.Generation, Replicas: 3, ReadyReplicas: 3, AvailableReplicas: 3,
		CurrentReplicas: 3, UpdatedReplicas: 3, CurrentRevision: rev, UpdateRevision: rev, CollisionCount: new(int32)}, set.Status)

	events, err := cl.Events().List(bg, "default", client.ListOptions{FieldSelector: "involvedObject.name=web,reason=SuccessfulCreate"})
	require.NoError(t, err)
	var msgs []string
	for _, e := range events.Items {
		msgs = append(msgs, e.Message)
		assert.Equal(t, "statefulset-controller", e.Source.Component)
		assert.Equal(t, "StatefulSet", e.InvolvedObject.Kind)
	}
	assert.ElementsMatch(t, []string{"create Pod web-0 in StatefulSet web successful",
		"create Pod web-1 in StatefulSet web successful", "create Pod web-2 in StatefulSet web successful"}, msgs)

	t.Run("a deleted pod comes back with the same name", func(t *testing.T) {
		old := podsOf(t, cl, "app=web")["web-1"]
		require.NoError(t, cl.Pods().Delete(bg, "default", "web-1", nil))
		_, err := c.RunUntilStable(bg, stepper.Limits{})
		require.NoError(t, err)
		p := podsOf(t, cl, "app=web")["web-1"]
		require.NotNil(t, p)
		assert.NotEqual(t, old.UID, p.UID, "a new pod")
		assert.True(t, healthy(p))
		assert.Equal(t, "web-1", p.Spec.Hostname)
	})

	t.Run("scale up then down from the highest ordinal, one at a time", func(t *testing.T) {
		_, err := cl.StatefulSets().Patch(bg, "default", "web", client.MergePatch, []byte(`{"spec":{"replicas":5}}`))
		require.NoError(t, err)
		_, err = c.RunUntilStable(bg, stepper.Limits{})
		require.NoError(t, err)
		require.Len(t, podsOf(t, cl, "app=web"), 5)

		_, err = cl.StatefulSets().Patch(bg, "default", "web", client.MergePatch, []byte(`{"spec":{"replicas":2}}`))
		require.NoError(t, err)
		var order []string
		stepUntilStable(t, c, cl, "app=web", func(before, after map[string]*corev1.Pod) {
			terminating := 0
			for name, p := range after {
				if p.DeletionTimestamp != nil {
					terminating++
					if before[name] != nil && before[name].DeletionTimestamp == nil {
						order = append(order, name)
					}
				}
			}
			assert.LessOrEqual(t, terminating, 1, "one pod at a time")
		})
		assert.Equal(t, []string{"web-4", "web-3", "web-2"}, order)
		pods := podsOf(t, cl, "app=web")
		assert.Len(t, pods, 2)
		assert.Contains(t, pods, "web-0")
		assert.Contains(t, pods, "web-1")
		events, err := cl.Events().List(bg, "default", client.ListOptions{FieldSelector: "involvedObject.name=web,reason=SuccessfulDelete"})
		require.NoError(t, err)
		var msgs []string
		for _, e := range events.Items {
			msgs = append(msgs, e.Message)
		}
		assert.Contains(t, msgs, "delete Pod web-4 in StatefulSet web successful")
	})

	t.Run("deleting the StatefulSet deletes its pods", func(t *testing.T) {
		require.NoError(t, cl.StatefulSets().Delete(bg, "default", "web", nil))
		_, err := c.RunUntilStable(bg, stepper.Limits{})
		require.NoError(t, err)
		assert.Empty(t, podsOf(t, cl, "app=web"))
	})
}

func TestParallelCreatesAllAtOnce(t *testing.T) {
	c, cl := newCluster(t)
	_, err := cl.StatefulSets().Create(bg, newSet("db", 4, appsv1.ParallelPodManagement))
	require.NoError(t, err)
	first := 0
	for range 100 {
		e, did, err := c.Step(bg)
		require.NoError(t, err)
		require.True(t, did)
		if e.Actor == statefulset.ControllerName {
			for _, w := range e.Writes {
				if w.Verb == "create" && w.Path == "/api/v1/namespaces/default/pods" {
					first++
				}
			}
			break
		}
	}
	assert.Equal(t, 4, first, "the first sync created every pod")
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	set, err := cl.StatefulSets().Get(bg, "default", "db")
	require.NoError(t, err)
	assert.Equal(t, int32(4), set.Status.ReadyReplicas)

	_, err = cl.StatefulSets().Patch(bg, "default", "db", client.MergePatch, []byte(`{"spec":{"replicas":1}}`))
	require.NoError(t, err)
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	pods := podsOf(t, cl, "app=db")
	assert.Len(t, pods, 1)
	assert.Contains(t, pods, "db-0")
}

func TestRollingUpdateFromTheHighestOrdinalWithPartition(t *testing.T) {
	c, cl := newCluster(t)
	_, err := cl.StatefulSets().Create(bg, newSet("web", 3, ""))
	require.NoError(t, err)
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	set, err := cl.StatefulSets().Get(bg, "default", "web")
	require.NoError(t, err)
	oldRev := set.Status.CurrentRevision

	// Partition 1: web-0 keeps the old image.
	_, err = cl.StatefulSets().Patch(bg, "default", "web", client.MergePatch,
		[]byte(`{"spec":{"updateStrategy":{"rollingUpdate":{"partition":1}},"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.26"}]}}}}`))
	require.NoError(t, err)
	var order []string
	stepUntilStable(t, c, cl, "app=web", func(before, after map[string]*corev1.Pod) {
		for name, p := range after {
			if p.DeletionTimestamp != nil && before[name] != nil && before[name].DeletionTimestamp == nil {
				order = append(order, name)
			}
		}
	})
	assert.Equal(t, []string{"web-2", "web-1"}, order, "from the highest ordinal down to the partition")
	pods := podsOf(t, cl, "app=web")
	assert.Equal(t, "nginx:1.25", pods["web-0"].Spec.Containers[0].Image)
	assert.Equal(t, "nginx:1.26", pods["web-1"].Spec.Containers[0].Image)
	assert.Equal(t, "nginx:1.26", pods["web-2"].Spec.Containers[0].Image)
	set, err = cl.StatefulSets().Get(bg, "default", "web")
	require.NoError(t, err)
	assert.Equal(t, oldRev, set.Status.CurrentRevision, "not finished while the partition holds web-0")
	assert.NotEqual(t, oldRev, set.Status.UpdateRevision)
	assert.Equal(t, int32(2), set.Status.UpdatedReplicas)
	assert.Equal(t, int32(1), set.Status.CurrentReplicas)

	t.Run("a pod below the partition comes back at the old revision", func(t *testing.T) {
		require.NoError(t, cl.Pods().Delete(bg, "default", "web-0", nil))
		_, err := c.RunUntilStable(bg, stepper.Limits{})
		require.NoError(t, err)
		p := podsOf(t, cl, "app=web")["web-0"]
		require.NotNil(t, p)
		assert.Equal(t, "nginx:1.25", p.Spec.Containers[0].Image)
		assert.Equal(t, oldRev, p.Labels[appsv1.ControllerRevisionHashLabelKey])
	})

	t.Run("partition 0 finishes the update", func(t *testing.T) {
		_, err := cl.StatefulSets().Patch(bg, "default", "web", client.MergePatch, []byte(`{"spec":{"updateStrategy":{"rollingUpdate":{"partition":0}}}}`))
		require.NoError(t, err)
		_, err = c.RunUntilStable(bg, stepper.Limits{})
		require.NoError(t, err)
		set, err := cl.StatefulSets().Get(bg, "default", "web")
		require.NoError(t, err)
		assert.Equal(t, set.Status.UpdateRevision, set.Status.CurrentRevision)
		assert.Equal(t, int32(3), set.Status.CurrentReplicas)
		assert.Equal(t, int32(3), set.Status.UpdatedReplicas)
		assert.Equal(t, "nginx:1.26", podsOf(t, cl, "app=web")["web-0"].Spec.Containers[0].Image)
	})
}

// revisionsOf maps each ControllerRevision of the namespace to its number.
func revisionsOf(t *testing.T, cl *client.Client) map[string]int64 {
	t.Helper()
	l, err := cl.ControllerRevisions().List(bg, "default", client.ListOptions{})
	require.NoError(t, err)
	out := map[string]int64{}
	for _, r := range l.Items {
		out[r.Name] = r.Revision
	}
	return out
}

func TestControllerRevisionHistory(t *testing.T) {
	c, cl := newCluster(t)
	set := newSet("web", 2, "")
	limit := int32(2)
	set.Spec.RevisionHistoryLimit = &limit
	_, err := cl.StatefulSets().Create(bg, set)
	require.NoError(t, err)
	settle := func(image string) *appsv1.StatefulSet {
		t.Helper()
		if image != "" {
			_, err := cl.StatefulSets().Patch(bg, "default", "web", client.StrategicPatch,
				[]byte(`{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"`+image+`"}]}}}}`))
			require.NoError(t, err)
		}
		_, err := c.RunUntilStable(bg, stepper.Limits{})
		require.NoError(t, err)
		s, err := cl.StatefulSets().Get(bg, "default", "web")
		require.NoError(t, err)
		assert.Equal(t, s.Status.UpdateRevision, s.Status.CurrentRevision, "the rollout finished")
		return s
	}

	r1 := settle("").Status.CurrentRevision
	assert.Equal(t, map[string]int64{r1: 1}, revisionsOf(t, cl))
	cr, err := cl.ControllerRevisions().Get(bg, "default", r1)
	require.NoError(t, err)
	assert.Equal(t, "web", api.GetControllerOf(&cr.ObjectMeta).Name)
	assert.Equal(t, "web", cr.Labels["app"])

	r2 := settle("nginx:1.26").Status.CurrentRevision
	r3 := settle("nginx:1.27").Status.CurrentRevision
	assert.Equal(t, map[string]int64{r1: 1, r2: 2, r3: 3}, revisionsOf(t, cl))

	// Back to the first template: its revision is renumbered as the
	// newest, no new object, and the pods carry its name again.
	back := settle("nginx:1.25")
	assert.Equal(t, r1, back.Status.CurrentRevision)
	assert.Equal(t, map[string]int64{r1: 4, r2: 2, r3: 3}, revisionsOf(t, cl))
	for name, p := range podsOf(t, cl, "app=web") {
		assert.Equal(t, r1, p.Labels[appsv1.ControllerRevisionHashLabelKey], name)
	}

	// A fifth template: beyond the limit of 2, the oldest unused revision
	// (r2) goes.
	r5 := settle("nginx:1.28").Status.CurrentRevision
	assert.Equal(t, map[string]int64{r3: 3, r1: 4, r5: 5}, revisionsOf(t, cl))
}

func TestOrphanedHistoryIsAdopted(t *testing.T) {
	c, cl := newCluster(t)
	_, err := cl.StatefulSets().Create(bg, newSet("web", 2, ""))
	require.NoError(t, err)
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	_, err = cl.StatefulSets().Patch(bg, "default", "web", client.StrategicPatch,
		[]byte(`{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.26"}]}}}}`))
	require.NoError(t, err)
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	before := revisionsOf(t, cl)
	require.Len(t, before, 2)

	// Deleted with the Orphan policy: the revisions stay, ownerless.
	orphan := metav1.DeletePropagationOrphan
	require.NoError(t, cl.StatefulSets().Delete(bg, "default", "web", &metav1.DeleteOptions{PropagationPolicy: &orphan}))
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	l, err := cl.ControllerRevisions().List(bg, "default", client.ListOptions{})
	require.NoError(t, err)
	require.Len(t, l.Items, 2)
	for _, r := range l.Items {
		assert.Nil(t, api.GetControllerOf(&r.ObjectMeta), r.Name)
	}

	// The same set again (at the first template) takes its history back:
	// no new revision, the first one renumbered as the newest.
	created, err := cl.StatefulSets().Create(bg, newSet("web", 2, ""))
	require.NoError(t, err)
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	l, err = cl.ControllerRevisions().List(bg, "default", client.ListOptions{})
	require.NoError(t, err)
	require.Len(t, l.Items, 2)
	for _, r := range l.Items {
		ref := api.GetControllerOf(&r.ObjectMeta)
		require.NotNil(t, ref, r.Name)
		assert.Equal(t, created.UID, ref.UID)
	}
	set, err := cl.StatefulSets().Get(bg, "default", "web")
	require.NoError(t, err)
	assert.Equal(t, int64(3), revisionsOf(t, cl)[set.Status.CurrentRevision])
}

func TestOrphanWithAnOrdinalNameIsAdopted(t *testing.T) {
	c, cl := newCluster(t)
	orphan := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-0", Namespace: "default", Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx:1.25"}}}}
	_, err := cl.Pods().Create(bg, orphan)
	require.NoError(t, err)
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	_, err = cl.StatefulSets().Create(bg, newSet("web", 2, ""))
	require.NoError(t, err)
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	pods := podsOf(t, cl, "app=web")
	require.Len(t, pods, 2)
	set, err := cl.StatefulSets().Get(bg, "default", "web")
	require.NoError(t, err)
	assert.Equal(t, set.UID, api.GetControllerOf(&pods["web-0"].ObjectMeta).UID, "adopted")
	assert.True(t, api.IsPodReady(pods["web-1"]))
}

// The trace of a StatefulSet's life is the same on every run.
func TestDeterministicTrace(t *testing.T) {
	run := func() string {
		c, cl := newCluster(t)
		_, err := cl.StatefulSets().Create(bg, newSet("web", 3, ""))
		require.NoError(t, err)
		_, err = c.RunUntilStable(bg, stepper.Limits{})
		require.NoError(t, err)
		require.NoError(t, cl.Pods().Delete(bg, "default", "web-0", nil))
		_, err = c.RunUntilStable(bg, stepper.Limits{})
		require.NoError(t, err)
		var s string
		for _, e := range c.Trace() {
			s += e.String() + "\n"
		}
		return s
	}
	a, b := run(), run()
	assert.Contains(t, a, "statefulset")
	assert.Equal(t, a, b)
}
