package ttlafterfinished

import (
	"context"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/client/cache"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/controllers"
)

// ControllerName is the name --controllers uses.
const ControllerName = "ttl-after-finished"

// Component is the controller's user agent and event source.
const Component = "ttl-after-finished-controller"

// Config builds a Controller: its client, informers, clock, mode and
// logger, and the namespace it is limited to ("" for all).
type Config = controllers.NamespacedConfig

// Controller deletes expired finished Jobs. It is written on the
// key-based Controller, not ObjectController, because it queues only the
// Jobs that need it (a TTL, finished, not being deleted), as Kubernetes'
// does: the others would fill the trace with reconciles that do nothing.
type Controller struct {
	client *client.Client
	clock  clock.Clock
	jobs   *cache.Informer[*batchv1.Job]
	ctrl   *controllers.Controller
}

// New builds the controller and its informer (not yet synced).
func New(cfg Config) (*Controller, error) {
	c := &Controller{client: cfg.Client, clock: cfg.Clock}
	ctrl, err := cfg.NewController(ControllerName, controllers.ReconcileFunc(c.reconcile))
	if err != nil {
		return nil, err
	}
	c.ctrl = ctrl
	c.jobs = controllers.FilteredInformerFor(ctrl, cfg.Client.Jobs(), cfg.Namespace, client.ListOptions{})
	enqueue := func(event string, j *batchv1.Job) {
		if _, ok := TimeLeft(j, time.Time{}); ok {
			ctrl.Enqueue(cache.Key(&j.ObjectMeta), controllers.CauseOf(event, "Job", &j.ObjectMeta))
		}
	}
	c.jobs.AddHandler(cache.Handler[*batchv1.Job]{
		OnAdd:    func(j *batchv1.Job) { enqueue("ADDED", j) },
		OnUpdate: func(_, j *batchv1.Job) { enqueue("MODIFIED", j) },
	})
	return c, nil
}

// Controllers returns the controller's one loop, for the stepper.
func (c *Controller) Controllers() []*controllers.Controller {
	return []*controllers.Controller{c.ctrl}
}

// Run runs the controller until ctx ends (live mode).
func (c *Controller) Run(ctx context.Context) { c.ctrl.Run(ctx) }

// TimeLeft is how long until a Job expires: ok is false for a Job with
// no TTL, not finished, or already being deleted.
func TimeLeft(job *batchv1.Job, now time.Time) (left time.Duration, ok bool) {
	if job.Spec.TTLSecondsAfterFinished == nil || job.DeletionTimestamp != nil {
		return 0, false
	}
	for _, c := range job.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			expireAt := c.LastTransitionTime.Add(time.Duration(*job.Spec.TTLSecondsAfterFinished) * time.Second)
			return expireAt.Sub(now), true
		}
	}
	return 0, false
}

func (c *Controller) reconcile(ctx context.Context, key string) (controllers.Result, error) {
	ns, name, _ := strings.Cut(key, "/")
	job, found := c.jobs.Get(ns, name)
	if !found {
		return controllers.Result{}, nil
	}
	left, ok := TimeLeft(job, c.clock.Now())
	if !ok {
		return controllers.Result{}, nil
	}
	if left > 0 {
		return controllers.Result{RequeueAfter: left}, nil
	}
	fg := metav1.DeletePropagationForeground
	uid := job.UID
	err := c.client.Jobs().Delete(ctx, job.Namespace, job.Name, &metav1.DeleteOptions{
		PropagationPolicy: &fg, Preconditions: &metav1.Preconditions{UID: &uid}})
	if err != nil && !api.IsNotFound(err) && !api.IsConflict(err) {
		return controllers.Result{}, err
	}
	return controllers.Result{}, nil
}
