// Package cronjob is the CronJob controller: it creates a CronJob's Jobs
// at the times its schedule names, on the injected clock.
//
// It simulates kube-controller-manager's cronjob controller (the "v2"
// controller, pkg/controller/cronjob/cronjob_controllerv2.go and
// utils.go): the schedule parsed by robfig/cron, the library Kubernetes
// uses (api.ParseCronSchedule), with spec.timeZone given to it as a
// "TZ=<zone> " prefix (UTC when unset, the zone kube-controller-manager
// usually runs in); the most recent scheduled time since the last run,
// bounded by startingDeadlineSeconds, found as mostRecentScheduleTime
// finds it (missed times counted, not walked, and a TooManyMissedTimes
// warning past 100); concurrencyPolicy Allow, Forbid (skip while a Job
// runs) and Replace (delete the running Jobs first); suspend; Jobs named
// <cronjob>-<scheduled time in minutes since the epoch> with the
// batch.kubernetes.io/cronjob-scheduled-timestamp annotation and the
// CronJob as their controller; status.active, lastScheduleTime and
// lastSuccessfulTime; the finished Jobs beyond successfulJobsHistoryLimit
// and failedJobsHistoryLimit deleted, oldest first. After each sync the
// CronJob is queued again for its next scheduled time, so nothing polls.
// A schedule that parses but never fires ("0 0 30 2 *") is a Warning
// event InvalidSchedule ("invalid schedule: 0 0 30 2 * : time difference
// between two schedules is less than 1 second", the words of
// mostRecentScheduleTime) and, like an unknown time zone, no requeue: the
// next update of the CronJob wakes it. A schedule stored with its own TZ=
// (which the API server now refuses) is obeyed, with an
// UnsupportedSchedule warning.
//
// Decide is the controller's decision as a pure function of the CronJob,
// its Jobs and the time; sync reads the cache and writes what it says.
//
// Left out: the time zone of a CronJob without spec.timeZone is UTC, not
// the host's; the requeue is not padded by Kubernetes' 100 ms against
// clock skew between hosts (all of kubesim reads one clock). Read the
// real one at
// https://github.com/kubernetes/kubernetes/tree/master/pkg/controller/cronjob.
package cronjob
