package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Jobs and CronJobs through the real kubectl: the imperative commands, the
// tables, describe, the server's validation, and deletion through the
// garbage collector.
func TestJobsAndCronJobsThroughKubectl(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), "--nodes", "2", "--stage-delay", "20ms")
	k := newKubectl(t, s)

	t.Run("create job", func(t *testing.T) {
		// A container that runs until the Job is deleted (docs/containers.md:
		// `sleep infinity`), so the Job is Running however fast or slow
		// the machine is; `echo hi` would complete before a loaded test
		// looks, or not.
		assert.Equal(t, "job.batch/hello created\n", k.ok("create", "job", "hello", "--image=busybox", "--", "sleep", "infinity"))
		assert.Equal(t, "Never", k.jsonpath("job/hello", "{.spec.template.spec.restartPolicy}"))
		uid := k.jsonpath("job/hello", "{.metadata.uid}")
		assert.Equal(t, uid, k.jsonpath("job/hello", `{.spec.selector.matchLabels.batch\.kubernetes\.io/controller-uid}`))
		// Its pod is created with the generated labels, owned by the Job.
		out := k.eventually(func(out string) bool { return countLines(out) == 1 }, "get", "pods", "-l", "job-name=hello", "-o",
			`jsonpath={range .items[*]}{.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name}{"\n"}{end}`)
		assert.Equal(t, "Job/hello", strings.TrimSpace(out))
		out = k.eventually(func(out string) bool { return strings.Contains(out, "Running") }, "get", "job", "hello")
		assert.Regexp(t, `(?m)^hello\s+Running\s+0/1\s+\S+\s+\S+$`, out)
		assert.Equal(t, "1", k.jsonpath("job/hello", "{.status.active}"))
	})

	t.Run("complete, failed and indexed", func(t *testing.T) {
		k.ok("apply", "-f", "testdata/batch-jobs.yaml")
		k.ok("wait", "--for=condition=complete", "job/done", "--timeout=60s")
		assert.Regexp(t, `(?m)^done\s+Complete\s+2/2\s+\S+\s+\S+$`, k.ok("get", "jobs", "done"))
		k.ok("wait", "--for=condition=failed", "job/boom", "--timeout=60s")
		assert.Regexp(t, `(?m)^boom\s+Failed\s+0/1\s+\S+\s+\S+$`, k.ok("get", "jobs", "boom"))
		describe := k.ok("describe", "job", "boom")
		assert.Contains(t, describe, "BackoffLimitExceeded")
		assert.Contains(t, describe, "Job has reached the specified backoff limit")
		assert.Regexp(t, `Pods Statuses:\s+0 Active \(0 Ready\) / 0 Succeeded / 1 Failed`, describe)
		// The Indexed Job's pods carry their index and hostname.
		k.eventually(func(out string) bool { return out == "pod-index 0:indexed-0 1:indexed-1 2:indexed-2 " }, "get", "pods", "-l", "job-name=indexed",
			"--sort-by", `{.metadata.labels.batch\.kubernetes\.io/job-completion-index}`, "-o",
			`jsonpath=pod-index {range .items[*]}{.metadata.annotations.batch\.kubernetes\.io/job-completion-index}:{.spec.hostname} {end}`)
		k.ok("wait", "--for=condition=complete", "job/indexed", "--timeout=60s")
		assert.Equal(t, "0-2", k.jsonpath("job/indexed", "{.status.completedIndexes}"))
		// A TTL set on the finished Job: the TTL-after-finished controller
		// deletes it (Foreground), its pods first.
		k.ok("patch", "job", "indexed", "-p", `{"spec":{"ttlSecondsAfterFinished":0}}`)
		k.eventually(func(out string) bool { return out == "" }, "get", "job", "indexed", "--ignore-not-found")
		k.eventually(func(out string) bool { return countLines(out) == 0 }, "get", "pods", "-l", "job-name=indexed", "--no-headers")
	})

	t.Run("cronjob", func(t *testing.T) {
		assert.Equal(t, "cronjob.batch/tick created\n", k.ok("create", "cronjob", "tick", "--image=busybox", "--schedule=*/1 * * * *", "--", "date"))
		// The schedule runs on the real clock: a minute boundary may pass
		// between the create and the get, so the table may already show
		// the first run (ACTIVE 1, LAST SCHEDULE set).
		assert.Regexp(t, `(?m)^tick\s+\*/1 \* \* \* \*\s+<none>\s+False\s+[01]\s+(<none>|\d+s)\s+\S+$`, k.ok("get", "cronjobs"))
		assert.Equal(t, "Allow 3 1", k.jsonpath("cronjob/tick", "{.spec.concurrencyPolicy} {.spec.successfulJobsHistoryLimit} {.spec.failedJobsHistoryLimit}"))
		describe := k.ok("describe", "cronjob", "tick")
		assert.Regexp(t, `Schedule:\s+\*/1 \* \* \* \*`, describe)
		assert.Regexp(t, `Concurrency Policy:\s+Allow`, describe)
		assert.Equal(t, "job.batch/manual created\n", k.ok("create", "job", "manual", "--from=cronjob/tick"))
		assert.Equal(t, "CronJob/tick", k.jsonpath("job/manual", "{.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name}"))
		both := k.ok("get", "jobs,cronjobs")
		assert.Contains(t, both, "job.batch/manual")
		assert.Contains(t, both, "cronjob.batch/tick")
		assert.Contains(t, k.fail("create", "cronjob", "bad", "--image=busybox", "--schedule=every minute"),
			`CronJob.batch "bad" is invalid: spec.schedule: Invalid value: "every minute": expected exactly 5 fields, found 2: [every minute]`)
		assert.Contains(t, k.fail("create", "cronjob", "bad", "--image=busybox", "--schedule=61 * * * *"),
			`CronJob.batch "bad" is invalid: spec.schedule: Invalid value: "61 * * * *": end of range (61) above maximum (59): 61`)
		assert.Contains(t, k.fail("create", "cronjob", "bad", "--image=busybox", "--schedule=TZ=UTC 0 * * * *"),
			`CronJob.batch "bad" is invalid: spec.schedule: Invalid value: "TZ=UTC 0 * * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead`)
	})

	t.Run("bad jobs", func(t *testing.T) {
		errOut := k.fail("create", "-f", "testdata/bad-job.yaml")
		assert.Contains(t, errOut, `The Job "bad" is invalid`)
		assert.Contains(t, errOut, "spec.completions: Invalid value: -1: must be greater than or equal to 0")
		assert.Contains(t, errOut, `spec.template.spec.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"`)
	})

	t.Run("delete job", func(t *testing.T) {
		k.ok("delete", "job", "hello")
		k.eventually(func(out string) bool { return countLines(out) == 0 }, "get", "pods", "-l", "job-name=hello", "--no-headers")
	})
}
