package kinds

import (
	"fmt"
	"reflect"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/schema"
)

// batchResources are the batch/v1 kinds: Jobs and CronJobs
// (pkg/registry/batch).
func batchResources(gen *schema.Generator) []*registry.Resource {
	return []*registry.Resource{
		{
			Group: "batch", Version: "v1", Name: "jobs", SingularName: "job", Kind: "Job", ListKind: "JobList",
			Categories: []string{"all"}, Namespaced: true,
			New:                 func() api.Object { return &batchv1.Job{} },
			StrategicMergePatch: true,
			Strategy:            jobStrategy{},
			Schema:              gen.FromGoType(reflect.TypeOf(batchv1.Job{})),
			StatusSubresource:   true,
			Table:               jobTable(),
		},
		{
			Group: "batch", Version: "v1", Name: "cronjobs", SingularName: "cronjob", Kind: "CronJob", ListKind: "CronJobList",
			ShortNames: []string{"cj"}, Categories: []string{"all"}, Namespaced: true,
			New:                 func() api.Object { return &batchv1.CronJob{} },
			StrategicMergePatch: true,
			Strategy:            cronJobStrategy{},
			Schema:              gen.FromGoType(reflect.TypeOf(batchv1.CronJob{})),
			StatusSubresource:   true,
			Table:               cronJobTable(),
		},
	}
}

// --- defaults (pkg/apis/batch/v1/defaults.go) ---

// DefaultJob is SetDefaults_Job: completions and parallelism 1 when both
// are unset (parallelism alone otherwise), backoffLimit 6, NonIndexed,
// not suspended, the pod failure policy's condition status True, and the
// template's pod defaults.
func DefaultJob(j *batchv1.Job) {
	s := &j.Spec
	if s.Completions == nil && s.Parallelism == nil {
		s.Completions, s.Parallelism = ptr(int32(1)), ptr(int32(1))
	}
	if s.Parallelism == nil {
		s.Parallelism = ptr(int32(1))
	}
	if s.BackoffLimit == nil {
		s.BackoffLimit = ptr(int32(6))
	}
	if s.CompletionMode == nil {
		s.CompletionMode = ptr(batchv1.NonIndexedCompletion)
	}
	if s.Suspend == nil {
		s.Suspend = ptr(false)
	}
	if p := s.PodFailurePolicy; p != nil {
		for i := range p.Rules {
			for k := range p.Rules[i].OnPodConditions {
				if p.Rules[i].OnPodConditions[k].Status == "" {
					p.Rules[i].OnPodConditions[k].Status = corev1.ConditionTrue
				}
			}
		}
	}
	DefaultPodSpec(&s.Template.Spec)
}

// DefaultCronJob is SetDefaults_CronJob: Allow, not suspended, history
// limits 3 and 1; the job template's pods get the pod defaults.
func DefaultCronJob(cj *batchv1.CronJob) {
	s := &cj.Spec
	if s.ConcurrencyPolicy == "" {
		s.ConcurrencyPolicy = batchv1.AllowConcurrent
	}
	if s.Suspend == nil {
		s.Suspend = ptr(false)
	}
	if s.SuccessfulJobsHistoryLimit == nil {
		s.SuccessfulJobsHistoryLimit = ptr(int32(3))
	}
	if s.FailedJobsHistoryLimit == nil {
		s.FailedJobsHistoryLimit = ptr(int32(1))
	}
	DefaultPodSpec(&s.JobTemplate.Spec.Template.Spec)
}

// GenerateJobSelector is the Job strategy's generateSelector: unless
// manualSelector, the pods are labelled with the Job's uid and name (both
// the batch.kubernetes.io/ labels and the legacy unprefixed ones) and the
// selector selects the uid, so no two Jobs ever share a pod.
func GenerateJobSelector(j *batchv1.Job) {
	if j.Spec.ManualSelector != nil && *j.Spec.ManualSelector {
		return
	}
	if j.Spec.Template.Labels == nil {
		j.Spec.Template.Labels = map[string]string{}
	}
	l := j.Spec.Template.Labels
	for k, v := range map[string]string{
		api.ControllerUIDLabel: string(j.UID), api.LegacyControllerUIDLabel: string(j.UID),
		batchv1.JobNameLabel: j.Name, api.LegacyJobNameLabel: j.Name,
	} {
		if _, ok := l[k]; !ok {
			l[k] = v
		}
	}
	if j.Spec.Selector == nil {
		j.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{api.ControllerUIDLabel: string(j.UID)}}
	}
	if j.Spec.ManualSelector == nil {
		j.Spec.ManualSelector = ptr(false)
	}
}

// --- Job (pkg/registry/batch/job/strategy.go) ---

type jobStrategy struct{ registry.DefaultStrategy }

// PrepareForCreate clears the status and generates the selector (the uid
// is already set).
func (jobStrategy) PrepareForCreate(obj api.Object) {
	j := obj.(*batchv1.Job)
	j.Status = batchv1.JobStatus{}
	GenerateJobSelector(j)
}

// Default implements registry.Strategy.
func (jobStrategy) Default(obj api.Object) { DefaultJob(obj.(*batchv1.Job)) }

// Validate is ValidateJob.
func (jobStrategy) Validate(obj api.Object) field.ErrorList {
	return validateJob(obj.(*batchv1.Job))
}

// ValidateUpdate is ValidateJobUpdate: completions, the selector and the
// pod template are immutable (Kubernetes lets a suspended Job's template
// change a little; kubesim does not).
func (jobStrategy) ValidateUpdate(obj, old api.Object) field.ErrorList {
	j, o := obj.(*batchv1.Job), old.(*batchv1.Job)
	errs := validateJob(j)
	sp := field.NewPath("spec")
	if !jsonEqual(j.Spec.Completions, o.Spec.Completions) {
		errs = append(errs, field.Invalid(sp.Child("completions"), j.Spec.Completions, immutableErrMsg))
	}
	if !jsonEqual(j.Spec.Selector, o.Spec.Selector) {
		errs = append(errs, validateSelectorUnchanged(j.Spec.Selector, o.Spec.Selector)...)
	}
	if !jsonEqual(j.Spec.Template, o.Spec.Template) {
		errs = append(errs, field.Invalid(sp.Child("template"), field.OmitValue, immutableErrMsg))
	}
	if !jsonEqual(j.Spec.CompletionMode, o.Spec.CompletionMode) {
		errs = append(errs, field.Invalid(sp.Child("completionMode"), j.Spec.CompletionMode, immutableErrMsg))
	}
	if !jsonEqual(j.Spec.PodFailurePolicy, o.Spec.PodFailurePolicy) {
		errs = append(errs, field.Invalid(sp.Child("podFailurePolicy"), field.OmitValue, immutableErrMsg))
	}
	return errs
}

func validateJob(j *batchv1.Job) field.ErrorList {
	sp := field.NewPath("spec")
	errs := validateGeneratedSelector(j)
	errs = append(errs, validateJobSpec(&j.Spec, sp)...)
	if j.Spec.Selector == nil {
		errs = append(errs, field.Required(sp.Child("selector"), ""))
		return errs
	}
	errs = append(errs, validateLabelSelector(j.Spec.Selector, sp.Child("selector"))...)
	if sel, err := api.LabelSelectorAsSelector(j.Spec.Selector); err == nil && !sel.Matches(labelsOf(j.Spec.Template.Labels)) {
		errs = append(errs, field.Invalid(sp.Child("template", "metadata", "labels"), j.Spec.Template.Labels, "`selector` does not match template `labels`"))
	}
	return errs
}

// validateGeneratedSelector is ValidateGeneratedSelector: a generated
// selector and labels must still be the generated ones.
func validateGeneratedSelector(j *batchv1.Job) field.ErrorList {
	if (j.Spec.ManualSelector != nil && *j.Spec.ManualSelector) || j.Spec.Selector == nil {
		return nil
	}
	var errs field.ErrorList
	mp := field.NewPath("spec", "template", "metadata")
	if got, ok := j.Spec.Template.Labels[api.ControllerUIDLabel]; !ok {
		errs = append(errs, field.Required(mp.Child("labels").Key(api.ControllerUIDLabel), fmt.Sprintf("must be '%s'", j.UID)))
	} else if got != string(j.UID) {
		errs = append(errs, field.Invalid(mp.Child("labels").Key(api.ControllerUIDLabel), got, fmt.Sprintf("must be '%s'", j.UID)))
	}
	if sel, err := api.LabelSelectorAsSelector(j.Spec.Selector); err == nil &&
		!sel.Matches(labelsOf(map[string]string{api.ControllerUIDLabel: string(j.UID), batchv1.JobNameLabel: j.Name})) {
		errs = append(errs, field.Invalid(field.NewPath("spec", "selector"), selectorValue{*j.Spec.Selector}, "`selector` not auto-generated"))
	}
	return errs
}

// validateJobSpec is validateJobSpec, shared by Jobs and CronJobs' job
// templates.
func validateJobSpec(s *batchv1.JobSpec, sp *field.Path) field.ErrorList {
	var errs field.ErrorList
	if s.Parallelism != nil {
		errs = append(errs, validateNonnegative(int64(*s.Parallelism), sp.Child("parallelism"))...)
	}
	if s.Completions != nil {
		errs = append(errs, validateNonnegative(int64(*s.Completions), sp.Child("completions"))...)
	}
	if s.ActiveDeadlineSeconds != nil {
		errs = append(errs, validateNonnegative(*s.ActiveDeadlineSeconds, sp.Child("activeDeadlineSeconds"))...)
	}
	if s.BackoffLimit != nil {
		errs = append(errs, validateNonnegative(int64(*s.BackoffLimit), sp.Child("backoffLimit"))...)
	}
	if s.TTLSecondsAfterFinished != nil {
		errs = append(errs, validateNonnegative(int64(*s.TTLSecondsAfterFinished), sp.Child("ttlSecondsAfterFinished"))...)
	}
	if s.CompletionMode != nil {
		switch *s.CompletionMode {
		case batchv1.NonIndexedCompletion:
		case batchv1.IndexedCompletion:
			if s.Completions == nil {
				errs = append(errs, field.Required(sp.Child("completions"), "when completion mode is Indexed"))
			}
			if s.Parallelism != nil && *s.Parallelism > 100000 {
				errs = append(errs, field.Invalid(sp.Child("parallelism"), *s.Parallelism, "must be less than or equal to 100000 when completion mode is Indexed"))
			}
		default:
			errs = append(errs, field.NotSupported(sp.Child("completionMode"), *s.CompletionMode,
				[]string{string(batchv1.NonIndexedCompletion), string(batchv1.IndexedCompletion)}))
		}
	}
	tp := sp.Child("template")
	errs = append(errs, ValidatePodTemplateSpec(&s.Template, tp)...)
	rp := s.Template.Spec.RestartPolicy
	if rp != corev1.RestartPolicyOnFailure && rp != corev1.RestartPolicyNever {
		errs = append(errs, field.NotSupported(tp.Child("spec", "restartPolicy"), rp,
			[]string{string(corev1.RestartPolicyOnFailure), string(corev1.RestartPolicyNever)}))
	} else if s.PodFailurePolicy != nil && rp != corev1.RestartPolicyNever {
		errs = append(errs, field.Invalid(tp.Child("spec", "restartPolicy"), rp,
			fmt.Sprintf("only %q is supported when podFailurePolicy is specified", corev1.RestartPolicyNever)))
	}
	if s.PodFailurePolicy != nil {
		errs = append(errs, validatePodFailurePolicy(s, sp.Child("podFailurePolicy"))...)
	}
	return errs
}

// validatePodFailurePolicy is validatePodFailurePolicy and its rules.
func validatePodFailurePolicy(s *batchv1.JobSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	rules := s.PodFailurePolicy.Rules
	rp := p.Child("rules")
	if len(rules) > 20 {
		errs = append(errs, field.TooMany(rp, len(rules), 20))
	}
	containers := map[string]bool{}
	for _, c := range s.Template.Spec.InitContainers {
		containers[c.Name] = true
	}
	for _, c := range s.Template.Spec.Containers {
		containers[c.Name] = true
	}
	for i, r := range rules {
		p := rp.Index(i)
		switch r.Action {
		case batchv1.PodFailurePolicyActionFailJob, batchv1.PodFailurePolicyActionIgnore, batchv1.PodFailurePolicyActionCount:
		case batchv1.PodFailurePolicyActionFailIndex:
			errs = append(errs, field.Invalid(p.Child("action"), r.Action, "requires the backoffLimitPerIndex to be set"))
		default:
			errs = append(errs, field.NotSupported(p.Child("action"), r.Action, []string{
				string(batchv1.PodFailurePolicyActionCount), string(batchv1.PodFailurePolicyActionFailIndex),
				string(batchv1.PodFailurePolicyActionFailJob), string(batchv1.PodFailurePolicyActionIgnore)}))
		}
		switch {
		case r.OnExitCodes != nil && len(r.OnPodConditions) > 0:
			errs = append(errs, field.Invalid(p, field.OmitValue, "specifying both OnExitCodes and OnPodConditions is not supported"))
		case r.OnExitCodes == nil && len(r.OnPodConditions) == 0:
			errs = append(errs, field.Invalid(p, field.OmitValue, "specifying one of OnExitCodes and OnPodConditions is required"))
		}
		if ec := r.OnExitCodes; ec != nil {
			ep := p.Child("onExitCodes")
			if ec.ContainerName != nil && !containers[*ec.ContainerName] {
				errs = append(errs, field.Invalid(ep.Child("containerName"), *ec.ContainerName,
					"must be one of the container or initContainer names in the pod template"))
			}
			if ec.Operator != batchv1.PodFailurePolicyOnExitCodesOpIn && ec.Operator != batchv1.PodFailurePolicyOnExitCodesOpNotIn {
				errs = append(errs, field.NotSupported(ep.Child("operator"), ec.Operator,
					[]string{string(batchv1.PodFailurePolicyOnExitCodesOpIn), string(batchv1.PodFailurePolicyOnExitCodesOpNotIn)}))
			}
			vp := ep.Child("values")
			if len(ec.Values) == 0 {
				errs = append(errs, field.Invalid(vp, ec.Values, "at least one value is required"))
			} else if len(ec.Values) > 255 {
				errs = append(errs, field.TooMany(vp, len(ec.Values), 255))
			}
			for k, v := range ec.Values {
				switch {
				case ec.Operator == batchv1.PodFailurePolicyOnExitCodesOpIn && v == 0:
					errs = append(errs, field.Invalid(vp.Index(k), v, "must not be 0 for the In operator"))
				case k > 0 && ec.Values[k-1] == v:
					errs = append(errs, field.Duplicate(vp.Index(k), v))
				case k > 0 && ec.Values[k-1] > v:
					errs = append(errs, field.Invalid(vp.Index(k), v, "must be ordered"))
				}
			}
		}
		for k, c := range r.OnPodConditions {
			cp := p.Child("onPodConditions").Index(k)
			switch c.Status {
			case corev1.ConditionTrue, corev1.ConditionFalse, corev1.ConditionUnknown:
			default:
				errs = append(errs, field.NotSupported(cp.Child("status"), c.Status,
					[]string{string(corev1.ConditionFalse), string(corev1.ConditionTrue), string(corev1.ConditionUnknown)}))
			}
			if c.Type == "" {
				errs = append(errs, field.Required(cp.Child("type"), ""))
			}
		}
	}
	return errs
}

// --- CronJob (pkg/registry/batch/cronjob/strategy.go) ---

type cronJobStrategy struct{ registry.DefaultStrategy }

// PrepareForCreate implements registry.Strategy.
func (cronJobStrategy) PrepareForCreate(obj api.Object) {
	obj.(*batchv1.CronJob).Status = batchv1.CronJobStatus{}
}

// Default implements registry.Strategy.
func (cronJobStrategy) Default(obj api.Object) { DefaultCronJob(obj.(*batchv1.CronJob)) }

// Validate is ValidateCronJobCreate.
func (cronJobStrategy) Validate(obj api.Object) field.ErrorList {
	cj := obj.(*batchv1.CronJob)
	errs := validateCronJobSpec(&cj.Spec, nil)
	// A CronJob's name plus "-" and the 11 digits of a scheduled minute
	// must make a Job name of at most 63 characters.
	if len(cj.Name) > 52 {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), cj.Name, "must be no more than 52 characters"))
	}
	return errs
}

// ValidateUpdate is ValidateCronJobUpdate: the spec against the old one,
// and no name length limit, so that a CronJob named before the limit can
// still be changed and deleted.
func (cronJobStrategy) ValidateUpdate(obj, old api.Object) field.ErrorList {
	return validateCronJobSpec(&obj.(*batchv1.CronJob).Spec, &old.(*batchv1.CronJob).Spec)
}

// validateCronJobSpec is validateCronJobSpec; old is nil on create.
func validateCronJobSpec(s, old *batchv1.CronJobSpec) field.ErrorList {
	sp := field.NewPath("spec")
	var errs field.ErrorList
	if s.Schedule == "" {
		errs = append(errs, field.Required(sp.Child("schedule"), ""))
	} else {
		// A schedule stored with a TZ in it (from before spec.timeZone)
		// may keep it.
		allowTZInSchedule := old != nil && strings.Contains(old.Schedule, "TZ")
		errs = append(errs, validateScheduleFormat(s.Schedule, allowTZInSchedule, s.TimeZone, sp.Child("schedule"))...)
	}
	if s.StartingDeadlineSeconds != nil {
		errs = append(errs, validateNonnegative(*s.StartingDeadlineSeconds, sp.Child("startingDeadlineSeconds"))...)
	}
	// The time zone database may change under a stored CronJob: its zone
	// is checked again only when it changes.
	if old == nil || !reflect.DeepEqual(old.TimeZone, s.TimeZone) {
		errs = append(errs, validateTimeZone(s.TimeZone, sp.Child("timeZone"))...)
	}
	switch s.ConcurrencyPolicy {
	case batchv1.AllowConcurrent, batchv1.ForbidConcurrent, batchv1.ReplaceConcurrent:
	case "":
		errs = append(errs, field.Required(sp.Child("concurrencyPolicy"), ""))
	default:
		errs = append(errs, field.NotSupported(sp.Child("concurrencyPolicy"), s.ConcurrencyPolicy,
			[]string{string(batchv1.AllowConcurrent), string(batchv1.ForbidConcurrent), string(batchv1.ReplaceConcurrent)}))
	}
	jp := sp.Child("jobTemplate")
	errs = append(errs, validateJobSpec(&s.JobTemplate.Spec, jp.Child("spec"))...)
	if s.JobTemplate.Spec.Selector != nil {
		errs = append(errs, field.Invalid(jp.Child("spec", "selector"), selectorValue{*s.JobTemplate.Spec.Selector}, "`selector` will be auto-generated"))
	}
	if m := s.JobTemplate.Spec.ManualSelector; m != nil && *m {
		errs = append(errs, field.NotSupported(jp.Child("spec", "manualSelector"), *m, []string{"nil", "false"}))
	}
	if s.SuccessfulJobsHistoryLimit != nil {
		errs = append(errs, validateNonnegative(int64(*s.SuccessfulJobsHistoryLimit), sp.Child("successfulJobsHistoryLimit"))...)
	}
	if s.FailedJobsHistoryLimit != nil {
		errs = append(errs, validateNonnegative(int64(*s.FailedJobsHistoryLimit), sp.Child("failedJobsHistoryLimit"))...)
	}
	return errs
}

// validateScheduleFormat is validateScheduleFormat: robfig/cron's own
// error for a schedule it cannot parse ("end of range (61) above maximum
// (59): 61"), and, besides, no TZ= or CRON_TZ= in it: spec.timeZone says
// the zone. A schedule that already had one may keep it, but not beside a
// timeZone.
func validateScheduleFormat(schedule string, allowTZInSchedule bool, timeZone *string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if _, err := api.ParseCronSchedule(schedule); err != nil {
		errs = append(errs, field.Invalid(p, schedule, err.Error()))
	}
	switch hasTZ := strings.Contains(schedule, "TZ"); {
	case allowTZInSchedule && hasTZ && timeZone != nil:
		errs = append(errs, field.Invalid(p, schedule, "cannot use both timeZone field and TZ or CRON_TZ in schedule"))
	case !allowTZInSchedule && hasTZ:
		errs = append(errs, field.Invalid(p, schedule, "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"))
	}
	return errs
}

// validateTimeZone is validateTimeZone: unset, or the name of a zone the
// tz database knows, written as the database writes names, and not
// "Local" (the zone of whichever host reads it).
func validateTimeZone(tz *string, p *field.Path) field.ErrorList {
	if tz == nil {
		return nil
	}
	if *tz == "" {
		return field.ErrorList{field.Invalid(p, *tz, "timeZone must be nil or non-empty string")}
	}
	for _, part := range strings.Split(*tz, "/") {
		if !isTimeZoneNamePart(part) {
			return field.ErrorList{field.Invalid(p, *tz, "unknown time zone "+*tz)}
		}
	}
	var errs field.ErrorList
	if strings.EqualFold(*tz, "Local") {
		errs = append(errs, field.Invalid(p, *tz, "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones"))
	}
	if _, err := time.LoadLocation(*tz); err != nil {
		errs = append(errs, field.Invalid(p, *tz, err.Error()))
	}
	return errs
}

// isTimeZoneNamePart reports whether part may stand between the slashes of
// a zone name (https://data.iana.org/time-zones/theory.html#naming): 1 to
// 14 ASCII letters, digits, '.', '-', '_' or '+' (digits and '+' for
// legacy names such as Etc/GMT+5), neither "." nor "..", not starting with
// '-'. It keeps names such as "../../etc/passwd" from reaching the tz
// database's files.
func isTimeZoneNamePart(part string) bool {
	if len(part) == 0 || len(part) > 14 || part == "." || part == ".." || part[0] == '-' {
		return false
	}
	for _, c := range part {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', strings.ContainsRune(".-_+", c):
		default:
			return false
		}
	}
	return true
}

// --- tables (printJob, printCronJob) ---

func jobTable() *registry.Table {
	return &registry.Table{
		Columns: append([]metav1.TableColumnDefinition{
			registry.NameColumn,
			col("Status", "string", "Status of the job."),
			col("Completions", "string", "The completion status of the job."),
			col("Duration", "string", "Time required to complete the job."),
			registry.AgeColumn,
		}, wide(col("Containers", "string", "Names of each container in the template.")),
			wide(col("Images", "string", "Images referenced by each container in the template.")),
			wide(col("Selector", "string", "Selector of the pods."))),
		Cells: func(obj api.Object, now time.Time) []any {
			j := obj.(*batchv1.Job)
			names, images := containerCells(&j.Spec.Template.Spec)
			return []any{j.Name, JobStatusCell(j), JobCompletionsCell(j), jobDuration(j, now),
				age(j.CreationTimestamp.Time, now), names, images, formatLabelSelector(j.Spec.Selector)}
		},
	}
}

// JobCompletionsCell is the COMPLETIONS column: succeeded/completions,
// or "n/1 of parallelism" for a Job with no completion count.
func JobCompletionsCell(j *batchv1.Job) string {
	if j.Spec.Completions != nil {
		return fmt.Sprintf("%d/%d", j.Status.Succeeded, *j.Spec.Completions)
	}
	if p := j.Spec.Parallelism; p != nil && *p > 1 {
		return fmt.Sprintf("%d/1 of %d", j.Status.Succeeded, *p)
	}
	return fmt.Sprintf("%d/1", j.Status.Succeeded)
}

// JobStatusCell is the STATUS column of kubectl 1.32.
func JobStatusCell(j *batchv1.Job) string {
	has := func(t batchv1.JobConditionType) bool {
		for _, c := range j.Status.Conditions {
			if c.Type == t && c.Status == corev1.ConditionTrue {
				return true
			}
		}
		return false
	}
	switch {
	case has(batchv1.JobComplete):
		return "Complete"
	case has(batchv1.JobFailed):
		return "Failed"
	case j.DeletionTimestamp != nil:
		return "Terminating"
	case has(batchv1.JobSuspended):
		return "Suspended"
	case has(batchv1.JobFailureTarget):
		return "FailureTarget"
	case has(batchv1.JobSuccessCriteriaMet):
		return "SuccessCriteriaMet"
	}
	return "Running"
}

func jobDuration(j *batchv1.Job, now time.Time) string {
	switch {
	case j.Status.StartTime == nil:
		return ""
	case j.Status.CompletionTime == nil:
		return registry.HumanDuration(now.Sub(j.Status.StartTime.Time))
	}
	return registry.HumanDuration(j.Status.CompletionTime.Sub(j.Status.StartTime.Time))
}

func cronJobTable() *registry.Table {
	return &registry.Table{
		Columns: []metav1.TableColumnDefinition{
			registry.NameColumn,
			col("Schedule", "string", "The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron."),
			col("Timezone", "string", "The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones. If not specified, this will default to the time zone of the kube-controller-manager process. The set of valid time zone names and the time zone offset is loaded from the system-wide time zone database by the API server during CronJob validation and the controller manager during execution. If no system-wide time zone database can be found a bundled version of the database is used instead. If the time zone name becomes invalid during the lifetime of a CronJob or due to a change in host configuration, the controller will stop creating new new Jobs and will create a system event with the reason UnknownTimeZone. More information can be found in https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/#time-zones"),
			col("Suspend", "boolean", "This flag tells the controller to suspend subsequent executions, it does not apply to already started executions.  Defaults to false."),
			col("Active", "integer", "A list of pointers to currently running jobs."),
			col("Last Schedule", "string", "Information when was the last time the job was successfully scheduled."),
			registry.AgeColumn,
			wide(col("Containers", "string", "Names of each container in the template.")),
			wide(col("Images", "string", "Images referenced by each container in the template.")),
			wide(col("Selector", "string", "Selector of the pods.")),
		},
		Cells: func(obj api.Object, now time.Time) []any {
			cj := obj.(*batchv1.CronJob)
			names, images := containerCells(&cj.Spec.JobTemplate.Spec.Template.Spec)
			last := "<none>"
			if t := cj.Status.LastScheduleTime; t != nil {
				last = age(t.Time, now)
			}
			tz := "<none>"
			if cj.Spec.TimeZone != nil {
				tz = *cj.Spec.TimeZone
			}
			suspend := "<unset>"
			if cj.Spec.Suspend != nil {
				suspend = map[bool]string{true: "True", false: "False"}[*cj.Spec.Suspend]
			}
			return []any{cj.Name, cj.Spec.Schedule, tz, suspend, int64(len(cj.Status.Active)), last,
				age(cj.CreationTimestamp.Time, now), names, images, formatLabelSelector(cj.Spec.JobTemplate.Spec.Selector)}
		},
	}
}
