package client

import "github.com/kubesim/kubesim/api"

// The batch/v1 resources.
var (
	JobsResource     = ResourceInfo{Group: "batch", Version: "v1", Resource: "jobs", Namespaced: true}
	CronJobsResource = ResourceInfo{Group: "batch", Version: "v1", Resource: "cronjobs", Namespaced: true}
)

// Jobs is the typed client of jobs.
func (c *Client) Jobs() *Resource[*api.Job] {
	return For(c, JobsResource, func() *api.Job { return &api.Job{} })
}

// CronJobs is the typed client of cron jobs.
func (c *Client) CronJobs() *Resource[*api.CronJob] {
	return For(c, CronJobsResource, func() *api.CronJob { return &api.CronJob{} })
}
