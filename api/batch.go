package api

// This file holds the batch/v1 kinds (k8s.io/api/batch/v1/types.go); the
// protobuf tags are those types' field numbers.

// The labels and annotations of Jobs and their pods.
const (
	// JobCompletionIndexAnnotation holds the completion index of a pod of
	// an Indexed Job.
	JobCompletionIndexAnnotation = "batch.kubernetes.io/job-completion-index"
	// JobCompletionIndexLabel is the same index as a label.
	JobCompletionIndexLabel = "job.kubernetes.io/pod-index"
	// JobNameLabel labels a Job's pods with its name.
	JobNameLabel = "batch.kubernetes.io/job-name"
	// ControllerUIDLabel labels a Job's pods with its uid: the generated
	// selector selects it.
	ControllerUIDLabel = "batch.kubernetes.io/controller-uid"
	// LegacyJobNameLabel and LegacyControllerUIDLabel are the unprefixed
	// labels Kubernetes still sets beside the prefixed ones.
	LegacyJobNameLabel       = "job-name"
	LegacyControllerUIDLabel = "controller-uid"
	// CronJobScheduledTimestampAnnotation records on a Job the time its
	// CronJob meant to start it (RFC 3339).
	CronJobScheduledTimestampAnnotation = "batch.kubernetes.io/cronjob-scheduled-timestamp"
)

// Job runs pods until a number of them succeed.
type Job struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the desired behaviour.
	Spec JobSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is what the controller observed.
	Status JobStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// JobList is a list of Jobs.
type JobList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the Jobs.
	Items []Job `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// CompletionMode says how a Job counts completions.
type CompletionMode string

// The completion modes.
const (
	// NonIndexedCompletion: completions successful pods, all alike.
	NonIndexedCompletion CompletionMode = "NonIndexed"
	// IndexedCompletion: one successful pod per index 0..completions-1.
	IndexedCompletion CompletionMode = "Indexed"
)

// PodFailurePolicyAction is what a matching pod failure does.
type PodFailurePolicyAction string

// The pod failure policy actions.
const (
	// PodFailurePolicyActionFailJob fails the Job at once.
	PodFailurePolicyActionFailJob PodFailurePolicyAction = "FailJob"
	// PodFailurePolicyActionFailIndex fails the pod's index (needs
	// backoffLimitPerIndex, which kubesim does not model).
	PodFailurePolicyActionFailIndex PodFailurePolicyAction = "FailIndex"
	// PodFailurePolicyActionIgnore does not count the failure.
	PodFailurePolicyActionIgnore PodFailurePolicyAction = "Ignore"
	// PodFailurePolicyActionCount counts it towards backoffLimit.
	PodFailurePolicyActionCount PodFailurePolicyAction = "Count"
)

// PodFailurePolicyOnExitCodesOperator is In or NotIn.
type PodFailurePolicyOnExitCodesOperator string

// The exit code operators.
const (
	PodFailurePolicyOnExitCodesOpIn    PodFailurePolicyOnExitCodesOperator = "In"
	PodFailurePolicyOnExitCodesOpNotIn PodFailurePolicyOnExitCodesOperator = "NotIn"
)

// PodFailurePolicyOnExitCodesRequirement matches the exit codes of a
// failed pod's containers (those that exited 0 excluded).
type PodFailurePolicyOnExitCodesRequirement struct {
	// ContainerName restricts the check to one container.
	ContainerName *string `json:"containerName,omitempty" protobuf:"bytes,1,opt,name=containerName"`
	// Operator is In or NotIn.
	Operator PodFailurePolicyOnExitCodesOperator `json:"operator" protobuf:"bytes,2,req,name=operator"`
	// Values are the exit codes, ordered, without duplicates.
	Values []int32 `json:"values" protobuf:"varint,3,rep,name=values"`
}

// PodFailurePolicyOnPodConditionsPattern matches a pod condition.
type PodFailurePolicyOnPodConditionsPattern struct {
	Type PodConditionType `json:"type" protobuf:"bytes,1,req,name=type"`
	// Status defaults to True.
	Status ConditionStatus `json:"status" protobuf:"bytes,2,req,name=status"`
}

// PodFailurePolicyRule is one rule: an action and one requirement.
type PodFailurePolicyRule struct {
	Action PodFailurePolicyAction `json:"action" protobuf:"bytes,1,req,name=action"`
	// OnExitCodes is the requirement on exit codes.
	OnExitCodes *PodFailurePolicyOnExitCodesRequirement `json:"onExitCodes,omitempty" protobuf:"bytes,2,opt,name=onExitCodes"`
	// OnPodConditions is the requirement on pod conditions.
	OnPodConditions []PodFailurePolicyOnPodConditionsPattern `json:"onPodConditions,omitempty" protobuf:"bytes,3,opt,name=onPodConditions"`
}

// PodFailurePolicy says how failed pods count; the first matching rule
// wins.
type PodFailurePolicy struct {
	Rules []PodFailurePolicyRule `json:"rules" protobuf:"bytes,1,opt,name=rules"`
}

// JobSpec describes a Job.
type JobSpec struct {
	// Fields of the Kubernetes type that kubesim does not model, by their
	// protobuf numbers: backoffLimitPerIndex, maxFailedIndexes,
	// podReplacementPolicy, managedBy, successPolicy, scheduling.
	_ struct{} `json:"-" protobuf:"varint,12,opt,name=backoffLimitPerIndex"`
	_ struct{} `json:"-" protobuf:"varint,13,opt,name=maxFailedIndexes"`
	_ struct{} `json:"-" protobuf:"bytes,14,opt,name=podReplacementPolicy,casttype=podReplacementPolicy"`
	_ struct{} `json:"-" protobuf:"bytes,15,opt,name=managedBy"`
	_ struct{} `json:"-" protobuf:"bytes,16,opt,name=successPolicy"`
	_ struct{} `json:"-" protobuf:"bytes,17,opt,name=scheduling"`
	// Parallelism is the most pods running at once (1).
	Parallelism *int32 `json:"parallelism,omitempty" protobuf:"varint,1,opt,name=parallelism"`
	// Completions is how many pods must succeed (1 when parallelism is
	// unset too; unset means any success ends the Job).
	Completions *int32 `json:"completions,omitempty" protobuf:"varint,2,opt,name=completions"`
	// ActiveDeadlineSeconds from startTime before the Job fails with
	// DeadlineExceeded.
	ActiveDeadlineSeconds *int64 `json:"activeDeadlineSeconds,omitempty" protobuf:"varint,3,opt,name=activeDeadlineSeconds"`
	// PodFailurePolicy says how pod failures count.
	PodFailurePolicy *PodFailurePolicy `json:"podFailurePolicy,omitempty" protobuf:"bytes,11,opt,name=podFailurePolicy"`
	// BackoffLimit is how many failed pods fail the Job (6).
	BackoffLimit *int32 `json:"backoffLimit,omitempty" protobuf:"varint,7,opt,name=backoffLimit"`
	// Selector of the pods; generated unless manualSelector.
	Selector *LabelSelector `json:"selector,omitempty" protobuf:"bytes,4,opt,name=selector"`
	// ManualSelector lets the user choose the selector.
	ManualSelector *bool `json:"manualSelector,omitempty" protobuf:"varint,5,opt,name=manualSelector"`
	// Template of the pods (restartPolicy Never or OnFailure).
	Template PodTemplateSpec `json:"template" protobuf:"bytes,6,opt,name=template"`
	// TTLSecondsAfterFinished: the Job is deleted that long after it
	// finished.
	TTLSecondsAfterFinished *int32 `json:"ttlSecondsAfterFinished,omitempty" protobuf:"varint,8,opt,name=ttlSecondsAfterFinished"`
	// CompletionMode is NonIndexed or Indexed.
	CompletionMode *CompletionMode `json:"completionMode,omitempty" protobuf:"bytes,9,opt,name=completionMode,casttype=CompletionMode"`
	// Suspend stops the Job's pods.
	Suspend *bool `json:"suspend,omitempty" protobuf:"varint,10,opt,name=suspend"`
}

// JobStatus is the observed state of a Job.
type JobStatus struct {
	// Fields kubesim does not model: failedIndexes, terminating.
	_ struct{} `json:"-" protobuf:"bytes,10,opt,name=failedIndexes"`
	_ struct{} `json:"-" protobuf:"varint,11,opt,name=terminating"`
	// Conditions: Complete, Failed, SuccessCriteriaMet, FailureTarget,
	// Suspended.
	Conditions []JobCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,1,rep,name=conditions"`
	// StartTime is when the controller started the Job.
	StartTime *Time `json:"startTime,omitempty" protobuf:"bytes,2,opt,name=startTime"`
	// CompletionTime is when it completed (success only).
	CompletionTime *Time `json:"completionTime,omitempty" protobuf:"bytes,3,opt,name=completionTime"`
	// Active counts pending and running pods.
	Active int32 `json:"active,omitempty" protobuf:"varint,4,opt,name=active"`
	// Succeeded counts pods that succeeded.
	Succeeded int32 `json:"succeeded,omitempty" protobuf:"varint,5,opt,name=succeeded"`
	// Failed counts pods that failed.
	Failed int32 `json:"failed,omitempty" protobuf:"varint,6,opt,name=failed"`
	// CompletedIndexes of an Indexed Job, as "1,3-5,7".
	CompletedIndexes string `json:"completedIndexes,omitempty" protobuf:"bytes,7,opt,name=completedIndexes"`
	// UncountedTerminatedPods holds pods finished but not yet counted.
	UncountedTerminatedPods *UncountedTerminatedPods `json:"uncountedTerminatedPods,omitempty" protobuf:"bytes,8,opt,name=uncountedTerminatedPods"`
	// Ready counts pods with a Ready condition.
	Ready *int32 `json:"ready,omitempty" protobuf:"varint,9,opt,name=ready"`
}

// UncountedTerminatedPods are the uids of finished pods not yet counted.
type UncountedTerminatedPods struct {
	Succeeded []string `json:"succeeded,omitempty" protobuf:"bytes,1,rep,name=succeeded,casttype=k8s.io/apimachinery/pkg/types.UID"`
	Failed    []string `json:"failed,omitempty" protobuf:"bytes,2,rep,name=failed,casttype=k8s.io/apimachinery/pkg/types.UID"`
}

// JobConditionType names a Job condition.
type JobConditionType string

// The Job conditions.
const (
	JobSuspended          JobConditionType = "Suspended"
	JobComplete           JobConditionType = "Complete"
	JobFailed             JobConditionType = "Failed"
	JobFailureTarget      JobConditionType = "FailureTarget"
	JobSuccessCriteriaMet JobConditionType = "SuccessCriteriaMet"
)

// The reasons of the Job conditions (k8s.io/api/batch/v1).
const (
	JobReasonPodFailurePolicy       = "PodFailurePolicy"
	JobReasonBackoffLimitExceeded   = "BackoffLimitExceeded"
	JobReasonDeadlineExceeded       = "DeadlineExceeded"
	JobReasonCompletionsReached     = "CompletionsReached"
	JobReasonSuccessPolicy          = "SuccessPolicy"
	JobReasonMaxFailedIndexesExceed = "MaxFailedIndexesExceeded"
)

// JobCondition is one condition of a Job.
type JobCondition struct {
	Type               JobConditionType `json:"type" protobuf:"bytes,1,opt,name=type,casttype=JobConditionType"`
	Status             ConditionStatus  `json:"status" protobuf:"bytes,2,opt,name=status,casttype=k8s.io/api/core/v1.ConditionStatus"`
	LastProbeTime      Time             `json:"lastProbeTime,omitempty" protobuf:"bytes,3,opt,name=lastProbeTime"`
	LastTransitionTime Time             `json:"lastTransitionTime,omitempty" protobuf:"bytes,4,opt,name=lastTransitionTime"`
	Reason             string           `json:"reason,omitempty" protobuf:"bytes,5,opt,name=reason"`
	Message            string           `json:"message,omitempty" protobuf:"bytes,6,opt,name=message"`
}

// JobTemplateSpec is the Job a CronJob creates.
type JobTemplateSpec struct {
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec of the Jobs.
	Spec JobSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
}

// CronJob creates Jobs on a schedule.
type CronJob struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the desired behaviour.
	Spec CronJobSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is what the controller observed.
	Status CronJobStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// CronJobList is a list of CronJobs.
type CronJobList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the CronJobs.
	Items []CronJob `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// CronJobSpec describes when and what to run.
type CronJobSpec struct {
	// Schedule in cron format ("*/5 * * * *", "@hourly").
	Schedule string `json:"schedule" protobuf:"bytes,1,opt,name=schedule"`
	// TimeZone of the schedule (the controller manager's by default).
	TimeZone *string `json:"timeZone,omitempty" protobuf:"bytes,8,opt,name=timeZone"`
	// StartingDeadlineSeconds: a run missed by more is skipped.
	StartingDeadlineSeconds *int64 `json:"startingDeadlineSeconds,omitempty" protobuf:"varint,2,opt,name=startingDeadlineSeconds"`
	// ConcurrencyPolicy is Allow, Forbid or Replace.
	ConcurrencyPolicy ConcurrencyPolicy `json:"concurrencyPolicy,omitempty" protobuf:"bytes,3,opt,name=concurrencyPolicy,casttype=ConcurrencyPolicy"`
	// Suspend stops new runs.
	Suspend *bool `json:"suspend,omitempty" protobuf:"varint,4,opt,name=suspend"`
	// JobTemplate is the Job to create.
	JobTemplate JobTemplateSpec `json:"jobTemplate" protobuf:"bytes,5,opt,name=jobTemplate"`
	// SuccessfulJobsHistoryLimit finished Jobs to keep (3).
	SuccessfulJobsHistoryLimit *int32 `json:"successfulJobsHistoryLimit,omitempty" protobuf:"varint,6,opt,name=successfulJobsHistoryLimit"`
	// FailedJobsHistoryLimit failed Jobs to keep (1).
	FailedJobsHistoryLimit *int32 `json:"failedJobsHistoryLimit,omitempty" protobuf:"varint,7,opt,name=failedJobsHistoryLimit"`
}

// ConcurrencyPolicy says what a run does while another is active.
type ConcurrencyPolicy string

// The concurrency policies.
const (
	AllowConcurrent   ConcurrencyPolicy = "Allow"
	ForbidConcurrent  ConcurrencyPolicy = "Forbid"
	ReplaceConcurrent ConcurrencyPolicy = "Replace"
)

// CronJobStatus is the observed state of a CronJob.
type CronJobStatus struct {
	// Active are the running Jobs.
	Active []ObjectReference `json:"active,omitempty" protobuf:"bytes,1,rep,name=active"`
	// LastScheduleTime is when a Job was last scheduled.
	LastScheduleTime *Time `json:"lastScheduleTime,omitempty" protobuf:"bytes,4,opt,name=lastScheduleTime"`
	// LastSuccessfulTime is when a Job last completed.
	LastSuccessfulTime *Time `json:"lastSuccessfulTime,omitempty" protobuf:"bytes,5,opt,name=lastSuccessfulTime"`
}
