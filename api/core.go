package api

import (
	"github.com/kubesim/kubesim/api/intstr"
	"github.com/kubesim/kubesim/api/resource"
)

// This file holds the core/v1 kinds (k8s.io/api/core/v1/types.go).

// ResourceName names a resource such as cpu or memory.
type ResourceName string

// The resource names the scheduler and kubelet look at.
const (
	ResourceCPU              ResourceName = "cpu"
	ResourceMemory           ResourceName = "memory"
	ResourcePods             ResourceName = "pods"
	ResourceEphemeralStorage ResourceName = "ephemeral-storage"
)

// ResourceList maps resource names to amounts, as requests, limits,
// capacity and allocatable.
type ResourceList map[ResourceName]resource.Quantity

// Name returns a copy of the named amount, or a zero one in defaultFormat.
func (rl ResourceList) Name(name ResourceName, defaultFormat resource.Format) *resource.Quantity {
	if q, ok := rl[name]; ok {
		return &q
	}
	return &resource.Quantity{Format: defaultFormat}
}

// Cpu returns a copy of the cpu amount.
func (rl ResourceList) Cpu() *resource.Quantity { return rl.Name(ResourceCPU, resource.DecimalSI) }

// Memory returns a copy of the memory amount.
func (rl ResourceList) Memory() *resource.Quantity {
	return rl.Name(ResourceMemory, resource.BinarySI)
}

// Pods returns a copy of the pods amount.
func (rl ResourceList) Pods() *resource.Quantity { return rl.Name(ResourcePods, resource.DecimalSI) }

// ObjectReference points at another object, possibly at a field of it.
type ObjectReference struct {
	// Kind of the referent.
	Kind string `json:"kind,omitempty" protobuf:"bytes,1,opt,name=kind"`
	// Namespace of the referent.
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,2,opt,name=namespace"`
	// Name of the referent.
	Name string `json:"name,omitempty" protobuf:"bytes,3,opt,name=name"`
	// UID of the referent.
	UID string `json:"uid,omitempty" protobuf:"bytes,4,opt,name=uid,casttype=k8s.io/apimachinery/pkg/types.UID"`
	// APIVersion of the referent.
	APIVersion string `json:"apiVersion,omitempty" protobuf:"bytes,5,opt,name=apiVersion"`
	// ResourceVersion the reference was made at.
	ResourceVersion string `json:"resourceVersion,omitempty" protobuf:"bytes,6,opt,name=resourceVersion"`
	// FieldPath points into the referent, such as spec.containers{web}.
	FieldPath string `json:"fieldPath,omitempty" protobuf:"bytes,7,opt,name=fieldPath"`
}

// LocalObjectReference names an object in the same namespace.
type LocalObjectReference struct {
	// Name of the referent.
	Name string `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
}

// --- Namespace ---

// NamespacePhase is Active or Terminating.
type NamespacePhase string

// The namespace phases.
const (
	NamespaceActive      NamespacePhase = "Active"
	NamespaceTerminating NamespacePhase = "Terminating"
)

// FinalizerName is a namespace spec finalizer.
type FinalizerName string

// FinalizerKubernetes is the finalizer the namespace controller removes
// once everything in the namespace is deleted.
const FinalizerKubernetes FinalizerName = "kubernetes"

// Well-known namespaces.
const (
	NamespaceDefault   = "default"
	NamespaceSystem    = "kube-system"
	NamespacePublic    = "kube-public"
	NamespaceNodeLease = "kube-node-lease"
	// NamespaceAll in a request means every namespace.
	NamespaceAll = ""
)

// Namespace is a scope for names.
type Namespace struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec holds the finalizers.
	Spec NamespaceSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status holds the phase.
	Status NamespaceStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// NamespaceSpec holds the finalizers that must run before deletion ends.
type NamespaceSpec struct {
	// Finalizers, usually just "kubernetes".
	Finalizers []FinalizerName `json:"finalizers,omitempty" protobuf:"bytes,1,rep,name=finalizers,casttype=FinalizerName"`
}

// NamespaceStatus says whether the namespace is being deleted.
type NamespaceStatus struct {
	// Phase is Active or Terminating.
	Phase NamespacePhase `json:"phase,omitempty" protobuf:"bytes,1,opt,name=phase,casttype=NamespacePhase"`
	// Conditions report deletion progress.
	Conditions []NamespaceCondition `json:"conditions,omitempty" protobuf:"bytes,2,rep,name=conditions" patchStrategy:"merge" patchMergeKey:"type"`
}

// NamespaceConditionType names a namespace condition.
type NamespaceConditionType string

// NamespaceCondition reports deletion progress.
type NamespaceCondition struct {
	// Type of the condition.
	Type NamespaceConditionType `json:"type" protobuf:"bytes,1,opt,name=type,casttype=NamespaceConditionType"`
	// Status is True, False or Unknown.
	Status ConditionStatus `json:"status" protobuf:"bytes,2,opt,name=status,casttype=ConditionStatus"`
	// LastTransitionTime is when Status last changed.
	LastTransitionTime Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,4,opt,name=lastTransitionTime"`
	// Reason is a CamelCase word.
	Reason string `json:"reason,omitempty" protobuf:"bytes,5,opt,name=reason"`
	// Message is for humans.
	Message string `json:"message,omitempty" protobuf:"bytes,6,opt,name=message"`
}

// NamespaceList is a list of namespaces.
type NamespaceList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the namespaces.
	Items []Namespace `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// --- Node ---

// Node is a machine that runs pods; in kubesim a fake kubelet.
type Node struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is what the node should be.
	Spec NodeSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is what the kubelet reports.
	Status NodeStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// NodeSpec holds scheduling settings of a node.
type NodeSpec struct {
	// Fields of the Kubernetes type that kubesim does not model, by their
	// protobuf numbers: the codec reads past them, and writes the zero value
	// of the ones Kubernetes always writes (the non-struct{} ones).
	_ string   `json:"-" protobuf:"bytes,2,opt,name=externalID"`
	_ struct{} `json:"-" protobuf:"bytes,6,opt,name=configSource"`
	_ struct{} `json:"-" protobuf:"bytes,8,opt,name=podPreemptionPolicy"`
	// PodCIDR is the pod address range of the node.
	PodCIDR string `json:"podCIDR,omitempty" protobuf:"bytes,1,opt,name=podCIDR"`
	// PodCIDRs are the pod address ranges, one per IP family.
	PodCIDRs []string `json:"podCIDRs,omitempty" protobuf:"bytes,7,opt,name=podCIDRs" patchStrategy:"merge"`
	// ProviderID is the cloud's id of the machine.
	ProviderID string `json:"providerID,omitempty" protobuf:"bytes,3,opt,name=providerID"`
	// Unschedulable keeps new pods off the node (kubectl cordon).
	Unschedulable bool `json:"unschedulable,omitempty" protobuf:"varint,4,opt,name=unschedulable"`
	// Taints repel pods that do not tolerate them.
	Taints []Taint `json:"taints,omitempty" protobuf:"bytes,5,opt,name=taints"`
}

// NodeStatus is what the kubelet reports about its node.
type NodeStatus struct {
	// Fields of the Kubernetes type that kubesim does not model, by their
	// protobuf numbers: the codec reads past them, and writes the zero value
	// of the ones Kubernetes always writes (the non-struct{} ones).
	_ struct{} `json:"-" protobuf:"bytes,9,rep,name=volumesInUse"`
	_ struct{} `json:"-" protobuf:"bytes,10,rep,name=volumesAttached"`
	_ struct{} `json:"-" protobuf:"bytes,11,opt,name=config"`
	_ struct{} `json:"-" protobuf:"bytes,12,rep,name=runtimeHandlers"`
	_ struct{} `json:"-" protobuf:"bytes,13,rep,name=features"`
	_ struct{} `json:"-" protobuf:"bytes,14,rep,name=declaredFeatures"`
	// Capacity is the total of each resource.
	Capacity ResourceList `json:"capacity,omitempty" protobuf:"bytes,1,rep,name=capacity,casttype=ResourceList,castkey=ResourceName"`
	// Allocatable is what pods may use.
	Allocatable ResourceList `json:"allocatable,omitempty" protobuf:"bytes,2,rep,name=allocatable,casttype=ResourceList,castkey=ResourceName"`
	// Phase is deprecated and unset.
	Phase NodePhase `json:"phase,omitempty" protobuf:"bytes,3,opt,name=phase,casttype=NodePhase"`
	// Conditions report health; Ready is the one that matters.
	Conditions []NodeCondition `json:"conditions,omitempty" protobuf:"bytes,4,rep,name=conditions" patchStrategy:"merge" patchMergeKey:"type"`
	// Addresses of the node.
	Addresses []NodeAddress `json:"addresses,omitempty" protobuf:"bytes,5,rep,name=addresses" patchStrategy:"merge" patchMergeKey:"type"`
	// DaemonEndpoints are the kubelet's ports.
	DaemonEndpoints NodeDaemonEndpoints `json:"daemonEndpoints,omitempty" protobuf:"bytes,6,opt,name=daemonEndpoints"`
	// NodeInfo describes the software on the node.
	NodeInfo NodeSystemInfo `json:"nodeInfo,omitempty" protobuf:"bytes,7,opt,name=nodeInfo"`
	// Images present on the node.
	Images []ContainerImage `json:"images,omitempty" protobuf:"bytes,8,rep,name=images"`
}

// NodePhase is the deprecated lifecycle phase of a node.
type NodePhase string

// NodeConditionType names a node condition.
type NodeConditionType string

// The node conditions.
const (
	NodeReady              NodeConditionType = "Ready"
	NodeMemoryPressure     NodeConditionType = "MemoryPressure"
	NodeDiskPressure       NodeConditionType = "DiskPressure"
	NodePIDPressure        NodeConditionType = "PIDPressure"
	NodeNetworkUnavailable NodeConditionType = "NetworkUnavailable"
)

// NodeCondition is one health report of a node.
type NodeCondition struct {
	// Type of the condition.
	Type NodeConditionType `json:"type" protobuf:"bytes,1,opt,name=type,casttype=NodeConditionType"`
	// Status is True, False or Unknown.
	Status ConditionStatus `json:"status" protobuf:"bytes,2,opt,name=status,casttype=ConditionStatus"`
	// LastHeartbeatTime is when the kubelet last confirmed the condition.
	LastHeartbeatTime Time `json:"lastHeartbeatTime,omitempty" protobuf:"bytes,3,opt,name=lastHeartbeatTime"`
	// LastTransitionTime is when Status last changed.
	LastTransitionTime Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,4,opt,name=lastTransitionTime"`
	// Reason is a CamelCase word, such as KubeletReady.
	Reason string `json:"reason,omitempty" protobuf:"bytes,5,opt,name=reason"`
	// Message is for humans.
	Message string `json:"message,omitempty" protobuf:"bytes,6,opt,name=message"`
}

// NodeAddressType is the kind of a node address.
type NodeAddressType string

// The node address types.
const (
	NodeHostName    NodeAddressType = "Hostname"
	NodeInternalIP  NodeAddressType = "InternalIP"
	NodeExternalIP  NodeAddressType = "ExternalIP"
	NodeInternalDNS NodeAddressType = "InternalDNS"
	NodeExternalDNS NodeAddressType = "ExternalDNS"
)

// NodeAddress is one address of a node.
type NodeAddress struct {
	// Type of the address.
	Type NodeAddressType `json:"type" protobuf:"bytes,1,opt,name=type,casttype=NodeAddressType"`
	// Address itself.
	Address string `json:"address" protobuf:"bytes,2,opt,name=address"`
}

// NodeDaemonEndpoints are the ports of daemons on the node.
type NodeDaemonEndpoints struct {
	// KubeletEndpoint is the kubelet's port.
	KubeletEndpoint DaemonEndpoint `json:"kubeletEndpoint,omitempty" protobuf:"bytes,1,opt,name=kubeletEndpoint"`
}

// DaemonEndpoint is a port; the capital P is Kubernetes' own.
type DaemonEndpoint struct {
	// Port number.
	Port int32 `json:"Port" protobuf:"varint,1,opt,name=Port"`
}

// NodeSystemInfo describes the software of a node.
type NodeSystemInfo struct {
	// Fields of the Kubernetes type that kubesim does not model, by their
	// protobuf numbers: the codec reads past them, and writes the zero value
	// of the ones Kubernetes always writes (the non-struct{} ones).
	_                       struct{} `json:"-" protobuf:"bytes,11,opt,name=swap"`
	_                       struct{} `json:"-" protobuf:"varint,12,opt,name=runningInUserNamespace"`
	MachineID               string   `json:"machineID" protobuf:"bytes,1,opt,name=machineID"`
	SystemUUID              string   `json:"systemUUID" protobuf:"bytes,2,opt,name=systemUUID"`
	BootID                  string   `json:"bootID" protobuf:"bytes,3,opt,name=bootID"`
	KernelVersion           string   `json:"kernelVersion" protobuf:"bytes,4,opt,name=kernelVersion"`
	OSImage                 string   `json:"osImage" protobuf:"bytes,5,opt,name=osImage"`
	ContainerRuntimeVersion string   `json:"containerRuntimeVersion" protobuf:"bytes,6,opt,name=containerRuntimeVersion"`
	KubeletVersion          string   `json:"kubeletVersion" protobuf:"bytes,7,opt,name=kubeletVersion"`
	KubeProxyVersion        string   `json:"kubeProxyVersion" protobuf:"bytes,8,opt,name=kubeProxyVersion"`
	OperatingSystem         string   `json:"operatingSystem" protobuf:"bytes,9,opt,name=operatingSystem"`
	Architecture            string   `json:"architecture" protobuf:"bytes,10,opt,name=architecture"`
}

// ContainerImage is an image present on a node.
type ContainerImage struct {
	// Names of the image (tags and digests).
	Names []string `json:"names" protobuf:"bytes,1,rep,name=names"`
	// SizeBytes is the image size.
	SizeBytes int64 `json:"sizeBytes,omitempty" protobuf:"varint,2,opt,name=sizeBytes"`
}

// NodeList is a list of nodes.
type NodeList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the nodes.
	Items []Node `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// TaintEffect says what a taint does to pods that do not tolerate it.
type TaintEffect string

// The taint effects.
const (
	TaintEffectNoSchedule       TaintEffect = "NoSchedule"
	TaintEffectPreferNoSchedule TaintEffect = "PreferNoSchedule"
	TaintEffectNoExecute        TaintEffect = "NoExecute"
)

// Taint repels pods from a node.
type Taint struct {
	// Key of the taint.
	Key string `json:"key" protobuf:"bytes,1,opt,name=key"`
	// Value of the taint.
	Value string `json:"value,omitempty" protobuf:"bytes,2,opt,name=value"`
	// Effect on pods that do not tolerate it.
	Effect TaintEffect `json:"effect" protobuf:"bytes,3,opt,name=effect,casttype=TaintEffect"`
	// TimeAdded is set for NoExecute taints.
	TimeAdded *Time `json:"timeAdded,omitempty" protobuf:"bytes,4,opt,name=timeAdded"`
}

// TolerationOperator is Exists or Equal.
type TolerationOperator string

// The toleration operators.
const (
	TolerationOpExists TolerationOperator = "Exists"
	TolerationOpEqual  TolerationOperator = "Equal"
)

// Toleration lets a pod ignore a taint.
type Toleration struct {
	// Key of the taint; empty with Exists tolerates everything.
	Key string `json:"key,omitempty" protobuf:"bytes,1,opt,name=key"`
	// Operator is Exists or Equal (the default).
	Operator TolerationOperator `json:"operator,omitempty" protobuf:"bytes,2,opt,name=operator,casttype=TolerationOperator"`
	// Value to match with Equal.
	Value string `json:"value,omitempty" protobuf:"bytes,3,opt,name=value"`
	// Effect to match; empty matches all.
	Effect TaintEffect `json:"effect,omitempty" protobuf:"bytes,4,opt,name=effect,casttype=TaintEffect"`
	// TolerationSeconds bounds how long a NoExecute taint is tolerated.
	TolerationSeconds *int64 `json:"tolerationSeconds,omitempty" protobuf:"varint,5,opt,name=tolerationSeconds"`
}

// --- Pod ---

// Pod is a group of containers run together on one node.
type Pod struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the desired pod.
	Spec PodSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is what the kubelet reports.
	Status PodStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// PodList is a list of pods.
type PodList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the pods.
	Items []Pod `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// PodTemplateSpec is the pod a controller creates copies of.
type PodTemplateSpec struct {
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec of the pods.
	Spec PodSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
}

// PodSpec describes a pod.
type PodSpec struct {
	// Fields of the Kubernetes type that kubesim does not model, by their
	// protobuf numbers: the codec reads past them, and writes the zero value
	// of the ones Kubernetes always writes (the non-struct{} ones).
	_ struct{} `json:"-" protobuf:"bytes,23,rep,name=hostAliases"`
	_ struct{} `json:"-" protobuf:"bytes,26,opt,name=dnsConfig"`
	_ struct{} `json:"-" protobuf:"bytes,28,opt,name=readinessGates"`
	_ struct{} `json:"-" protobuf:"bytes,29,opt,name=runtimeClassName"`
	_ struct{} `json:"-" protobuf:"bytes,32,opt,name=overhead"`
	_ struct{} `json:"-" protobuf:"bytes,33,opt,name=topologySpreadConstraints"`
	_ struct{} `json:"-" protobuf:"varint,35,opt,name=setHostnameAsFQDN"`
	_ struct{} `json:"-" protobuf:"bytes,36,opt,name=os"`
	_ struct{} `json:"-" protobuf:"bytes,37,opt,name=hostUsers"`
	_ struct{} `json:"-" protobuf:"bytes,38,opt,name=schedulingGates"`
	_ struct{} `json:"-" protobuf:"bytes,39,rep,name=resourceClaims"`
	_ struct{} `json:"-" protobuf:"bytes,40,opt,name=resources"`
	_ struct{} `json:"-" protobuf:"bytes,41,opt,name=hostnameOverride"`
	_ struct{} `json:"-" protobuf:"bytes,43,opt,name=schedulingGroup"`
	_ struct{} `json:"-" protobuf:"bytes,44,rep,name=evictionResponders"`
	// Volumes the containers can mount.
	Volumes []Volume `json:"volumes,omitempty" protobuf:"bytes,1,rep,name=volumes" patchStrategy:"merge,retainKeys" patchMergeKey:"name"`
	// InitContainers run to completion, in order, before the containers.
	InitContainers []Container `json:"initContainers,omitempty" protobuf:"bytes,20,rep,name=initContainers" patchStrategy:"merge" patchMergeKey:"name"`
	// Containers run for the life of the pod.
	Containers []Container `json:"containers" protobuf:"bytes,2,rep,name=containers" patchStrategy:"merge" patchMergeKey:"name"`
	// RestartPolicy is Always, OnFailure or Never.
	RestartPolicy RestartPolicy `json:"restartPolicy,omitempty" protobuf:"bytes,3,opt,name=restartPolicy,casttype=RestartPolicy"`
	// TerminationGracePeriodSeconds is how long containers get to stop.
	TerminationGracePeriodSeconds *int64 `json:"terminationGracePeriodSeconds,omitempty" protobuf:"varint,4,opt,name=terminationGracePeriodSeconds"`
	// ActiveDeadlineSeconds bounds the pod's run time.
	ActiveDeadlineSeconds *int64 `json:"activeDeadlineSeconds,omitempty" protobuf:"varint,5,opt,name=activeDeadlineSeconds"`
	// DNSPolicy is ClusterFirst by default.
	DNSPolicy DNSPolicy `json:"dnsPolicy,omitempty" protobuf:"bytes,6,opt,name=dnsPolicy,casttype=DNSPolicy"`
	// NodeSelector restricts the pod to nodes with these labels.
	NodeSelector map[string]string `json:"nodeSelector,omitempty" protobuf:"bytes,7,rep,name=nodeSelector"`
	// ServiceAccountName is the identity of the pod.
	ServiceAccountName string `json:"serviceAccountName,omitempty" protobuf:"bytes,8,opt,name=serviceAccountName"`
	// DeprecatedServiceAccount is the old name of ServiceAccountName.
	DeprecatedServiceAccount string `json:"serviceAccount,omitempty" protobuf:"bytes,9,opt,name=serviceAccount"`
	// AutomountServiceAccountToken controls the token volume.
	AutomountServiceAccountToken *bool `json:"automountServiceAccountToken,omitempty" protobuf:"varint,21,opt,name=automountServiceAccountToken"`
	// NodeName is set by the scheduler's binding.
	NodeName string `json:"nodeName,omitempty" protobuf:"bytes,10,opt,name=nodeName"`
	// HostNetwork uses the node's network namespace.
	HostNetwork bool `json:"hostNetwork,omitempty" protobuf:"varint,11,opt,name=hostNetwork"`
	// HostPID and HostIPC use the node's process and IPC namespaces
	// (kubectl debug node/NAME sets both; the simulation only records them).
	HostPID bool `json:"hostPID,omitempty" protobuf:"varint,12,opt,name=hostPID"`
	HostIPC bool `json:"hostIPC,omitempty" protobuf:"varint,13,opt,name=hostIPC"`
	// ShareProcessNamespace puts the containers in one process namespace
	// (kubectl debug --copy-to sets it; recorded only).
	ShareProcessNamespace *bool `json:"shareProcessNamespace,omitempty" protobuf:"varint,27,opt,name=shareProcessNamespace"`
	// EphemeralContainers were added to the running pod through its
	// ephemeralcontainers subresource (kubectl debug); never on create
	// (ephemeral.go).
	EphemeralContainers []EphemeralContainer `json:"ephemeralContainers,omitempty" protobuf:"bytes,34,rep,name=ephemeralContainers" patchStrategy:"merge" patchMergeKey:"name"`
	// SecurityContext applies to all containers.
	SecurityContext *PodSecurityContext `json:"securityContext,omitempty" protobuf:"bytes,14,opt,name=securityContext"`
	// ImagePullSecrets are registry credentials.
	ImagePullSecrets []LocalObjectReference `json:"imagePullSecrets,omitempty" protobuf:"bytes,15,rep,name=imagePullSecrets" patchStrategy:"merge" patchMergeKey:"name"`
	// Hostname of the pod; the pod name by default.
	Hostname string `json:"hostname,omitempty" protobuf:"bytes,16,opt,name=hostname"`
	// Subdomain makes the pod <hostname>.<subdomain>.<ns>.svc.
	Subdomain string `json:"subdomain,omitempty" protobuf:"bytes,17,opt,name=subdomain"`
	// SchedulerName picks the scheduler; default-scheduler by default.
	SchedulerName string `json:"schedulerName,omitempty" protobuf:"bytes,19,opt,name=schedulerName"`
	// Affinity holds the pod's node affinity (the DaemonSet controller
	// pins its pods to their node with it).
	Affinity *Affinity `json:"affinity,omitempty" protobuf:"bytes,18,opt,name=affinity"`
	// Tolerations of taints.
	Tolerations []Toleration `json:"tolerations,omitempty" protobuf:"bytes,22,opt,name=tolerations"`
	// PriorityClassName names the pod's priority class.
	PriorityClassName string `json:"priorityClassName,omitempty" protobuf:"bytes,24,opt,name=priorityClassName"`
	// Priority is resolved from PriorityClassName at admission.
	Priority *int32 `json:"priority,omitempty" protobuf:"bytes,25,opt,name=priority"`
	// EnableServiceLinks injects service environment variables.
	EnableServiceLinks *bool `json:"enableServiceLinks,omitempty" protobuf:"varint,30,opt,name=enableServiceLinks"`
	// PreemptionPolicy is PreemptLowerPriority or Never.
	PreemptionPolicy *PreemptionPolicy `json:"preemptionPolicy,omitempty" protobuf:"bytes,31,opt,name=preemptionPolicy"`
}

// ContainerRestartPolicy is a container's own restart policy: Always,
// for a sidecar init container.
type ContainerRestartPolicy string

// ContainerRestartPolicyAlways makes an init container a sidecar.
const ContainerRestartPolicyAlways ContainerRestartPolicy = "Always"

// RestartPolicy says when the kubelet restarts containers.
type RestartPolicy string

// The restart policies.
const (
	RestartPolicyAlways    RestartPolicy = "Always"
	RestartPolicyOnFailure RestartPolicy = "OnFailure"
	RestartPolicyNever     RestartPolicy = "Never"
)

// DNSPolicy says how the pod resolves names.
type DNSPolicy string

// The DNS policies.
const (
	DNSClusterFirstWithHostNet DNSPolicy = "ClusterFirstWithHostNet"
	DNSClusterFirst            DNSPolicy = "ClusterFirst"
	DNSDefault                 DNSPolicy = "Default"
	DNSNone                    DNSPolicy = "None"
)

// PreemptionPolicy says whether a pod may preempt others.
type PreemptionPolicy string

// The preemption policies.
const (
	PreemptLowerPriority PreemptionPolicy = "PreemptLowerPriority"
	PreemptNever         PreemptionPolicy = "Never"
)

// DefaultSchedulerName is the scheduler of pods that name none.
const DefaultSchedulerName = "default-scheduler"

// PodSecurityContext holds pod-wide security settings.
type PodSecurityContext struct {
	// Fields of the Kubernetes type that kubesim does not model, by their
	// protobuf numbers: the codec reads past them, and writes the zero value
	// of the ones Kubernetes always writes (the non-struct{} ones).
	_            struct{} `json:"-" protobuf:"bytes,1,opt,name=seLinuxOptions"`
	_            struct{} `json:"-" protobuf:"bytes,7,rep,name=sysctls"`
	_            struct{} `json:"-" protobuf:"bytes,8,opt,name=windowsOptions"`
	_            struct{} `json:"-" protobuf:"bytes,9,opt,name=fsGroupChangePolicy"`
	_            struct{} `json:"-" protobuf:"bytes,10,opt,name=seccompProfile"`
	_            struct{} `json:"-" protobuf:"bytes,11,opt,name=appArmorProfile"`
	_            struct{} `json:"-" protobuf:"bytes,12,opt,name=supplementalGroupsPolicy"`
	_            struct{} `json:"-" protobuf:"bytes,13,opt,name=seLinuxChangePolicy"`
	RunAsUser    *int64   `json:"runAsUser,omitempty" protobuf:"varint,2,opt,name=runAsUser"`
	RunAsGroup   *int64   `json:"runAsGroup,omitempty" protobuf:"varint,6,opt,name=runAsGroup"`
	RunAsNonRoot *bool    `json:"runAsNonRoot,omitempty" protobuf:"varint,3,opt,name=runAsNonRoot"`
	FSGroup      *int64   `json:"fsGroup,omitempty" protobuf:"varint,5,opt,name=fsGroup"`
	// SupplementalGroups are added to every container's process.
	SupplementalGroups []int64 `json:"supplementalGroups,omitempty" protobuf:"varint,4,rep,name=supplementalGroups"`
}

// SecurityContext holds a container's security settings.
type SecurityContext struct {
	// Fields of the Kubernetes type that kubesim does not model, by their
	// protobuf numbers: the codec reads past them, and writes the zero value
	// of the ones Kubernetes always writes (the non-struct{} ones).
	_                        struct{}      `json:"-" protobuf:"bytes,3,opt,name=seLinuxOptions"`
	_                        struct{}      `json:"-" protobuf:"bytes,9,opt,name=procMount"`
	_                        struct{}      `json:"-" protobuf:"bytes,10,opt,name=windowsOptions"`
	_                        struct{}      `json:"-" protobuf:"bytes,11,opt,name=seccompProfile"`
	_                        struct{}      `json:"-" protobuf:"bytes,12,opt,name=appArmorProfile"`
	Capabilities             *Capabilities `json:"capabilities,omitempty" protobuf:"bytes,1,opt,name=capabilities"`
	Privileged               *bool         `json:"privileged,omitempty" protobuf:"varint,2,opt,name=privileged"`
	RunAsUser                *int64        `json:"runAsUser,omitempty" protobuf:"varint,4,opt,name=runAsUser"`
	RunAsGroup               *int64        `json:"runAsGroup,omitempty" protobuf:"varint,8,opt,name=runAsGroup"`
	RunAsNonRoot             *bool         `json:"runAsNonRoot,omitempty" protobuf:"varint,5,opt,name=runAsNonRoot"`
	ReadOnlyRootFilesystem   *bool         `json:"readOnlyRootFilesystem,omitempty" protobuf:"varint,6,opt,name=readOnlyRootFilesystem"`
	AllowPrivilegeEscalation *bool         `json:"allowPrivilegeEscalation,omitempty" protobuf:"varint,7,opt,name=allowPrivilegeEscalation"`
}

// Capability is a POSIX capability such as NET_ADMIN.
type Capability string

// Capabilities to add and drop.
type Capabilities struct {
	Add  []Capability `json:"add,omitempty" protobuf:"bytes,1,rep,name=add,casttype=Capability"`
	Drop []Capability `json:"drop,omitempty" protobuf:"bytes,2,rep,name=drop,casttype=Capability"`
}

// Container is one process of a pod.
type Container struct {
	// Fields of the Kubernetes type that kubesim does not model, by their
	// protobuf numbers: the codec reads past them, and writes the zero value
	// of the ones Kubernetes always writes (the non-struct{} ones).
	_ struct{} `json:"-" protobuf:"bytes,12,opt,name=lifecycle"`
	_ struct{} `json:"-" protobuf:"bytes,21,rep,name=volumeDevices"`
	_ struct{} `json:"-" protobuf:"bytes,23,rep,name=resizePolicy"`
	_ struct{} `json:"-" protobuf:"bytes,25,rep,name=restartPolicyRules"`
	// RestartPolicy, only on an init container and only Always, makes it
	// a sidecar: started in order before the containers, kept running
	// beside them and restarted whenever it exits.
	RestartPolicy *ContainerRestartPolicy `json:"restartPolicy,omitempty" protobuf:"bytes,24,opt,name=restartPolicy,casttype=ContainerRestartPolicy"`
	// Name is unique within the pod.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// Image reference.
	Image string `json:"image,omitempty" protobuf:"bytes,2,opt,name=image"`
	// Command replaces the image's entrypoint.
	Command []string `json:"command,omitempty" protobuf:"bytes,3,rep,name=command"`
	// Args replace the image's cmd.
	Args []string `json:"args,omitempty" protobuf:"bytes,4,rep,name=args"`
	// WorkingDir of the process.
	WorkingDir string `json:"workingDir,omitempty" protobuf:"bytes,5,opt,name=workingDir"`
	// Ports the container listens on (informational).
	Ports []ContainerPort `json:"ports,omitempty" protobuf:"bytes,6,rep,name=ports" patchStrategy:"merge" patchMergeKey:"containerPort"`
	// EnvFrom imports whole ConfigMaps and Secrets.
	EnvFrom []EnvFromSource `json:"envFrom,omitempty" protobuf:"bytes,19,rep,name=envFrom"`
	// Env sets environment variables.
	Env []EnvVar `json:"env,omitempty" protobuf:"bytes,7,rep,name=env" patchStrategy:"merge" patchMergeKey:"name"`
	// Resources requested and limited.
	Resources ResourceRequirements `json:"resources,omitempty" protobuf:"bytes,8,opt,name=resources"`
	// VolumeMounts of pod volumes.
	VolumeMounts []VolumeMount `json:"volumeMounts,omitempty" protobuf:"bytes,9,rep,name=volumeMounts" patchStrategy:"merge" patchMergeKey:"mountPath"`
	// LivenessProbe restarts the container when it fails.
	LivenessProbe *Probe `json:"livenessProbe,omitempty" protobuf:"bytes,10,opt,name=livenessProbe"`
	// ReadinessProbe gates the pod's Ready condition.
	ReadinessProbe *Probe `json:"readinessProbe,omitempty" protobuf:"bytes,11,opt,name=readinessProbe"`
	// StartupProbe holds the other probes until it succeeds.
	StartupProbe *Probe `json:"startupProbe,omitempty" protobuf:"bytes,22,opt,name=startupProbe"`
	// TerminationMessagePath is where the process writes its last words.
	TerminationMessagePath string `json:"terminationMessagePath,omitempty" protobuf:"bytes,13,opt,name=terminationMessagePath"`
	// TerminationMessagePolicy is File or FallbackToLogsOnError.
	TerminationMessagePolicy TerminationMessagePolicy `json:"terminationMessagePolicy,omitempty" protobuf:"bytes,20,opt,name=terminationMessagePolicy,casttype=TerminationMessagePolicy"`
	// ImagePullPolicy is Always, Never or IfNotPresent.
	ImagePullPolicy PullPolicy `json:"imagePullPolicy,omitempty" protobuf:"bytes,14,opt,name=imagePullPolicy,casttype=PullPolicy"`
	// SecurityContext of the container.
	SecurityContext *SecurityContext `json:"securityContext,omitempty" protobuf:"bytes,15,opt,name=securityContext"`
	// Stdin keeps a stdin open.
	Stdin bool `json:"stdin,omitempty" protobuf:"varint,16,opt,name=stdin"`
	// StdinOnce closes stdin after the first attach.
	StdinOnce bool `json:"stdinOnce,omitempty" protobuf:"varint,17,opt,name=stdinOnce"`
	// TTY allocates a terminal.
	TTY bool `json:"tty,omitempty" protobuf:"varint,18,opt,name=tty"`
}

// TerminationMessagePolicy says where the termination message comes from.
type TerminationMessagePolicy string

// The termination message policies.
const (
	TerminationMessageReadFile              TerminationMessagePolicy = "File"
	TerminationMessageFallbackToLogsOnError TerminationMessagePolicy = "FallbackToLogsOnError"
)

// PullPolicy says when to pull an image.
type PullPolicy string

// The pull policies.
const (
	PullAlways       PullPolicy = "Always"
	PullNever        PullPolicy = "Never"
	PullIfNotPresent PullPolicy = "IfNotPresent"
)

// Protocol is a network protocol.
type Protocol string

// The protocols.
const (
	ProtocolTCP  Protocol = "TCP"
	ProtocolUDP  Protocol = "UDP"
	ProtocolSCTP Protocol = "SCTP"
)

// ContainerPort is a port a container listens on.
type ContainerPort struct {
	// Name can be referenced by services.
	Name string `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
	// HostPort exposes the port on the node.
	HostPort int32 `json:"hostPort,omitempty" protobuf:"varint,2,opt,name=hostPort"`
	// ContainerPort is the port number.
	ContainerPort int32 `json:"containerPort" protobuf:"varint,3,opt,name=containerPort"`
	// Protocol is TCP by default.
	Protocol Protocol `json:"protocol,omitempty" protobuf:"bytes,4,opt,name=protocol,casttype=Protocol"`
	// HostIP binds the host port.
	HostIP string `json:"hostIP,omitempty" protobuf:"bytes,5,opt,name=hostIP"`
}

// EnvVar is one environment variable.
type EnvVar struct {
	// Name of the variable.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// Value, with $(VAR) references expanded.
	Value string `json:"value,omitempty" protobuf:"bytes,2,opt,name=value"`
	// ValueFrom takes the value from elsewhere.
	ValueFrom *EnvVarSource `json:"valueFrom,omitempty" protobuf:"bytes,3,opt,name=valueFrom"`
}

// EnvVarSource is where a variable's value comes from.
type EnvVarSource struct {
	// Fields of the Kubernetes type that kubesim does not model, by their
	// protobuf numbers: the codec reads past them, and writes the zero value
	// of the ones Kubernetes always writes (the non-struct{} ones).
	_                struct{}               `json:"-" protobuf:"bytes,5,opt,name=fileKeyRef"`
	FieldRef         *ObjectFieldSelector   `json:"fieldRef,omitempty" protobuf:"bytes,1,opt,name=fieldRef"`
	ResourceFieldRef *ResourceFieldSelector `json:"resourceFieldRef,omitempty" protobuf:"bytes,2,opt,name=resourceFieldRef"`
	ConfigMapKeyRef  *ConfigMapKeySelector  `json:"configMapKeyRef,omitempty" protobuf:"bytes,3,opt,name=configMapKeyRef"`
	SecretKeyRef     *SecretKeySelector     `json:"secretKeyRef,omitempty" protobuf:"bytes,4,opt,name=secretKeyRef"`
}

// ObjectFieldSelector selects a field of the pod, such as metadata.name.
type ObjectFieldSelector struct {
	APIVersion string `json:"apiVersion,omitempty" protobuf:"bytes,1,opt,name=apiVersion"`
	FieldPath  string `json:"fieldPath" protobuf:"bytes,2,opt,name=fieldPath"`
}

// ResourceFieldSelector selects a container's request or limit.
type ResourceFieldSelector struct {
	ContainerName string            `json:"containerName,omitempty" protobuf:"bytes,1,opt,name=containerName"`
	Resource      string            `json:"resource" protobuf:"bytes,2,opt,name=resource"`
	Divisor       resource.Quantity `json:"divisor,omitempty" protobuf:"bytes,3,opt,name=divisor"`
}

// ConfigMapKeySelector selects a key of a ConfigMap.
type ConfigMapKeySelector struct {
	LocalObjectReference `json:",inline" protobuf:"bytes,1,opt,name=localObjectReference"`
	Key                  string `json:"key" protobuf:"bytes,2,opt,name=key"`
	Optional             *bool  `json:"optional,omitempty" protobuf:"varint,3,opt,name=optional"`
}

// SecretKeySelector selects a key of a Secret.
type SecretKeySelector struct {
	LocalObjectReference `json:",inline" protobuf:"bytes,1,opt,name=localObjectReference"`
	Key                  string `json:"key" protobuf:"bytes,2,opt,name=key"`
	Optional             *bool  `json:"optional,omitempty" protobuf:"varint,3,opt,name=optional"`
}

// EnvFromSource imports all keys of a ConfigMap or Secret.
type EnvFromSource struct {
	Prefix       string              `json:"prefix,omitempty" protobuf:"bytes,1,opt,name=prefix"`
	ConfigMapRef *ConfigMapEnvSource `json:"configMapRef,omitempty" protobuf:"bytes,2,opt,name=configMapRef"`
	SecretRef    *SecretEnvSource    `json:"secretRef,omitempty" protobuf:"bytes,3,opt,name=secretRef"`
}

// ConfigMapEnvSource names a ConfigMap to import.
type ConfigMapEnvSource struct {
	LocalObjectReference `json:",inline" protobuf:"bytes,1,opt,name=localObjectReference"`
	Optional             *bool `json:"optional,omitempty" protobuf:"varint,2,opt,name=optional"`
}

// SecretEnvSource names a Secret to import.
type SecretEnvSource struct {
	LocalObjectReference `json:",inline" protobuf:"bytes,1,opt,name=localObjectReference"`
	Optional             *bool `json:"optional,omitempty" protobuf:"varint,2,opt,name=optional"`
}

// ResourceRequirements are a container's requests and limits.
type ResourceRequirements struct {
	// Fields of the Kubernetes type that kubesim does not model, by their
	// protobuf numbers: the codec reads past them, and writes the zero value
	// of the ones Kubernetes always writes (the non-struct{} ones).
	_ struct{} `json:"-" protobuf:"bytes,3,opt,name=claims"`
	// Limits cap usage.
	Limits ResourceList `json:"limits,omitempty" protobuf:"bytes,1,rep,name=limits,casttype=ResourceList,castkey=ResourceName"`
	// Requests are what the scheduler reserves.
	Requests ResourceList `json:"requests,omitempty" protobuf:"bytes,2,rep,name=requests,casttype=ResourceList,castkey=ResourceName"`
}

// VolumeMount mounts a volume into a container.
type VolumeMount struct {
	// Fields of the Kubernetes type that kubesim does not model, by their
	// protobuf numbers: the codec reads past them, and writes the zero value
	// of the ones Kubernetes always writes (the non-struct{} ones).
	_         struct{} `json:"-" protobuf:"bytes,5,opt,name=mountPropagation,casttype=MountPropagationMode"`
	_         string   `json:"-" protobuf:"bytes,6,opt,name=subPathExpr"`
	_         struct{} `json:"-" protobuf:"bytes,7,opt,name=recursiveReadOnly,casttype=RecursiveReadOnlyMode"`
	_         struct{} `json:"-" protobuf:"bytes,8,rep,name=bindMountOptions"`
	Name      string   `json:"name" protobuf:"bytes,1,opt,name=name"`
	ReadOnly  bool     `json:"readOnly,omitempty" protobuf:"varint,2,opt,name=readOnly"`
	MountPath string   `json:"mountPath" protobuf:"bytes,3,opt,name=mountPath"`
	SubPath   string   `json:"subPath,omitempty" protobuf:"bytes,4,opt,name=subPath"`
}

// Probe is a health check.
type Probe struct {
	ProbeHandler                  `json:",inline" protobuf:"bytes,1,opt,name=handler"`
	InitialDelaySeconds           int32  `json:"initialDelaySeconds,omitempty" protobuf:"varint,2,opt,name=initialDelaySeconds"`
	TimeoutSeconds                int32  `json:"timeoutSeconds,omitempty" protobuf:"varint,3,opt,name=timeoutSeconds"`
	PeriodSeconds                 int32  `json:"periodSeconds,omitempty" protobuf:"varint,4,opt,name=periodSeconds"`
	SuccessThreshold              int32  `json:"successThreshold,omitempty" protobuf:"varint,5,opt,name=successThreshold"`
	FailureThreshold              int32  `json:"failureThreshold,omitempty" protobuf:"varint,6,opt,name=failureThreshold"`
	TerminationGracePeriodSeconds *int64 `json:"terminationGracePeriodSeconds,omitempty" protobuf:"varint,7,opt,name=terminationGracePeriodSeconds"`
}

// ProbeHandler is how a probe checks: one of the three.
type ProbeHandler struct {
	// Fields of the Kubernetes type that kubesim does not model, by their
	// protobuf numbers: the codec reads past them, and writes the zero value
	// of the ones Kubernetes always writes (the non-struct{} ones).
	_         struct{}         `json:"-" protobuf:"bytes,4,opt,name=grpc"`
	Exec      *ExecAction      `json:"exec,omitempty" protobuf:"bytes,1,opt,name=exec"`
	HTTPGet   *HTTPGetAction   `json:"httpGet,omitempty" protobuf:"bytes,2,opt,name=httpGet"`
	TCPSocket *TCPSocketAction `json:"tcpSocket,omitempty" protobuf:"bytes,3,opt,name=tcpSocket"`
}

// ExecAction runs a command.
type ExecAction struct {
	Command []string `json:"command,omitempty" protobuf:"bytes,1,rep,name=command"`
}

// HTTPGetAction sends a GET.
type HTTPGetAction struct {
	// Fields of the Kubernetes type that kubesim does not model, by their
	// protobuf numbers: the codec reads past them, and writes the zero value
	// of the ones Kubernetes always writes (the non-struct{} ones).
	_           struct{}           `json:"-" protobuf:"bytes,6,opt,name=protocol,casttype=HTTPProtocol"`
	Path        string             `json:"path,omitempty" protobuf:"bytes,1,opt,name=path"`
	Port        intstr.IntOrString `json:"port" protobuf:"bytes,2,opt,name=port"`
	Host        string             `json:"host,omitempty" protobuf:"bytes,3,opt,name=host"`
	Scheme      URIScheme          `json:"scheme,omitempty" protobuf:"bytes,4,opt,name=scheme,casttype=URIScheme"`
	HTTPHeaders []HTTPHeader       `json:"httpHeaders,omitempty" protobuf:"bytes,5,rep,name=httpHeaders"`
}

// URIScheme is HTTP or HTTPS.
type URIScheme string

// HTTPHeader is one request header.
type HTTPHeader struct {
	Name  string `json:"name" protobuf:"bytes,1,opt,name=name"`
	Value string `json:"value" protobuf:"bytes,2,opt,name=value"`
}

// TCPSocketAction opens a connection.
type TCPSocketAction struct {
	Port intstr.IntOrString `json:"port" protobuf:"bytes,1,opt,name=port"`
	Host string             `json:"host,omitempty" protobuf:"bytes,2,opt,name=host"`
}

// Volume is a named volume of a pod.
type Volume struct {
	// Name is referenced by volumeMounts.
	Name         string `json:"name" protobuf:"bytes,1,opt,name=name"`
	VolumeSource `json:",inline" protobuf:"bytes,2,opt,name=volumeSource"`
}

// VolumeSource is where a volume's data comes from: exactly one field.
type VolumeSource struct {
	// Fields of the Kubernetes type that kubesim does not model, by their
	// protobuf numbers: the codec reads past them, and writes the zero value
	// of the ones Kubernetes always writes (the non-struct{} ones).
	_                     struct{}                           `json:"-" protobuf:"bytes,3,opt,name=gcePersistentDisk"`
	_                     struct{}                           `json:"-" protobuf:"bytes,4,opt,name=awsElasticBlockStore"`
	_                     struct{}                           `json:"-" protobuf:"bytes,5,opt,name=gitRepo"`
	_                     struct{}                           `json:"-" protobuf:"bytes,7,opt,name=nfs"`
	_                     struct{}                           `json:"-" protobuf:"bytes,8,opt,name=iscsi"`
	_                     struct{}                           `json:"-" protobuf:"bytes,9,opt,name=glusterfs"`
	_                     struct{}                           `json:"-" protobuf:"bytes,11,opt,name=rbd"`
	_                     struct{}                           `json:"-" protobuf:"bytes,12,opt,name=flexVolume"`
	_                     struct{}                           `json:"-" protobuf:"bytes,13,opt,name=cinder"`
	_                     struct{}                           `json:"-" protobuf:"bytes,14,opt,name=cephfs"`
	_                     struct{}                           `json:"-" protobuf:"bytes,15,opt,name=flocker"`
	_                     struct{}                           `json:"-" protobuf:"bytes,17,opt,name=fc"`
	_                     struct{}                           `json:"-" protobuf:"bytes,18,opt,name=azureFile"`
	_                     struct{}                           `json:"-" protobuf:"bytes,20,opt,name=vsphereVolume"`
	_                     struct{}                           `json:"-" protobuf:"bytes,21,opt,name=quobyte"`
	_                     struct{}                           `json:"-" protobuf:"bytes,22,opt,name=azureDisk"`
	_                     struct{}                           `json:"-" protobuf:"bytes,23,opt,name=photonPersistentDisk"`
	_                     struct{}                           `json:"-" protobuf:"bytes,24,opt,name=portworxVolume"`
	_                     struct{}                           `json:"-" protobuf:"bytes,25,opt,name=scaleIO"`
	_                     struct{}                           `json:"-" protobuf:"bytes,27,opt,name=storageos"`
	_                     struct{}                           `json:"-" protobuf:"bytes,28,opt,name=csi"`
	_                     struct{}                           `json:"-" protobuf:"bytes,29,opt,name=ephemeral"`
	_                     struct{}                           `json:"-" protobuf:"bytes,30,opt,name=image"`
	HostPath              *HostPathVolumeSource              `json:"hostPath,omitempty" protobuf:"bytes,1,opt,name=hostPath"`
	EmptyDir              *EmptyDirVolumeSource              `json:"emptyDir,omitempty" protobuf:"bytes,2,opt,name=emptyDir"`
	Secret                *SecretVolumeSource                `json:"secret,omitempty" protobuf:"bytes,6,opt,name=secret"`
	PersistentVolumeClaim *PersistentVolumeClaimVolumeSource `json:"persistentVolumeClaim,omitempty" protobuf:"bytes,10,opt,name=persistentVolumeClaim"`
	DownwardAPI           *DownwardAPIVolumeSource           `json:"downwardAPI,omitempty" protobuf:"bytes,16,opt,name=downwardAPI"`
	ConfigMap             *ConfigMapVolumeSource             `json:"configMap,omitempty" protobuf:"bytes,19,opt,name=configMap"`
	Projected             *ProjectedVolumeSource             `json:"projected,omitempty" protobuf:"bytes,26,opt,name=projected"`
}

// HostPathVolumeSource mounts a directory of the node.
type HostPathVolumeSource struct {
	Path string  `json:"path" protobuf:"bytes,1,opt,name=path"`
	Type *string `json:"type,omitempty" protobuf:"bytes,2,opt,name=type"`
}

// EmptyDirVolumeSource is a scratch directory.
type EmptyDirVolumeSource struct {
	// Fields of the Kubernetes type that kubesim does not model, by their
	// protobuf numbers: the codec reads past them, and writes the zero value
	// of the ones Kubernetes always writes (the non-struct{} ones).
	_         struct{}           `json:"-" protobuf:"varint,3,opt,name=mode"`
	Medium    string             `json:"medium,omitempty" protobuf:"bytes,1,opt,name=medium,casttype=StorageMedium"`
	SizeLimit *resource.Quantity `json:"sizeLimit,omitempty" protobuf:"bytes,2,opt,name=sizeLimit"`
}

// SecretVolumeSource mounts a Secret's keys as files.
type SecretVolumeSource struct {
	// Fields of the Kubernetes type that kubesim does not model, by their
	// protobuf numbers: the codec reads past them, and writes the zero value
	// of the ones Kubernetes always writes (the non-struct{} ones).
	_           struct{}    `json:"-" protobuf:"varint,5,opt,name=defaultUser"`
	SecretName  string      `json:"secretName,omitempty" protobuf:"bytes,1,opt,name=secretName"`
	Items       []KeyToPath `json:"items,omitempty" protobuf:"bytes,2,rep,name=items"`
	DefaultMode *int32      `json:"defaultMode,omitempty" protobuf:"bytes,3,opt,name=defaultMode"`
	Optional    *bool       `json:"optional,omitempty" protobuf:"varint,4,opt,name=optional"`
}

// ConfigMapVolumeSource mounts a ConfigMap's keys as files.
type ConfigMapVolumeSource struct {
	LocalObjectReference `json:",inline" protobuf:"bytes,1,opt,name=localObjectReference"`
	// Fields of the Kubernetes type that kubesim does not model, by their
	// protobuf numbers: the codec reads past them, and writes the zero value
	// of the ones Kubernetes always writes (the non-struct{} ones).
	_           struct{}    `json:"-" protobuf:"varint,5,opt,name=defaultUser"`
	Items       []KeyToPath `json:"items,omitempty" protobuf:"bytes,2,rep,name=items"`
	DefaultMode *int32      `json:"defaultMode,omitempty" protobuf:"varint,3,opt,name=defaultMode"`
	Optional    *bool       `json:"optional,omitempty" protobuf:"varint,4,opt,name=optional"`
}

// KeyToPath maps a key to a file.
type KeyToPath struct {
	// Fields of the Kubernetes type that kubesim does not model, by their
	// protobuf numbers: the codec reads past them, and writes the zero value
	// of the ones Kubernetes always writes (the non-struct{} ones).
	_    struct{} `json:"-" protobuf:"varint,4,opt,name=user"`
	Key  string   `json:"key" protobuf:"bytes,1,opt,name=key"`
	Path string   `json:"path" protobuf:"bytes,2,opt,name=path"`
	Mode *int32   `json:"mode,omitempty" protobuf:"varint,3,opt,name=mode"`
}

// PersistentVolumeClaimVolumeSource mounts a claimed volume.
type PersistentVolumeClaimVolumeSource struct {
	ClaimName string `json:"claimName" protobuf:"bytes,1,opt,name=claimName"`
	ReadOnly  bool   `json:"readOnly,omitempty" protobuf:"varint,2,opt,name=readOnly"`
}

// DownwardAPIVolumeSource mounts pod fields as files.
type DownwardAPIVolumeSource struct {
	// Fields of the Kubernetes type that kubesim does not model, by their
	// protobuf numbers: the codec reads past them, and writes the zero value
	// of the ones Kubernetes always writes (the non-struct{} ones).
	_           struct{}                `json:"-" protobuf:"varint,3,opt,name=defaultUser"`
	Items       []DownwardAPIVolumeFile `json:"items,omitempty" protobuf:"bytes,1,rep,name=items"`
	DefaultMode *int32                  `json:"defaultMode,omitempty" protobuf:"varint,2,opt,name=defaultMode"`
}

// DownwardAPIVolumeFile is one file of a downward API volume.
type DownwardAPIVolumeFile struct {
	// Fields of the Kubernetes type that kubesim does not model, by their
	// protobuf numbers: the codec reads past them, and writes the zero value
	// of the ones Kubernetes always writes (the non-struct{} ones).
	_                struct{}               `json:"-" protobuf:"varint,5,opt,name=user"`
	Path             string                 `json:"path" protobuf:"bytes,1,opt,name=path"`
	FieldRef         *ObjectFieldSelector   `json:"fieldRef,omitempty" protobuf:"bytes,2,opt,name=fieldRef"`
	ResourceFieldRef *ResourceFieldSelector `json:"resourceFieldRef,omitempty" protobuf:"bytes,3,opt,name=resourceFieldRef"`
	Mode             *int32                 `json:"mode,omitempty" protobuf:"varint,4,opt,name=mode"`
}

// ProjectedVolumeSource merges several sources into one directory; every
// pod gets one for its service account token (kube-api-access-xxxxx).
type ProjectedVolumeSource struct {
	// Fields of the Kubernetes type that kubesim does not model, by their
	// protobuf numbers: the codec reads past them, and writes the zero value
	// of the ones Kubernetes always writes (the non-struct{} ones).
	_           struct{}           `json:"-" protobuf:"varint,3,opt,name=defaultUser"`
	Sources     []VolumeProjection `json:"sources" protobuf:"bytes,1,rep,name=sources"`
	DefaultMode *int32             `json:"defaultMode,omitempty" protobuf:"varint,2,opt,name=defaultMode"`
}

// VolumeProjection is one source of a projected volume.
type VolumeProjection struct {
	// Fields of the Kubernetes type that kubesim does not model, by their
	// protobuf numbers: the codec reads past them, and writes the zero value
	// of the ones Kubernetes always writes (the non-struct{} ones).
	_                   struct{}                       `json:"-" protobuf:"bytes,5,opt,name=clusterTrustBundle"`
	_                   struct{}                       `json:"-" protobuf:"bytes,6,opt,name=podCertificate"`
	Secret              *SecretProjection              `json:"secret,omitempty" protobuf:"bytes,1,opt,name=secret"`
	DownwardAPI         *DownwardAPIProjection         `json:"downwardAPI,omitempty" protobuf:"bytes,2,opt,name=downwardAPI"`
	ConfigMap           *ConfigMapProjection           `json:"configMap,omitempty" protobuf:"bytes,3,opt,name=configMap"`
	ServiceAccountToken *ServiceAccountTokenProjection `json:"serviceAccountToken,omitempty" protobuf:"bytes,4,opt,name=serviceAccountToken"`
}

// SecretProjection projects a Secret's keys.
type SecretProjection struct {
	LocalObjectReference `json:",inline" protobuf:"bytes,1,opt,name=localObjectReference"`
	Items                []KeyToPath `json:"items,omitempty" protobuf:"bytes,2,rep,name=items"`
	Optional             *bool       `json:"optional,omitempty" protobuf:"varint,4,opt,name=optional"`
}

// ConfigMapProjection projects a ConfigMap's keys.
type ConfigMapProjection struct {
	LocalObjectReference `json:",inline" protobuf:"bytes,1,opt,name=localObjectReference"`
	Items                []KeyToPath `json:"items,omitempty" protobuf:"bytes,2,rep,name=items"`
	Optional             *bool       `json:"optional,omitempty" protobuf:"varint,4,opt,name=optional"`
}

// DownwardAPIProjection projects pod fields.
type DownwardAPIProjection struct {
	Items []DownwardAPIVolumeFile `json:"items,omitempty" protobuf:"bytes,1,rep,name=items"`
}

// ServiceAccountTokenProjection projects a bound token.
type ServiceAccountTokenProjection struct {
	// Fields of the Kubernetes type that kubesim does not model, by their
	// protobuf numbers: the codec reads past them, and writes the zero value
	// of the ones Kubernetes always writes (the non-struct{} ones).
	_                 struct{} `json:"-" protobuf:"varint,4,opt,name=user"`
	Audience          string   `json:"audience,omitempty" protobuf:"bytes,1,rep,name=audience"`
	ExpirationSeconds *int64   `json:"expirationSeconds,omitempty" protobuf:"varint,2,opt,name=expirationSeconds"`
	Path              string   `json:"path" protobuf:"bytes,3,opt,name=path"`
}

// PodPhase is the coarse lifecycle state of a pod.
type PodPhase string

// The pod phases.
const (
	PodPending   PodPhase = "Pending"
	PodRunning   PodPhase = "Running"
	PodSucceeded PodPhase = "Succeeded"
	PodFailed    PodPhase = "Failed"
	PodUnknown   PodPhase = "Unknown"
)

// PodConditionType names a pod condition.
type PodConditionType string

// The pod conditions, in the order a pod gains them.
const (
	PodScheduled              PodConditionType = "PodScheduled"
	PodReadyToStartContainers PodConditionType = "PodReadyToStartContainers"
	PodInitialized            PodConditionType = "Initialized"
	ContainersReady           PodConditionType = "ContainersReady"
	PodReady                  PodConditionType = "Ready"
	// DisruptionTarget marks a pod about to be deleted by a disruption
	// (an eviction), as the PodDisruptionConditions feature does.
	DisruptionTarget PodConditionType = "DisruptionTarget"
)

// Reasons on pod conditions.
const (
	// PodReasonUnschedulable is the PodScheduled=False reason when no node
	// fits.
	PodReasonUnschedulable = "Unschedulable"
	// PodReasonSchedulerError is the PodScheduled=False reason when the
	// scheduler failed for another cause (a PreBind error, say).
	PodReasonSchedulerError = "SchedulerError"
)

// PodQOSClass is the quality-of-service class of a pod.
type PodQOSClass string

// The QoS classes.
const (
	PodQOSGuaranteed PodQOSClass = "Guaranteed"
	PodQOSBurstable  PodQOSClass = "Burstable"
	PodQOSBestEffort PodQOSClass = "BestEffort"
)

// PodStatus is what the kubelet (and scheduler) report about a pod.
type PodStatus struct {
	// Fields of the Kubernetes type that kubesim does not model, by their
	// protobuf numbers: the codec reads past them, and writes the zero value
	// of the ones Kubernetes always writes (the non-struct{} ones).
	_ string   `json:"-" protobuf:"bytes,14,opt,name=resize,casttype=PodResizeStatus"`
	_ struct{} `json:"-" protobuf:"bytes,15,rep,name=resourceClaimStatuses"`
	_ int64    `json:"-" protobuf:"varint,17,opt,name=observedGeneration"`
	_ struct{} `json:"-" protobuf:"bytes,18,opt,name=extendedResourceClaimStatus"`
	_ struct{} `json:"-" protobuf:"bytes,19,rep,name=allocatedResources,casttype=ResourceList,castkey=ResourceName"`
	_ struct{} `json:"-" protobuf:"bytes,20,opt,name=resources"`
	_ struct{} `json:"-" protobuf:"bytes,21,rep,name=nodeAllocatableResourceClaimStatuses"`
	_ struct{} `json:"-" protobuf:"bytes,22,rep,name=volumeHealth"`
	// Phase is Pending, Running, Succeeded, Failed or Unknown.
	Phase PodPhase `json:"phase,omitempty" protobuf:"bytes,1,opt,name=phase,casttype=PodPhase"`
	// Conditions such as PodScheduled and Ready.
	Conditions []PodCondition `json:"conditions,omitempty" protobuf:"bytes,2,rep,name=conditions" patchStrategy:"merge" patchMergeKey:"type"`
	// Message about why the pod is in this state.
	Message string `json:"message,omitempty" protobuf:"bytes,3,opt,name=message"`
	// Reason is a CamelCase word, such as Evicted.
	Reason string `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	// NominatedNodeName is set by preemption.
	NominatedNodeName string `json:"nominatedNodeName,omitempty" protobuf:"bytes,11,opt,name=nominatedNodeName"`
	// HostIP is the node's address.
	HostIP string `json:"hostIP,omitempty" protobuf:"bytes,5,opt,name=hostIP"`
	// HostIPs are the node's addresses.
	HostIPs []HostIP `json:"hostIPs,omitempty" protobuf:"bytes,16,rep,name=hostIPs" patchStrategy:"merge" patchMergeKey:"ip"`
	// PodIP is the pod's address.
	PodIP string `json:"podIP,omitempty" protobuf:"bytes,6,opt,name=podIP"`
	// PodIPs are the pod's addresses, one per family.
	PodIPs []PodIP `json:"podIPs,omitempty" protobuf:"bytes,12,rep,name=podIPs" patchStrategy:"merge" patchMergeKey:"ip"`
	// StartTime is when the kubelet accepted the pod.
	StartTime *Time `json:"startTime,omitempty" protobuf:"bytes,7,opt,name=startTime"`
	// InitContainerStatuses report init containers.
	InitContainerStatuses []ContainerStatus `json:"initContainerStatuses,omitempty" protobuf:"bytes,10,rep,name=initContainerStatuses"`
	// ContainerStatuses report containers.
	ContainerStatuses []ContainerStatus `json:"containerStatuses,omitempty" protobuf:"bytes,8,rep,name=containerStatuses"`
	// EphemeralContainerStatuses report the ephemeral containers.
	EphemeralContainerStatuses []ContainerStatus `json:"ephemeralContainerStatuses,omitempty" protobuf:"bytes,13,rep,name=ephemeralContainerStatuses"`
	// QOSClass is computed from requests and limits.
	QOSClass PodQOSClass `json:"qosClass,omitempty" protobuf:"bytes,9,rep,name=qosClass"`
}

// HostIP is an address of the pod's node.
type HostIP struct {
	IP string `json:"ip" protobuf:"bytes,1,opt,name=ip"`
}

// PodIP is an address of the pod.
type PodIP struct {
	IP string `json:"ip" protobuf:"bytes,1,opt,name=ip"`
}

// PodCondition is one condition of a pod.
type PodCondition struct {
	// Fields of the Kubernetes type that kubesim does not model, by their
	// protobuf numbers: the codec reads past them, and writes the zero value
	// of the ones Kubernetes always writes (the non-struct{} ones).
	_ int64 `json:"-" protobuf:"varint,7,opt,name=observedGeneration"`
	// Type of the condition.
	Type PodConditionType `json:"type" protobuf:"bytes,1,opt,name=type,casttype=PodConditionType"`
	// Status is True, False or Unknown.
	Status ConditionStatus `json:"status" protobuf:"bytes,2,opt,name=status,casttype=ConditionStatus"`
	// LastProbeTime is always null in practice, as in Kubernetes.
	LastProbeTime Time `json:"lastProbeTime,omitempty" protobuf:"bytes,3,opt,name=lastProbeTime"`
	// LastTransitionTime is when Status last changed.
	LastTransitionTime Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,4,opt,name=lastTransitionTime"`
	// Reason is a CamelCase word.
	Reason string `json:"reason,omitempty" protobuf:"bytes,5,opt,name=reason"`
	// Message is for humans.
	Message string `json:"message,omitempty" protobuf:"bytes,6,opt,name=message"`
}

// ContainerStatus reports one container.
type ContainerStatus struct {
	// Fields of the Kubernetes type that kubesim does not model, by their
	// protobuf numbers: the codec reads past them, and writes the zero value
	// of the ones Kubernetes always writes (the non-struct{} ones).
	_    struct{} `json:"-" protobuf:"bytes,10,rep,name=allocatedResources,casttype=ResourceList,castkey=ResourceName"`
	_    struct{} `json:"-" protobuf:"bytes,11,opt,name=resources"`
	_    struct{} `json:"-" protobuf:"bytes,12,rep,name=volumeMounts"`
	_    struct{} `json:"-" protobuf:"bytes,13,opt,name=user,casttype=ContainerUser"`
	_    struct{} `json:"-" protobuf:"bytes,14,rep,name=allocatedResourcesStatus"`
	_    struct{} `json:"-" protobuf:"bytes,15,opt,name=stopSignal"`
	Name string   `json:"name" protobuf:"bytes,1,opt,name=name"`
	// State is the current state.
	State ContainerState `json:"state,omitempty" protobuf:"bytes,2,opt,name=state"`
	// LastState is the state before the last restart.
	LastState ContainerState `json:"lastState,omitempty" protobuf:"bytes,3,opt,name=lastState"`
	// Ready is the readiness probe's verdict.
	Ready bool `json:"ready" protobuf:"varint,4,opt,name=ready"`
	// RestartCount counts restarts.
	RestartCount int32 `json:"restartCount" protobuf:"varint,5,opt,name=restartCount"`
	// Image the container runs.
	Image string `json:"image" protobuf:"bytes,6,opt,name=image"`
	// ImageID is the resolved image digest.
	ImageID string `json:"imageID" protobuf:"bytes,7,opt,name=imageID"`
	// ContainerID is <runtime>://<id>.
	ContainerID string `json:"containerID,omitempty" protobuf:"bytes,8,opt,name=containerID"`
	// Started is true once the startup probe passed.
	Started *bool `json:"started,omitempty" protobuf:"varint,9,opt,name=started"`
}

// ContainerState is one of waiting, running or terminated.
type ContainerState struct {
	Waiting    *ContainerStateWaiting    `json:"waiting,omitempty" protobuf:"bytes,1,opt,name=waiting"`
	Running    *ContainerStateRunning    `json:"running,omitempty" protobuf:"bytes,2,opt,name=running"`
	Terminated *ContainerStateTerminated `json:"terminated,omitempty" protobuf:"bytes,3,opt,name=terminated"`
}

// ContainerStateWaiting is a container not yet running.
type ContainerStateWaiting struct {
	// Reason such as ContainerCreating or CrashLoopBackOff.
	Reason  string `json:"reason,omitempty" protobuf:"bytes,1,opt,name=reason"`
	Message string `json:"message,omitempty" protobuf:"bytes,2,opt,name=message"`
}

// ContainerStateRunning is a running container.
type ContainerStateRunning struct {
	StartedAt Time `json:"startedAt,omitempty" protobuf:"bytes,1,opt,name=startedAt"`
}

// ContainerStateTerminated is a container that exited.
type ContainerStateTerminated struct {
	ExitCode    int32  `json:"exitCode" protobuf:"varint,1,opt,name=exitCode"`
	Signal      int32  `json:"signal,omitempty" protobuf:"varint,2,opt,name=signal"`
	Reason      string `json:"reason,omitempty" protobuf:"bytes,3,opt,name=reason"`
	Message     string `json:"message,omitempty" protobuf:"bytes,4,opt,name=message"`
	StartedAt   Time   `json:"startedAt,omitempty" protobuf:"bytes,5,opt,name=startedAt"`
	FinishedAt  Time   `json:"finishedAt,omitempty" protobuf:"bytes,6,opt,name=finishedAt"`
	ContainerID string `json:"containerID,omitempty" protobuf:"bytes,7,opt,name=containerID"`
}

// Binding assigns a pod to a node; the scheduler posts it to pods/binding.
type Binding struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Target is the node.
	Target ObjectReference `json:"target" protobuf:"bytes,2,opt,name=target"`
}

// --- Service and Endpoints ---

// ServiceType says how a service is exposed.
type ServiceType string

// The service types.
const (
	ServiceTypeClusterIP    ServiceType = "ClusterIP"
	ServiceTypeNodePort     ServiceType = "NodePort"
	ServiceTypeLoadBalancer ServiceType = "LoadBalancer"
	ServiceTypeExternalName ServiceType = "ExternalName"
)

// ServiceAffinity is None or ClientIP.
type ServiceAffinity string

// The session affinities.
const (
	ServiceAffinityClientIP ServiceAffinity = "ClientIP"
	ServiceAffinityNone     ServiceAffinity = "None"
)

// ClusterIPNone makes a headless service.
const ClusterIPNone = "None"

// IPFamily is IPv4 or IPv6.
type IPFamily string

// The IP families.
const (
	IPv4Protocol IPFamily = "IPv4"
	IPv6Protocol IPFamily = "IPv6"
)

// IPFamilyPolicy says how many families a service gets.
type IPFamilyPolicy string

// The IP family policies.
const (
	IPFamilyPolicySingleStack      IPFamilyPolicy = "SingleStack"
	IPFamilyPolicyPreferDualStack  IPFamilyPolicy = "PreferDualStack"
	IPFamilyPolicyRequireDualStack IPFamilyPolicy = "RequireDualStack"
)

// ServiceTrafficPolicy is Cluster or Local.
type ServiceTrafficPolicy string

// The traffic policies.
const (
	ServiceTrafficPolicyCluster ServiceTrafficPolicy = "Cluster"
	ServiceTrafficPolicyLocal   ServiceTrafficPolicy = "Local"
)

// Service is a stable address in front of the pods its selector picks.
type Service struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the desired service.
	Spec ServiceSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status holds load balancer state.
	Status ServiceStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// ServiceSpec describes a service.
type ServiceSpec struct {
	// Fields of the Kubernetes type that kubesim does not model, by their
	// protobuf numbers: the codec reads past them, and writes the zero value
	// of the ones Kubernetes always writes (the non-struct{} ones).
	_ struct{} `json:"-" protobuf:"bytes,9,opt,name=loadBalancerSourceRanges"`
	_ int32    `json:"-" protobuf:"bytes,12,opt,name=healthCheckNodePort"`
	_ struct{} `json:"-" protobuf:"bytes,14,opt,name=sessionAffinityConfig"`
	_ struct{} `json:"-" protobuf:"bytes,20,opt,name=allocateLoadBalancerNodePorts"`
	_ struct{} `json:"-" protobuf:"bytes,21,opt,name=loadBalancerClass"`
	_ struct{} `json:"-" protobuf:"bytes,23,opt,name=trafficDistribution"`
	// Ports exposed.
	Ports []ServicePort `json:"ports,omitempty" protobuf:"bytes,1,rep,name=ports" patchStrategy:"merge" patchMergeKey:"port"`
	// Selector picks the backing pods.
	Selector map[string]string `json:"selector,omitempty" protobuf:"bytes,2,rep,name=selector"`
	// ClusterIP is allocated by the server, or None for headless.
	ClusterIP string `json:"clusterIP,omitempty" protobuf:"bytes,3,opt,name=clusterIP"`
	// ClusterIPs are the addresses, one per family.
	ClusterIPs []string `json:"clusterIPs,omitempty" protobuf:"bytes,18,opt,name=clusterIPs"`
	// Type is ClusterIP by default.
	Type ServiceType `json:"type,omitempty" protobuf:"bytes,4,opt,name=type,casttype=ServiceType"`
	// ExternalIPs also route to the service.
	ExternalIPs []string `json:"externalIPs,omitempty" protobuf:"bytes,5,rep,name=externalIPs"`
	// SessionAffinity is None or ClientIP.
	SessionAffinity ServiceAffinity `json:"sessionAffinity,omitempty" protobuf:"bytes,7,opt,name=sessionAffinity,casttype=ServiceAffinity"`
	// LoadBalancerIP is the requested load balancer address.
	LoadBalancerIP string `json:"loadBalancerIP,omitempty" protobuf:"bytes,8,opt,name=loadBalancerIP"`
	// ExternalName is the CNAME of an ExternalName service.
	ExternalName string `json:"externalName,omitempty" protobuf:"bytes,10,opt,name=externalName"`
	// ExternalTrafficPolicy is Cluster or Local.
	ExternalTrafficPolicy ServiceTrafficPolicy `json:"externalTrafficPolicy,omitempty" protobuf:"bytes,11,opt,name=externalTrafficPolicy"`
	// PublishNotReadyAddresses includes unready pods.
	PublishNotReadyAddresses bool `json:"publishNotReadyAddresses,omitempty" protobuf:"varint,13,opt,name=publishNotReadyAddresses"`
	// IPFamilies of the service.
	IPFamilies []IPFamily `json:"ipFamilies,omitempty" protobuf:"bytes,19,opt,name=ipFamilies,casttype=IPFamily"`
	// IPFamilyPolicy of the service.
	IPFamilyPolicy *IPFamilyPolicy `json:"ipFamilyPolicy,omitempty" protobuf:"bytes,17,opt,name=ipFamilyPolicy,casttype=IPFamilyPolicy"`
	// InternalTrafficPolicy is Cluster or Local.
	InternalTrafficPolicy *ServiceTrafficPolicy `json:"internalTrafficPolicy,omitempty" protobuf:"bytes,22,opt,name=internalTrafficPolicy"`
}

// ServicePort is one port of a service.
type ServicePort struct {
	// Name is required when there are several ports.
	Name string `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
	// Protocol is TCP by default.
	Protocol Protocol `json:"protocol,omitempty" protobuf:"bytes,2,opt,name=protocol,casttype=Protocol"`
	// AppProtocol hints the application protocol.
	AppProtocol *string `json:"appProtocol,omitempty" protobuf:"bytes,6,opt,name=appProtocol"`
	// Port of the service.
	Port int32 `json:"port" protobuf:"varint,3,opt,name=port"`
	// TargetPort on the pods: a number or a container port name.
	TargetPort intstr.IntOrString `json:"targetPort,omitempty" protobuf:"bytes,4,opt,name=targetPort"`
	// NodePort for NodePort and LoadBalancer services.
	NodePort int32 `json:"nodePort,omitempty" protobuf:"varint,5,opt,name=nodePort"`
}

// ServiceStatus holds load balancer state.
type ServiceStatus struct {
	// LoadBalancer ingress points.
	LoadBalancer LoadBalancerStatus `json:"loadBalancer,omitempty" protobuf:"bytes,1,opt,name=loadBalancer"`
	// Conditions of the service.
	Conditions []Condition `json:"conditions,omitempty" protobuf:"bytes,2,rep,name=conditions" patchStrategy:"merge" patchMergeKey:"type"`
}

// LoadBalancerStatus lists ingress points.
type LoadBalancerStatus struct {
	Ingress []LoadBalancerIngress `json:"ingress,omitempty" protobuf:"bytes,1,rep,name=ingress"`
}

// LoadBalancerIngress is one ingress point.
type LoadBalancerIngress struct {
	// Fields of the Kubernetes type that kubesim does not model, by their
	// protobuf numbers: the codec reads past them, and writes the zero value
	// of the ones Kubernetes always writes (the non-struct{} ones).
	_        struct{} `json:"-" protobuf:"bytes,3,opt,name=ipMode"`
	_        struct{} `json:"-" protobuf:"bytes,4,rep,name=ports"`
	IP       string   `json:"ip,omitempty" protobuf:"bytes,1,opt,name=ip"`
	Hostname string   `json:"hostname,omitempty" protobuf:"bytes,2,opt,name=hostname"`
}

// ServiceList is a list of services.
type ServiceList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the services.
	Items []Service `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// Endpoints lists the addresses behind a service.
type Endpoints struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Subsets group addresses by port set.
	Subsets []EndpointSubset `json:"subsets,omitempty" protobuf:"bytes,2,rep,name=subsets"`
}

// EndpointSubset is a set of addresses sharing ports.
type EndpointSubset struct {
	Addresses         []EndpointAddress `json:"addresses,omitempty" protobuf:"bytes,1,rep,name=addresses"`
	NotReadyAddresses []EndpointAddress `json:"notReadyAddresses,omitempty" protobuf:"bytes,2,rep,name=notReadyAddresses"`
	Ports             []EndpointPort    `json:"ports,omitempty" protobuf:"bytes,3,rep,name=ports"`
}

// EndpointAddress is one backend.
type EndpointAddress struct {
	IP        string           `json:"ip" protobuf:"bytes,1,opt,name=ip"`
	Hostname  string           `json:"hostname,omitempty" protobuf:"bytes,3,opt,name=hostname"`
	NodeName  *string          `json:"nodeName,omitempty" protobuf:"bytes,4,opt,name=nodeName"`
	TargetRef *ObjectReference `json:"targetRef,omitempty" protobuf:"bytes,2,opt,name=targetRef"`
}

// EndpointPort is one port of the backends.
type EndpointPort struct {
	Name        string   `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
	Port        int32    `json:"port" protobuf:"varint,2,opt,name=port"`
	Protocol    Protocol `json:"protocol,omitempty" protobuf:"bytes,3,opt,name=protocol,casttype=Protocol"`
	AppProtocol *string  `json:"appProtocol,omitempty" protobuf:"bytes,4,opt,name=appProtocol"`
}

// EndpointsList is a list of Endpoints.
type EndpointsList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the endpoints.
	Items []Endpoints `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// --- ConfigMap and Secret ---

// ConfigMap holds configuration data.
type ConfigMap struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Immutable forbids changes to data.
	Immutable *bool `json:"immutable,omitempty" protobuf:"varint,4,opt,name=immutable"`
	// Data holds UTF-8 values.
	Data map[string]string `json:"data,omitempty" protobuf:"bytes,2,rep,name=data"`
	// BinaryData holds other bytes, base64 on the wire.
	BinaryData map[string][]byte `json:"binaryData,omitempty" protobuf:"bytes,3,rep,name=binaryData"`
}

// ConfigMapList is a list of ConfigMaps.
type ConfigMapList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the ConfigMaps.
	Items []ConfigMap `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// SecretType says what a Secret holds.
type SecretType string

// The secret types.
const (
	SecretTypeOpaque              SecretType = "Opaque"
	SecretTypeServiceAccountToken SecretType = "kubernetes.io/service-account-token"
	SecretTypeDockercfg           SecretType = "kubernetes.io/dockercfg"
	SecretTypeDockerConfigJSON    SecretType = "kubernetes.io/dockerconfigjson"
	SecretTypeBasicAuth           SecretType = "kubernetes.io/basic-auth"
	SecretTypeSSHAuth             SecretType = "kubernetes.io/ssh-auth"
	SecretTypeTLS                 SecretType = "kubernetes.io/tls"
)

// Secret holds sensitive data.
type Secret struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Immutable forbids changes to data.
	Immutable *bool `json:"immutable,omitempty" protobuf:"varint,5,opt,name=immutable"`
	// Data values are base64 on the wire.
	Data map[string][]byte `json:"data,omitempty" protobuf:"bytes,2,rep,name=data"`
	// StringData is write-only: the server merges it into Data.
	StringData map[string]string `json:"stringData,omitempty" protobuf:"bytes,4,rep,name=stringData"`
	// Type is Opaque by default.
	Type SecretType `json:"type,omitempty" protobuf:"bytes,3,opt,name=type,casttype=SecretType"`
}

// SecretList is a list of Secrets.
type SecretList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the Secrets.
	Items []Secret `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// --- Event ---

// The event types.
const (
	EventTypeNormal  = "Normal"
	EventTypeWarning = "Warning"
)

// Event reports something that happened to an object (core/v1 Event, what
// kubectl describe and kubectl get events show).
type Event struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata" protobuf:"bytes,1,opt,name=metadata"`
	// InvolvedObject is what the event is about.
	InvolvedObject ObjectReference `json:"involvedObject" protobuf:"bytes,2,opt,name=involvedObject"`
	// Reason is a CamelCase word, such as Scheduled.
	Reason string `json:"reason,omitempty" protobuf:"bytes,3,opt,name=reason"`
	// Message is for humans.
	Message string `json:"message,omitempty" protobuf:"bytes,4,opt,name=message"`
	// Source is the reporting component.
	Source EventSource `json:"source,omitempty" protobuf:"bytes,5,opt,name=source"`
	// FirstTimestamp is when the event first happened.
	FirstTimestamp Time `json:"firstTimestamp,omitempty" protobuf:"bytes,6,opt,name=firstTimestamp"`
	// LastTimestamp is when it last happened.
	LastTimestamp Time `json:"lastTimestamp,omitempty" protobuf:"bytes,7,opt,name=lastTimestamp"`
	// Count of occurrences.
	Count int32 `json:"count,omitempty" protobuf:"varint,8,opt,name=count"`
	// Type is Normal or Warning.
	Type string `json:"type,omitempty" protobuf:"bytes,9,opt,name=type"`
	// EventTime is the precise time of the first occurrence.
	EventTime MicroTime `json:"eventTime,omitempty" protobuf:"bytes,10,opt,name=eventTime"`
	// Series of a repeating event.
	Series *EventSeries `json:"series,omitempty" protobuf:"bytes,11,opt,name=series"`
	// Action taken, such as Binding.
	Action string `json:"action,omitempty" protobuf:"bytes,12,opt,name=action"`
	// Related is a second object involved.
	Related *ObjectReference `json:"related,omitempty" protobuf:"bytes,13,opt,name=related"`
	// ReportingController is the component, such as default-scheduler.
	ReportingController string `json:"reportingComponent" protobuf:"bytes,14,opt,name=reportingComponent"`
	// ReportingInstance is the instance of the component.
	ReportingInstance string `json:"reportingInstance" protobuf:"bytes,15,opt,name=reportingInstance"`
}

// EventSource names the component that reported an event.
type EventSource struct {
	Component string `json:"component,omitempty" protobuf:"bytes,1,opt,name=component"`
	Host      string `json:"host,omitempty" protobuf:"bytes,2,opt,name=host"`
}

// EventSeries counts repeats of an event.
type EventSeries struct {
	Count            int32     `json:"count,omitempty" protobuf:"varint,1,name=count"`
	LastObservedTime MicroTime `json:"lastObservedTime,omitempty" protobuf:"bytes,2,name=lastObservedTime"`
}

// EventList is a list of events.
type EventList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the events.
	Items []Event `json:"items" protobuf:"bytes,2,rep,name=items"`
}
