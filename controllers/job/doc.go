// Package job is the Job controller: it runs a Job's pods until enough of
// them succeed, or the Job fails.
//
// It simulates kube-controller-manager's job controller
// (pkg/controller/job/job_controller.go of Kubernetes 1.32): completions
// and parallelism, NonIndexed and Indexed completion (each index's pod
// carries the batch.kubernetes.io/job-completion-index annotation and a
// label of the same key and value, the hostname <job>-<index> and the
// JOB_COMPLETION_INDEX variable), backoffLimit with the exponential
// back-off before a failed pod is replaced (10s, doubled per failure since
// the last success, at most 10 minutes), restarts of OnFailure pods
// counted towards the limit, activeDeadlineSeconds, the pod failure policy
// (FailJob, Ignore, Count on exit codes and pod conditions), suspend, and
// the conditions of 1.32: SuccessCriteriaMet then Complete, FailureTarget
// then Failed, the terminal one written only once no pod of the Job is
// still running. Pods are owned through a controller reference, so the
// garbage collector deletes them with the Job.
//
// Decide is the controller's whole decision as a pure function of the Job,
// its pods and the time; sync only reads the cache and writes what Decide
// says.
//
// Left out: the batch.kubernetes.io/job-tracking finalizer and
// status.uncountedTerminatedPods (the counts are recomputed from the pods
// that exist, so a finished pod someone deletes is no longer counted),
// backoffLimitPerIndex and maxFailedIndexes, successPolicy,
// podReplacementPolicy, managedBy, elastic Indexed Jobs, and expectations
// (a sync works from the pods the cache has; step mode makes that exact).
// Read the real one at
// https://github.com/kubernetes/kubernetes/tree/master/pkg/controller/job.
package job
