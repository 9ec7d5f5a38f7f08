package job

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func ptr[T any](v T) *T { return &v }

func newJob(mut ...func(*batchv1.Job)) *batchv1.Job {
	j := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "pi", Namespace: "default", UID: "j1"},
		Spec: batchv1.JobSpec{Completions: ptr(int32(1)), Parallelism: ptr(int32(1)), BackoffLimit: ptr(int32(6)),
			CompletionMode: ptr(batchv1.NonIndexedCompletion), Suspend: ptr(false),
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever}}}}
	start := metav1.NewTime(t0)
	j.Status.StartTime = &start
	for _, m := range mut {
		m(j)
	}
	return j
}

// pod builds a pod created at t0+created seconds, in a phase; a failed or
// succeeded one exits at t0+finished seconds with code.
func pod(name string, phase corev1.PodPhase, created, finished int, code int32) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", CreationTimestamp: metav1.NewTime(t0.Add(time.Duration(created) * time.Second))},
		Status: corev1.PodStatus{Phase: phase}}
	if phase == corev1.PodSucceeded || phase == corev1.PodFailed {
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "main", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
			ExitCode: code, FinishedAt: metav1.NewTime(t0.Add(time.Duration(finished) * time.Second))}}}}
	}
	return p
}

func indexed(p *corev1.Pod, i int) *corev1.Pod {
	p.Annotations = map[string]string{batchv1.JobCompletionIndexAnnotation: fmt.Sprint(i)}
	return p
}

func conds(st batchv1.JobStatus) []string {
	var out []string
	for _, c := range st.Conditions {
		out = append(out, fmt.Sprintf("%s=%s/%s", c.Type, c.Status, c.Reason))
	}
	return out
}

func TestDecide(t *testing.T) {
	for _, tc := range []struct {
		name      string
		job       *batchv1.Job
		pods      []*corev1.Pod
		now       int // seconds after t0
		create    []int
		delete    int
		requeue   time.Duration
		active    int32
		succeeded int32
		failed    int32
		conds     []string
		indexes   string
	}{
		{name: "a new Job starts one pod", job: newJob(), create: []int{-1}},
		{name: "parallelism 3 of 5 completions", job: newJob(func(j *batchv1.Job) { j.Spec.Completions, j.Spec.Parallelism = ptr(int32(5)), ptr(int32(3)) }),
			create: []int{-1, -1, -1}},
		{name: "never more than the completions left", job: newJob(func(j *batchv1.Job) { j.Spec.Completions, j.Spec.Parallelism = ptr(int32(5)), ptr(int32(3)) }),
			pods: []*corev1.Pod{pod("a", corev1.PodSucceeded, 0, 5, 0), pod("b", corev1.PodSucceeded, 0, 5, 0), pod("c", corev1.PodSucceeded, 0, 5, 0), pod("d", corev1.PodRunning, 0, 0, 0)},
			now:  6, create: []int{-1}, active: 1, succeeded: 3},
		{name: "running", job: newJob(), pods: []*corev1.Pod{pod("a", corev1.PodRunning, 0, 0, 0)}, active: 1},
		{name: "the success completes the Job", job: newJob(), pods: []*corev1.Pod{pod("a", corev1.PodSucceeded, 0, 5, 0)}, now: 6,
			succeeded: 1, conds: []string{"SuccessCriteriaMet=True/CompletionsReached", "Complete=True/CompletionsReached"}},
		{name: "a failure waits 10s before the next pod", job: newJob(), pods: []*corev1.Pod{pod("a", corev1.PodFailed, 0, 5, 1)}, now: 6,
			failed: 1, requeue: 9 * time.Second},
		{name: "after the back-off the pod is replaced", job: newJob(), pods: []*corev1.Pod{pod("a", corev1.PodFailed, 0, 5, 1)}, now: 15,
			failed: 1, create: []int{-1}},
		{name: "the second failure in a row waits 20s", job: newJob(), pods: []*corev1.Pod{pod("a", corev1.PodFailed, 0, 5, 1), pod("b", corev1.PodFailed, 15, 20, 1)}, now: 20,
			failed: 2, requeue: 20 * time.Second},
		{name: "backoffLimit exceeded: FailureTarget and Failed", job: newJob(func(j *batchv1.Job) { j.Spec.BackoffLimit = ptr(int32(1)) }),
			pods: []*corev1.Pod{pod("a", corev1.PodFailed, 0, 5, 1), pod("b", corev1.PodFailed, 15, 20, 1)}, now: 20, failed: 2,
			conds: []string{"FailureTarget=True/BackoffLimitExceeded", "Failed=True/BackoffLimitExceeded"}},
		{name: "backoffLimit 0 and a restart of an OnFailure pod", job: newJob(func(j *batchv1.Job) {
			j.Spec.BackoffLimit = ptr(int32(0))
			j.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyOnFailure
		}), pods: []*corev1.Pod{func() *corev1.Pod {
			p := pod("a", corev1.PodRunning, 0, 0, 0)
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "main", RestartCount: 1}}
			return p
		}()}, delete: 1, conds: []string{"FailureTarget=True/BackoffLimitExceeded"}},
		{name: "deadline: running pods are deleted, Failed waits for them", job: newJob(func(j *batchv1.Job) { j.Spec.ActiveDeadlineSeconds = ptr(int64(30)) }),
			pods: []*corev1.Pod{pod("a", corev1.PodRunning, 0, 0, 0)}, now: 30, delete: 1, conds: []string{"FailureTarget=True/DeadlineExceeded"}},
		{name: "before the deadline: requeue at it", job: newJob(func(j *batchv1.Job) { j.Spec.ActiveDeadlineSeconds = ptr(int64(30)) }),
			pods: []*corev1.Pod{pod("a", corev1.PodRunning, 0, 0, 0)}, now: 10, active: 1, requeue: 20 * time.Second},
		{name: "FailJob on exit code 42", job: newJob(func(j *batchv1.Job) {
			j.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{Action: batchv1.PodFailurePolicyActionFailJob,
				OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{42}}}}}
		}), pods: []*corev1.Pod{pod("a", corev1.PodFailed, 0, 5, 42)}, now: 6, failed: 1,
			conds: []string{"FailureTarget=True/PodFailurePolicy", "Failed=True/PodFailurePolicy"}},
		{name: "Ignore a disruption: not counted, replaced at once", job: newJob(func(j *batchv1.Job) {
			j.Spec.BackoffLimit = ptr(int32(0))
			j.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{Action: batchv1.PodFailurePolicyActionIgnore,
				OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue}}}}}
		}), pods: []*corev1.Pod{func() *corev1.Pod {
			p := pod("a", corev1.PodFailed, 0, 5, 137)
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue}}
			return p
		}()}, now: 6, create: []int{-1}},
		{name: "Indexed: one pod per missing index", job: newJob(func(j *batchv1.Job) {
			j.Spec.CompletionMode = ptr(batchv1.IndexedCompletion)
			j.Spec.Completions, j.Spec.Parallelism = ptr(int32(5)), ptr(int32(2))
		}), pods: []*corev1.Pod{indexed(pod("a", corev1.PodSucceeded, 0, 5, 0), 0), indexed(pod("b", corev1.PodRunning, 0, 0, 0), 1)},
			now: 6, create: []int{2}, active: 1, succeeded: 1, indexes: "0"},
		{name: "Indexed: complete when every index succeeded", job: newJob(func(j *batchv1.Job) {
			j.Spec.CompletionMode = ptr(batchv1.IndexedCompletion)
			j.Spec.Completions, j.Spec.Parallelism = ptr(int32(3)), ptr(int32(3))
		}), pods: []*corev1.Pod{indexed(pod("a", corev1.PodSucceeded, 0, 5, 0), 0), indexed(pod("b", corev1.PodSucceeded, 0, 5, 0), 1), indexed(pod("c", corev1.PodSucceeded, 0, 5, 0), 2)},
			now: 6, succeeded: 3, indexes: "0-2", conds: []string{"SuccessCriteriaMet=True/CompletionsReached", "Complete=True/CompletionsReached"}},
		{name: "no completions: the first success ends it once the others finish", job: newJob(func(j *batchv1.Job) { j.Spec.Completions, j.Spec.Parallelism = nil, ptr(int32(2)) }),
			pods: []*corev1.Pod{pod("a", corev1.PodSucceeded, 0, 5, 0), pod("b", corev1.PodRunning, 0, 0, 0)}, now: 6, active: 1, succeeded: 1},
		{name: "suspended: pods go, the clock stops", job: newJob(func(j *batchv1.Job) { j.Spec.Suspend = ptr(true) }),
			pods: []*corev1.Pod{pod("a", corev1.PodRunning, 0, 0, 0)}, delete: 1, conds: []string{"Suspended=True/JobSuspended"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan := Decide(tc.job, tc.pods, t0.Add(time.Duration(tc.now)*time.Second))
			assert.Equal(t, tc.create, plan.Create, "create")
			assert.Len(t, plan.Delete, tc.delete, "delete")
			assert.Equal(t, tc.requeue, plan.RequeueAfter, "requeue")
			assert.Equal(t, tc.active, plan.Status.Active, "active")
			assert.Equal(t, tc.succeeded, plan.Status.Succeeded, "succeeded")
			assert.Equal(t, tc.failed, plan.Status.Failed, "failed")
			assert.Equal(t, tc.conds, conds(plan.Status), "conditions")
			assert.Equal(t, tc.indexes, plan.Status.CompletedIndexes, "completedIndexes")
		})
	}
}

func TestFailedWaitsForTerminatingPods(t *testing.T) {
	j := newJob(func(j *batchv1.Job) { j.Spec.ActiveDeadlineSeconds = ptr(int64(30)) })
	p := pod("a", corev1.PodRunning, 0, 0, 0)
	now := metav1.NewTime(t0.Add(30 * time.Second))
	p.DeletionTimestamp = &now
	plan := Decide(j, []*corev1.Pod{p}, now.Time)
	assert.Equal(t, []string{"FailureTarget=True/DeadlineExceeded"}, conds(plan.Status))
	j.Status = plan.Status
	plan = Decide(j, nil, now.Add(time.Second))
	assert.Equal(t, []string{"FailureTarget=True/DeadlineExceeded", "Failed=True/DeadlineExceeded"}, conds(plan.Status))
	require.Len(t, plan.Events, 1)
	assert.Equal(t, Event{"Warning", "DeadlineExceeded", "Job was active longer than specified deadline"}, plan.Events[0])
}

func TestFailJobMessage(t *testing.T) {
	policy := &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{
		{Action: batchv1.PodFailurePolicyActionIgnore, OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue}}},
		{Action: batchv1.PodFailurePolicyActionFailJob, OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: batchv1.PodFailurePolicyOnExitCodesOpNotIn, Values: []int32{1, 2}}},
	}}
	action, msg := MatchPodFailurePolicy(policy, pod("a", corev1.PodFailed, 0, 5, 3))
	assert.Equal(t, batchv1.PodFailurePolicyActionFailJob, action)
	assert.Equal(t, "Container main for pod default/a failed with exit code 3 matching FailJob rule at index 1", msg)
	action, _ = MatchPodFailurePolicy(policy, pod("a", corev1.PodFailed, 0, 5, 2))
	assert.Equal(t, batchv1.PodFailurePolicyAction(""), action, "exit code 2 is in the NotIn list: no rule, the failure counts")
}

func TestBackoffDelayAndIndexes(t *testing.T) {
	assert.Equal(t, []time.Duration{10 * time.Second, 20 * time.Second, 40 * time.Second, 80 * time.Second, 160 * time.Second, 320 * time.Second, 10 * time.Minute, 10 * time.Minute},
		[]time.Duration{BackoffDelay(1), BackoffDelay(2), BackoffDelay(3), BackoffDelay(4), BackoffDelay(5), BackoffDelay(6), BackoffDelay(7), BackoffDelay(30)})
	assert.Equal(t, "1,3-5,7", formatIndexes(map[int]bool{1: true, 3: true, 4: true, 5: true, 7: true}))
	assert.Equal(t, "0,1", formatIndexes(map[int]bool{0: true, 1: true}))
}

func TestNewPodIndexed(t *testing.T) {
	j := newJob(func(j *batchv1.Job) {
		j.Spec.CompletionMode = ptr(batchv1.IndexedCompletion)
		j.Spec.Template.Spec.Containers = []corev1.Container{{Name: "main", Image: "busybox"}}
	})
	p := NewPod(j, 2, 1)
	assert.Equal(t, "pi-2-", p.GenerateName)
	assert.Equal(t, "pi-2", p.Spec.Hostname)
	assert.Equal(t, "2", p.Annotations[batchv1.JobCompletionIndexAnnotation])
	assert.Equal(t, "1", p.Annotations[JobIndexFailureCountAnnotation])
	// The label has the annotation's key (kube-controller-manager's
	// addCompletionIndexLabel), so that -l batch.kubernetes.io/job-completion-index=2 finds it.
	assert.Equal(t, "2", p.Labels["batch.kubernetes.io/job-completion-index"])
	assert.Equal(t, "JOB_COMPLETION_INDEX", p.Spec.Containers[0].Env[0].Name)
	ref := api.GetControllerOf(&p.ObjectMeta)
	require.NotNil(t, ref)
	assert.Equal(t, "Job", ref.Kind)
	assert.Equal(t, "batch/v1", ref.APIVersion)
	assert.Nil(t, j.Spec.Template.Annotations, "the template is not changed")
}
