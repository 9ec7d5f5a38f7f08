package job

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/labels"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/client/cache"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/runmode"
)

// ControllerName is the name --controllers uses.
const ControllerName = "job"

// Component is the event source of the controller, as in Kubernetes.
const Component = "job-controller"

// GroupVersionKind is batch/v1 Job.
var GroupVersionKind = schema.GroupVersionKind{Group: "batch", Version: "v1", Kind: "Job"}

// Config builds a JobController.
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
	// Workers is the number of concurrent syncs in live mode (1).
	Workers int
	// Logger (discarded when nil).
	Logger *slog.Logger
}

// JobController runs the pods of every Job.
type JobController struct {
	*controllers.ObjectController[*batchv1.Job]
	pods         *controllers.Watched[*corev1.Pod]
	expectations *expectations
}

// New builds the controller and its informers (not yet synced).
func New(cfg Config) (*JobController, error) {
	if cfg.Client == nil || cfg.Clock == nil {
		return nil, errors.New("job: Client and Clock are required")
	}
	jc := &JobController{pods: controllers.Owns(cfg.Client.Pods(), "Pod"), expectations: newExpectations(cfg.Clock)}
	c, err := controllers.NewObjectController(controllers.ObjectConfig[*batchv1.Job]{
		Name: ControllerName, Component: Component, Client: cfg.Client, Informers: cfg.Informers, Clock: cfg.Clock, Mode: cfg.Mode,
		Primary: cfg.Client.Jobs(), GVK: GroupVersionKind, Owns: []controllers.Watch{jc.pods},
		Reconcile: jc.sync, Namespace: cfg.Namespace, Workers: cfg.Workers, Logger: cfg.Logger,
	})
	if err != nil {
		return nil, err
	}
	jc.ObjectController = c
	// The pods' events lower the expectations before they queue the Job
	// (handlers run in the order they were added: the framework's first,
	// but the queue is only read after both).
	jc.pods.Informer().AddHandler(cache.Handler[*corev1.Pod]{
		OnAdd: func(p *corev1.Pod) {
			if uid, ok := controllerUID(p); ok {
				jc.expectations.lowerAdds(uid)
			}
		},
		OnUpdate: func(old, p *corev1.Pod) {
			if uid, ok := controllerUID(p); ok && old.DeletionTimestamp == nil && p.DeletionTimestamp != nil {
				jc.expectations.deletionObserved(uid, cache.Key(&p.ObjectMeta))
			}
		},
		OnDelete: func(p *corev1.Pod) {
			if uid, ok := controllerUID(p); ok {
				jc.expectations.deletionObserved(uid, cache.Key(&p.ObjectMeta))
			}
		},
	})
	c.Informer().AddHandler(cache.Handler[*batchv1.Job]{OnDelete: func(j *batchv1.Job) { jc.expectations.forget(j.UID) }})
	return jc, nil
}

// sync is one reconcile of a Job: claim its pods, Decide, write.
func (jc *JobController) sync(ctx context.Context, job *batchv1.Job) (controllers.Result, error) {
	if job.DeletionTimestamp != nil {
		return controllers.Result{}, nil
	}
	if IsFinished(job) {
		// Finished Jobs keep their pods (kubectl logs still works); the
		// TTL-after-finished controller or the user deletes them.
		return controllers.Result{}, nil
	}
	if !jc.expectations.satisfied(job.UID) {
		// The cache has not shown our last creates or deletes yet; their
		// events queue the Job again. The timeout covers a lost event.
		return controllers.Result{RequeueAfter: ExpectationsTimeout}, nil
	}
	pods, err := jc.claimPods(ctx, job)
	if err != nil {
		return controllers.Result{}, err
	}
	plan := Decide(job, pods, jc.Clock().Now())
	var deleting []string
	for _, p := range plan.Delete {
		if p.DeletionTimestamp == nil {
			deleting = append(deleting, cache.Key(&p.ObjectMeta))
		}
	}
	jc.expectations.expect(job.UID, len(plan.Create), deleting)
	var errs []error
	for _, p := range plan.Delete {
		err := jc.pods.Resource().Delete(ctx, p.Namespace, p.Name, nil)
		if err != nil {
			jc.expectations.deletionObserved(job.UID, cache.Key(&p.ObjectMeta))
		}
		if err != nil && !api.IsNotFound(err) {
			jc.Eventf(ctx, job, corev1.EventTypeWarning, "FailedDelete", "Error deleting: %v", err)
			errs = append(errs, err)
			continue
		}
		jc.Eventf(ctx, job, corev1.EventTypeNormal, "SuccessfulDelete", "Deleted pod: %v", p.Name)
	}
	for i, index := range plan.Create {
		p, err := jc.pods.Resource().Create(ctx, NewPod(job, index, indexFailures(job, pods, index)))
		if err != nil {
			// This pod and the ones not tried will never be seen.
			for range len(plan.Create) - i {
				jc.expectations.lowerAdds(job.UID)
			}
			jc.Eventf(ctx, job, corev1.EventTypeWarning, "FailedCreate", "Error creating: %v", err)
			errs = append(errs, err)
			break
		}
		jc.Eventf(ctx, job, corev1.EventTypeNormal, "SuccessfulCreate", "Created pod: %v", p.Name)
		plan.Status.Active++
	}
	if len(errs) == 0 {
		if err := writeStatus(ctx, jc.Client().Jobs(), job, func(j *batchv1.Job) { j.Status = plan.Status }); err != nil {
			return controllers.Result{}, err
		}
		for _, e := range plan.Events {
			jc.Eventf(ctx, job, e.Type, e.Reason, "%s", e.Message)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return controllers.Result{}, err
	}
	return controllers.Result{RequeueAfter: plan.RequeueAfter}, nil
}

// claimPods returns the Job's pods, adopting orphans its selector matches
// and releasing the ones it no longer matches.
func (jc *JobController) claimPods(ctx context.Context, job *batchv1.Job) ([]*corev1.Pod, error) {
	sel, err := api.LabelSelectorAsSelector(job.Spec.Selector)
	if err != nil {
		return nil, err
	}
	candidates := jc.pods.OwnedBy(job)
	for _, p := range jc.pods.Informer().ByIndex(cache.NamespaceIndex, job.Namespace) {
		if api.GetControllerOf(&p.ObjectMeta) == nil && !sel.Empty() && sel.Matches(labels.Set(p.Labels)) {
			candidates = append(candidates, p)
		}
	}
	return controllers.ClaimObjects(ctx, controllers.ClaimConfig[*corev1.Pod]{
		Owner: &job.ObjectMeta, OwnerKind: GroupVersionKind, Dependents: jc.pods.Resource(), DependentKind: "Pod",
		Match: func(p *corev1.Pod) bool { return !sel.Empty() && sel.Matches(labels.Set(p.Labels)) },
		GetFresh: func(ctx context.Context) (*metav1.ObjectMeta, error) {
			fresh, err := jc.Client().Jobs().Get(ctx, job.Namespace, job.Name)
			if err != nil {
				return nil, err
			}
			return &fresh.ObjectMeta, nil
		},
	}, candidates)
}

// indexFailures counts the failed pods of one index (-1: none).
func indexFailures(job *batchv1.Job, pods []*corev1.Pod, index int) int {
	if index < 0 {
		return -1
	}
	n := 0
	for _, p := range pods {
		if i, ok := completionIndex(p, job); ok && i == index && p.Status.Phase == corev1.PodFailed {
			n++
		}
	}
	return n
}

// NewPod is the pod the Job runs for one completion index (-1 for a
// NonIndexed Job): its template, a name generated from the Job's, and the
// Job as its controller. An Indexed pod also gets its index as an
// annotation, a label, its hostname and JOB_COMPLETION_INDEX, and the
// count of its index's failures so far.
func NewPod(job *batchv1.Job, index, failures int) *corev1.Pod {
	t := job.Spec.Template.DeepCopy()
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			GenerateName: job.Name + "-", Namespace: job.Namespace,
			Labels: t.Labels, Annotations: t.Annotations,
			OwnerReferences: []metav1.OwnerReference{*api.NewControllerRef(&job.ObjectMeta, GroupVersionKind)},
		},
		Spec: t.Spec,
	}
	if index < 0 {
		return p
	}
	idx := strconv.Itoa(index)
	p.GenerateName = fmt.Sprintf("%s-%d-", job.Name, index)
	if p.Annotations == nil {
		p.Annotations = map[string]string{}
	}
	p.Annotations[batchv1.JobCompletionIndexAnnotation] = idx
	p.Annotations[JobIndexFailureCountAnnotation] = strconv.Itoa(failures)
	if p.Labels == nil {
		p.Labels = map[string]string{}
	}
	p.Labels[api.JobCompletionIndexLabel] = idx
	if p.Spec.Hostname == "" {
		p.Spec.Hostname = fmt.Sprintf("%s-%d", job.Name, index)
	}
	env := corev1.EnvVar{Name: "JOB_COMPLETION_INDEX", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{
		APIVersion: "v1", FieldPath: fmt.Sprintf("metadata.annotations['%s']", batchv1.JobCompletionIndexAnnotation)}}}
	for i := range p.Spec.InitContainers {
		p.Spec.InitContainers[i].Env = append(p.Spec.InitContainers[i].Env, env)
	}
	for i := range p.Spec.Containers {
		p.Spec.Containers[i].Env = append(p.Spec.Containers[i].Env, env)
	}
	return p
}

// writeStatus writes a status computed from obj, once: on a Conflict the
// cache was behind, and the error requeues the object for a sync from
// fresher state (retrying with the fresh object would write a status
// computed from the stale one).
func writeStatus[T api.Object](ctx context.Context, res *client.Resource[T], obj T, mutate func(T)) error {
	cur := api.DeepCopy(obj).(T)
	mutate(cur)
	before, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	after, err := json.Marshal(cur)
	if err != nil || bytes.Equal(before, after) {
		return err
	}
	_, err = res.UpdateStatus(ctx, cur)
	return err
}
