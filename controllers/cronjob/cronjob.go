package cronjob

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"maps"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/client/cache"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/runmode"
)

// ControllerName is the name --controllers uses.
const ControllerName = "cronjob"

// Component is the event source of the controller, as in Kubernetes.
const Component = "cronjob-controller"

// GroupVersionKind is batch/v1 CronJob.
var GroupVersionKind = schema.GroupVersionKind{Group: "batch", Version: "v1", Kind: "CronJob"}

// Config builds a CronJobController.
type Config struct {
	// Client is the controller's API client (required).
	Client *client.Client
	// Informers shares informers with the other controllers of the
	// process (nil: private ones).
	Informers *cache.Factory
	// Clock is the injected clock (required).
	Clock clock.Clock
	// Mode is how it runs: Live, or Step under the stepper.
	Mode runmode.Mode
	// Namespace limits the controller to one namespace ("" for all).
	Namespace string
	// Logger (discarded when nil).
	Logger *slog.Logger
}

// CronJobController creates the Jobs of every CronJob on time.
type CronJobController struct {
	*controllers.ObjectController[*batchv1.CronJob]
	jobs *controllers.Watched[*batchv1.Job]
}

// New builds the controller and its informers (not yet synced).
func New(cfg Config) (*CronJobController, error) {
	if cfg.Client == nil || cfg.Clock == nil {
		return nil, errors.New("cronjob: Client and Clock are required")
	}
	cc := &CronJobController{jobs: controllers.Owns(cfg.Client.Jobs(), "Job")}
	c, err := controllers.NewObjectController(controllers.ObjectConfig[*batchv1.CronJob]{
		Name: ControllerName, Component: Component, Client: cfg.Client, Informers: cfg.Informers, Clock: cfg.Clock, Mode: cfg.Mode,
		Primary: cfg.Client.CronJobs(), GVK: GroupVersionKind, Owns: []controllers.Watch{cc.jobs},
		Reconcile: cc.sync, Namespace: cfg.Namespace, Logger: cfg.Logger,
	})
	if err != nil {
		return nil, err
	}
	cc.ObjectController = c
	return cc, nil
}

// sync is one reconcile of a CronJob.
func (cc *CronJobController) sync(ctx context.Context, cj *batchv1.CronJob) (controllers.Result, error) {
	jobs := cc.jobs.OwnedBy(cj)
	// An active Job the cache does not have yet (just created, in live
	// mode) is asked for, so that it is not taken for missing.
	for _, ref := range cj.Status.Active {
		if !hasUID(jobs, ref.UID) {
			if j, err := cc.jobs.Resource().Get(ctx, cj.Namespace, ref.Name); err == nil && j.UID == ref.UID {
				jobs = append(jobs, j)
			} else if err != nil && !api.IsNotFound(err) {
				return controllers.Result{}, err
			}
		}
	}
	// A running Job of ours that status.active lacks: the cache may be
	// behind our own last status write; read the CronJob again
	// (Kubernetes does the same before it warns of an UnexpectedJob).
	for _, j := range jobs {
		if finished(j) == "" && !inActive(cj, j.UID) {
			fresh, err := cc.Client().CronJobs().Get(ctx, cj.Namespace, cj.Name)
			if err != nil {
				return controllers.Result{}, err
			}
			if fresh.UID == cj.UID {
				cj = fresh
			}
			break
		}
	}
	now := cc.Clock().Now()
	plan := Decide(cj, jobs, now)
	for _, e := range plan.Events {
		cc.Eventf(ctx, cj, e.Type, e.Reason, "%s", e.Message)
	}
	var errs []error
	bg := metav1.DeletePropagationBackground
	for _, j := range plan.Delete {
		err := cc.jobs.Resource().Delete(ctx, j.Namespace, j.Name, &metav1.DeleteOptions{PropagationPolicy: &bg})
		if api.IsNotFound(err) {
			continue
		}
		if err != nil {
			cc.Eventf(ctx, cj, corev1.EventTypeWarning, "FailedDelete", "Deleted job: %v", err)
			errs = append(errs, err)
			continue
		}
		cc.Eventf(ctx, cj, corev1.EventTypeNormal, "SuccessfulDelete", "Deleted job %v", j.Name)
	}
	if plan.Create != nil {
		job, err := NewJob(cj, *plan.Create)
		if err == nil {
			job, err = cc.jobs.Resource().Create(ctx, job)
		}
		switch {
		case err == nil:
			cc.Eventf(ctx, cj, corev1.EventTypeNormal, "SuccessfulCreate", "Created job %v", job.Name)
			plan.Status.Active = append(plan.Status.Active, corev1.ObjectReference{Kind: "Job", Namespace: job.Namespace,
				Name: job.Name, UID: job.UID, APIVersion: "batch/v1", ResourceVersion: job.ResourceVersion})
		case api.IsAlreadyExists(err):
			// Created by an earlier sync whose status write was lost.
		default:
			cc.Eventf(ctx, cj, corev1.EventTypeWarning, "FailedCreate", "Error creating job: %v", err)
			return controllers.Result{}, errors.Join(append(errs, err)...)
		}
	}
	if err := writeStatus(ctx, cc.Client().CronJobs(), cj, plan.Status); err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return controllers.Result{}, err
	}
	return controllers.Result{RequeueAfter: plan.RequeueAfter}, nil
}

func hasUID(jobs []*batchv1.Job, uid types.UID) bool {
	for _, j := range jobs {
		if j.UID == uid {
			return true
		}
	}
	return false
}

// NewJob is the Job for one scheduled time (getJobFromTemplate2): the
// template's labels, annotations and spec, the scheduled time as an
// annotation in the CronJob's zone, and the CronJob as controller.
func NewJob(cj *batchv1.CronJob, scheduled time.Time) (*batchv1.Job, error) {
	loc, err := Location(cj)
	if err != nil {
		return nil, err
	}
	t := cj.Spec.JobTemplate.DeepCopy()
	annotations := maps.Clone(t.Annotations)
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[batchv1.CronJobScheduledTimestampAnnotation] = scheduled.In(loc).Format(time.RFC3339)
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{
			Name: JobName(cj, scheduled), Namespace: cj.Namespace,
			Labels: t.Labels, Annotations: annotations,
			OwnerReferences: []metav1.OwnerReference{*api.NewControllerRef(&cj.ObjectMeta, GroupVersionKind)},
		},
		Spec: t.Spec,
	}, nil
}

// writeStatus writes the status computed from cj, once: on a Conflict the
// cache was behind, and the error requeues the CronJob for a sync from
// fresher state.
func writeStatus(ctx context.Context, res *client.Resource[*batchv1.CronJob], cj *batchv1.CronJob, st batchv1.CronJobStatus) error {
	before, err := json.Marshal(cj.Status)
	if err != nil {
		return err
	}
	after, err := json.Marshal(st)
	if err != nil || bytes.Equal(before, after) {
		return err
	}
	cur := cj.DeepCopy()
	cur.Status = st
	_, err = res.UpdateStatus(ctx, cur)
	return err
}
