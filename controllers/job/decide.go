package job

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
)

// The back-off before a failed pod is replaced: DefaultJobPodFailureBackOff,
// doubled for each failure since the last success, at most
// MaxJobPodFailureBackOff.
const (
	DefaultJobPodFailureBackOff = 10 * time.Second
	MaxJobPodFailureBackOff     = 10 * time.Minute
)

// The messages of the Job's conditions, as Kubernetes words them.
const (
	msgBackoffLimitExceeded = "Job has reached the specified backoff limit"
	msgDeadlineExceeded     = "Job was active longer than specified deadline"
	msgCompletionsReached   = "Reached expected number of succeeded pods"
)

// JobIndexFailureCountAnnotation counts, on each pod of an Indexed Job,
// the failed pods of its index before it (Kubernetes 1.28+).
const JobIndexFailureCountAnnotation = "batch.kubernetes.io/job-index-failure-count"

// Event is an event Decide asks to record about the Job.
type Event struct {
	Type, Reason, Message string
}

// Plan is what one sync of a Job does.
type Plan struct {
	// Status is the Job's new status.
	Status batchv1.JobStatus
	// Create is the pods to create: one entry each, the completion index
	// for an Indexed Job, -1 otherwise.
	Create []int
	// Delete is the pods to delete.
	Delete []*corev1.Pod
	// RequeueAfter, when positive, is when to look again without an event
	// (the end of a back-off, the active deadline).
	RequeueAfter time.Duration
	// Events to record about the Job.
	Events []Event
}

// podClass sorts a Job's pods.
type podClass struct {
	active, terminating, succeeded, failed []*corev1.Pod
	// counted are the failed pods that count towards backoffLimit (the
	// pod failure policy may ignore some).
	counted []*corev1.Pod
	// failJob is set when a rule with FailJob matched a failed pod.
	failJob string
}

func classify(job *batchv1.Job, pods []*corev1.Pod) podClass {
	var c podClass
	for _, p := range pods {
		switch {
		case p.Status.Phase == corev1.PodSucceeded:
			c.succeeded = append(c.succeeded, p)
		case p.Status.Phase == corev1.PodFailed:
			c.failed = append(c.failed, p)
			action, msg := MatchPodFailurePolicy(job.Spec.PodFailurePolicy, p)
			switch action {
			case batchv1.PodFailurePolicyActionIgnore:
				continue
			case batchv1.PodFailurePolicyActionFailJob:
				if c.failJob == "" {
					c.failJob = msg
				}
			}
			c.counted = append(c.counted, p)
		case p.DeletionTimestamp != nil:
			c.terminating = append(c.terminating, p)
		default:
			c.active = append(c.active, p)
		}
	}
	return c
}

// MatchPodFailurePolicy returns the action of the first rule a failed pod
// matches, with the message a FailJob gives ("" action: no rule matched,
// the failure counts).
func MatchPodFailurePolicy(policy *batchv1.PodFailurePolicy, p *corev1.Pod) (batchv1.PodFailurePolicyAction, string) {
	if policy == nil {
		return "", ""
	}
	for i, r := range policy.Rules {
		switch r.Action {
		case batchv1.PodFailurePolicyActionFailJob, batchv1.PodFailurePolicyActionIgnore, batchv1.PodFailurePolicyActionCount:
		default:
			continue // an action this controller does not know is skipped
		}
		if ec := r.OnExitCodes; ec != nil {
			if c, ok := matchExitCodes(ec, p); ok {
				return r.Action, fmt.Sprintf("Container %s for pod %s/%s failed with exit code %d matching %s rule at index %d",
					c.Name, p.Namespace, p.Name, c.State.Terminated.ExitCode, r.Action, i)
			}
			continue
		}
		for _, pat := range r.OnPodConditions {
			for _, cond := range p.Status.Conditions {
				if cond.Type == pat.Type && cond.Status == pat.Status {
					return r.Action, fmt.Sprintf("Pod %s/%s has condition %s matching %s rule at index %d",
						p.Namespace, p.Name, cond.Type, r.Action, i)
				}
			}
		}
	}
	return "", ""
}

// matchExitCodes finds a container (init containers included) that ended
// with a non-zero code the requirement matches.
func matchExitCodes(ec *batchv1.PodFailurePolicyOnExitCodesRequirement, p *corev1.Pod) (corev1.ContainerStatus, bool) {
	statuses := append(append([]corev1.ContainerStatus{}, p.Status.InitContainerStatuses...), p.Status.ContainerStatuses...)
	for _, c := range statuses {
		if ec.ContainerName != nil && *ec.ContainerName != c.Name {
			continue
		}
		t := c.State.Terminated
		if t == nil || t.ExitCode == 0 {
			continue
		}
		in := false
		for _, v := range ec.Values {
			if v == t.ExitCode {
				in = true
			}
		}
		if in == (ec.Operator == batchv1.PodFailurePolicyOnExitCodesOpIn) {
			return c, true
		}
	}
	return corev1.ContainerStatus{}, false
}

// Decide is one sync of a Job: given the pods it owns and the time, what
// to create, delete and write.
func Decide(job *batchv1.Job, pods []*corev1.Pod, now time.Time) Plan {
	st := *job.Status.DeepCopy()
	plan := Plan{}
	if IsFinished(job) {
		plan.Status = st
		return plan
	}
	pods = sortedPods(pods)
	c := classify(job, pods)
	indexed := job.Spec.CompletionMode != nil && *job.Spec.CompletionMode == batchv1.IndexedCompletion
	nowT := metav1.NewTime(now)

	st.Active = int32(len(c.active))
	ready := int32(0)
	for _, p := range c.active {
		if api.IsPodReady(p) {
			ready++
		}
	}
	st.Ready = &ready
	st.Failed = int32(len(c.counted))
	succeededIdx := map[int]bool{}
	if indexed {
		for _, p := range c.succeeded {
			if i, ok := completionIndex(p, job); ok {
				succeededIdx[i] = true
			}
		}
		st.Succeeded = int32(len(succeededIdx))
		st.CompletedIndexes = formatIndexes(succeededIdx)
	} else {
		st.Succeeded = int32(len(c.succeeded))
	}
	if st.UncountedTerminatedPods == nil {
		st.UncountedTerminatedPods = &batchv1.UncountedTerminatedPods{}
	}

	// Suspend: no pods, no clock.
	if job.Spec.Suspend != nil && *job.Spec.Suspend {
		plan.Delete = c.active
		st.Active = 0
		if !hasCondition(st.Conditions, batchv1.JobSuspended) {
			setCondition(&st.Conditions, batchv1.JobSuspended, corev1.ConditionTrue, "JobSuspended", "Job suspended", nowT)
			plan.Events = append(plan.Events, Event{"Normal", "Suspended", "Job suspended"})
		}
		st.StartTime = nil
		plan.Status = st
		return plan
	}
	if hasCondition(st.Conditions, batchv1.JobSuspended) {
		setCondition(&st.Conditions, batchv1.JobSuspended, corev1.ConditionFalse, "JobResumed", "Job resumed", nowT)
		plan.Events = append(plan.Events, Event{"Normal", "Resumed", "Job resumed"})
		st.StartTime = nil
	}
	if st.StartTime == nil {
		st.StartTime = &nowT
	}

	// Has the Job failed, or succeeded? The interim condition first; the
	// terminal one once no pod is left running.
	reason, message := "", ""
	if cond := getCondition(st.Conditions, batchv1.JobFailureTarget); cond != nil && cond.Status == corev1.ConditionTrue {
		reason, message = cond.Reason, cond.Message
	} else if c.failJob != "" {
		reason, message = batchv1.JobReasonPodFailurePolicy, c.failJob
	} else if exceedsBackoffLimit(job, c) {
		reason, message = batchv1.JobReasonBackoffLimitExceeded, msgBackoffLimitExceeded
	} else if d := job.Spec.ActiveDeadlineSeconds; d != nil && !now.Before(st.StartTime.Add(time.Duration(*d)*time.Second)) {
		reason, message = batchv1.JobReasonDeadlineExceeded, msgDeadlineExceeded
	}
	if reason != "" {
		setCondition(&st.Conditions, batchv1.JobFailureTarget, corev1.ConditionTrue, reason, message, nowT)
		plan.Delete = c.active
		st.Active = 0
		zero := int32(0)
		st.Ready = &zero
		if len(c.active)+len(c.terminating) == 0 {
			setCondition(&st.Conditions, batchv1.JobFailed, corev1.ConditionTrue, reason, message, nowT)
			plan.Events = append(plan.Events, Event{"Warning", reason, message})
		}
		plan.Status = st
		return plan
	}
	complete := false
	switch {
	case indexed:
		complete = int32(len(succeededIdx)) >= *job.Spec.Completions
	case job.Spec.Completions != nil:
		complete = st.Succeeded >= *job.Spec.Completions
	default:
		complete = st.Succeeded > 0 && len(c.active) == 0
	}
	if complete || hasCondition(st.Conditions, batchv1.JobSuccessCriteriaMet) {
		setCondition(&st.Conditions, batchv1.JobSuccessCriteriaMet, corev1.ConditionTrue, batchv1.JobReasonCompletionsReached, msgCompletionsReached, nowT)
		plan.Delete = c.active
		st.Active = 0
		if len(c.active)+len(c.terminating) == 0 {
			setCondition(&st.Conditions, batchv1.JobComplete, corev1.ConditionTrue, batchv1.JobReasonCompletionsReached, msgCompletionsReached, nowT)
			st.CompletionTime = &nowT
			plan.Events = append(plan.Events, Event{"Normal", "Completed", "Job completed"})
		}
		plan.Status = st
		return plan
	}

	// Keep the right pods running.
	parallelism := int32(1)
	if job.Spec.Parallelism != nil {
		parallelism = *job.Spec.Parallelism
	}
	var want []int
	switch {
	case indexed:
		running := map[int]bool{}
		for _, p := range c.active {
			if i, ok := completionIndex(p, job); ok {
				running[i] = true
			}
		}
		room := int(parallelism) - len(c.active)
		for i := 0; i < int(*job.Spec.Completions) && len(want) < room; i++ {
			if !succeededIdx[i] && !running[i] {
				want = append(want, i)
			}
		}
	default:
		target := parallelism
		if job.Spec.Completions != nil {
			target = min(parallelism, *job.Spec.Completions-st.Succeeded)
		} else if st.Succeeded > 0 {
			target = int32(len(c.active)) // any success: finish, start nothing
		}
		if n := int(target) - len(c.active); n > 0 {
			for range n {
				want = append(want, -1)
			}
		} else if n < 0 {
			plan.Delete = excessPods(c.active, -n)
			st.Active -= int32(-n)
		}
	}
	if len(want) > 0 {
		if wait := remainingBackoff(c, now); wait > 0 {
			plan.RequeueAfter = wait
			want = nil
		}
	}
	plan.Create = want
	if d := job.Spec.ActiveDeadlineSeconds; d != nil {
		left := st.StartTime.Add(time.Duration(*d) * time.Second).Sub(now)
		if plan.RequeueAfter == 0 || left < plan.RequeueAfter {
			plan.RequeueAfter = left
		}
	}
	plan.Status = st
	return plan
}

// exceedsBackoffLimit: more counted failures than backoffLimit; for
// OnFailure pods the restarts of the running ones count too.
func exceedsBackoffLimit(job *batchv1.Job, c podClass) bool {
	limit := int32(6)
	if job.Spec.BackoffLimit != nil {
		limit = *job.Spec.BackoffLimit
	}
	failures := int32(len(c.counted))
	if job.Spec.Template.Spec.RestartPolicy == corev1.RestartPolicyOnFailure {
		for _, p := range c.active {
			for _, s := range append(append([]corev1.ContainerStatus{}, p.Status.InitContainerStatuses...), p.Status.ContainerStatuses...) {
				failures += s.RestartCount
			}
		}
	}
	return failures > limit
}

// remainingBackoff is how long to wait before replacing a failed pod:
// 10s doubled for each failure since the last success, from the last
// failure.
func remainingBackoff(c podClass, now time.Time) time.Duration {
	type finish struct {
		at     time.Time
		failed bool
	}
	var fs []finish
	for _, p := range c.succeeded {
		fs = append(fs, finish{FinishTime(p), false})
	}
	for _, p := range c.counted {
		fs = append(fs, finish{FinishTime(p), true})
	}
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].at.Before(fs[j].at) })
	failures := 0
	var last time.Time
	for _, f := range fs {
		if !f.failed {
			failures = 0
			continue
		}
		failures++
		last = f.at
	}
	if failures == 0 {
		return 0
	}
	return BackoffDelay(failures) - now.Sub(last)
}

// BackoffDelay is the back-off after n failures in a row: 10s, 20s, 40s…
// up to 10 minutes.
func BackoffDelay(n int) time.Duration {
	d := DefaultJobPodFailureBackOff
	for i := 1; i < n && d < MaxJobPodFailureBackOff; i++ {
		d *= 2
	}
	return min(d, MaxJobPodFailureBackOff)
}

// FinishTime is when a pod finished: the latest exit of its containers,
// else its creation.
func FinishTime(p *corev1.Pod) time.Time {
	var t time.Time
	for _, s := range append(append([]corev1.ContainerStatus{}, p.Status.InitContainerStatuses...), p.Status.ContainerStatuses...) {
		if s.State.Terminated != nil && s.State.Terminated.FinishedAt.After(t) {
			t = s.State.Terminated.FinishedAt.Time
		}
	}
	if t.IsZero() {
		t = p.CreationTimestamp.Time
	}
	return t
}

// excessPods picks n active pods to delete: not ready before ready, the
// newest first (the ones that lost least work).
func excessPods(active []*corev1.Pod, n int) []*corev1.Pod {
	ps := append([]*corev1.Pod(nil), active...)
	sort.SliceStable(ps, func(i, j int) bool {
		ri, rj := api.IsPodReady(ps[i]), api.IsPodReady(ps[j])
		if ri != rj {
			return !ri
		}
		if !ps[i].CreationTimestamp.Time.Equal(ps[j].CreationTimestamp.Time) {
			return ps[i].CreationTimestamp.After(ps[j].CreationTimestamp.Time)
		}
		return ps[i].Name > ps[j].Name
	})
	return ps[:n]
}

func sortedPods(pods []*corev1.Pod) []*corev1.Pod {
	ps := append([]*corev1.Pod(nil), pods...)
	sort.SliceStable(ps, func(i, j int) bool {
		if !ps[i].CreationTimestamp.Time.Equal(ps[j].CreationTimestamp.Time) {
			return ps[i].CreationTimestamp.Before(&ps[j].CreationTimestamp)
		}
		return ps[i].Name < ps[j].Name
	})
	return ps
}

// completionIndex reads a pod's index from its annotation (or label).
func completionIndex(p *corev1.Pod, job *batchv1.Job) (int, bool) {
	v, ok := p.Annotations[batchv1.JobCompletionIndexAnnotation]
	if !ok {
		v, ok = p.Labels[api.JobCompletionIndexLabel]
	}
	if !ok {
		return 0, false
	}
	i, err := strconv.Atoi(v)
	if err != nil || i < 0 || job.Spec.Completions == nil || i >= int(*job.Spec.Completions) {
		return 0, false
	}
	return i, true
}

// formatIndexes writes a set of indexes as Kubernetes does: "1,3-5,7"
// (three or more in a row become a range).
func formatIndexes(set map[int]bool) string {
	var xs []int
	for i := range set {
		xs = append(xs, i)
	}
	sort.Ints(xs)
	var parts []string
	for i := 0; i < len(xs); {
		j := i
		for j+1 < len(xs) && xs[j+1] == xs[j]+1 {
			j++
		}
		switch {
		case j-i >= 2:
			parts = append(parts, fmt.Sprintf("%d-%d", xs[i], xs[j]))
		case j-i == 1:
			parts = append(parts, strconv.Itoa(xs[i]), strconv.Itoa(xs[j]))
		default:
			parts = append(parts, strconv.Itoa(xs[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// IsFinished reports whether the Job has its Complete or Failed condition.
func IsFinished(job *batchv1.Job) bool {
	_, ok := FinishedCondition(job)
	return ok
}

// FinishedCondition is the Job's Complete or Failed condition, if true.
func FinishedCondition(job *batchv1.Job) (*batchv1.JobCondition, bool) {
	for i, c := range job.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return &job.Status.Conditions[i], true
		}
	}
	return nil, false
}

func getCondition(cs []batchv1.JobCondition, t batchv1.JobConditionType) *batchv1.JobCondition {
	for i := range cs {
		if cs[i].Type == t {
			return &cs[i]
		}
	}
	return nil
}

func hasCondition(cs []batchv1.JobCondition, t batchv1.JobConditionType) bool {
	c := getCondition(cs, t)
	return c != nil && c.Status == corev1.ConditionTrue
}

// setCondition adds or changes a condition; the transition time moves
// only when the status does.
func setCondition(cs *[]batchv1.JobCondition, t batchv1.JobConditionType, status corev1.ConditionStatus, reason, message string, now metav1.Time) {
	if c := getCondition(*cs, t); c != nil {
		if c.Status == status && c.Reason == reason && c.Message == message {
			return
		}
		if c.Status != status {
			c.LastTransitionTime = now
		}
		c.Status, c.Reason, c.Message, c.LastProbeTime = status, reason, message, now
		return
	}
	*cs = append(*cs, batchv1.JobCondition{Type: t, Status: status, Reason: reason, Message: message, LastProbeTime: now, LastTransitionTime: now})
}
