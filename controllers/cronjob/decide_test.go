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

func unsupported(schedule string) string {
	return `UnsupportedSchedule: CRON_TZ or TZ used in schedule "` + schedule +
		`" is not officially supported, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details`
}

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
		{name: "an unknown time zone is an event, and no requeue", cj: newCronJob("* * * * *", func(c *batchv1.CronJob) { c.Spec.TimeZone = ptr("Mars/Olympus") }),
			now: at(12, 5), events: []string{`UnknownTimeZone: invalid timeZone: "Mars/Olympus": unknown time zone Mars/Olympus`}},
		{name: "the time zone is checked before suspend", cj: newCronJob("* * * * *", func(c *batchv1.CronJob) {
			c.Spec.TimeZone = ptr("Mars/Olympus")
			c.Spec.Suspend = ptr(true)
		}), now: at(12, 5), events: []string{`UnknownTimeZone: invalid timeZone: "Mars/Olympus": unknown time zone Mars/Olympus`}},
		// The API server refuses a TZ= in a schedule; one stored before it
		// did is obeyed, with a warning. 21:00 in Tokyo is 12:00 UTC.
		{name: "a schedule with its own TZ= runs in that zone, with a warning", cj: newCronJob("TZ=Asia/Tokyo 0 21 * * *"), now: at(12, 5),
			requeue: 23*time.Hour + 55*time.Minute, events: []string{unsupported("TZ=Asia/Tokyo 0 21 * * *")}},
		{name: "a TZ= with nothing after it is unparseable, not a panic", cj: newCronJob("TZ=UTC"), now: at(12, 5),
			events: []string{unsupported("TZ=UTC"), `UnparseableSchedule: unparseable schedule: "TZ=UTC" : invalid schedule format: runtime error: slice bounds out of range [:-1]`}},
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
	next := t0.Add(Decide(cj, nil, t0).RequeueAfter)
	assert.True(t, next.Equal(time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)), next.String())
	j, err := NewJob(cj, next)
	require.NoError(t, err)
	assert.Equal(t, "tick-29540160", j.Name)
	assert.Equal(t, "2026-03-02T09:00:00+09:00", j.Annotations[batchv1.CronJobScheduledTimestampAnnotation])
	assert.Equal(t, "CronJob", api.GetControllerOf(&j.ObjectMeta).Kind)
}

// The next scheduled time of a CronJob just created, as robfig/cron finds
// it in the CronJob's zone: how long Decide asks to wait.
func TestDecideWaitsForTheNextScheduledTime(t *testing.T) {
	for _, tc := range []struct {
		schedule, zone, from, want string
	}{
		{"* * * * *", "", "2026-01-01T10:00:00Z", "2026-01-01T10:01:00Z"},
		{"* * * * *", "", "2026-01-01T10:00:30Z", "2026-01-01T10:01:00Z"},
		{"*/5 * * * *", "", "2026-01-01T10:03:00Z", "2026-01-01T10:05:00Z"},
		{"30 2 * * *", "", "2026-01-01T10:00:00Z", "2026-01-02T02:30:00Z"},
		{"0 0 1 * *", "", "2026-01-15T00:00:00Z", "2026-02-01T00:00:00Z"},
		{"0 9 * * mon", "", "2026-01-01T00:00:00Z", "2026-01-05T09:00:00Z"}, // 1 Jan 2026 is a Thursday
		// Month and weekday names, ranges, lists and steps.
		{"*/15 9-17 * jan,JUL mon-fri", "", "2026-01-03T12:00:00Z", "2026-01-05T09:00:00Z"},
		{"*/15 9-17 * jan,JUL mon-fri", "", "2026-01-30T17:45:00Z", "2026-07-01T09:00:00Z"},
		// Day of month or day of week when neither is a star.
		{"0 0 13 * fri", "", "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z"},
		{"0 0 29 2 *", "", "2026-01-01T00:00:00Z", "2028-02-29T00:00:00Z"},
		// The descriptors.
		{"@yearly", "", "2026-03-01T12:00:00Z", "2027-01-01T00:00:00Z"},
		{"@annually", "", "2026-03-01T12:00:00Z", "2027-01-01T00:00:00Z"},
		{"@monthly", "", "2026-03-01T12:00:00Z", "2026-04-01T00:00:00Z"},
		{"@weekly", "", "2026-03-02T12:00:00Z", "2026-03-08T00:00:00Z"}, // Sunday
		{"@daily", "", "2026-03-01T12:00:00Z", "2026-03-02T00:00:00Z"},
		{"@midnight", "", "2026-03-01T12:00:00Z", "2026-03-02T00:00:00Z"},
		{"@hourly", "", "2026-01-01T10:00:00Z", "2026-01-01T11:00:00Z"},
		{"@every 90s", "", "2026-01-01T10:00:00Z", "2026-01-01T10:01:30Z"},
		// Midnight in Tokyo is 15:00 UTC the day before.
		{"0 0 * * *", "Asia/Tokyo", "2026-01-01T10:00:00Z", "2026-01-01T15:00:00Z"},
		{"@daily", "Asia/Tokyo", "2026-01-01T10:00:00Z", "2026-01-01T15:00:00Z"},
		// 2:30 does not exist on 8 March 2026 in New York (clocks go from
		// 2:00 to 3:00): the next run is the day after, 2:30 EDT.
		{"30 2 * * *", "America/New_York", "2026-03-08T05:00:00Z", "2026-03-09T06:30:00Z"},
	} {
		t.Run(tc.schedule+" "+tc.zone+" "+tc.from, func(t *testing.T) {
			from, err := time.Parse(time.RFC3339, tc.from)
			require.NoError(t, err)
			want, err := time.Parse(time.RFC3339, tc.want)
			require.NoError(t, err)
			cj := newCronJob(tc.schedule, func(c *batchv1.CronJob) {
				c.CreationTimestamp = metav1.NewTime(from)
				if tc.zone != "" {
					c.Spec.TimeZone = ptr(tc.zone)
				}
			})
			plan := Decide(cj, nil, from)
			assert.Empty(t, plan.Events)
			assert.Nil(t, plan.Create)
			assert.Equal(t, want.Sub(from), plan.RequeueAfter)
		})
	}
}

// The schedule is read in the CronJob's zone, not in the zone of the
// times the controller is given (metav1.Time decodes into the host's
// zone), so a run never depends on the host.
func TestDecideIgnoresTheZoneOfItsTimes(t *testing.T) {
	cairo := time.FixedZone("UTC+2", 2*3600)
	cj := newCronJob("0 9 * * *", func(c *batchv1.CronJob) { c.CreationTimestamp = metav1.NewTime(t0.In(cairo)) })
	assert.Equal(t, time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC).Sub(t0), Decide(cj, nil, t0.In(cairo)).RequeueAfter)
}

func TestDecideMissedTimes(t *testing.T) {
	tooMany := "TooManyMissedTimes: too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew"
	for _, tc := range []struct {
		name     string
		schedule string
		created  time.Time
		deadline *int64
		now      time.Time
		create   *time.Time
		requeue  time.Duration
		events   []string
	}{
		{name: "100 missed: no warning", schedule: "* * * * *", created: at(12, 0), now: at(13, 40),
			create: ptr(at(13, 40)), requeue: time.Minute},
		{name: "101 missed: the most recent runs, with a warning", schedule: "* * * * *", created: at(12, 0), now: at(13, 41),
			create: ptr(at(13, 41)), requeue: time.Minute, events: []string{tooMany}},
		{name: "a year missed every minute: the most recent, found without walking the year", schedule: "* * * * *",
			created: at(12, 0).AddDate(-1, 0, 0), now: at(12, 0).Add(30 * time.Second),
			create: ptr(at(12, 0)), requeue: 30 * time.Second, events: []string{tooMany}},
		// Fires Monday to Friday at 6:30, 10:30 and 14:30: the intervals
		// differ, and the most recent time is still found. 2 February
		// 2026 is a Monday, 2 March too.
		{name: "uneven intervals", schedule: "30 6-16/4 * * 1-5", created: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC),
			now: time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC), create: ptr(time.Date(2026, 3, 2, 10, 30, 0, 0, time.UTC)),
			requeue: 150 * time.Minute, events: []string{tooMany}},
		// startingDeadlineSeconds bounds the search, so no warning.
		{name: "startingDeadlineSeconds: only the recent ones count", schedule: "* * * * *", created: at(12, 0).AddDate(-1, 0, 0),
			deadline: ptr(int64(300)), now: at(12, 0).Add(30 * time.Second), create: ptr(at(12, 0)), requeue: 30 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cj := newCronJob(tc.schedule, func(c *batchv1.CronJob) {
				c.CreationTimestamp = metav1.NewTime(tc.created)
				c.Spec.StartingDeadlineSeconds = tc.deadline
			})
			plan := Decide(cj, nil, tc.now)
			assert.Equal(t, tc.create, plan.Create, "create")
			assert.Equal(t, tc.requeue, plan.RequeueAfter, "requeue")
			var events []string
			for _, e := range plan.Events {
				events = append(events, e.Reason+": "+e.Message)
			}
			assert.Equal(t, tc.events, events, "events")
		})
	}
}
