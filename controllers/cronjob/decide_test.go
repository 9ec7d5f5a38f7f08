package cronjob

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/cron"
)

// t0 is 12:00:30 UTC, created half a minute past noon.
var t0 = time.Date(2026, 3, 1, 12, 0, 30, 0, time.UTC)

func ptr[T any](v T) *T { return &v }

func newCronJob(schedule string, mut ...func(*batchv1.CronJob)) *batchv1.CronJob {
	cj := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "tick", Namespace: "default", UID: "cj1", CreationTimestamp: metav1.NewTime(t0)},
		Spec: batchv1.CronJobSpec{Schedule: schedule, ConcurrencyPolicy: batchv1.AllowConcurrent, Suspend: ptr(false),
			SuccessfulJobsHistoryLimit: ptr(int32(3)), FailedJobsHistoryLimit: ptr(int32(1))}}
	for _, m := range mut {
		m(cj)
	}
	return cj
}

func job(name string, started time.Time, state batchv1.JobConditionType) *batchv1.Job {
	s := metav1.NewTime(started)
	j := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name)}, Status: batchv1.JobStatus{StartTime: &s}}
	if state != "" {
		done := metav1.NewTime(started.Add(10 * time.Second))
		j.Status.Conditions = []batchv1.JobCondition{{Type: state, Status: corev1.ConditionTrue}}
		if state == batchv1.JobComplete {
			j.Status.CompletionTime = &done
		}
	}
	return j
}

func activeRef(j *batchv1.Job) corev1.ObjectReference {
	return corev1.ObjectReference{Kind: "Job", Name: j.Name, Namespace: j.Namespace, UID: j.UID, APIVersion: "batch/v1"}
}

func at(h, m int) time.Time { return time.Date(2026, 3, 1, h, m, 0, 0, time.UTC) }

func TestDecideSchedules(t *testing.T) {
	running := job("tick-1", at(12, 1), "")
	for _, tc := range []struct {
		name    string
		cj      *batchv1.CronJob
		jobs    []*batchv1.Job
		now     time.Time
		create  *time.Time
		requeue time.Duration
		deletes []string
		events  []string
	}{
		{name: "before the first time: wait for it", cj: newCronJob("*/5 * * * *"), now: at(12, 3), requeue: 2 * time.Minute},
		{name: "on time: create, then wait for the next", cj: newCronJob("*/5 * * * *"), now: at(12, 5), create: ptr(at(12, 5)), requeue: 5 * time.Minute},
		{name: "late: the most recent missed time only", cj: newCronJob("*/5 * * * *"), now: at(12, 17), create: ptr(at(12, 15)), requeue: 3 * time.Minute},
		{name: "already ran this time", cj: newCronJob("*/5 * * * *", func(c *batchv1.CronJob) { c.Status.LastScheduleTime = ptr(metav1.NewTime(at(12, 15))) }),
			now: at(12, 17), requeue: 3 * time.Minute},
		{name: "suspended: nothing, no requeue", cj: newCronJob("*/5 * * * *", func(c *batchv1.CronJob) { c.Spec.Suspend = ptr(true) }), now: at(12, 5)},
		{name: "startingDeadlineSeconds: a missed run too old is skipped", cj: newCronJob("0 * * * *", func(c *batchv1.CronJob) { c.Spec.StartingDeadlineSeconds = ptr(int64(60)) }),
			now: at(13, 2), requeue: 58 * time.Minute},
		{name: "startingDeadlineSeconds: within it, run", cj: newCronJob("0 * * * *", func(c *batchv1.CronJob) { c.Spec.StartingDeadlineSeconds = ptr(int64(300)) }),
			now: at(13, 2), create: ptr(at(13, 0)), requeue: 58 * time.Minute},
		{name: "Forbid while a Job runs", cj: newCronJob("* * * * *", func(c *batchv1.CronJob) {
			c.Spec.ConcurrencyPolicy = batchv1.ForbidConcurrent
			c.Status.Active = []corev1.ObjectReference{activeRef(running)}
			c.Status.LastScheduleTime = ptr(metav1.NewTime(at(12, 1)))
		}), jobs: []*batchv1.Job{running}, now: at(12, 2), requeue: time.Minute,
			events: []string{"JobAlreadyActive: Not starting job because prior execution is running and concurrency policy is Forbid"}},
		{name: "Replace deletes the running Job", cj: newCronJob("* * * * *", func(c *batchv1.CronJob) {
			c.Spec.ConcurrencyPolicy = batchv1.ReplaceConcurrent
			c.Status.Active = []corev1.ObjectReference{activeRef(running)}
			c.Status.LastScheduleTime = ptr(metav1.NewTime(at(12, 1)))
		}), jobs: []*batchv1.Job{running}, now: at(12, 2), create: ptr(at(12, 2)), requeue: time.Minute, deletes: []string{"tick-1"}},
		{name: "Allow runs beside it", cj: newCronJob("* * * * *", func(c *batchv1.CronJob) {
			c.Status.Active = []corev1.ObjectReference{activeRef(running)}
			c.Status.LastScheduleTime = ptr(metav1.NewTime(at(12, 1)))
		}), jobs: []*batchv1.Job{running}, now: at(12, 2), create: ptr(at(12, 2)), requeue: time.Minute},
		{name: "history: the oldest successes beyond 3 and failures beyond 1 go", cj: newCronJob("0 0 1 1 *"),
			jobs: []*batchv1.Job{job("a", at(12, 1), batchv1.JobComplete), job("b", at(12, 2), batchv1.JobComplete), job("c", at(12, 3), batchv1.JobFailed),
				job("d", at(12, 4), batchv1.JobComplete), job("e", at(12, 5), batchv1.JobComplete), job("f", at(12, 6), batchv1.JobFailed)},
			now: at(12, 7), requeue: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC).Sub(at(12, 7)), deletes: []string{"a", "c"}},
		{name: "an unparsable schedule is an event", cj: newCronJob("bad"), now: at(12, 5),
			events: []string{`UnparseableSchedule: unparseable schedule: "bad" : expected exactly 5 fields, found 1: [bad]`}},
		{name: "a schedule that never fires is an InvalidSchedule event, and no requeue", cj: newCronJob("0 0 30 2 *"), now: at(12, 5),
			events: []string{"InvalidSchedule: invalid schedule: 0 0 30 2 * : time difference between two schedules is less than 1 second"}},
		{name: "so is the 31st of February with a last run", cj: newCronJob("59 23 31 2 *", func(c *batchv1.CronJob) {
			c.Status.LastScheduleTime = ptr(metav1.NewTime(at(12, 1)))
		}), now: at(12, 5),
			events: []string{"InvalidSchedule: invalid schedule: 59 23 31 2 * : time difference between two schedules is less than 1 second"}},
		{name: "a schedule firing once in four years is fine", cj: newCronJob("0 0 29 2 *"), now: at(12, 5),
			requeue: time.Date(2028, 2, 29, 0, 0, 0, 0, time.UTC).Sub(at(12, 5))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan := Decide(tc.cj, tc.jobs, tc.now)
			assert.Equal(t, tc.create, plan.Create, "create")
			assert.Equal(t, tc.requeue, plan.RequeueAfter, "requeue")
			var deletes []string
			for _, j := range plan.Delete {
				deletes = append(deletes, j.Name)
			}
			assert.Equal(t, tc.deletes, deletes, "deletes")
			var events []string
			for _, e := range plan.Events {
				events = append(events, e.Reason+": "+e.Message)
			}
			assert.Equal(t, tc.events, events, "events")
			if tc.create != nil {
				require.NotNil(t, plan.Status.LastScheduleTime)
				assert.True(t, plan.Status.LastScheduleTime.Time.Equal(*tc.create))
			}
		})
	}
}

func TestDecideActiveList(t *testing.T) {
	done := job("tick-1", at(12, 1), batchv1.JobComplete)
	cj := newCronJob("0 0 1 1 *", func(c *batchv1.CronJob) {
		c.Status.Active = []corev1.ObjectReference{activeRef(done), {Kind: "Job", Name: "gone", UID: "uid-gone"}}
	})
	stray := job("manual", at(12, 2), "")
	plan := Decide(cj, []*batchv1.Job{done, stray}, at(12, 5))
	assert.Empty(t, plan.Status.Active)
	require.NotNil(t, plan.Status.LastSuccessfulTime)
	assert.True(t, plan.Status.LastSuccessfulTime.Time.Equal(at(12, 1).Add(10*time.Second)))
	var reasons []string
	for _, e := range plan.Events {
		reasons = append(reasons, e.Reason+": "+e.Message)
	}
	assert.Equal(t, []string{
		"SawCompletedJob: Saw completed job: tick-1, condition: Complete",
		"MissingJob: Active job went missing: gone",
		"UnexpectedJob: Saw a job that the controller did not create or forgot: manual",
	}, reasons)
}

func TestTimeZoneAndJobName(t *testing.T) {
	// 09:00 in Tokyo is 00:00 UTC.
	cj := newCronJob("0 9 * * *", func(c *batchv1.CronJob) { c.Spec.TimeZone = ptr("Asia/Tokyo") })
	loc, err := Location(cj)
	require.NoError(t, err)
	sched, err := cron.ParseStandard(cj.Spec.Schedule)
	require.NoError(t, err)
	_, _, next := MostRecentScheduleTime(cj, sched, loc, t0)
	assert.True(t, next.Equal(time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)), next.String())
	j, err := NewJob(cj, next)
	require.NoError(t, err)
	assert.Equal(t, "tick-29540160", j.Name)
	assert.Equal(t, "2026-03-02T09:00:00+09:00", j.Annotations[batchv1.CronJobScheduledTimestampAnnotation])
	assert.Equal(t, "CronJob", api.GetControllerOf(&j.ObjectMeta).Kind)
}
