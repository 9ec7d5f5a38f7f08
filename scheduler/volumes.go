package scheduler

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/volume"
	"github.com/kubesim/kubesim/client/cache"
	"github.com/kubesim/kubesim/controllers"
)

// The VolumeBinding plugin, reduced: its PreFilter
// gathers the pod's claims, its Filter checks each node against them, and
// after the choice the scheduler marks each WaitForFirstConsumer claim
// with the node (volume.kubernetes.io/selected-node), for the PV
// controller to bind or provision there, and the pod's binding waits
// until the PV controller has bound every such claim (PreBind). Left out:
// the plugin's own choice of a free volume (AssumePodVolumes binds a
// matching PV itself; here the PV controller picks it on the node the
// annotation names).

// The reasons VolumeBinding gives, in kube-scheduler's words.
const (
	// ErrReasonNodeConflict: a bound volume's node affinity excludes the node.
	ErrReasonNodeConflict = "node(s) had volume node affinity conflict"
	// ErrReasonBindConflict: no volume can be had for an unbound claim on the node.
	ErrReasonBindConflict = "node(s) didn't find available persistent volumes to bind"
	// ErrReasonUnboundImmediate: an Immediate claim the PV controller has not bound yet.
	ErrReasonUnboundImmediate = "pod has unbound immediate PersistentVolumeClaims"
)

// VolumeInfo is what a pod's claims ask of a node, computed once per
// scheduling cycle from the informers (the PreFilter's state).
type VolumeInfo struct {
	// PreFilterMsg, when set, rejects every node at once: a missing claim,
	// or an Immediate claim not bound yet.
	PreFilterMsg string
	// BoundAffinities are the node affinities of the pod's bound volumes.
	BoundAffinities []*corev1.NodeSelector
	// Unbound are the WaitForFirstConsumer claims still to bind.
	Unbound []UnboundClaim
}

// UnboundClaim is a claim waiting for its pod's node.
type UnboundClaim struct {
	Claim *corev1.PersistentVolumeClaim
	// Candidates are the free volumes that suit the claim, nodes aside.
	Candidates []*corev1.PersistentVolume
	// Provisionable: the claim's class can make a volume on any node.
	Provisionable bool
}

// volumeInfo is the VolumeBinding PreFilter over the scheduler's caches:
// nil for a pod without claims.
func (s *Scheduler) volumeInfo(pod *corev1.Pod) *VolumeInfo {
	var vi *VolumeInfo
	for _, v := range pod.Spec.Volumes {
		if v.PersistentVolumeClaim == nil {
			continue
		}
		if vi == nil {
			vi = &VolumeInfo{}
		}
		name := v.PersistentVolumeClaim.ClaimName
		pvc, ok := s.claims.Get(pod.Namespace, name)
		if !ok {
			vi.PreFilterMsg = fmt.Sprintf("persistentvolumeclaim %q not found", name)
			return vi
		}
		if pvc.DeletionTimestamp != nil {
			vi.PreFilterMsg = fmt.Sprintf("persistentvolumeclaim %q is being deleted", name)
			return vi
		}
		if pvc.Spec.VolumeName != "" {
			if pv, ok := s.volumes.Get("", pvc.Spec.VolumeName); ok && pv.Spec.NodeAffinity != nil {
				vi.BoundAffinities = append(vi.BoundAffinities, pv.Spec.NodeAffinity.Required)
			}
			continue
		}
		sc, hasClass := s.classes.Get("", volume.ClaimClass(pvc))
		if !hasClass || sc.VolumeBindingMode == nil || *sc.VolumeBindingMode != storagev1.VolumeBindingWaitForFirstConsumer {
			vi.PreFilterMsg = ErrReasonUnboundImmediate
			return vi
		}
		u := UnboundClaim{Claim: pvc, Provisionable: sc.Provisioner != "" && sc.Provisioner != "kubernetes.io/no-provisioner"}
		for _, pv := range s.volumes.List() {
			if pv.Spec.ClaimRef == nil && volume.VolumeMatches(pv, pvc, nil) {
				u.Candidates = append(u.Candidates, pv)
			}
		}
		vi.Unbound = append(vi.Unbound, u)
	}
	return vi
}

// VolumeBinding is the plugin's Filter: every bound volume must be
// reachable from the node, and every unbound claim must find a free
// volume there or be provisionable.
func VolumeBinding(pod *PodInfo, node *NodeInfo) []string {
	vi := pod.Volumes
	if vi == nil {
		return nil
	}
	for _, sel := range vi.BoundAffinities {
		if !api.NodeSelectorMatches(sel, node.Node) {
			return []string{ErrReasonNodeConflict}
		}
	}
	for _, u := range vi.Unbound {
		if u.Provisionable {
			continue
		}
		found := false
		for _, pv := range u.Candidates {
			if pv.Spec.NodeAffinity == nil || api.NodeSelectorMatches(pv.Spec.NodeAffinity.Required, node.Node) {
				found = true
				break
			}
		}
		if !found {
			return []string{ErrReasonBindConflict}
		}
	}
	return nil
}

// selectNodeForClaims writes the chosen node on each unbound
// WaitForFirstConsumer claim of the pod, so that the PV controller binds
// or provisions its volume there.
func (s *Scheduler) selectNodeForClaims(ctx context.Context, vi *VolumeInfo, node string) error {
	if vi == nil {
		return nil
	}
	for _, u := range vi.Unbound {
		if u.Claim.Annotations[api.AnnSelectedNode] == node {
			continue
		}
		upd := u.Claim.DeepCopy()
		if upd.Annotations == nil {
			upd.Annotations = map[string]string{}
		}
		upd.Annotations[api.AnnSelectedNode] = node
		if _, err := s.client.PersistentVolumeClaims().Update(ctx, upd); err != nil {
			return fmt.Errorf("marking claim %s with node %s: %w", cache.Key(&u.Claim.ObjectMeta), node, err)
		}
	}
	return nil
}

// DefaultBindTimeout is kube-scheduler's bindTimeoutSeconds (600): how
// long PreBind waits for the PV controller to bind a pod's claims before
// the pod is scheduled again.
const DefaultBindTimeout = 10 * time.Minute

// prebindWait is a pod chosen a node whose claims are not bound yet: it
// stays assumed on the node, and is bound once they are.
type prebindWait struct {
	node  string
	since time.Time
	// start is when the scheduling attempt began, for its duration.
	start time.Time
	// info is the pod as its cycle saw it, prof its profile: what the
	// binding and an Unreserve need.
	info *PodInfo
	prof *profile
}

// ClaimLister finds a claim by namespace and name (an informer's Get).
type ClaimLister func(namespace, name string) (*corev1.PersistentVolumeClaim, bool)

// ClaimsBound is PreBind's checkBindings as a pure function: whether
// every claim of pod is bound (a volume named and the PV controller's
// bind-completed annotation), and an error when one can no longer be:
// the claim is gone, or it names another node. (A claim whose
// annotation is not there yet — the cache has not seen the scheduler's
// own write — is still waited for.)
func ClaimsBound(pod *corev1.Pod, node string, claims ClaimLister) (bool, error) {
	done := true
	for _, v := range pod.Spec.Volumes {
		if v.PersistentVolumeClaim == nil {
			continue
		}
		name := v.PersistentVolumeClaim.ClaimName
		pvc, ok := claims(pod.Namespace, name)
		if !ok {
			return false, fmt.Errorf("persistentvolumeclaim %q not found", name)
		}
		if pvc.Spec.VolumeName != "" && pvc.Annotations[api.AnnBindCompleted] != "" {
			continue
		}
		if sel := pvc.Annotations[api.AnnSelectedNode]; sel != "" && sel != node {
			return false, fmt.Errorf("selectedNode annotation reset for PVC %q", name)
		}
		done = false
	}
	return done, nil
}

// waitForClaims is PreBind for a pod that waits: bind it once its claims
// are bound; give the node up (and schedule again) when they cannot be
// or the bind timeout passed; otherwise go on waiting — a claim's
// update wakes it (watchStorage), the timeout is the safety net.
func (s *Scheduler) waitForClaims(ctx context.Context, key string, pod *corev1.Pod, w prebindWait) (controllers.Result, error) {
	done, err := ClaimsBound(pod, w.node, s.claims.Get)
	elapsed := s.clock.Now().Sub(w.since)
	timeout := s.profileFor(pod).BindTimeout
	if err == nil && !done && elapsed >= timeout {
		err = errors.New("context deadline exceeded")
	}
	if err != nil {
		s.lock()
		delete(s.prebind, key)
		s.unlock()
		s.unreserveAndForget(ctx, w.prof, w.info, key, w.node)
		msg := fmt.Sprintf("running PreBind plugin %q: binding volumes: %v", "VolumeBinding", err)
		s.metrics.attempt(ResultError, s.profileFor(pod).SchedulerName, w.start, s.clock.Now())
		return s.schedulingError(ctx, pod, msg)
	}
	if !done {
		return controllers.Result{RequeueAfter: timeout - elapsed}, nil
	}
	s.lock()
	delete(s.prebind, key)
	s.unlock()
	return s.bind(ctx, pod, w.info, w.node, w.start)
}

// wakePrebind queues the pods waiting in PreBind: a claim changed.
func (s *Scheduler) wakePrebindLocked(cause controllers.Cause) {
	for _, k := range slices.Sorted(maps.Keys(s.prebind)) {
		s.ctrl.Enqueue(k, cause)
	}
}

// watchStorage retries the unschedulable pods when a claim, a volume or a
// class comes or changes: one may be what a pod waits for.
func (s *Scheduler) watchStorage() {
	requeue := func(event, kind string, m *metav1.ObjectMeta) {
		s.lock()
		defer s.unlock()
		s.requeueLocked(controllers.CauseOf(event, kind, m))
	}
	s.claims.AddHandler(cache.Handler[*corev1.PersistentVolumeClaim]{
		OnAdd: func(p *corev1.PersistentVolumeClaim) { requeue("ADDED", "PersistentVolumeClaim", &p.ObjectMeta) },
		OnUpdate: func(_, p *corev1.PersistentVolumeClaim) {
			s.lock()
			s.wakePrebindLocked(controllers.CauseOf("MODIFIED", "PersistentVolumeClaim", &p.ObjectMeta))
			s.unlock()
			requeue("MODIFIED", "PersistentVolumeClaim", &p.ObjectMeta)
		},
		OnDelete: func(p *corev1.PersistentVolumeClaim) {
			s.lock()
			defer s.unlock()
			s.wakePrebindLocked(controllers.CauseOf("DELETED", "PersistentVolumeClaim", &p.ObjectMeta))
		},
	})
	s.volumes.AddHandler(cache.Handler[*corev1.PersistentVolume]{
		OnAdd:    func(pv *corev1.PersistentVolume) { requeue("ADDED", "PersistentVolume", &pv.ObjectMeta) },
		OnUpdate: func(_, pv *corev1.PersistentVolume) { requeue("MODIFIED", "PersistentVolume", &pv.ObjectMeta) },
	})
	s.classes.AddHandler(cache.Handler[*storagev1.StorageClass]{
		OnAdd: func(sc *storagev1.StorageClass) { requeue("ADDED", "StorageClass", &sc.ObjectMeta) },
	})
}
