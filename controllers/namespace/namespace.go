package namespace

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/client/cache"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/runmode"
)

// ControllerName is the controller's name for --controllers.
const ControllerName = "namespace"

// The namespace condition types the controller maintains (core/v1's
// NamespaceConditionType values).
const (
	NamespaceDeletionDiscoveryFailure corev1.NamespaceConditionType = "NamespaceDeletionDiscoveryFailure"
	NamespaceDeletionGVParsingFailure corev1.NamespaceConditionType = "NamespaceDeletionGroupVersionParsingFailure"
	NamespaceDeletionContentFailure   corev1.NamespaceConditionType = "NamespaceDeletionContentFailure"
	NamespaceContentRemaining         corev1.NamespaceConditionType = "NamespaceContentRemaining"
	NamespaceFinalizersRemaining      corev1.NamespaceConditionType = "NamespaceFinalizersRemaining"
)

// conditionTypes is the order the conditions appear in, as in Kubernetes.
var conditionTypes = []corev1.NamespaceConditionType{
	NamespaceDeletionDiscoveryFailure,
	NamespaceDeletionGVParsingFailure,
	NamespaceDeletionContentFailure,
	NamespaceContentRemaining,
	NamespaceFinalizersRemaining,
}

// okCondition is the False ("nothing wrong") variant of a condition type.
func okCondition(t corev1.NamespaceConditionType) corev1.NamespaceCondition {
	c := corev1.NamespaceCondition{Type: t, Status: corev1.ConditionFalse}
	switch t {
	case NamespaceDeletionDiscoveryFailure:
		c.Reason, c.Message = "ResourcesDiscovered", "All resources successfully discovered"
	case NamespaceDeletionGVParsingFailure:
		c.Reason, c.Message = "ParsedGroupVersions", "All legacy kube types successfully parsed"
	case NamespaceDeletionContentFailure:
		c.Reason, c.Message = "ContentDeleted", "All content successfully deleted, may be waiting on finalization"
	case NamespaceContentRemaining:
		c.Reason, c.Message = "ContentRemoved", "All content successfully removed"
	case NamespaceFinalizersRemaining:
		c.Reason, c.Message = "ContentHasNoFinalizers", "All content-preserving finalizers finished"
	}
	return c
}

// Config builds a NamespaceController.
type Config struct {
	// Client talks to the API server.
	Client *client.Client
	// Informers shares informers with the other controllers of the
	// process (kube-controller-manager's SharedInformerFactory; nil:
	// private ones).
	Informers *cache.Factory
	// Resources returns the resources the server serves now (read on every
	// pass); the namespaced ones are emptied. When several versions of
	// one resource are listed, the first is used.
	Resources func() []client.ResourceInfo
	// Clock is the injected clock.
	Clock clock.Clock
	// Mode is how it runs: Live, or Step under the stepper.
	Mode runmode.Mode
	// RequeueDelay is how long to wait before looking again while content
	// remains, such as pods waiting for their kubelet (1s).
	RequeueDelay time.Duration
	// Workers is the number of concurrent reconciles in live mode (1).
	Workers int
	// Logger logs; nil discards.
	Logger *slog.Logger
}

// NamespaceController deletes the content of terminating namespaces.
type NamespaceController struct {
	cfg        Config
	namespaces *cache.Informer[*corev1.Namespace]
	ctrl       *controllers.Controller
	logger     *slog.Logger
}

// New checks cfg and returns the controller.
func New(cfg Config) (*NamespaceController, error) {
	if cfg.Client == nil || cfg.Resources == nil || cfg.Clock == nil {
		return nil, fmt.Errorf("namespace: Client, Resources and Clock are required")
	}
	if cfg.RequeueDelay <= 0 {
		cfg.RequeueDelay = time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	nc := &NamespaceController{cfg: cfg, logger: cfg.Logger.With("controller", ControllerName)}
	ctrl, err := controllers.New(controllers.Config{Name: ControllerName, Reconciler: nc,
		Informers: cfg.Informers, Clock: cfg.Clock, Mode: cfg.Mode, Workers: cfg.Workers, Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	nc.ctrl = ctrl
	nc.namespaces = controllers.InformerFor(ctrl, cfg.Client.Namespaces())
	nc.namespaces.AddHandler(controllers.EnqueueBeingDeleted[*corev1.Namespace](ctrl, "Namespace"))
	return nc, nil
}

// Controllers returns the controller, for the stepper and the controller
// manager.
func (nc *NamespaceController) Controllers() []*controllers.Controller {
	return []*controllers.Controller{nc.ctrl}
}

// Run runs the controller until ctx ends (live mode).
func (nc *NamespaceController) Run(ctx context.Context) { nc.ctrl.Run(ctx) }

// Reconcile implements controllers.Reconciler: key is a namespace name.
func (nc *NamespaceController) Reconcile(ctx context.Context, key string) (controllers.Result, error) {
	cached, ok := nc.namespaces.Get("", key)
	if !ok || cached.DeletionTimestamp == nil {
		return controllers.Result{}, nil
	}
	// The cache may lag; what to do is decided on the live object.
	ns, err := nc.cfg.Client.Namespaces().Get(ctx, "", key)
	if api.IsNotFound(err) {
		return controllers.Result{}, nil
	}
	if err != nil {
		return controllers.Result{}, err
	}
	if ns.DeletionTimestamp == nil || !slices.Contains(ns.Spec.Finalizers, corev1.FinalizerKubernetes) {
		return controllers.Result{}, nil
	}

	totals, contentErrs := nc.deleteAllContent(ctx, ns.Name)
	conds := newConditions(totals, contentErrs)
	status := *ns.Status.DeepCopy()
	changed := updateConditions(&status, conds, metav1.NewTime(nc.cfg.Clock.Now().UTC().Truncate(time.Second)))
	if status.Phase != corev1.NamespaceTerminating {
		status.Phase, changed = corev1.NamespaceTerminating, true
	}
	if changed {
		upd := ns.DeepCopy()
		upd.Status = status
		if ns, err = nc.cfg.Client.Namespaces().UpdateStatus(ctx, upd); err != nil {
			return controllers.Result{}, err
		}
	}
	if len(contentErrs) > 0 {
		return controllers.Result{}, errors.Join(contentErrs...)
	}
	if totals.remaining() > 0 {
		nc.logger.Debug("content remains; looking again later", "namespace", ns.Name, "remaining", totals.remaining())
		return controllers.Result{RequeueAfter: nc.cfg.RequeueDelay}, nil
	}
	// Empty: give up our finalizer through namespaces/finalize, the only
	// write that may change spec.finalizers (finalizeNamespace in
	// Kubernetes); the API server deletes the namespace when it was the
	// last. Without a resourceVersion the write is not refused for a
	// status written meanwhile; a namespace already gone is done.
	fin := ns.DeepCopy()
	fin.ResourceVersion = ""
	fin.Spec.Finalizers = slices.DeleteFunc(fin.Spec.Finalizers, func(f corev1.FinalizerName) bool { return f == corev1.FinalizerKubernetes })
	if _, err := nc.cfg.Client.Namespaces().UpdateSubresource(ctx, fin, "finalize"); err != nil && !api.IsNotFound(err) {
		return controllers.Result{}, err
	}
	return controllers.Result{}, nil
}

// contentTotals counts what is left in a namespace after a pass.
type contentTotals struct {
	// byResource: "pods." → 2 (resource.group, as the condition names it).
	byResource map[string]int
	// byFinalizer: finalizer name → objects still carrying it.
	byFinalizer map[string]int
}

func (t contentTotals) remaining() int {
	n := 0
	for _, v := range t.byResource {
		n += v
	}
	return n
}

// namespacedResources returns the namespaced resources to empty, one
// version each, in group/resource order.
func (nc *NamespaceController) namespacedResources() []client.ResourceInfo {
	seen := map[schema.GroupResource]bool{}
	var out []client.ResourceInfo
	for _, info := range nc.cfg.Resources() {
		gr := schema.GroupResource{Group: info.Group, Resource: info.Resource}
		if !info.Namespaced || seen[gr] || strings.Contains(info.Resource, "/") {
			continue
		}
		seen[gr] = true
		out = append(out, info)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Group != out[j].Group {
			return out[i].Group < out[j].Group
		}
		return out[i].Resource < out[j].Resource
	})
	return out
}

// deleteAllContent deletes every object of every namespaced resource in ns
// and counts what remains (the real deleteAllContent).
func (nc *NamespaceController) deleteAllContent(ctx context.Context, ns string) (contentTotals, []error) {
	totals := contentTotals{byResource: map[string]int{}, byFinalizer: map[string]int{}}
	var errs []error
	background := metav1.DeletePropagationBackground
	for _, info := range nc.namespacedResources() {
		gvr := info.GroupVersionResource()
		res := client.Dynamic(nc.cfg.Client, info)
		items, err := listAll(ctx, res, ns)
		if api.IsNotFound(err) || api.IsMethodNotSupported(err) {
			// No longer served, or not listable: nothing to delete.
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("failed to list %s: %w", gvr, err))
			continue
		}
		deleted := 0
		for _, obj := range items {
			if obj.DeletionTimestamp != nil {
				// Already going; deleting again would change nothing.
				continue
			}
			err := res.Delete(ctx, ns, obj.Name, &metav1.DeleteOptions{PropagationPolicy: &background})
			if err != nil && !api.IsNotFound(err) {
				errs = append(errs, fmt.Errorf("failed to delete %s %s/%s: %w", gvr, ns, obj.Name, err))
				continue
			}
			deleted++
		}
		if deleted > 0 {
			// Some went at once, others wait for a grace period or
			// finalizers: look again to count what is really left.
			if items, err = listAll(ctx, res, ns); err != nil {
				errs = append(errs, fmt.Errorf("failed to list %s: %w", gvr, err))
				continue
			}
		}
		if len(items) == 0 {
			continue
		}
		totals.byResource[info.Resource+"."+info.Group] += len(items)
		for _, obj := range items {
			for _, f := range obj.Finalizers {
				totals.byFinalizer[f]++
			}
		}
	}
	return totals, errs
}

// listAll lists every object of res in ns, following continue tokens.
func listAll[T api.Object](ctx context.Context, res *client.Resource[T], ns string) ([]T, error) {
	var out []T
	opts := client.ListOptions{}
	for {
		l, err := res.List(ctx, ns, opts)
		if err != nil {
			return nil, err
		}
		out = append(out, l.Items...)
		if l.Continue == "" {
			return out, nil
		}
		opts.Continue = l.Continue
	}
}

// newConditions turns a pass's totals and errors into the failing
// conditions (the real namespaceConditionUpdater); types without a failure
// are filled in by updateConditions.
func newConditions(totals contentTotals, contentErrs []error) []corev1.NamespaceCondition {
	var out []corev1.NamespaceCondition
	if len(contentErrs) > 0 {
		msgs := make([]string, 0, len(contentErrs))
		for _, e := range contentErrs {
			msgs = append(msgs, e.Error())
		}
		sort.Strings(msgs)
		out = append(out, corev1.NamespaceCondition{Type: NamespaceDeletionContentFailure, Status: corev1.ConditionTrue,
			Reason:  "ContentDeletionFailed",
			Message: fmt.Sprintf("Failed to delete all resource types, %d remaining: %s", len(contentErrs), strings.Join(msgs, ", ")),
		})
	}
	if len(totals.byResource) > 0 {
		var parts []string
		for r, n := range totals.byResource {
			if n > 0 {
				parts = append(parts, fmt.Sprintf("%s has %d resource instances", r, n))
			}
		}
		sort.Strings(parts)
		out = append(out, corev1.NamespaceCondition{Type: NamespaceContentRemaining, Status: corev1.ConditionTrue,
			Reason: "SomeResourcesRemain", Message: "Some resources are remaining: " + strings.Join(parts, ", ")})
	}
	if len(totals.byFinalizer) > 0 {
		var parts []string
		for f, n := range totals.byFinalizer {
			if n > 0 {
				parts = append(parts, fmt.Sprintf("%s in %d resource instances", f, n))
			}
		}
		sort.Strings(parts)
		out = append(out, corev1.NamespaceCondition{Type: NamespaceFinalizersRemaining, Status: corev1.ConditionTrue,
			Reason:  "SomeFinalizersRemain",
			Message: "Some content in the namespace has finalizers remaining: " + strings.Join(parts, ", ")})
	}
	return out
}

// updateConditions merges the new conditions into status: every type the
// controller owns is present, failing ones from conds and the rest in
// their "ok" form. lastTransitionTime moves only when the status does. It
// reports whether anything changed.
func updateConditions(status *corev1.NamespaceStatus, conds []corev1.NamespaceCondition, now metav1.Time) bool {
	changed := false
	for _, t := range conditionTypes {
		want := okCondition(t)
		for _, c := range conds {
			if c.Type == t {
				want = c
				break
			}
		}
		want.LastTransitionTime = now
		i := slices.IndexFunc(status.Conditions, func(c corev1.NamespaceCondition) bool { return c.Type == t })
		if i < 0 {
			status.Conditions = append(status.Conditions, want)
			changed = true
			continue
		}
		old := &status.Conditions[i]
		if old.Status == want.Status && old.Reason == want.Reason && old.Message == want.Message {
			continue
		}
		if old.Status != want.Status {
			old.LastTransitionTime = now
		}
		old.Status, old.Reason, old.Message = want.Status, want.Reason, want.Message
		changed = true
	}
	return changed
}
