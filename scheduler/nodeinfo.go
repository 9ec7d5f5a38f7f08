package scheduler

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/labels"
)

// The requests a container is assumed to make when it states none, for
// scoring only (pkg/scheduler/util: DefaultMilliCPURequest and
// DefaultMemoryRequest): without them a node full of pods that request
// nothing would look empty to LeastAllocated.
const (
	DefaultMilliCPURequest int64 = 100
	DefaultMemoryRequest   int64 = 200 * 1024 * 1024
)

// Resources is the part of a ResourceList the scheduler counts, as plain
// integers so a decision does no Quantity arithmetic.
type Resources struct {
	// MilliCPU is cpu in thousandths of a core.
	MilliCPU int64
	// Memory is in bytes.
	Memory int64
	// Pods is a number of pods.
	Pods int64
	// Scalar are the extended resources (example.com/gpu, a device
	// plugin's), in units: the framework's ScalarResources. nil when
	// there are none, as for most pods and nodes.
	Scalar map[corev1.ResourceName]int64
}

func (r *Resources) add(o Resources) {
	r.MilliCPU += o.MilliCPU
	r.Memory += o.Memory
	r.Pods += o.Pods
	for name, v := range o.Scalar {
		if r.Scalar == nil {
			r.Scalar = map[corev1.ResourceName]int64{}
		}
		r.Scalar[name] += v
	}
}

func (r *Resources) sub(o Resources) {
	r.MilliCPU -= o.MilliCPU
	r.Memory -= o.Memory
	r.Pods -= o.Pods
	for name, v := range o.Scalar {
		if r.Scalar == nil {
			r.Scalar = map[corev1.ResourceName]int64{}
		}
		r.Scalar[name] -= v
	}
}

// equal reports whether r and o count the same; an extended resource
// counted 0 equals one not counted.
func (r Resources) equal(o Resources) bool {
	if r.MilliCPU != o.MilliCPU || r.Memory != o.Memory || r.Pods != o.Pods {
		return false
	}
	for name, v := range r.Scalar {
		if o.Scalar[name] != v {
			return false
		}
	}
	for name, v := range o.Scalar {
		if r.Scalar[name] != v {
			return false
		}
	}
	return true
}

// maxScalar keeps, per extended resource, the larger of r's and o's: an
// init container runs alone, so the pod needs the most of either phase.
func (r *Resources) maxScalar(o Resources) {
	for name, v := range o.Scalar {
		if r.Scalar == nil {
			r.Scalar = map[corev1.ResourceName]int64{}
		}
		r.Scalar[name] = max(r.Scalar[name], v)
	}
}

func resourcesOf(l corev1.ResourceList) Resources {
	var r Resources
	known := 0
	if q, ok := l[corev1.ResourceCPU]; ok {
		r.MilliCPU = q.MilliValue()
		known++
	}
	if q, ok := l[corev1.ResourceMemory]; ok {
		r.Memory = q.Value()
		known++
	}
	if q, ok := l[corev1.ResourcePods]; ok {
		r.Pods = q.Value()
		known++
	}
	if len(l) > known {
		// Something else too: perhaps an extended resource.
		for name, q := range l {
			if api.IsExtendedResourceName(name) {
				if r.Scalar == nil {
					r.Scalar = map[corev1.ResourceName]int64{}
				}
				r.Scalar[name] = q.Value()
			}
		}
	}
	return r
}

// PodInfo is a pod with what scheduling needs from it computed once: the
// framework's PodInfo.
type PodInfo struct {
	// Pod is the pod (shared with the informer cache: read only).
	Pod *corev1.Pod
	// Key is namespace/name.
	Key string
	// Requests is what the pod requests (Pods is 1): the larger of the sum
	// of its containers and its largest init container, plus its
	// overhead, as resource.PodRequests computes it.
	Requests Resources
	// NonZeroRequests is Requests with the scoring defaults for containers
	// that request no cpu or memory.
	NonZeroRequests Resources
	// OwnerUID is the uid of the pod's controller (its ReplicaSet...), or "".
	OwnerUID string
	// Volumes is what the pod's claims ask of a node (nil: no claims);
	// the scheduler fills it from its caches (VolumeBinding's PreFilter).
	Volumes *VolumeInfo

	// The pod's inter-pod affinity terms, parsed once, as the framework's
	// PodInfo keeps them: what the pod asks of the pods around it, and,
	// once it runs, what it asks of the pods scheduled after it.
	RequiredAffinityTerms      []AffinityTerm
	RequiredAntiAffinityTerms  []AffinityTerm
	PreferredAffinityTerms     []WeightedAffinityTerm
	PreferredAntiAffinityTerms []WeightedAffinityTerm
	// ParseError is why a term's selector could not be parsed (validation
	// keeps such pods out; a pod with one fits no node).
	ParseError error
	// NamespaceLabels are the labels of the pod's namespace, which the
	// namespaceSelector of other pods' terms is matched against; the
	// scheduler fills them from its namespace informer for the pod it
	// schedules (GetNamespaceLabelsSnapshot).
	NamespaceLabels labels.Set

	// nodesWithAffinity and nodesWithRequiredAntiAffinity, when
	// affinityNodesKnown, are the nodes that have pods with inter-pod
	// affinity terms, and with required anti-affinity terms
	// (SetNodesWithAffinity).
	nodesWithAffinity, nodesWithRequiredAntiAffinity []*NodeInfo
	affinityNodesKnown                               bool

	// state is what this cycle's PreFilter and PreScore plugins found for
	// their Filter and Score halves (cyclestate.go): kube-scheduler's
	// CycleState, kept on the PodInfo of the pod being scheduled, which
	// lives for one cycle.
	state CycleState
}

// NewPodInfo computes the PodInfo of pod.
func NewPodInfo(pod *corev1.Pod) *PodInfo {
	pi := &PodInfo{Pod: pod, Key: pod.Namespace + "/" + pod.Name}
	var sum, nonZero Resources
	for i := range pod.Spec.Containers {
		r := resourcesOf(pod.Spec.Containers[i].Resources.Requests)
		sum.add(r)
		if r.MilliCPU == 0 {
			r.MilliCPU = DefaultMilliCPURequest
		}
		if r.Memory == 0 {
			r.Memory = DefaultMemoryRequest
		}
		nonZero.add(r)
	}
	// An init container runs alone before the others, so the pod needs
	// the most of either phase, resource by resource.
	for i := range pod.Spec.InitContainers {
		r := resourcesOf(pod.Spec.InitContainers[i].Resources.Requests)
		sum.MilliCPU = max(sum.MilliCPU, r.MilliCPU)
		sum.Memory = max(sum.Memory, r.Memory)
		sum.maxScalar(r)
		if r.MilliCPU == 0 {
			r.MilliCPU = DefaultMilliCPURequest
		}
		if r.Memory == 0 {
			r.Memory = DefaultMemoryRequest
		}
		nonZero.MilliCPU = max(nonZero.MilliCPU, r.MilliCPU)
		nonZero.Memory = max(nonZero.Memory, r.Memory)
	}
	// The pod's overhead (its RuntimeClass's, set by admission) is
	// charged on top, as resource.PodRequests adds it.
	if len(pod.Spec.Overhead) > 0 {
		o := resourcesOf(pod.Spec.Overhead)
		o.Pods = 0
		sum.add(o)
		nonZero.add(o)
	}
	sum.Pods, nonZero.Pods = 1, 1
	pi.Requests, pi.NonZeroRequests = sum, nonZero
	if ref := api.GetControllerOf(&pod.ObjectMeta); ref != nil {
		pi.OwnerUID = string(ref.UID)
	}
	pi.parseAffinityTerms()
	return pi
}

// SetNodesWithAffinity tells the pod's cycle which nodes have pods with
// inter-pod affinity terms (withAffinity) and with required anti-affinity
// terms (withRequiredAnti), as kube-scheduler's snapshot keeps them
// (HavePodsWithAffinityList, HavePodsWithRequiredAntiAffinityList): then
// InterPodAffinity visits only those for the running pods' terms, and a
// cycle in a cluster where no pod has terms visits no node for them. Not
// told, the plugin looks at every node's pods.
func (p *PodInfo) SetNodesWithAffinity(withAffinity, withRequiredAnti []*NodeInfo) {
	p.nodesWithAffinity, p.nodesWithRequiredAntiAffinity, p.affinityNodesKnown = withAffinity, withRequiredAnti, true
}

// HasAffinity reports whether the pod has inter-pod affinity terms of any
// kind (NodeInfo.PodsWithAffinity).
func (p *PodInfo) HasAffinity() bool {
	return len(p.RequiredAffinityTerms) > 0 || len(p.RequiredAntiAffinityTerms) > 0 ||
		len(p.PreferredAffinityTerms) > 0 || len(p.PreferredAntiAffinityTerms) > 0
}

// NodeInfo is a node with the totals of the pods on it: the framework's
// NodeInfo. Node is nil while pods are known on a node the informer has not
// seen (or no longer sees).
type NodeInfo struct {
	// Node is the node (shared with the informer cache: read only).
	Node *corev1.Node
	// Allocatable is what pods may use (status.allocatable, or capacity
	// when allocatable is unset, as the API server's defaulting would).
	Allocatable Resources
	// Requested sums the requests of the pods on the node, bound or
	// assumed; Requested.Pods is their number.
	Requested Resources
	// NonZeroRequested is Requested with the scoring defaults.
	NonZeroRequested Resources
	// Ready is the status of the node's Ready condition (Unknown when it
	// has none).
	Ready corev1.ConditionStatus
	// The node's hostname and zone labels, which the default spreading
	// reads for every node of every cycle, kept out of the label map
	// (Label).
	hostname, zone       string
	hasHostname, hasZone bool
	// owners counts the pods on the node per controller uid, for the
	// default spreading (podtopologyspread.go).
	owners map[string]int32
	// Pods are the pods on the node, bound or assumed, in no particular
	// order; PodsWithAffinity those of them with inter-pod affinity terms
	// and PodsWithRequiredAntiAffinity those with required anti-affinity
	// terms, so that InterPodAffinity looks at few pods when few have
	// terms, as the framework's NodeInfo allows.
	Pods                         []*PodInfo
	PodsWithAffinity             []*PodInfo
	PodsWithRequiredAntiAffinity []*PodInfo
}

// NewNodeInfo returns the NodeInfo of node with no pods on it.
func NewNodeInfo(node *corev1.Node) *NodeInfo {
	n := &NodeInfo{}
	n.SetNode(node)
	return n
}

// SetNode replaces the node, keeping the pod totals.
func (n *NodeInfo) SetNode(node *corev1.Node) {
	n.Node = node
	if node == nil {
		return
	}
	alloc := node.Status.Allocatable
	if len(alloc) == 0 {
		alloc = node.Status.Capacity
	}
	n.Allocatable = resourcesOf(alloc)
	n.hostname, n.hasHostname = node.Labels[corev1.LabelHostname]
	n.zone, n.hasZone = node.Labels[corev1.LabelTopologyZone]
	n.Ready = corev1.ConditionUnknown
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			n.Ready = c.Status
		}
	}
}

// Label returns the node's value of the label key, and whether it has it.
func (n *NodeInfo) Label(key string) (string, bool) {
	switch key {
	case corev1.LabelHostname:
		return n.hostname, n.hasHostname
	case corev1.LabelTopologyZone:
		return n.zone, n.hasZone
	}
	v, ok := n.Node.Labels[key]
	return v, ok
}

// AddPod counts pod on the node.
func (n *NodeInfo) AddPod(pod *PodInfo) {
	n.Requested.add(pod.Requests)
	n.NonZeroRequested.add(pod.NonZeroRequests)
	if pod.OwnerUID != "" {
		if n.owners == nil {
			n.owners = map[string]int32{}
		}
		n.owners[pod.OwnerUID]++
	}
	n.Pods = append(n.Pods, pod)
	if pod.HasAffinity() {
		n.PodsWithAffinity = append(n.PodsWithAffinity, pod)
	}
	if len(pod.RequiredAntiAffinityTerms) > 0 {
		n.PodsWithRequiredAntiAffinity = append(n.PodsWithRequiredAntiAffinity, pod)
	}
}

// removePodInfo drops the pod with pod's key from pods, not keeping the
// order (the framework's NodeInfo.RemovePod does the same).
func removePodInfo(pods []*PodInfo, pod *PodInfo) []*PodInfo {
	for i, p := range pods {
		if p.Key == pod.Key {
			last := len(pods) - 1
			pods[i] = pods[last]
			pods[last] = nil
			return pods[:last]
		}
	}
	return pods
}

// RemovePod stops counting pod on the node.
func (n *NodeInfo) RemovePod(pod *PodInfo) {
	n.Requested.sub(pod.Requests)
	n.NonZeroRequested.sub(pod.NonZeroRequests)
	if pod.OwnerUID != "" {
		if n.owners[pod.OwnerUID] <= 1 {
			delete(n.owners, pod.OwnerUID)
		} else {
			n.owners[pod.OwnerUID]--
		}
	}
	n.Pods = removePodInfo(n.Pods, pod)
	if pod.HasAffinity() {
		n.PodsWithAffinity = removePodInfo(n.PodsWithAffinity, pod)
	}
	if len(pod.RequiredAntiAffinityTerms) > 0 {
		n.PodsWithRequiredAntiAffinity = removePodInfo(n.PodsWithRequiredAntiAffinity, pod)
	}
}

// PodsOfOwner is the number of pods on the node controlled by owner uid.
func (n *NodeInfo) PodsOfOwner(uid string) int64 {
	if uid == "" {
		return 0
	}
	return int64(n.owners[uid])
}
