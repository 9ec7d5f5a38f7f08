package kubelet

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/controllers"
)

// nodeConditions are the four conditions a healthy kubelet posts,
// worded as kubelet_node_status.go / nodestatus/setters.go word them, with
// the event each transition to that state records.
var nodeConditions = []struct {
	typ     corev1.NodeConditionType
	status  corev1.ConditionStatus
	reason  string
	message string
}{
	{corev1.NodeMemoryPressure, corev1.ConditionFalse, "KubeletHasSufficientMemory", "kubelet has sufficient memory available"},
	{corev1.NodeDiskPressure, corev1.ConditionFalse, "KubeletHasNoDiskPressure", "kubelet has no disk pressure"},
	{corev1.NodePIDPressure, corev1.ConditionFalse, "KubeletHasSufficientPID", "kubelet has sufficient PID available"},
	{corev1.NodeReady, corev1.ConditionTrue, "KubeletReady", "kubelet is posting ready status"},
}

// conditionEvent is the event reason recorded when a condition reaches
// the healthy state (the kubelet's "Node x status is now: ...").
func conditionEvent(t corev1.NodeConditionType) string {
	switch t {
	case corev1.NodeMemoryPressure:
		return "NodeHasSufficientMemory"
	case corev1.NodeDiskPressure:
		return "NodeHasNoDiskPressure"
	case corev1.NodePIDPressure:
		return "NodeHasSufficientPID"
	default:
		return "NodeReady"
	}
}

// nodeRef is what the kubelet's node events point at. The kubelet puts the
// node's name in the uid, which kubectl describe node knows to look for.
func (k *Kubelet) nodeRef() corev1.ObjectReference {
	return corev1.ObjectReference{Kind: "Node", APIVersion: "v1", Name: k.cfg.NodeName, UID: types.UID(k.cfg.NodeName)}
}

// syncNode is one heartbeat: register the node if it is missing, post its
// status when it changed (or has not been posted for the report
// frequency), and renew the lease.
//
// The node is read from the kubelet's memory of it, not from the API: in
// a large cluster the kubelets' GETs of their nodes every 10 s are much
// of the API server's load, so the real kubelet serves that read from its
// node lister and goes to the API only to retry a write that conflicted
// (kubelet_node_status.go, tryUpdateNodeStatus). kubesim keeps no node
// informer per kubelet (5,000 more watches); it keeps the Node its last
// read or write returned, and reads the API again when a write finds it
// stale or gone, when the Lease is lost, and after a restart.
func (k *Kubelet) syncNode(ctx context.Context, _ string) (controllers.Result, error) {
	if k.Stopped() {
		return controllers.Result{}, nil
	}
	now := k.cfg.Clock.Now()
	k.stateMu.Lock()
	announce, node := k.announce, k.node
	k.stateMu.Unlock()
	node, transitions, err := k.postNodeStatus(ctx, node, now, announce)
	if err != nil {
		return controllers.Result{}, err
	}
	k.stateMu.Lock()
	k.node = node
	k.stateMu.Unlock()
	if announce {
		k.event(ctx, k.nodeRef(), "Normal", "Starting", "Starting kubelet.")
	}
	for _, reason := range transitions {
		k.event(ctx, k.nodeRef(), "Normal", reason, "Node %s status is now: %s", k.cfg.NodeName, reason)
	}
	k.stateMu.Lock()
	k.announce = false
	k.stateMu.Unlock()
	if err := k.renewLease(ctx, node, now); err != nil {
		return controllers.Result{}, err
	}
	k.collectSandboxes(ctx) // network.go
	return controllers.Result{RequeueAfter: k.cfg.RenewInterval}, nil
}

// postNodeStatus registers the node or posts its status when it changed,
// starting from known (the kubelet's memory of the node, nil for none);
// a write that finds known stale (Conflict) or gone (NotFound) is tried
// once more from what the API holds. It returns the node as it now is.
func (k *Kubelet) postNodeStatus(ctx context.Context, known *corev1.Node, now time.Time, force bool) (*corev1.Node, []string, error) {
	nodes := k.c.Nodes()
	for attempt := 0; ; attempt++ {
		node := known
		var err error
		if node == nil {
			node, err = nodes.Get(ctx, "", k.cfg.NodeName)
		}
		switch {
		case api.IsNotFound(err):
			initial := k.initialNode(now)
			if node, err = nodes.Create(ctx, initial); err != nil {
				return nil, nil, fmt.Errorf("registering node %s: %w", k.cfg.NodeName, err)
			}
			if len(node.Status.Conditions) == 0 {
				// The server dropped the status sent with the create (Kubernetes
				// keeps it for nodes); post it through /status.
				node.Status = initial.Status
				if node, err = nodes.UpdateStatus(ctx, node); err != nil {
					return nil, nil, fmt.Errorf("updating node %s status: %w", k.cfg.NodeName, err)
				}
			}
			var transitions []string
			for _, c := range nodeConditions {
				transitions = append(transitions, conditionEvent(c.typ))
			}
			k.logger.Info("registered node")
			return node, transitions, nil
		case err != nil:
			return nil, nil, err
		}
		status, changed, transitions := k.nodeStatus(node, now, force)
		if !changed {
			return node, transitions, nil
		}
		updated := node.DeepCopy()
		updated.Status = status
		written, err := nodes.UpdateStatus(ctx, updated)
		if err == nil {
			return written, transitions, nil
		}
		if known != nil && attempt == 0 && (api.IsConflict(err) || api.IsNotFound(err)) {
			known = nil // stale: read the API and try again
			continue
		}
		return nil, nil, fmt.Errorf("updating node %s status: %w", k.cfg.NodeName, err)
	}
}

// initialNode is the Node the kubelet registers (kubelet_node_status.go
// initialNode): labels, pod CIDR, taints and a full status.
func (k *Kubelet) initialNode(now time.Time) *corev1.Node {
	labels := map[string]string{
		corev1.LabelHostname:   k.cfg.NodeName,
		corev1.LabelOSStable:   "linux",
		corev1.LabelArchStable: "amd64",
	}
	maps.Copy(labels, k.cfg.Labels)
	node := &corev1.Node{
		TypeMeta:   metav1.TypeMeta{Kind: "Node", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{Name: k.cfg.NodeName, Labels: labels},
		Spec: corev1.NodeSpec{PodCIDR: k.cfg.PodCIDR, PodCIDRs: []string{k.cfg.PodCIDR},
			Taints: append([]corev1.Taint(nil), k.cfg.Taints...)},
	}
	node.Status, _, _ = k.nodeStatus(node, now, true)
	return node
}

// nodeStatus renders the status the kubelet posts and says whether it
// differs enough from node's to be posted: a condition changed, the
// heartbeat is older than the report frequency, or force. transitions
// are the event reasons of the conditions that changed status. When
// nothing is to be posted the status is not rendered (the zero value is
// returned): see statusChanged.
func (k *Kubelet) nodeStatus(node *corev1.Node, now time.Time, force bool) (status corev1.NodeStatus, changed bool, transitions []string) {
	changed, transitions = k.statusChanged(node, now, force)
	if !changed {
		return corev1.NodeStatus{}, false, transitions
	}
	st := *node.Status.DeepCopy()
	st.Capacity = maps.Clone(k.cfg.Capacity)
	st.Allocatable = maps.Clone(k.cfg.Capacity)
	k.deviceResources(&st, now) // devices.go
	st.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: k.cfg.InternalIP}, {Type: corev1.NodeHostName, Address: k.cfg.NodeName}}
	st.DaemonEndpoints = corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: k.cfg.KubeletPort}}
	id := sha256.Sum256([]byte(k.cfg.NodeName))
	machine := hex.EncodeToString(id[:16])
	st.NodeInfo = corev1.NodeSystemInfo{
		MachineID: machine, SystemUUID: machine, BootID: hex.EncodeToString(id[16:]),
		KernelVersion: "6.8.0-kubesim", OSImage: "kubesim simulated node", ContainerRuntimeVersion: "kubesim://" + KubeletVersion,
		KubeletVersion: KubeletVersion, OperatingSystem: "linux", Architecture: "amd64",
	}
	st.Images = k.nodeImages(now)
	heartbeat := metav1.NewTime(now)
	st.Conditions = make([]corev1.NodeCondition, 0, len(nodeConditions))
	for _, want := range nodeConditions {
		c := corev1.NodeCondition{Type: want.typ, Status: want.status, Reason: want.reason, Message: want.message,
			LastHeartbeatTime: heartbeat, LastTransitionTime: heartbeat}
		if old := findNodeCondition(node.Status.Conditions, want.typ); old != nil && old.Status == want.status {
			c.LastTransitionTime = old.LastTransitionTime
		}
		st.Conditions = append(st.Conditions, c)
	}
	return st, true, transitions
}

// statusChanged is nodeStatus's decision, taken on the conditions and the
// images alone, without rendering anything: the simulated node's
// capacity, addresses and system info never change, so its conditions
// (and their heartbeat's age) and the images its pulls brought are what
// the real kubelet's nodeStatusHasChanged and nodeStatusReportFrequency
// would find different. Every 10 s of 5,000
// nodes this is all a heartbeat computes: rendering the whole status each
// time (copies, maps, a SHA-256) was a tenth of what the heartbeats
// allocated, to be thrown away 29 times in 30.
func (k *Kubelet) statusChanged(node *corev1.Node, now time.Time, force bool) (changed bool, transitions []string) {
	// The images the node has changed with a pull (kubelet/images).
	changed = force || !k.imagesReported(node.Status.Images, now)
	// The device plugins' resources and their health (devices.go).
	changed = changed || !k.devicesReported(node.Status, now)
	for _, want := range nodeConditions {
		old := findNodeCondition(node.Status.Conditions, want.typ)
		if old == nil {
			changed = true
			transitions = append(transitions, conditionEvent(want.typ))
			continue
		}
		if old.Status != want.status {
			transitions = append(transitions, conditionEvent(want.typ))
		}
		if old.Status != want.status || old.Reason != want.reason || old.Message != want.message ||
			now.Sub(old.LastHeartbeatTime.Time) >= k.cfg.NodeStatusReportFrequency {
			changed = true
		}
	}
	return changed, transitions
}

func findNodeCondition(conds []corev1.NodeCondition, t corev1.NodeConditionType) *corev1.NodeCondition {
	for i := range conds {
		if conds[i].Type == t {
			return &conds[i]
		}
	}
	return nil
}

// renewLease writes the heartbeat Lease kube-node-lease/<node>, creating
// it if needed; the last written lease is kept so a renewal is one write.
func (k *Kubelet) renewLease(ctx context.Context, node *corev1.Node, now time.Time) error {
	leases := k.c.Leases()
	k.stateMu.Lock()
	lease := k.lease
	k.stateMu.Unlock()
	if lease == nil {
		got, err := leases.Get(ctx, corev1.NamespaceNodeLease, k.cfg.NodeName)
		switch {
		case api.IsNotFound(err):
			holder := k.cfg.NodeName
			secs := int32(k.cfg.LeaseDuration / time.Second)
			renew := metav1.NewMicroTime(now)
			lease = &coordinationv1.Lease{
				TypeMeta: metav1.TypeMeta{Kind: "Lease", APIVersion: "coordination.k8s.io/v1"},
				ObjectMeta: metav1.ObjectMeta{Name: k.cfg.NodeName, Namespace: corev1.NamespaceNodeLease,
					OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: node.Name, UID: node.UID}}},
				Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &secs, RenewTime: &renew},
			}
			created, err := leases.Create(ctx, lease)
			if err != nil {
				return fmt.Errorf("creating lease of node %s: %w", k.cfg.NodeName, err)
			}
			k.stateMu.Lock()
			k.lease = created
			k.stateMu.Unlock()
			return nil
		case err != nil:
			return err
		}
		lease = got
	}
	lease = lease.DeepCopy()
	renew := metav1.NewMicroTime(now)
	lease.Spec.RenewTime = &renew
	updated, err := leases.Update(ctx, lease)
	if err != nil {
		// Read it again next time (someone else changed or deleted it);
		// a Lease deleted with its node means the node may be gone too.
		k.stateMu.Lock()
		k.lease = nil
		k.node = nil
		k.stateMu.Unlock()
		return fmt.Errorf("renewing lease of node %s: %w", k.cfg.NodeName, err)
	}
	k.stateMu.Lock()
	k.lease = updated
	k.stateMu.Unlock()
	return nil
}

// event records an event; a failure is logged, not retried, since a
// retried step would record it twice.
func (k *Kubelet) event(ctx context.Context, ref corev1.ObjectReference, typ, reason, format string, args ...any) {
	if err := k.rec.Eventf(ctx, ref, typ, reason, format, args...); err != nil {
		k.logger.Warn("cannot record event", "reason", reason, "err", err)
	}
}
