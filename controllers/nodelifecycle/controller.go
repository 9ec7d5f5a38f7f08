package nodelifecycle

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/client/cache"
	"github.com/kubesim/kubesim/client/record"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/runmode"
)

// Name is the controller's name, as --controllers uses it.
const Name = "nodelifecycle"

// The defaults, as kube-controller-manager's.
const (
	// DefaultNodeMonitorGracePeriod is how long a node may go without a
	// heartbeat before it is Unknown (--node-monitor-grace-period).
	DefaultNodeMonitorGracePeriod = 40 * time.Second
)

// The node status the controller posts for a silent kubelet, worded as
// the real controller words it.
const (
	reasonNodeStatusUnknown = "NodeStatusUnknown"
	messageStoppedPosting   = "Kubelet stopped posting node status."
	messageNeverPosted      = "Kubelet never posted node status."
)

// What the taint eviction controller writes on a pod it evicts: the
// DisruptionTarget condition, then the deletion.
const (
	reasonDeletionByTaintManager  = "DeletionByTaintManager"
	messageDeletionByTaintManager = "Taint manager: deleting due to NoExecute taint"
)

// Config builds a Controller.
type Config struct {
	// Client talks to the API server (required).
	Client *client.Client
	// Informers shares informers with the other controllers of the
	// process (kube-controller-manager's SharedInformerFactory; nil:
	// private ones).
	Informers *cache.Factory
	// Clock times the grace period and the evictions (required).
	Clock clock.Clock
	// Mode is how it runs: Live, or Step under the stepper.
	Mode runmode.Mode
	// NodeMonitorGracePeriod (DefaultNodeMonitorGracePeriod).
	NodeMonitorGracePeriod time.Duration
	// Logger logs (discarded when nil).
	Logger *slog.Logger
}

// Controller is the node lifecycle controller.
type Controller struct {
	cfg      Config
	c        *client.Client
	nodeRec  *record.Recorder
	evictRec *record.Recorder
	logger   *slog.Logger

	nodes  *cache.Informer[*corev1.Node]
	leases *cache.Informer[*coordinationv1.Lease]
	pods   *cache.Informer[*corev1.Pod]
	ctrl   *controllers.Controller

	mu    sync.Mutex
	known map[string]bool
	// scheduled are the pods whose eviction the taint eviction
	// controller has timed (its taintEvictionQueue), by
	// "namespace/name": when the taint goes first, it cancels them
	// with an event.
	scheduled map[string]bool
	// firstSeen is when the controller first saw a NoExecute taint that
	// carries no timeAdded (one a user added), by node and taint: its
	// tolerationSeconds count from then, as the real controller counts
	// from the moment it handles the taint.
	firstSeen map[string]time.Time
}

// nodeNameIndex indexes pods by spec.nodeName.
const nodeNameIndex = "spec.nodeName"

// New checks cfg and returns the controller.
func New(cfg Config) (*Controller, error) {
	if cfg.Client == nil || cfg.Clock == nil {
		return nil, fmt.Errorf("nodelifecycle: Client and Clock are required")
	}
	if cfg.NodeMonitorGracePeriod <= 0 {
		cfg.NodeMonitorGracePeriod = DefaultNodeMonitorGracePeriod
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	c := cfg.Client.WithUserAgent("kube-controller-manager/" + Name)
	nc := &Controller{cfg: cfg, c: c, logger: cfg.Logger.With("controller", Name), known: map[string]bool{},
		scheduled: map[string]bool{}, firstSeen: map[string]time.Time{},
		nodeRec:  record.New(record.Config{Client: c, Component: "node-controller", Clock: cfg.Clock, Mode: cfg.Mode}),
		evictRec: record.New(record.Config{Client: c, Component: "taint-eviction-controller", Clock: cfg.Clock, Mode: cfg.Mode}),
	}
	nc.nodes = cache.For(cfg.Informers, c.Nodes(), "", client.ListOptions{}, nc.logger)
	nc.leases = cache.For(cfg.Informers, c.Leases(), corev1.NamespaceNodeLease, client.ListOptions{}, nc.logger)
	nc.pods = cache.For(cfg.Informers, c.Pods(), "", client.ListOptions{}, nc.logger)
	nc.pods.AddIndexer(nodeNameIndex, func(p *corev1.Pod) []string { return []string{p.Spec.NodeName} })
	var err error
	nc.ctrl, err = controllers.New(controllers.Config{Name: Name, Reconciler: nc, Clock: cfg.Clock, Mode: cfg.Mode, Logger: nc.logger,
		Periodic: true, Sources: []controllers.Source{nc.nodes, nc.leases, nc.pods}})
	if err != nil {
		return nil, err
	}
	nc.addHandlers()
	return nc, nil
}

// addHandlers wakes a node's reconcile when something that matters to it
// changes. A healthy node's lease renewals do not: the reconcile already
// waits for the moment the grace period would run out.
func (nc *Controller) addHandlers() {
	enqueue := func(event, kind, name string, m *metav1.ObjectMeta) {
		nc.ctrl.Enqueue(name, controllers.Cause{Event: event, Kind: kind, Namespace: m.Namespace, Name: m.Name, ResourceVersion: m.ResourceVersion})
	}
	nc.nodes.AddHandler(cache.Handler[*corev1.Node]{
		OnAdd: func(n *corev1.Node) { enqueue("ADDED", "Node", n.Name, &n.ObjectMeta) },
		OnUpdate: func(old, n *corev1.Node) {
			if readyStatus(old) != readyStatus(n) || !sameTaints(old.Spec.Taints, n.Spec.Taints) {
				enqueue("MODIFIED", "Node", n.Name, &n.ObjectMeta)
			}
		},
		OnDelete: func(n *corev1.Node) { enqueue("DELETED", "Node", n.Name, &n.ObjectMeta) },
	})
	nc.leases.AddHandler(cache.Handler[*coordinationv1.Lease]{
		OnAdd: func(l *coordinationv1.Lease) { enqueue("ADDED", "Lease", l.Name, &l.ObjectMeta) },
		OnUpdate: func(_, l *coordinationv1.Lease) {
			if nc.unhealthy(l.Name) {
				enqueue("MODIFIED", "Lease", l.Name, &l.ObjectMeta)
			}
		},
	})
	onPod := func(event string) func(*corev1.Pod) {
		return func(p *corev1.Pod) {
			if p.Spec.NodeName != "" && nc.hasNoExecuteTaint(p.Spec.NodeName) {
				enqueue(event, "Pod", p.Spec.NodeName, &p.ObjectMeta)
			}
		}
	}
	nc.pods.AddHandler(cache.Handler[*corev1.Pod]{OnAdd: onPod("ADDED"), OnUpdate: func(_, p *corev1.Pod) { onPod("MODIFIED")(p) },
		OnDelete: func(p *corev1.Pod) { nc.forgetScheduled(p.Namespace + "/" + p.Name) }})
}

func readyStatus(n *corev1.Node) corev1.ConditionStatus {
	if c := readyCondition(n); c != nil {
		return c.Status
	}
	return ""
}

func sameTaints(a, b []corev1.Taint) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// unhealthy reports whether node looks down or still tainted, so that a
// renewal of its lease is news.
func (nc *Controller) unhealthy(name string) bool {
	node, ok := nc.nodes.Get("", name)
	if !ok {
		return true
	}
	if readyStatus(node) != corev1.ConditionTrue {
		return true
	}
	for _, t := range node.Spec.Taints {
		for _, k := range controllerTaintKeys {
			if t.Key == k {
				return true
			}
		}
	}
	return false
}

func (nc *Controller) hasNoExecuteTaint(name string) bool {
	node, ok := nc.nodes.Get("", name)
	if !ok {
		return false
	}
	for _, t := range node.Spec.Taints {
		if t.Effect == corev1.TaintEffectNoExecute {
			return true
		}
	}
	return false
}

// Controllers returns the controller's one loop.
func (nc *Controller) Controllers() []*controllers.Controller {
	return []*controllers.Controller{nc.ctrl}
}

// Run runs the controller until ctx ends (live mode).
func (nc *Controller) Run(ctx context.Context) { nc.ctrl.Run(ctx) }

var nodeGVK = schema.GroupVersionKind{Version: "v1", Kind: "Node"}
var podGVK = schema.GroupVersionKind{Version: "v1", Kind: "Pod"}

// Reconcile checks one node's health: conditions to Unknown once its
// heartbeat is older than the grace period, taints that follow its Ready
// condition, and evictions of pods that do not tolerate its NoExecute
// taints. It comes back when the next of those deadlines is due.
func (nc *Controller) Reconcile(ctx context.Context, name string) (controllers.Result, error) {
	cached, ok := nc.nodes.Get("", name)
	if !ok {
		nc.mu.Lock()
		delete(nc.known, name)
		for k := range nc.firstSeen {
			if strings.HasPrefix(k, name+"\x00") {
				delete(nc.firstSeen, k)
			}
		}
		nc.mu.Unlock()
		return controllers.Result{}, nil
	}
	// The informer's node is only read here; each write below copies it
	// first (a node's heartbeat brings it here every 40 s: copying
	// 5,000 nodes for nothing was 4 % of what their heartbeats allocated).
	node := cached
	now := nc.cfg.Clock.Now()
	nc.mu.Lock()
	first := !nc.known[name]
	nc.known[name] = true
	nc.mu.Unlock()
	if first {
		nc.event(ctx, nc.nodeRec, record.Ref(node, nodeGVK), "Normal", "RegisteredNode", "Node %s event: Registered Node %s in Controller", name, name)
	}
	var wake time.Duration
	lease, _ := nc.leases.Get(corev1.NamespaceNodeLease, name)
	deadline := probeTime(node, lease).Add(nc.cfg.NodeMonitorGracePeriod)
	if now.Before(deadline) {
		wake = deadline.Sub(now)
	} else if ready := readyCondition(node); ready == nil || ready.Status != corev1.ConditionUnknown {
		wasReady := ready != nil && ready.Status == corev1.ConditionTrue
		updated := node.DeepCopy()
		markUnknown(&updated.Status, now)
		var err error
		if node, err = nc.c.Nodes().UpdateStatus(ctx, updated); err != nil {
			return controllers.Result{}, fmt.Errorf("marking node %s unknown: %w", name, err)
		}
		nc.logger.Info("node stopped posting status", "node", name)
		if wasReady {
			nc.event(ctx, nc.nodeRec, record.Ref(node, nodeGVK), "Normal", "NodeNotReady", "Node %s status is now: %s", name, "NodeNotReady")
			if err := nc.markPodsNotReady(ctx, name, now); err != nil {
				return controllers.Result{}, err
			}
		}
	}
	if taints, changed := desiredTaints(node.Spec.Taints, taintKeyFor(readyCondition(node)), now); changed {
		updated := node.DeepCopy()
		updated.Spec.Taints = taints
		var err error
		if node, err = nc.c.Nodes().Update(ctx, updated); err != nil {
			return controllers.Result{}, fmt.Errorf("updating taints of node %s: %w", name, err)
		}
	}
	evictWake, err := nc.evict(ctx, node, now)
	if err != nil {
		return controllers.Result{}, err
	}
	if evictWake > 0 && (wake == 0 || evictWake < wake) {
		wake = evictWake
	}
	return controllers.Result{RequeueAfter: wake}, nil
}

// markUnknown sets the node's conditions to Unknown, as monitorNodeHealth
// does for a node whose kubelet went silent.
func markUnknown(st *corev1.NodeStatus, now time.Time) {
	for _, typ := range []corev1.NodeConditionType{corev1.NodeReady, corev1.NodeMemoryPressure, corev1.NodeDiskPressure, corev1.NodePIDPressure} {
		found := false
		for i := range st.Conditions {
			c := &st.Conditions[i]
			if c.Type != typ {
				continue
			}
			found = true
			if c.Status != corev1.ConditionUnknown {
				c.Status, c.Reason, c.Message = corev1.ConditionUnknown, reasonNodeStatusUnknown, messageStoppedPosting
				c.LastTransitionTime = metav1.NewTime(now)
			}
		}
		if !found {
			st.Conditions = append(st.Conditions, corev1.NodeCondition{Type: typ, Status: corev1.ConditionUnknown,
				Reason: reasonNodeStatusUnknown, Message: messageNeverPosted,
				LastHeartbeatTime: metav1.NewTime(now), LastTransitionTime: metav1.NewTime(now)})
		}
	}
}

// markPodsNotReady is MarkPodsNotReady: the node's pods lose their Ready
// condition, so their endpoints and owners stop counting them.
func (nc *Controller) markPodsNotReady(ctx context.Context, node string, now time.Time) error {
	for _, cached := range nc.pods.ByIndex(nodeNameIndex, node) {
		pod := cached.DeepCopy()
		changed := false
		for i := range pod.Status.Conditions {
			c := &pod.Status.Conditions[i]
			if c.Type == corev1.PodReady && c.Status != corev1.ConditionFalse {
				c.Status, c.LastTransitionTime, changed = corev1.ConditionFalse, metav1.NewTime(now), true
			}
		}
		if !changed {
			continue
		}
		if _, err := nc.c.Pods().UpdateStatus(ctx, pod); err != nil {
			if api.IsNotFound(err) {
				continue
			}
			return fmt.Errorf("marking pod %s/%s not ready: %w", pod.Namespace, pod.Name, err)
		}
		nc.event(ctx, nc.nodeRec, record.Ref(pod, podGVK), "Warning", "NodeNotReady", "Node is not ready")
	}
	return nil
}

// evict is the taint eviction controller's pass over one node: it
// deletes the node's pods whose toleration of its NoExecute taints has
// run out — first the Marking for deletion event and the pod's
// DisruptionTarget condition, as the real one writes them — and says when
// the next one will (0: none). A pod whose eviction was timed and that
// now stays (the taint went, or the pod tolerates it after all) gets the
// Cancelling deletion event.
func (nc *Controller) evict(ctx context.Context, node *corev1.Node, now time.Time) (time.Duration, error) {
	noExecute := false
	for _, t := range node.Spec.Taints {
		noExecute = noExecute || t.Effect == corev1.TaintEffectNoExecute
	}
	nc.mu.Lock()
	anyScheduled := len(nc.scheduled) > 0
	nc.mu.Unlock()
	if !noExecute && !anyScheduled {
		return 0, nil // the common case, a healthy node: nothing to look at
	}
	added := nc.taintAdded(node, now)
	pods := nc.pods.ByIndex(nodeNameIndex, node.Name)
	sort.Slice(pods, func(i, j int) bool {
		return pods[i].Namespace+"/"+pods[i].Name < pods[j].Namespace+"/"+pods[j].Name
	})
	var wake time.Duration
	for _, pod := range pods {
		key := pod.Namespace + "/" + pod.Name
		if pod.DeletionTimestamp != nil {
			nc.forgetScheduled(key)
			continue
		}
		at, ok := evictionTime(pod, node.Spec.Taints, added)
		if !ok {
			if nc.forgetScheduled(key) {
				nc.event(ctx, nc.evictRec, record.Ref(pod, podGVK), "Normal", "TaintManagerEviction", "Cancelling deletion of Pod %s", key)
			}
			continue
		}
		if now.Before(at) {
			nc.mu.Lock()
			nc.scheduled[key] = true
			nc.mu.Unlock()
			if d := at.Sub(now); wake == 0 || d < wake {
				wake = d
			}
			continue
		}
		nc.forgetScheduled(key)
		nc.event(ctx, nc.evictRec, record.Ref(pod, podGVK), "Normal", "TaintManagerEviction", "Marking for deletion Pod %s", key)
		if err := nc.markDisruptionTarget(ctx, pod, now); err != nil {
			return 0, err
		}
		uid := pod.UID
		err := nc.c.Pods().Delete(ctx, pod.Namespace, pod.Name, &metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
		if err != nil && !api.IsNotFound(err) {
			return 0, fmt.Errorf("evicting pod %s: %w", key, err)
		}
	}
	return wake, nil
}

// forgetScheduled drops a pod's timed eviction and says whether there
// was one.
func (nc *Controller) forgetScheduled(key string) bool {
	nc.mu.Lock()
	defer nc.mu.Unlock()
	was := nc.scheduled[key]
	delete(nc.scheduled, key)
	return was
}

// taintAdded returns when each of node's taints was added: its
// timeAdded, or, for a taint without one, the first time this controller
// saw it. It forgets the taints the node no longer has.
func (nc *Controller) taintAdded(node *corev1.Node, now time.Time) func(corev1.Taint) time.Time {
	nc.mu.Lock()
	defer nc.mu.Unlock()
	prefix := node.Name + "\x00"
	present := map[string]bool{}
	for _, t := range node.Spec.Taints {
		if t.Effect != corev1.TaintEffectNoExecute || t.TimeAdded != nil {
			continue
		}
		k := prefix + t.Key + "=" + t.Value
		present[k] = true
		if _, ok := nc.firstSeen[k]; !ok {
			nc.firstSeen[k] = now
		}
	}
	seen := map[string]time.Time{}
	for k, at := range nc.firstSeen {
		if !strings.HasPrefix(k, prefix) {
			continue
		}
		if !present[k] {
			delete(nc.firstSeen, k)
			continue
		}
		seen[k] = at
	}
	return func(t corev1.Taint) time.Time {
		if t.TimeAdded != nil {
			return t.TimeAdded.Time
		}
		return seen[prefix+t.Key+"="+t.Value]
	}
}

// markDisruptionTarget gives the pod the DisruptionTarget condition the
// taint eviction controller writes before it deletes a pod, so that the
// pod's Job (its podFailurePolicy) and whoever reads its status can tell
// an eviction from a failure.
func (nc *Controller) markDisruptionTarget(ctx context.Context, cached *corev1.Pod, now time.Time) error {
	for _, c := range cached.Status.Conditions {
		if c.Type == corev1.DisruptionTarget && c.Status == corev1.ConditionTrue && c.Reason == reasonDeletionByTaintManager {
			return nil
		}
	}
	pod := cached.DeepCopy()
	cond := corev1.PodCondition{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue,
		Reason: reasonDeletionByTaintManager, Message: messageDeletionByTaintManager, LastTransitionTime: metav1.NewTime(now)}
	replaced := false
	for i := range pod.Status.Conditions {
		if pod.Status.Conditions[i].Type == corev1.DisruptionTarget {
			pod.Status.Conditions[i], replaced = cond, true
		}
	}
	if !replaced {
		pod.Status.Conditions = append(pod.Status.Conditions, cond)
	}
	if _, err := nc.c.Pods().UpdateStatus(ctx, pod); err != nil && !api.IsNotFound(err) {
		return fmt.Errorf("marking pod %s/%s for deletion: %w", pod.Namespace, pod.Name, err)
	}
	return nil
}

// event records an event; a failure is logged, since a retried reconcile
// would record it twice.
func (nc *Controller) event(ctx context.Context, rec *record.Recorder, ref corev1.ObjectReference, typ, reason, format string, args ...any) {
	if err := rec.Eventf(ctx, ref, typ, reason, format, args...); err != nil {
		nc.logger.Warn("cannot record event", "reason", reason, "err", err)
	}
}
