package client

import (
	batchv1 "k8s.io/api/batch/v1"
)

// The batch/v1 resources.
var (
	JobsResource     = ResourceInfo{Group: "batch", Version: "v1", Resource: "jobs", Namespaced: true}
	CronJobsResource = ResourceInfo{Group: "batch", Version: "v1", Resource: "cronjobs", Namespaced: true}
)

// Jobs is the typed client of jobs.
func (c *Client) Jobs() *Resource[*batchv1.Job] {
	return For(c, JobsResource, func() *batchv1.Job { return &batchv1.Job{} })
}

// CronJobs is the typed client of cron jobs.
func (c *Client) CronJobs() *Resource[*batchv1.CronJob] {
	return For(c, CronJobsResource, func() *batchv1.CronJob { return &batchv1.CronJob{} })
}
