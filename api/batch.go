package api

import (
	batchv1 "k8s.io/api/batch/v1"
)

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
type Job = batchv1.Job

// JobList is a list of Jobs.
type JobList = batchv1.JobList

// CompletionMode says how a Job counts completions.
type CompletionMode = batchv1.CompletionMode

// The completion modes.
const (
	// NonIndexedCompletion: completions successful pods, all alike.
	NonIndexedCompletion CompletionMode = "NonIndexed"
	// IndexedCompletion: one successful pod per index 0..completions-1.
	IndexedCompletion CompletionMode = "Indexed"
)

// PodFailurePolicyAction is what a matching pod failure does.
type PodFailurePolicyAction = batchv1.PodFailurePolicyAction

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
type PodFailurePolicyOnExitCodesOperator = batchv1.PodFailurePolicyOnExitCodesOperator

// The exit code operators.
const (
	PodFailurePolicyOnExitCodesOpIn    PodFailurePolicyOnExitCodesOperator = "In"
	PodFailurePolicyOnExitCodesOpNotIn PodFailurePolicyOnExitCodesOperator = "NotIn"
)

// PodFailurePolicyOnExitCodesRequirement matches the exit codes of a
// failed pod's containers (those that exited 0 excluded).
type PodFailurePolicyOnExitCodesRequirement = batchv1.PodFailurePolicyOnExitCodesRequirement

// PodFailurePolicyOnPodConditionsPattern matches a pod condition.
type PodFailurePolicyOnPodConditionsPattern = batchv1.PodFailurePolicyOnPodConditionsPattern

// PodFailurePolicyRule is one rule: an action and one requirement.
type PodFailurePolicyRule = batchv1.PodFailurePolicyRule

// PodFailurePolicy says how failed pods count; the first matching rule
// wins.
type PodFailurePolicy = batchv1.PodFailurePolicy

// JobSpec describes a Job.
type JobSpec = batchv1.JobSpec

// JobStatus is the observed state of a Job.
type JobStatus = batchv1.JobStatus

// UncountedTerminatedPods are the uids of finished pods not yet counted.
type UncountedTerminatedPods = batchv1.UncountedTerminatedPods

// JobConditionType names a Job condition.
type JobConditionType = batchv1.JobConditionType

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
type JobCondition = batchv1.JobCondition

// JobTemplateSpec is the Job a CronJob creates.
type JobTemplateSpec = batchv1.JobTemplateSpec

// CronJob creates Jobs on a schedule.
type CronJob = batchv1.CronJob

// CronJobList is a list of CronJobs.
type CronJobList = batchv1.CronJobList

// CronJobSpec describes when and what to run.
type CronJobSpec = batchv1.CronJobSpec

// ConcurrencyPolicy says what a run does while another is active.
type ConcurrencyPolicy = batchv1.ConcurrencyPolicy

// The concurrency policies.
const (
	AllowConcurrent   ConcurrencyPolicy = "Allow"
	ForbidConcurrent  ConcurrencyPolicy = "Forbid"
	ReplaceConcurrent ConcurrencyPolicy = "Replace"
)

// CronJobStatus is the observed state of a CronJob.
type CronJobStatus = batchv1.CronJobStatus
