package ttlafterfinished

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/runmode"
)

// ControllerName is the name --controllers uses.
const ControllerName = "ttl-after-finished"

// Component is the controller's user agent and event source.
const Component = "ttl-after-finished-controller"

// Config builds a Controller.
type Config struct {
	// Client is the controller's API client (required).
	Client *client.Client
	// Clock is the injected clock (required).
	Clock clock.Clock
	// Mode is how it runs: Live, or Step under the stepper.
	Mode runmode.Mode
	// Namespace limits the controller to one namespace ("" for all).
	Namespace string
	// Logger (discarded when nil).
	Logger *slog.Logger
}

// Controller deletes expired finished Jobs.
type Controller struct {
	*controllers.ObjectController[*api.Job]
}

// New builds the controller and its informer (not yet synced).
func New(cfg Config) (*Controller, error) {
	if cfg.Client == nil || cfg.Clock == nil {
		return nil, errors.New("ttlafterfinished: Client and Clock are required")
	}
	c := &Controller{}
	oc, err := controllers.NewObjectController(controllers.ObjectConfig[*api.Job]{
		Name: ControllerName, Component: Component, Client: cfg.Client, Clock: cfg.Clock, Mode: cfg.Mode,
		Primary: cfg.Client.Jobs(), GVK: api.GroupVersionKind{Group: "batch", Version: "v1", Kind: "Job"},
		Reconcile: c.sync, Namespace: cfg.Namespace, Logger: cfg.Logger,
	})
	if err != nil {
		return nil, err
	}
	c.ObjectController = oc
	return c, nil
}

// TimeLeft is how long until a Job expires: ok is false for a Job with
// no TTL, not finished, or already being deleted.
func TimeLeft(job *api.Job, now time.Time) (left time.Duration, ok bool) {
	if job.Spec.TTLSecondsAfterFinished == nil || job.DeletionTimestamp != nil {
		return 0, false
	}
	for _, c := range job.Status.Conditions {
		if (c.Type == api.JobComplete || c.Type == api.JobFailed) && c.Status == api.ConditionTrue {
			expireAt := c.LastTransitionTime.Add(time.Duration(*job.Spec.TTLSecondsAfterFinished) * time.Second)
			return expireAt.Sub(now), true
		}
	}
	return 0, false
}

func (c *Controller) sync(ctx context.Context, job *api.Job) (controllers.Result, error) {
	left, ok := TimeLeft(job, c.Clock().Now())
	if !ok {
		return controllers.Result{}, nil
	}
	if left > 0 {
		return controllers.Result{RequeueAfter: left}, nil
	}
	fg := api.DeletePropagationForeground
	uid := job.UID
	err := c.Client().Jobs().Delete(ctx, job.Namespace, job.Name, &api.DeleteOptions{
		PropagationPolicy: &fg, Preconditions: &api.Preconditions{UID: &uid}})
	if err != nil && !api.IsNotFound(err) && !api.IsConflict(err) {
		return controllers.Result{}, err
	}
	return controllers.Result{}, nil
}
