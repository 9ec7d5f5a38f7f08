package cronjob

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/api"
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

// formatSchedule is the schedule as robfig/cron is given it
// (formatSchedule): spec.timeZone becomes a "TZ=<zone> " prefix, which
// the parser reads as the zone to find times in. A schedule that carries
// its own TZ= (stored before the API server refused them) is used as it
// is, with a warning. Where kube-controller-manager leaves a schedule
// without timeZone to its process's zone, kubesim says UTC, so that no
// run depends on the host's zone.
func formatSchedule(cj *batchv1.CronJob) (string, []Event) {
	if strings.Contains(cj.Spec.Schedule, "TZ") {
		return cj.Spec.Schedule, []Event{{"Warning", "UnsupportedSchedule", fmt.Sprintf("CRON_TZ or TZ used in schedule %q is not officially supported, "+
			"see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details", cj.Spec.Schedule)}}
	}
	zone := "UTC"
	if cj.Spec.TimeZone != nil {
		zone = *cj.Spec.TimeZone
	}
	return "TZ=" + zone + " " + cj.Spec.Schedule, nil
}

// missedSchedules is how many scheduled times mostRecentScheduleTime saw
// go by: none, a few, or so many (more than 100) that the controller
// warns: a clock far off, or a CronJob created long ago with no
// startingDeadlineSeconds.
type missedSchedules int

const (
	noneMissed missedSchedules = iota
	fewMissed
	manyMissed
)

// mostRecentScheduleTime is mostRecentScheduleTime: where the search
// starts (the last scheduled time, else the creation, moved up to
// now-startingDeadlineSeconds when includeStartingDeadlineSeconds), the
// most recent scheduled time in (earliest, now] or nil, how many were
// missed, and an error for a schedule that parses but never fires ("0 0
// 30 2 *": February has no 30th; robfig/cron gives the zero time when it
// finds no time within five years, so two next times are 0 s apart).
//
// It does not walk every missed time: it counts them as the time since the
// first one over the interval between the first two, jumps to two
// intervals before the last, and walks from there. An every-minute
// CronJob whose controller was down for a year costs a few steps, not half
// a million.
func mostRecentScheduleTime(cj *batchv1.CronJob, now time.Time, sched cron.Schedule, includeStartingDeadlineSeconds bool) (time.Time, *time.Time, missedSchedules, error) {
	earliest := cj.CreationTimestamp.Time
	if cj.Status.LastScheduleTime != nil {
		earliest = cj.Status.LastScheduleTime.Time
	}
	if d := cj.Spec.StartingDeadlineSeconds; includeStartingDeadlineSeconds && d != nil {
		if deadline := now.Add(-time.Duration(*d) * time.Second); deadline.After(earliest) {
			earliest = deadline
		}
	}
	t1 := sched.Next(earliest)
	t2 := sched.Next(t1)
	if now.Before(t1) {
		return earliest, nil, noneMissed, nil
	}
	if now.Before(t2) {
		return earliest, &t1, noneMissed, nil
	}
	interval := int64(t2.Sub(t1).Round(time.Second).Seconds())
	if interval < 1 {
		return earliest, nil, noneMissed, errors.New("time difference between two schedules is less than 1 second")
	}
	missed := int64(now.Sub(t1).Seconds())/interval + 1
	// Two intervals back, so that a schedule whose intervals differ
	// ("30 6-16/4 * * 1-5") still lands before its most recent time.
	var recent time.Time
	for t := sched.Next(t1.Add(time.Duration((missed-2)*interval) * time.Second)); !t.After(now); t = sched.Next(t) {
		recent = t
	}
	seen := fewMissed
	if missed > 100 {
		seen = manyMissed
	}
	if recent.IsZero() {
		return earliest, nil, seen, nil
	}
	return earliest, &recent, seen, nil
}

// nextScheduleTimeDuration is how long until the next scheduled time
// (nextScheduleTimeDuration), whatever startingDeadlineSeconds says.
// Kubernetes adds 100 ms against clock skew between hosts; kubesim's
// controllers all read one injected clock, and wake on the minute.
func nextScheduleTimeDuration(cj *batchv1.CronJob, now time.Time, sched cron.Schedule) time.Duration {
	earliest, recent, missed, err := mostRecentScheduleTime(cj, now, sched, false)
	from := now
	switch {
	case err == nil && recent != nil:
		from = *recent
	case err == nil && missed == noneMissed:
		from = earliest
	}
	return sched.Next(from).Sub(now)
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
	if cj.DeletionTimestamp != nil {
		return plan
	}
	if _, err := Location(cj); err != nil {
		plan.Events = append(plan.Events, Event{"Warning", "UnknownTimeZone", fmt.Sprintf("invalid timeZone: %q: %s", *cj.Spec.TimeZone, err)})
		return plan
	}
	if cj.Spec.Suspend != nil && *cj.Spec.Suspend {
		return plan
	}
	schedule, events := formatSchedule(cj)
	plan.Events = append(plan.Events, events...)
	sched, err := api.ParseCronSchedule(schedule)
	if err != nil {
		plan.Events = append(plan.Events, Event{"Warning", "UnparseableSchedule", fmt.Sprintf("unparseable schedule: %q : %s", cj.Spec.Schedule, err)})
		return plan
	}
	// nextScheduleTime: the time to run now, if any.
	_, recent, missed, err := mostRecentScheduleTime(cj, now, sched, true)
	if err != nil {
		// A user's mistake: an event, and no requeue until the spec
		// changes (the update wakes the CronJob).
		plan.Events = append(plan.Events, Event{"Warning", "InvalidSchedule", fmt.Sprintf("invalid schedule: %s : %s", cj.Spec.Schedule, err)})
		return plan
	}
	if d := nextScheduleTimeDuration(cj, now, sched); d > 0 {
		plan.RequeueAfter = d
	}
	if recent == nil {
		return plan
	}
	if missed == manyMissed {
		plan.Events = append(plan.Events, Event{"Warning", "TooManyMissedTimes",
			"too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew"})
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
