package cronjob

import (
	"errors"
	"fmt"
	"sort"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/api/cron"
)

// Event is an event Decide asks to record about the CronJob.
type Event struct {
	Type, Reason, Message string
}

// Plan is what one sync of a CronJob does.
type Plan struct {
	// Status is the CronJob's new status.
	Status batchv1.CronJobStatus
	// Create, when set, is the scheduled time of a Job to create.
	Create *time.Time
	// Delete are the Jobs to delete: running ones a Replace stops, and
	// finished ones beyond the history limits.
	Delete []*batchv1.Job
	// RequeueAfter is how long until the next scheduled time (0: never).
	RequeueAfter time.Duration
	// Events to record about the CronJob.
	Events []Event
}

// tooManyMissed is when Kubernetes warns that a CronJob missed many runs.
const tooManyMissed = 100

// maxSearch bounds the walk over missed times: a CronJob that every minute
// missed a year looks only at the last maxSearch of them.
const maxSearch = 10000

// Location is the time zone of a CronJob's schedule (UTC by default).
func Location(cj *batchv1.CronJob) (*time.Location, error) {
	if cj.Spec.TimeZone == nil {
		return time.UTC, nil
	}
	return time.LoadLocation(*cj.Spec.TimeZone)
}

// JobName is the name of the Job for a scheduled time: the CronJob's name
// and the time in minutes since the epoch, so that one time makes at most
// one Job.
func JobName(cj *batchv1.CronJob, scheduled time.Time) string {
	return fmt.Sprintf("%s-%d", cj.Name, scheduled.Unix()/60)
}

// MostRecentScheduleTime is the latest time the schedule fired in
// (earliest, now], where earliest is the last run (or the creation),
// moved up to now-startingDeadlineSeconds; how many times it fired there;
// and the next time after now.
func MostRecentScheduleTime(cj *batchv1.CronJob, sched cron.Schedule, loc *time.Location, now time.Time) (recent *time.Time, missed int, next time.Time) {
	earliest := earliestTime(cj, now)
	t := sched.Next(earliest.In(loc))
	for !t.IsZero() && !t.After(now) {
		r := t
		recent = &r
		missed++
		if missed >= maxSearch {
			// Skip ahead: only the most recent missed time matters.
			earliest = now.Add(-time.Hour)
			if earliest.After(t) {
				t = sched.Next(earliest.In(loc))
				continue
			}
		}
		t = sched.Next(t)
	}
	return recent, missed, t
}

// earliestTime is where the search for missed times starts: the last run
// (or the creation), moved up to now-startingDeadlineSeconds.
func earliestTime(cj *batchv1.CronJob, now time.Time) time.Time {
	earliest := cj.CreationTimestamp.Time
	if cj.Status.LastScheduleTime != nil {
		earliest = cj.Status.LastScheduleTime.Time
	}
	if d := cj.Spec.StartingDeadlineSeconds; d != nil {
		if dl := now.Add(-time.Duration(*d) * time.Second); dl.After(earliest) {
			earliest = dl
		}
	}
	return earliest
}

// errInvalidSchedule is mostRecentScheduleTime's error for a schedule
// that parses but never fires ("0 0 30 2 *": February has no 30th):
// robfig/cron gives the zero time for a time it cannot find within five
// years, so the two next times are both zero, 0 s apart.
var errInvalidSchedule = errors.New("time difference between two schedules is less than 1 second")

// checkSchedule is the check mostRecentScheduleTime makes before counting
// missed times: once now has passed the next time t1, the time after it,
// t2, must come at least a second later. Only a schedule that never fires
// fails it (t1 and t2 both zero).
func checkSchedule(cj *batchv1.CronJob, sched cron.Schedule, loc *time.Location, now time.Time) error {
	t1 := sched.Next(earliestTime(cj, now).In(loc))
	t2 := sched.Next(t1)
	if now.Before(t1) || now.Before(t2) {
		return nil
	}
	if t2.Sub(t1).Round(time.Second) < time.Second {
		return errInvalidSchedule
	}
	return nil
}

// Decide is one sync of a CronJob, given the Jobs it controls (found by
// controller reference) and the time.
func Decide(cj *batchv1.CronJob, jobs []*batchv1.Job, now time.Time) Plan {
	st := *cj.Status.DeepCopy()
	plan := Plan{}
	byUID := map[types.UID]*batchv1.Job{}
	byName := map[string]*batchv1.Job{}
	for _, j := range jobs {
		byUID[j.UID], byName[j.Name] = j, j
	}
	// Keep status.active true to the Jobs: finished ones leave it, gone
	// ones too.
	var active []corev1.ObjectReference
	for _, ref := range st.Active {
		j, ok := byUID[ref.UID]
		switch {
		case !ok:
			plan.Events = append(plan.Events, Event{"Normal", "MissingJob", fmt.Sprintf("Active job went missing: %v", ref.Name)})
		case finished(j) != "":
			plan.Events = append(plan.Events, Event{"Normal", "SawCompletedJob", fmt.Sprintf("Saw completed job: %s, condition: %s", j.Name, finished(j))})
		default:
			active = append(active, ref)
		}
	}
	for _, j := range sortedJobs(jobs) {
		if finished(j) == "" && !inActive(cj, j.UID) {
			plan.Events = append(plan.Events, Event{"Warning", "UnexpectedJob", fmt.Sprintf("Saw a job that the controller did not create or forgot: %s", j.Name)})
		}
		if finished(j) == batchv1.JobComplete && j.Status.CompletionTime != nil &&
			(st.LastSuccessfulTime == nil || j.Status.CompletionTime.After(st.LastSuccessfulTime.Time)) {
			t := *j.Status.CompletionTime
			st.LastSuccessfulTime = &t
		}
	}
	st.Active = active
	plan.Status = st
	plan.Delete = historyToDelete(cj, jobs)
	if cj.DeletionTimestamp != nil || (cj.Spec.Suspend != nil && *cj.Spec.Suspend) {
		return plan
	}
	loc, err := Location(cj)
	if err != nil {
		plan.Events = append(plan.Events, Event{"Warning", "UnknownTimeZone", fmt.Sprintf("invalid timeZone: %q: %s", *cj.Spec.TimeZone, err)})
		return plan
	}
	sched, err := cron.ParseStandard(cj.Spec.Schedule)
	if err != nil {
		plan.Events = append(plan.Events, Event{"Warning", "UnparseableSchedule", fmt.Sprintf("unparseable schedule: %q : %s", cj.Spec.Schedule, err)})
		return plan
	}
	if err := checkSchedule(cj, sched, loc, now); err != nil {
		// A user's mistake: an event, and no requeue until the spec
		// changes (the update wakes the CronJob).
		plan.Events = append(plan.Events, Event{"Warning", "InvalidSchedule", fmt.Sprintf("invalid schedule: %s : %s", cj.Spec.Schedule, err)})
		return plan
	}
	recent, missed, next := MostRecentScheduleTime(cj, sched, loc, now)
	if !next.IsZero() {
		plan.RequeueAfter = next.Sub(now)
	}
	if recent == nil {
		return plan
	}
	if missed > tooManyMissed {
		plan.Events = append(plan.Events, Event{"Warning", "TooManyMissedTimes",
			fmt.Sprintf("too many missed start times: %d. Set or decrease .spec.startingDeadlineSeconds or check clock skew", missed)})
	}
	if d := cj.Spec.StartingDeadlineSeconds; d != nil && recent.Add(time.Duration(*d)*time.Second).Before(now) {
		plan.Events = append(plan.Events, Event{"Warning", "MissSchedule",
			fmt.Sprintf("Missed scheduled time to start a job: %s", recent.UTC().Format(time.RFC1123Z))})
		return plan
	}
	if _, exists := byName[JobName(cj, *recent)]; exists {
		return plan
	}
	if cj.Status.LastScheduleTime != nil && cj.Status.LastScheduleTime.Time.Equal(*recent) {
		return plan
	}
	switch cj.Spec.ConcurrencyPolicy {
	case batchv1.ForbidConcurrent:
		if len(st.Active) > 0 {
			plan.Events = append(plan.Events, Event{"Normal", "JobAlreadyActive",
				"Not starting job because prior execution is running and concurrency policy is Forbid"})
			return plan
		}
	case batchv1.ReplaceConcurrent:
		for _, ref := range st.Active {
			plan.Delete = append(plan.Delete, byUID[ref.UID])
		}
		plan.Status.Active = nil
	}
	plan.Create = recent
	t := metav1.NewTime(*recent)
	plan.Status.LastScheduleTime = &t
	return plan
}

// finished is the type of a Job's true Complete or Failed condition, or
// "".
func finished(j *batchv1.Job) batchv1.JobConditionType {
	for _, c := range j.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return c.Type
		}
	}
	return ""
}

// historyToDelete are the oldest finished Jobs beyond the limits.
func historyToDelete(cj *batchv1.CronJob, jobs []*batchv1.Job) []*batchv1.Job {
	var ok, failed []*batchv1.Job
	for _, j := range sortedJobs(jobs) {
		if j.DeletionTimestamp != nil {
			continue
		}
		switch finished(j) {
		case batchv1.JobComplete:
			ok = append(ok, j)
		case batchv1.JobFailed:
			failed = append(failed, j)
		}
	}
	var out []*batchv1.Job
	for _, h := range []struct {
		jobs  []*batchv1.Job
		limit *int32
	}{{ok, cj.Spec.SuccessfulJobsHistoryLimit}, {failed, cj.Spec.FailedJobsHistoryLimit}} {
		if h.limit != nil && len(h.jobs) > int(*h.limit) {
			out = append(out, h.jobs[:len(h.jobs)-int(*h.limit)]...)
		}
	}
	return out
}

// sortedJobs orders Jobs by start time (then creation, then name): oldest
// first.
func sortedJobs(jobs []*batchv1.Job) []*batchv1.Job {
	js := append([]*batchv1.Job(nil), jobs...)
	start := func(j *batchv1.Job) time.Time {
		if j.Status.StartTime != nil {
			return j.Status.StartTime.Time
		}
		return j.CreationTimestamp.Time
	}
	sort.SliceStable(js, func(a, b int) bool {
		if ta, tb := start(js[a]), start(js[b]); !ta.Equal(tb) {
			return ta.Before(tb)
		}
		return js[a].Name < js[b].Name
	})
	return js
}

// inActive reports whether status.active lists the Job with uid.
func inActive(cj *batchv1.CronJob, uid types.UID) bool {
	for _, r := range cj.Status.Active {
		if r.UID == uid {
			return true
		}
	}
	return false
}
