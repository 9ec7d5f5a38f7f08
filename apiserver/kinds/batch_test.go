package kinds

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

func validJob() *batchv1.Job {
	t := template(nil)
	t.Spec.RestartPolicy = corev1.RestartPolicyNever
	return &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "pi", Namespace: "default", UID: "uid-1"}, Spec: batchv1.JobSpec{Template: t}}
}

func validCronJob() *batchv1.CronJob {
	j := validJob()
	return &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "tick", Namespace: "default"},
		Spec: batchv1.CronJobSpec{Schedule: "*/1 * * * *", JobTemplate: batchv1.JobTemplateSpec{Spec: j.Spec}}}
}

func TestJobDefaultsAndGeneratedSelector(t *testing.T) {
	j := validJob()
	mustNoErrors(t, create(t, "jobs", j))
	s := j.Spec
	assert.Equal(t, int32(1), *s.Completions)
	assert.Equal(t, int32(1), *s.Parallelism)
	assert.Equal(t, int32(6), *s.BackoffLimit)
	assert.Equal(t, batchv1.NonIndexedCompletion, *s.CompletionMode)
	assert.False(t, *s.Suspend)
	assert.False(t, *s.ManualSelector)
	assert.Equal(t, map[string]string{api.ControllerUIDLabel: "uid-1"}, s.Selector.MatchLabels)
	assert.Equal(t, map[string]string{
		"batch.kubernetes.io/controller-uid": "uid-1", "controller-uid": "uid-1",
		"batch.kubernetes.io/job-name": "pi", "job-name": "pi"}, s.Template.Labels)

	// Parallelism alone leaves completions unset: any success ends the Job.
	j = validJob()
	j.Spec.Parallelism = ptr(int32(3))
	mustNoErrors(t, create(t, "jobs", j))
	assert.Nil(t, j.Spec.Completions)

	// A pod failure policy's condition pattern defaults to status True.
	j = validJob()
	j.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{Action: batchv1.PodFailurePolicyActionIgnore,
		OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget}}}}}
	mustNoErrors(t, create(t, "jobs", j))
	assert.Equal(t, corev1.ConditionTrue, j.Spec.PodFailurePolicy.Rules[0].OnPodConditions[0].Status)
}

func TestManualSelectorIsTheUsers(t *testing.T) {
	j := validJob()
	j.Spec.ManualSelector = ptr(true)
	j.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "pi"}}
	j.Spec.Template.Labels = map[string]string{"app": "pi"}
	mustNoErrors(t, create(t, "jobs", j))
	assert.Equal(t, map[string]string{"app": "pi"}, j.Spec.Template.Labels)

	j = validJob()
	j.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "pi"}}
	assert.Contains(t, create(t, "jobs", j), "spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{\"app\":\"pi\"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: `selector` not auto-generated")
}

func TestJobValidationWording(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*batchv1.Job)
		want   string
	}{
		{"negative completions", func(j *batchv1.Job) { j.Spec.Completions = ptr(int32(-1)) },
			"spec.completions: Invalid value: -1: must be greater than or equal to 0"},
		{"negative parallelism", func(j *batchv1.Job) { j.Spec.Parallelism = ptr(int32(-2)) },
			"spec.parallelism: Invalid value: -2: must be greater than or equal to 0"},
		{"negative backoffLimit", func(j *batchv1.Job) { j.Spec.BackoffLimit = ptr(int32(-1)) },
			"spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0"},
		{"restartPolicy Always", func(j *batchv1.Job) { j.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyAlways },
			`spec.template.spec.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"`},
		{"Indexed without completions", func(j *batchv1.Job) {
			j.Spec.CompletionMode = ptr(batchv1.IndexedCompletion)
			j.Spec.Parallelism = ptr(int32(2))
		}, "spec.completions: Required value: when completion mode is Indexed"},
		{"unknown completion mode", func(j *batchv1.Job) { j.Spec.CompletionMode = ptr(batchv1.CompletionMode("Sometimes")) },
			`spec.completionMode: Unsupported value: "Sometimes": supported values: "NonIndexed", "Indexed"`},
		{"pod failure policy with OnFailure", func(j *batchv1.Job) {
			j.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyOnFailure
			j.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{Action: batchv1.PodFailurePolicyActionFailJob,
				OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{42}}}}}
		}, `spec.template.spec.restartPolicy: Invalid value: "OnFailure": only "Never" is supported when podFailurePolicy is specified`},
		{"exit code 0 with In", func(j *batchv1.Job) {
			j.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{Action: batchv1.PodFailurePolicyActionFailJob,
				OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{0, 1}}}}}
		}, "spec.podFailurePolicy.rules[0].onExitCodes.values[0]: Invalid value: 0: must not be 0 for the In operator"},
		{"rule without requirement", func(j *batchv1.Job) {
			j.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{Action: batchv1.PodFailurePolicyActionCount}}}
		}, "spec.podFailurePolicy.rules[0]: Invalid value: specifying one of OnExitCodes and OnPodConditions is required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := validJob()
			tc.change(j)
			assert.Contains(t, create(t, "jobs", j), tc.want)
		})
	}
}

func TestJobImmutableFields(t *testing.T) {
	old := validJob()
	mustNoErrors(t, create(t, "jobs", old))
	j := old.DeepCopy()
	j.Spec.Completions = ptr(int32(5))
	j.Spec.Template.Spec.Containers[0].Image = "busybox"
	msgs := update(t, "jobs", j, old)
	assert.Contains(t, msgs, "spec.completions: Invalid value: 5: field is immutable")
	assert.Contains(t, msgs, "spec.template: Invalid value: field is immutable")
	// Parallelism and suspend may change.
	j = old.DeepCopy()
	j.Spec.Parallelism = ptr(int32(4))
	j.Spec.Suspend = ptr(true)
	mustNoErrors(t, update(t, "jobs", j, old))
}

func TestCronJobDefaultsAndValidation(t *testing.T) {
	cj := validCronJob()
	mustNoErrors(t, create(t, "cronjobs", cj))
	assert.Equal(t, batchv1.AllowConcurrent, cj.Spec.ConcurrencyPolicy)
	assert.False(t, *cj.Spec.Suspend)
	assert.Equal(t, int32(3), *cj.Spec.SuccessfulJobsHistoryLimit)
	assert.Equal(t, int32(1), *cj.Spec.FailedJobsHistoryLimit)
	// The job template is not a Job: no Job defaults, no selector.
	assert.Nil(t, cj.Spec.JobTemplate.Spec.Completions)
	assert.Nil(t, cj.Spec.JobTemplate.Spec.Selector)

	for _, tc := range []struct {
		name   string
		change func(*batchv1.CronJob)
		want   string
	}{
		{"no schedule", func(c *batchv1.CronJob) { c.Spec.Schedule = "" }, "spec.schedule: Required value"},
		{"unknown time zone", func(c *batchv1.CronJob) { c.Spec.TimeZone = ptr("Mars/Olympus") },
			`spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus`},
		{"concurrency policy", func(c *batchv1.CronJob) { c.Spec.ConcurrencyPolicy = "Sometimes" },
			`spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"`},
		{"negative history", func(c *batchv1.CronJob) { c.Spec.SuccessfulJobsHistoryLimit = ptr(int32(-1)) },
			"spec.successfulJobsHistoryLimit: Invalid value: -1: must be greater than or equal to 0"},
		{"template restartPolicy", func(c *batchv1.CronJob) {
			c.Spec.JobTemplate.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyAlways
		},
			`spec.jobTemplate.spec.template.spec.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"`},
		{"long name", func(c *batchv1.CronJob) { c.Name = "a23456789012345678901234567890123456789012345678901234" },
			`metadata.name: Invalid value: "a23456789012345678901234567890123456789012345678901234": must be no more than 52 characters`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := validCronJob()
			tc.change(c)
			assert.Contains(t, create(t, "cronjobs", c), tc.want)
		})
	}
}

// The schedule is parsed by robfig/cron, and kube-apiserver passes its
// error on as the message.
func TestCronJobScheduleValidation(t *testing.T) {
	for _, tc := range []struct{ schedule, want string }{
		{"every minute", "expected exactly 5 fields, found 2: [every minute]"},
		{"* * * *", "expected exactly 5 fields, found 4: [* * * *]"},
		{"@fortnightly", "unrecognized descriptor: @fortnightly"},
		{"@every fortnight", `failed to parse duration @every fortnight: time: invalid duration "fortnight"`},
		{"foo * * * *", `failed to parse int from foo: strconv.Atoi: parsing "foo": invalid syntax`},
		{"60 * * * *", "end of range (60) above maximum (59): 60"},
		{"61 * * * *", "end of range (61) above maximum (59): 61"},
		{"* 24 * * *", "end of range (24) above maximum (23): 24"},
		{"* * 0 * *", "beginning of range (0) below minimum (1): 0"},
		{"* * * 13 *", "end of range (13) above maximum (12): 13"},
		{"* * * * 7", "end of range (7) above maximum (6): 7"},
		{"* * * * -1", "failed to parse int from : strconv.Atoi: parsing \"\": invalid syntax"},
		{"5-2 * * * *", "beginning of range (5) beyond end of range (2): 5-2"},
		{"*/0 * * * *", "step of range should be a positive number: */0"},
		{"1-2-3 * * * *", "too many hyphens: 1-2-3"},
		{"*/2/3 * * * *", "too many slashes: */2/3"},
	} {
		t.Run(tc.schedule, func(t *testing.T) {
			c := validCronJob()
			c.Spec.Schedule = tc.schedule
			assert.Equal(t, []string{fmt.Sprintf("spec.schedule: Invalid value: %q: %s", tc.schedule, tc.want)}, create(t, "cronjobs", c))
		})
	}
	// Five fields with names, ranges, lists and steps, and every
	// descriptor; @every too, which kube-apiserver accepts (robfig/cron's
	// ParseStandard does).
	for _, schedule := range []string{"*/15 9-17 * jan,JUL mon-fri", "0 0 29 2 ?", "0 0 30 2 *", "@yearly", "@annually", "@monthly",
		"@weekly", "@daily", "@midnight", "@hourly", "@every 1h30m"} {
		c := validCronJob()
		c.Spec.Schedule = schedule
		assert.Empty(t, create(t, "cronjobs", c), schedule)
	}
}

// A zone goes in spec.timeZone, never in the schedule (TZ= or CRON_TZ=,
// which robfig/cron would read).
func TestCronJobTimeZoneValidation(t *testing.T) {
	tzInSchedule := "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"
	for _, tc := range []struct {
		schedule string
		timeZone *string
		want     []string
	}{
		{"TZ=UTC * * * * *", nil, []string{`spec.schedule: Invalid value: "TZ=UTC * * * * *": ` + tzInSchedule}},
		{"CRON_TZ=Europe/Paris 0 3 * * *", nil, []string{`spec.schedule: Invalid value: "CRON_TZ=Europe/Paris 0 3 * * *": ` + tzInSchedule}},
		// An unknown zone in the schedule: robfig/cron's error as well.
		{"TZ=Mars/Olympus 0 3 * * *", nil, []string{
			`spec.schedule: Invalid value: "TZ=Mars/Olympus 0 3 * * *": provided bad location Mars/Olympus: unknown time zone Mars/Olympus`,
			`spec.schedule: Invalid value: "TZ=Mars/Olympus 0 3 * * *": ` + tzInSchedule}},
		// A TZ= with nothing after it makes robfig/cron v3.0.1 panic; the
		// panic becomes the message, and the server goes on.
		{"TZ=UTC", nil, []string{
			`spec.schedule: Invalid value: "TZ=UTC": invalid schedule format: runtime error: slice bounds out of range [:-1]`,
			`spec.schedule: Invalid value: "TZ=UTC": ` + tzInSchedule}},
		{"0 3 * * *", ptr("Europe/Paris"), nil},
		{"0 3 * * *", ptr("Etc/GMT+5"), nil},
		{"0 3 * * *", ptr("UTC"), nil},
		{"0 3 * * *", ptr(""), []string{`spec.timeZone: Invalid value: "": timeZone must be nil or non-empty string`}},
		{"0 3 * * *", ptr("Mars/Olympus"), []string{`spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus`}},
		{"0 3 * * *", ptr("Local"), []string{`spec.timeZone: Invalid value: "Local": timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones`}},
		{"0 3 * * *", ptr("local"), []string{
			`spec.timeZone: Invalid value: "local": timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones`,
			`spec.timeZone: Invalid value: "local": unknown time zone local`}},
		// Names the tz database could not hold are refused before it is
		// read: a path out of it, a space, a part longer than 14.
		{"0 3 * * *", ptr("../../etc/passwd"), []string{`spec.timeZone: Invalid value: "../../etc/passwd": unknown time zone ../../etc/passwd`}},
		{"0 3 * * *", ptr("/etc/localtime"), []string{`spec.timeZone: Invalid value: "/etc/localtime": unknown time zone /etc/localtime`}},
		{"0 3 * * *", ptr("America/New York"), []string{`spec.timeZone: Invalid value: "America/New York": unknown time zone America/New York`}},
		{"0 3 * * *", ptr("America/-Chicago"), []string{`spec.timeZone: Invalid value: "America/-Chicago": unknown time zone America/-Chicago`}},
		{"0 3 * * *", ptr("America/Argentina_Buenos_Aires"), []string{
			`spec.timeZone: Invalid value: "America/Argentina_Buenos_Aires": unknown time zone America/Argentina_Buenos_Aires`}},
	} {
		t.Run(tc.schedule+" "+ptrString(tc.timeZone), func(t *testing.T) {
			c := validCronJob()
			c.Spec.Schedule, c.Spec.TimeZone = tc.schedule, tc.timeZone
			assert.Equal(t, tc.want, create(t, "cronjobs", c))
		})
	}
}

func ptrString(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// An update checks the schedule and the zone against the stored CronJob:
// a schedule stored with a TZ may keep it (but not beside spec.timeZone),
// and a stored zone is not checked again unless it changes (the tz
// database may have changed under it).
func TestCronJobUpdateTimeZoneRules(t *testing.T) {
	stored := func(schedule string, tz *string) *batchv1.CronJob {
		c := validCronJob()
		DefaultCronJob(c)
		c.Spec.Schedule, c.Spec.TimeZone = schedule, tz
		return c
	}
	// 54 characters: refused on create, beyond the 52 a Job name leaves.
	longName := stored("0 3 * * *", nil)
	longName.Name = "a23456789012345678901234567890123456789012345678901234"
	for _, tc := range []struct {
		name   string
		old    *batchv1.CronJob
		change func(*batchv1.CronJob)
		want   []string
	}{
		{"a stored TZ may stay", stored("TZ=UTC 0 3 * * *", nil), func(c *batchv1.CronJob) { c.Spec.Suspend = ptr(true) }, nil},
		{"or be removed", stored("TZ=UTC 0 3 * * *", nil), func(c *batchv1.CronJob) { c.Spec.Schedule = "0 3 * * *" }, nil},
		{"but not beside a timeZone", stored("TZ=UTC 0 3 * * *", nil), func(c *batchv1.CronJob) { c.Spec.TimeZone = ptr("UTC") },
			[]string{`spec.schedule: Invalid value: "TZ=UTC 0 3 * * *": cannot use both timeZone field and TZ or CRON_TZ in schedule`}},
		{"a TZ added is refused", stored("0 3 * * *", nil), func(c *batchv1.CronJob) { c.Spec.Schedule = "TZ=UTC 0 3 * * *" },
			[]string{`spec.schedule: Invalid value: "TZ=UTC 0 3 * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead`}},
		{"a stored zone is not checked again", stored("0 3 * * *", ptr("Mars/Olympus")), func(c *batchv1.CronJob) { c.Spec.Suspend = ptr(true) }, nil},
		{"a changed one is", stored("0 3 * * *", ptr("Europe/Paris")), func(c *batchv1.CronJob) { c.Spec.TimeZone = ptr("Mars/Olympus") },
			[]string{`spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus`}},
		{"no name limit on update", longName, func(c *batchv1.CronJob) { c.Spec.Suspend = ptr(true) }, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.old.DeepCopy()
			tc.change(c)
			assert.Equal(t, tc.want, update(t, "cronjobs", c, tc.old))
		})
	}
}

func batchSamples() map[string]api.Object {
	created := ago(3 * time.Hour)
	j := validJob()
	j.CreationTimestamp = created
	j.Spec.Completions = ptr(int32(3))
	j.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{api.ControllerUIDLabel: "uid-1"}}
	start, done := ago(time.Hour), ago(58*time.Minute)
	j.Status = batchv1.JobStatus{Succeeded: 3, StartTime: &start, CompletionTime: &done,
		Conditions: []batchv1.JobCondition{{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue}, {Type: batchv1.JobComplete, Status: corev1.ConditionTrue}}}
	cj := validCronJob()
	cj.CreationTimestamp = created
	cj.Spec.Suspend = ptr(false)
	cj.Spec.TimeZone = ptr("Europe/Paris")
	last := ago(30 * time.Second)
	cj.Status = batchv1.CronJobStatus{LastScheduleTime: &last, Active: []corev1.ObjectReference{{Name: "tick-1"}}}
	return map[string]api.Object{"jobs": j, "cronjobs": cj}
}

func TestBatchTables(t *testing.T) {
	objs := batchSamples()
	cells := func(name string) []any { return builtin(t, name).Table.Cells(objs[name], tableNow) }
	assert.Equal(t, []any{"pi", "Complete", "3/3", "2m", "3h", "nginx", "nginx:1.27", "batch.kubernetes.io/controller-uid=uid-1"}, cells("jobs"))
	assert.Equal(t, []any{"tick", "*/1 * * * *", "Europe/Paris", "False", int64(1), "30s", "3h", "nginx", "nginx:1.27", "<none>"}, cells("cronjobs"))

	cols := func(name string) []string {
		var out []string
		for _, c := range builtin(t, name).Table.Columns {
			if c.Priority == 0 {
				out = append(out, c.Name)
			}
		}
		return out
	}
	assert.Equal(t, []string{"Name", "Status", "Completions", "Duration", "Age"}, cols("jobs"))
	assert.Equal(t, []string{"Name", "Schedule", "Timezone", "Suspend", "Active", "Last Schedule", "Age"}, cols("cronjobs"))

	for _, tc := range []struct {
		job  batchv1.Job
		stat string
		comp string
	}{
		{batchv1.Job{}, "Running", "0/1"},
		{batchv1.Job{Spec: batchv1.JobSpec{Parallelism: ptr(int32(3))}, Status: batchv1.JobStatus{Succeeded: 1}}, "Running", "1/1 of 3"},
		{batchv1.Job{Status: batchv1.JobStatus{Conditions: []batchv1.JobCondition{{Type: batchv1.JobFailureTarget, Status: corev1.ConditionTrue}}}}, "FailureTarget", "0/1"},
		{batchv1.Job{Status: batchv1.JobStatus{Conditions: []batchv1.JobCondition{{Type: batchv1.JobFailureTarget, Status: corev1.ConditionTrue}, {Type: batchv1.JobFailed, Status: corev1.ConditionTrue}}}}, "Failed", "0/1"},
		{batchv1.Job{Status: batchv1.JobStatus{Conditions: []batchv1.JobCondition{{Type: batchv1.JobSuspended, Status: corev1.ConditionTrue}}}}, "Suspended", "0/1"},
	} {
		assert.Equal(t, tc.stat, JobStatusCell(&tc.job))
		assert.Equal(t, tc.comp, JobCompletionsCell(&tc.job))
	}
	require.Len(t, builtin(t, "jobs").Table.Cells(&batchv1.Job{}, tableNow), len(builtin(t, "jobs").Table.Columns))
}
