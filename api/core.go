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
	Kind string `json:"kind,omitempty"`
	// Namespace of the referent.
	Namespace string `json:"namespace,omitempty"`
	// Name of the referent.
	Name string `json:"name,omitempty"`
	// UID of the referent.
	UID string `json:"uid,omitempty"`
	// APIVersion of the referent.
	APIVersion string `json:"apiVersion,omitempty"`
	// ResourceVersion the reference was made at.
	ResourceVersion string `json:"resourceVersion,omitempty"`
	// FieldPath points into the referent, such as spec.containers{web}.
	FieldPath string `json:"fieldPath,omitempty"`
}

// LocalObjectReference names an object in the same namespace.
type LocalObjectReference struct {
	// Name of the referent.
	Name string `json:"name,omitempty"`
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
	ObjectMeta `json:"metadata,omitempty"`
	// Spec holds the finalizers.
	Spec NamespaceSpec `json:"spec,omitempty"`
	// Status holds the phase.
	Status NamespaceStatus `json:"status,omitempty"`
}

// NamespaceSpec holds the finalizers that must run before deletion ends.
type NamespaceSpec struct {
	// Finalizers, usually just "kubernetes".
	Finalizers []FinalizerName `json:"finalizers,omitempty"`
}

// NamespaceStatus says whether the namespace is being deleted.
type NamespaceStatus struct {
	// Phase is Active or Terminating.
	Phase NamespacePhase `json:"phase,omitempty"`
	// Conditions report deletion progress.
	Conditions []NamespaceCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
}

// NamespaceConditionType names a namespace condition.
type NamespaceConditionType string

// NamespaceCondition reports deletion progress.
type NamespaceCondition struct {
	// Type of the condition.
	Type NamespaceConditionType `json:"type"`
	// Status is True, False or Unknown.
	Status ConditionStatus `json:"status"`
	// LastTransitionTime is when Status last changed.
	LastTransitionTime Time `json:"lastTransitionTime,omitempty"`
	// Reason is a CamelCase word.
	Reason string `json:"reason,omitempty"`
	// Message is for humans.
	Message string `json:"message,omitempty"`
}

// NamespaceList is a list of namespaces.
type NamespaceList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty"`
	// Items are the namespaces.
	Items []Namespace `json:"items"`
}

// --- Node ---

// Node is a machine that runs pods; in kubesim a fake kubelet.
type Node struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	// Spec is what the node should be.
	Spec NodeSpec `json:"spec,omitempty"`
	// Status is what the kubelet reports.
	Status NodeStatus `json:"status,omitempty"`
}

// NodeSpec holds scheduling settings of a node.
type NodeSpec struct {
	// PodCIDR is the pod address range of the node.
	PodCIDR string `json:"podCIDR,omitempty"`
	// PodCIDRs are the pod address ranges, one per IP family.
	PodCIDRs []string `json:"podCIDRs,omitempty" patchStrategy:"merge"`
	// ProviderID is the cloud's id of the machine.
	ProviderID string `json:"providerID,omitempty"`
	// Unschedulable keeps new pods off the node (kubectl cordon).
	Unschedulable bool `json:"unschedulable,omitempty"`
	// Taints repel pods that do not tolerate them.
	Taints []Taint `json:"taints,omitempty"`
}

// NodeStatus is what the kubelet reports about its node.
type NodeStatus struct {
	// Capacity is the total of each resource.
	Capacity ResourceList `json:"capacity,omitempty"`
	// Allocatable is what pods may use.
	Allocatable ResourceList `json:"allocatable,omitempty"`
	// Phase is deprecated and unset.
	Phase NodePhase `json:"phase,omitempty"`
	// Conditions report health; Ready is the one that matters.
	Conditions []NodeCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
	// Addresses of the node.
	Addresses []NodeAddress `json:"addresses,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
	// DaemonEndpoints are the kubelet's ports.
	DaemonEndpoints NodeDaemonEndpoints `json:"daemonEndpoints,omitempty"`
	// NodeInfo describes the software on the node.
	NodeInfo NodeSystemInfo `json:"nodeInfo,omitempty"`
	// Images present on the node.
	Images []ContainerImage `json:"images,omitempty"`
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
	Type NodeConditionType `json:"type"`
	// Status is True, False or Unknown.
	Status ConditionStatus `json:"status"`
	// LastHeartbeatTime is when the kubelet last confirmed the condition.
	LastHeartbeatTime Time `json:"lastHeartbeatTime,omitempty"`
	// LastTransitionTime is when Status last changed.
	LastTransitionTime Time `json:"lastTransitionTime,omitempty"`
	// Reason is a CamelCase word, such as KubeletReady.
	Reason string `json:"reason,omitempty"`
	// Message is for humans.
	Message string `json:"message,omitempty"`
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
	Type NodeAddressType `json:"type"`
	// Address itself.
	Address string `json:"address"`
}

// NodeDaemonEndpoints are the ports of daemons on the node.
type NodeDaemonEndpoints struct {
	// KubeletEndpoint is the kubelet's port.
	KubeletEndpoint DaemonEndpoint `json:"kubeletEndpoint,omitempty"`
}

// DaemonEndpoint is a port; the capital P is Kubernetes' own.
type DaemonEndpoint struct {
	// Port number.
	Port int32 `json:"Port"`
}

// NodeSystemInfo describes the software of a node.
type NodeSystemInfo struct {
	MachineID               string `json:"machineID"`
	SystemUUID              string `json:"systemUUID"`
	BootID                  string `json:"bootID"`
	KernelVersion           string `json:"kernelVersion"`
	OSImage                 string `json:"osImage"`
	ContainerRuntimeVersion string `json:"containerRuntimeVersion"`
	KubeletVersion          string `json:"kubeletVersion"`
	KubeProxyVersion        string `json:"kubeProxyVersion"`
	OperatingSystem         string `json:"operatingSystem"`
	Architecture            string `json:"architecture"`
}

// ContainerImage is an image present on a node.
type ContainerImage struct {
	// Names of the image (tags and digests).
	Names []string `json:"names"`
	// SizeBytes is the image size.
	SizeBytes int64 `json:"sizeBytes,omitempty"`
}

// NodeList is a list of nodes.
type NodeList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty"`
	// Items are the nodes.
	Items []Node `json:"items"`
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
	Key string `json:"key"`
	// Value of the taint.
	Value string `json:"value,omitempty"`
	// Effect on pods that do not tolerate it.
	Effect TaintEffect `json:"effect"`
	// TimeAdded is set for NoExecute taints.
	TimeAdded *Time `json:"timeAdded,omitempty"`
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
	Key string `json:"key,omitempty"`
	// Operator is Exists or Equal (the default).
	Operator TolerationOperator `json:"operator,omitempty"`
	// Value to match with Equal.
	Value string `json:"value,omitempty"`
	// Effect to match; empty matches all.
	Effect TaintEffect `json:"effect,omitempty"`
	// TolerationSeconds bounds how long a NoExecute taint is tolerated.
	TolerationSeconds *int64 `json:"tolerationSeconds,omitempty"`
}

// --- Pod ---

// Pod is a group of containers run together on one node.
type Pod struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	// Spec is the desired pod.
	Spec PodSpec `json:"spec,omitempty"`
	// Status is what the kubelet reports.
	Status PodStatus `json:"status,omitempty"`
}

// PodList is a list of pods.
type PodList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty"`
	// Items are the pods.
	Items []Pod `json:"items"`
}

// PodTemplateSpec is the pod a controller creates copies of.
type PodTemplateSpec struct {
	ObjectMeta `json:"metadata,omitempty"`
	// Spec of the pods.
	Spec PodSpec `json:"spec,omitempty"`
}

// PodSpec describes a pod.
type PodSpec struct {
	// Volumes the containers can mount.
	Volumes []Volume `json:"volumes,omitempty" patchStrategy:"merge,retainKeys" patchMergeKey:"name"`
	// InitContainers run to completion, in order, before the containers.
	InitContainers []Container `json:"initContainers,omitempty" patchStrategy:"merge" patchMergeKey:"name"`
	// Containers run for the life of the pod.
	Containers []Container `json:"containers" patchStrategy:"merge" patchMergeKey:"name"`
	// RestartPolicy is Always, OnFailure or Never.
	RestartPolicy RestartPolicy `json:"restartPolicy,omitempty"`
	// TerminationGracePeriodSeconds is how long containers get to stop.
	TerminationGracePeriodSeconds *int64 `json:"terminationGracePeriodSeconds,omitempty"`
	// ActiveDeadlineSeconds bounds the pod's run time.
	ActiveDeadlineSeconds *int64 `json:"activeDeadlineSeconds,omitempty"`
	// DNSPolicy is ClusterFirst by default.
	DNSPolicy DNSPolicy `json:"dnsPolicy,omitempty"`
	// NodeSelector restricts the pod to nodes with these labels.
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`
	// ServiceAccountName is the identity of the pod.
	ServiceAccountName string `json:"serviceAccountName,omitempty"`
	// DeprecatedServiceAccount is the old name of ServiceAccountName.
	DeprecatedServiceAccount string `json:"serviceAccount,omitempty"`
	// AutomountServiceAccountToken controls the token volume.
	AutomountServiceAccountToken *bool `json:"automountServiceAccountToken,omitempty"`
	// NodeName is set by the scheduler's binding.
	NodeName string `json:"nodeName,omitempty"`
	// HostNetwork uses the node's network namespace.
	HostNetwork bool `json:"hostNetwork,omitempty"`
	// SecurityContext applies to all containers.
	SecurityContext *PodSecurityContext `json:"securityContext,omitempty"`
	// ImagePullSecrets are registry credentials.
	ImagePullSecrets []LocalObjectReference `json:"imagePullSecrets,omitempty" patchStrategy:"merge" patchMergeKey:"name"`
	// Hostname of the pod; the pod name by default.
	Hostname string `json:"hostname,omitempty"`
	// Subdomain makes the pod <hostname>.<subdomain>.<ns>.svc.
	Subdomain string `json:"subdomain,omitempty"`
	// SchedulerName picks the scheduler; default-scheduler by default.
	SchedulerName string `json:"schedulerName,omitempty"`
	// Tolerations of taints.
	Tolerations []Toleration `json:"tolerations,omitempty"`
	// PriorityClassName names the pod's priority class.
	PriorityClassName string `json:"priorityClassName,omitempty"`
	// Priority is resolved from PriorityClassName at admission.
	Priority *int32 `json:"priority,omitempty"`
	// EnableServiceLinks injects service environment variables.
	EnableServiceLinks *bool `json:"enableServiceLinks,omitempty"`
	// PreemptionPolicy is PreemptLowerPriority or Never.
	PreemptionPolicy *PreemptionPolicy `json:"preemptionPolicy,omitempty"`
}

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
	RunAsUser    *int64 `json:"runAsUser,omitempty"`
	RunAsGroup   *int64 `json:"runAsGroup,omitempty"`
	RunAsNonRoot *bool  `json:"runAsNonRoot,omitempty"`
	FSGroup      *int64 `json:"fsGroup,omitempty"`
	// SupplementalGroups are added to every container's process.
	SupplementalGroups []int64 `json:"supplementalGroups,omitempty"`
}

// SecurityContext holds a container's security settings.
type SecurityContext struct {
	Capabilities             *Capabilities `json:"capabilities,omitempty"`
	Privileged               *bool         `json:"privileged,omitempty"`
	RunAsUser                *int64        `json:"runAsUser,omitempty"`
	RunAsGroup               *int64        `json:"runAsGroup,omitempty"`
	RunAsNonRoot             *bool         `json:"runAsNonRoot,omitempty"`
	ReadOnlyRootFilesystem   *bool         `json:"readOnlyRootFilesystem,omitempty"`
	AllowPrivilegeEscalation *bool         `json:"allowPrivilegeEscalation,omitempty"`
}

// Capability is a POSIX capability such as NET_ADMIN.
type Capability string

// Capabilities to add and drop.
type Capabilities struct {
	Add  []Capability `json:"add,omitempty"`
	Drop []Capability `json:"drop,omitempty"`
}

// Container is one process of a pod.
type Container struct {
	// Name is unique within the pod.
	Name string `json:"name"`
	// Image reference.
	Image string `json:"image,omitempty"`
	// Command replaces the image's entrypoint.
	Command []string `json:"command,omitempty"`
	// Args replace the image's cmd.
	Args []string `json:"args,omitempty"`
	// WorkingDir of the process.
	WorkingDir string `json:"workingDir,omitempty"`
	// Ports the container listens on (informational).
	Ports []ContainerPort `json:"ports,omitempty" patchStrategy:"merge" patchMergeKey:"containerPort"`
	// EnvFrom imports whole ConfigMaps and Secrets.
	EnvFrom []EnvFromSource `json:"envFrom,omitempty"`
	// Env sets environment variables.
	Env []EnvVar `json:"env,omitempty" patchStrategy:"merge" patchMergeKey:"name"`
	// Resources requested and limited.
	Resources ResourceRequirements `json:"resources,omitempty"`
	// VolumeMounts of pod volumes.
	VolumeMounts []VolumeMount `json:"volumeMounts,omitempty" patchStrategy:"merge" patchMergeKey:"mountPath"`
	// LivenessProbe restarts the container when it fails.
	LivenessProbe *Probe `json:"livenessProbe,omitempty"`
	// ReadinessProbe gates the pod's Ready condition.
	ReadinessProbe *Probe `json:"readinessProbe,omitempty"`
	// StartupProbe holds the other probes until it succeeds.
	StartupProbe *Probe `json:"startupProbe,omitempty"`
	// TerminationMessagePath is where the process writes its last words.
	TerminationMessagePath string `json:"terminationMessagePath,omitempty"`
	// TerminationMessagePolicy is File or FallbackToLogsOnError.
	TerminationMessagePolicy TerminationMessagePolicy `json:"terminationMessagePolicy,omitempty"`
	// ImagePullPolicy is Always, Never or IfNotPresent.
	ImagePullPolicy PullPolicy `json:"imagePullPolicy,omitempty"`
	// SecurityContext of the container.
	SecurityContext *SecurityContext `json:"securityContext,omitempty"`
	// Stdin keeps a stdin open.
	Stdin bool `json:"stdin,omitempty"`
	// StdinOnce closes stdin after the first attach.
	StdinOnce bool `json:"stdinOnce,omitempty"`
	// TTY allocates a terminal.
	TTY bool `json:"tty,omitempty"`
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
	Name string `json:"name,omitempty"`
	// HostPort exposes the port on the node.
	HostPort int32 `json:"hostPort,omitempty"`
	// ContainerPort is the port number.
	ContainerPort int32 `json:"containerPort"`
	// Protocol is TCP by default.
	Protocol Protocol `json:"protocol,omitempty"`
	// HostIP binds the host port.
	HostIP string `json:"hostIP,omitempty"`
}

// EnvVar is one environment variable.
type EnvVar struct {
	// Name of the variable.
	Name string `json:"name"`
	// Value, with $(VAR) references expanded.
	Value string `json:"value,omitempty"`
	// ValueFrom takes the value from elsewhere.
	ValueFrom *EnvVarSource `json:"valueFrom,omitempty"`
}

// EnvVarSource is where a variable's value comes from.
type EnvVarSource struct {
	FieldRef         *ObjectFieldSelector   `json:"fieldRef,omitempty"`
	ResourceFieldRef *ResourceFieldSelector `json:"resourceFieldRef,omitempty"`
	ConfigMapKeyRef  *ConfigMapKeySelector  `json:"configMapKeyRef,omitempty"`
	SecretKeyRef     *SecretKeySelector     `json:"secretKeyRef,omitempty"`
}

// ObjectFieldSelector selects a field of the pod, such as metadata.name.
type ObjectFieldSelector struct {
	APIVersion string `json:"apiVersion,omitempty"`
	FieldPath  string `json:"fieldPath"`
}

// ResourceFieldSelector selects a container's request or limit.
type ResourceFieldSelector struct {
	ContainerName string            `json:"containerName,omitempty"`
	Resource      string            `json:"resource"`
	Divisor       resource.Quantity `json:"divisor,omitempty"`
}

// ConfigMapKeySelector selects a key of a ConfigMap.
type ConfigMapKeySelector struct {
	LocalObjectReference `json:",inline"`
	Key                  string `json:"key"`
	Optional             *bool  `json:"optional,omitempty"`
}

// SecretKeySelector selects a key of a Secret.
type SecretKeySelector struct {
	LocalObjectReference `json:",inline"`
	Key                  string `json:"key"`
	Optional             *bool  `json:"optional,omitempty"`
}

// EnvFromSource imports all keys of a ConfigMap or Secret.
type EnvFromSource struct {
	Prefix       string              `json:"prefix,omitempty"`
	ConfigMapRef *ConfigMapEnvSource `json:"configMapRef,omitempty"`
	SecretRef    *SecretEnvSource    `json:"secretRef,omitempty"`
}

// ConfigMapEnvSource names a ConfigMap to import.
type ConfigMapEnvSource struct {
	LocalObjectReference `json:",inline"`
	Optional             *bool `json:"optional,omitempty"`
}

// SecretEnvSource names a Secret to import.
type SecretEnvSource struct {
	LocalObjectReference `json:",inline"`
	Optional             *bool `json:"optional,omitempty"`
}

// ResourceRequirements are a container's requests and limits.
type ResourceRequirements struct {
	// Limits cap usage.
	Limits ResourceList `json:"limits,omitempty"`
	// Requests are what the scheduler reserves.
	Requests ResourceList `json:"requests,omitempty"`
}

// VolumeMount mounts a volume into a container.
type VolumeMount struct {
	Name      string `json:"name"`
	ReadOnly  bool   `json:"readOnly,omitempty"`
	MountPath string `json:"mountPath"`
	SubPath   string `json:"subPath,omitempty"`
}

// Probe is a health check.
type Probe struct {
	ProbeHandler                  `json:",inline"`
	InitialDelaySeconds           int32  `json:"initialDelaySeconds,omitempty"`
	TimeoutSeconds                int32  `json:"timeoutSeconds,omitempty"`
	PeriodSeconds                 int32  `json:"periodSeconds,omitempty"`
	SuccessThreshold              int32  `json:"successThreshold,omitempty"`
	FailureThreshold              int32  `json:"failureThreshold,omitempty"`
	TerminationGracePeriodSeconds *int64 `json:"terminationGracePeriodSeconds,omitempty"`
}

// ProbeHandler is how a probe checks: one of the three.
type ProbeHandler struct {
	Exec      *ExecAction      `json:"exec,omitempty"`
	HTTPGet   *HTTPGetAction   `json:"httpGet,omitempty"`
	TCPSocket *TCPSocketAction `json:"tcpSocket,omitempty"`
}

// ExecAction runs a command.
type ExecAction struct {
	Command []string `json:"command,omitempty"`
}

// HTTPGetAction sends a GET.
type HTTPGetAction struct {
	Path        string             `json:"path,omitempty"`
	Port        intstr.IntOrString `json:"port"`
	Host        string             `json:"host,omitempty"`
	Scheme      URIScheme          `json:"scheme,omitempty"`
	HTTPHeaders []HTTPHeader       `json:"httpHeaders,omitempty"`
}

// URIScheme is HTTP or HTTPS.
type URIScheme string

// HTTPHeader is one request header.
type HTTPHeader struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// TCPSocketAction opens a connection.
type TCPSocketAction struct {
	Port intstr.IntOrString `json:"port"`
	Host string             `json:"host,omitempty"`
}

// Volume is a named volume of a pod.
type Volume struct {
	// Name is referenced by volumeMounts.
	Name         string `json:"name"`
	VolumeSource `json:",inline"`
}

// VolumeSource is where a volume's data comes from: exactly one field.
type VolumeSource struct {
	HostPath              *HostPathVolumeSource              `json:"hostPath,omitempty"`
	EmptyDir              *EmptyDirVolumeSource              `json:"emptyDir,omitempty"`
	Secret                *SecretVolumeSource                `json:"secret,omitempty"`
	PersistentVolumeClaim *PersistentVolumeClaimVolumeSource `json:"persistentVolumeClaim,omitempty"`
	DownwardAPI           *DownwardAPIVolumeSource           `json:"downwardAPI,omitempty"`
	ConfigMap             *ConfigMapVolumeSource             `json:"configMap,omitempty"`
	Projected             *ProjectedVolumeSource             `json:"projected,omitempty"`
}

// HostPathVolumeSource mounts a directory of the node.
type HostPathVolumeSource struct {
	Path string  `json:"path"`
	Type *string `json:"type,omitempty"`
}

// EmptyDirVolumeSource is a scratch directory.
type EmptyDirVolumeSource struct {
	Medium    string             `json:"medium,omitempty"`
	SizeLimit *resource.Quantity `json:"sizeLimit,omitempty"`
}

// SecretVolumeSource mounts a Secret's keys as files.
type SecretVolumeSource struct {
	SecretName  string      `json:"secretName,omitempty"`
	Items       []KeyToPath `json:"items,omitempty"`
	DefaultMode *int32      `json:"defaultMode,omitempty"`
	Optional    *bool       `json:"optional,omitempty"`
}

// ConfigMapVolumeSource mounts a ConfigMap's keys as files.
type ConfigMapVolumeSource struct {
	LocalObjectReference `json:",inline"`
	Items                []KeyToPath `json:"items,omitempty"`
	DefaultMode          *int32      `json:"defaultMode,omitempty"`
	Optional             *bool       `json:"optional,omitempty"`
}

// KeyToPath maps a key to a file.
type KeyToPath struct {
	Key  string `json:"key"`
	Path string `json:"path"`
	Mode *int32 `json:"mode,omitempty"`
}

// PersistentVolumeClaimVolumeSource mounts a claimed volume.
type PersistentVolumeClaimVolumeSource struct {
	ClaimName string `json:"claimName"`
	ReadOnly  bool   `json:"readOnly,omitempty"`
}

// DownwardAPIVolumeSource mounts pod fields as files.
type DownwardAPIVolumeSource struct {
	Items       []DownwardAPIVolumeFile `json:"items,omitempty"`
	DefaultMode *int32                  `json:"defaultMode,omitempty"`
}

// DownwardAPIVolumeFile is one file of a downward API volume.
type DownwardAPIVolumeFile struct {
	Path             string                 `json:"path"`
	FieldRef         *ObjectFieldSelector   `json:"fieldRef,omitempty"`
	ResourceFieldRef *ResourceFieldSelector `json:"resourceFieldRef,omitempty"`
	Mode             *int32                 `json:"mode,omitempty"`
}

// ProjectedVolumeSource merges several sources into one directory; every
// pod gets one for its service account token (kube-api-access-xxxxx).
type ProjectedVolumeSource struct {
	Sources     []VolumeProjection `json:"sources"`
	DefaultMode *int32             `json:"defaultMode,omitempty"`
}

// VolumeProjection is one source of a projected volume.
type VolumeProjection struct {
	Secret              *SecretProjection              `json:"secret,omitempty"`
	DownwardAPI         *DownwardAPIProjection         `json:"downwardAPI,omitempty"`
	ConfigMap           *ConfigMapProjection           `json:"configMap,omitempty"`
	ServiceAccountToken *ServiceAccountTokenProjection `json:"serviceAccountToken,omitempty"`
}

// SecretProjection projects a Secret's keys.
type SecretProjection struct {
	LocalObjectReference `json:",inline"`
	Items                []KeyToPath `json:"items,omitempty"`
	Optional             *bool       `json:"optional,omitempty"`
}

// ConfigMapProjection projects a ConfigMap's keys.
type ConfigMapProjection struct {
	LocalObjectReference `json:",inline"`
	Items                []KeyToPath `json:"items,omitempty"`
	Optional             *bool       `json:"optional,omitempty"`
}

// DownwardAPIProjection projects pod fields.
type DownwardAPIProjection struct {
	Items []DownwardAPIVolumeFile `json:"items,omitempty"`
}

// ServiceAccountTokenProjection projects a bound token.
type ServiceAccountTokenProjection struct {
	Audience          string `json:"audience,omitempty"`
	ExpirationSeconds *int64 `json:"expirationSeconds,omitempty"`
	Path              string `json:"path"`
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
	// Phase is Pending, Running, Succeeded, Failed or Unknown.
	Phase PodPhase `json:"phase,omitempty"`
	// Conditions such as PodScheduled and Ready.
	Conditions []PodCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
	// Message about why the pod is in this state.
	Message string `json:"message,omitempty"`
	// Reason is a CamelCase word, such as Evicted.
	Reason string `json:"reason,omitempty"`
	// NominatedNodeName is set by preemption.
	NominatedNodeName string `json:"nominatedNodeName,omitempty"`
	// HostIP is the node's address.
	HostIP string `json:"hostIP,omitempty"`
	// HostIPs are the node's addresses.
	HostIPs []HostIP `json:"hostIPs,omitempty" patchStrategy:"merge" patchMergeKey:"ip"`
	// PodIP is the pod's address.
	PodIP string `json:"podIP,omitempty"`
	// PodIPs are the pod's addresses, one per family.
	PodIPs []PodIP `json:"podIPs,omitempty" patchStrategy:"merge" patchMergeKey:"ip"`
	// StartTime is when the kubelet accepted the pod.
	StartTime *Time `json:"startTime,omitempty"`
	// InitContainerStatuses report init containers.
	InitContainerStatuses []ContainerStatus `json:"initContainerStatuses,omitempty"`
	// ContainerStatuses report containers.
	ContainerStatuses []ContainerStatus `json:"containerStatuses,omitempty"`
	// QOSClass is computed from requests and limits.
	QOSClass PodQOSClass `json:"qosClass,omitempty"`
}

// HostIP is an address of the pod's node.
type HostIP struct {
	IP string `json:"ip"`
}

// PodIP is an address of the pod.
type PodIP struct {
	IP string `json:"ip"`
}

// PodCondition is one condition of a pod.
type PodCondition struct {
	// Type of the condition.
	Type PodConditionType `json:"type"`
	// Status is True, False or Unknown.
	Status ConditionStatus `json:"status"`
	// LastProbeTime is always null in practice, as in Kubernetes.
	LastProbeTime Time `json:"lastProbeTime,omitempty"`
	// LastTransitionTime is when Status last changed.
	LastTransitionTime Time `json:"lastTransitionTime,omitempty"`
	// Reason is a CamelCase word.
	Reason string `json:"reason,omitempty"`
	// Message is for humans.
	Message string `json:"message,omitempty"`
}

// ContainerStatus reports one container.
type ContainerStatus struct {
	Name string `json:"name"`
	// State is the current state.
	State ContainerState `json:"state,omitempty"`
	// LastState is the state before the last restart.
	LastState ContainerState `json:"lastState,omitempty"`
	// Ready is the readiness probe's verdict.
	Ready bool `json:"ready"`
	// RestartCount counts restarts.
	RestartCount int32 `json:"restartCount"`
	// Image the container runs.
	Image string `json:"image"`
	// ImageID is the resolved image digest.
	ImageID string `json:"imageID"`
	// ContainerID is <runtime>://<id>.
	ContainerID string `json:"containerID,omitempty"`
	// Started is true once the startup probe passed.
	Started *bool `json:"started,omitempty"`
}

// ContainerState is one of waiting, running or terminated.
type ContainerState struct {
	Waiting    *ContainerStateWaiting    `json:"waiting,omitempty"`
	Running    *ContainerStateRunning    `json:"running,omitempty"`
	Terminated *ContainerStateTerminated `json:"terminated,omitempty"`
}

// ContainerStateWaiting is a container not yet running.
type ContainerStateWaiting struct {
	// Reason such as ContainerCreating or CrashLoopBackOff.
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

// ContainerStateRunning is a running container.
type ContainerStateRunning struct {
	StartedAt Time `json:"startedAt,omitempty"`
}

// ContainerStateTerminated is a container that exited.
type ContainerStateTerminated struct {
	ExitCode    int32  `json:"exitCode"`
	Signal      int32  `json:"signal,omitempty"`
	Reason      string `json:"reason,omitempty"`
	Message     string `json:"message,omitempty"`
	StartedAt   Time   `json:"startedAt,omitempty"`
	FinishedAt  Time   `json:"finishedAt,omitempty"`
	ContainerID string `json:"containerID,omitempty"`
}

// Binding assigns a pod to a node; the scheduler posts it to pods/binding.
type Binding struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	// Target is the node.
	Target ObjectReference `json:"target"`
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
	ObjectMeta `json:"metadata,omitempty"`
	// Spec is the desired service.
	Spec ServiceSpec `json:"spec,omitempty"`
	// Status holds load balancer state.
	Status ServiceStatus `json:"status,omitempty"`
}

// ServiceSpec describes a service.
type ServiceSpec struct {
	// Ports exposed.
	Ports []ServicePort `json:"ports,omitempty" patchStrategy:"merge" patchMergeKey:"port"`
	// Selector picks the backing pods.
	Selector map[string]string `json:"selector,omitempty"`
	// ClusterIP is allocated by the server, or None for headless.
	ClusterIP string `json:"clusterIP,omitempty"`
	// ClusterIPs are the addresses, one per family.
	ClusterIPs []string `json:"clusterIPs,omitempty"`
	// Type is ClusterIP by default.
	Type ServiceType `json:"type,omitempty"`
	// ExternalIPs also route to the service.
	ExternalIPs []string `json:"externalIPs,omitempty"`
	// SessionAffinity is None or ClientIP.
	SessionAffinity ServiceAffinity `json:"sessionAffinity,omitempty"`
	// LoadBalancerIP is the requested load balancer address.
	LoadBalancerIP string `json:"loadBalancerIP,omitempty"`
	// ExternalName is the CNAME of an ExternalName service.
	ExternalName string `json:"externalName,omitempty"`
	// ExternalTrafficPolicy is Cluster or Local.
	ExternalTrafficPolicy ServiceTrafficPolicy `json:"externalTrafficPolicy,omitempty"`
	// PublishNotReadyAddresses includes unready pods.
	PublishNotReadyAddresses bool `json:"publishNotReadyAddresses,omitempty"`
	// IPFamilies of the service.
	IPFamilies []IPFamily `json:"ipFamilies,omitempty"`
	// IPFamilyPolicy of the service.
	IPFamilyPolicy *IPFamilyPolicy `json:"ipFamilyPolicy,omitempty"`
	// InternalTrafficPolicy is Cluster or Local.
	InternalTrafficPolicy *ServiceTrafficPolicy `json:"internalTrafficPolicy,omitempty"`
}

// ServicePort is one port of a service.
type ServicePort struct {
	// Name is required when there are several ports.
	Name string `json:"name,omitempty"`
	// Protocol is TCP by default.
	Protocol Protocol `json:"protocol,omitempty"`
	// AppProtocol hints the application protocol.
	AppProtocol *string `json:"appProtocol,omitempty"`
	// Port of the service.
	Port int32 `json:"port"`
	// TargetPort on the pods: a number or a container port name.
	TargetPort intstr.IntOrString `json:"targetPort,omitempty"`
	// NodePort for NodePort and LoadBalancer services.
	NodePort int32 `json:"nodePort,omitempty"`
}

// ServiceStatus holds load balancer state.
type ServiceStatus struct {
	// LoadBalancer ingress points.
	LoadBalancer LoadBalancerStatus `json:"loadBalancer,omitempty"`
	// Conditions of the service.
	Conditions []Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
}

// LoadBalancerStatus lists ingress points.
type LoadBalancerStatus struct {
	Ingress []LoadBalancerIngress `json:"ingress,omitempty"`
}

// LoadBalancerIngress is one ingress point.
type LoadBalancerIngress struct {
	IP       string `json:"ip,omitempty"`
	Hostname string `json:"hostname,omitempty"`
}

// ServiceList is a list of services.
type ServiceList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty"`
	// Items are the services.
	Items []Service `json:"items"`
}

// Endpoints lists the addresses behind a service.
type Endpoints struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	// Subsets group addresses by port set.
	Subsets []EndpointSubset `json:"subsets,omitempty"`
}

// EndpointSubset is a set of addresses sharing ports.
type EndpointSubset struct {
	Addresses         []EndpointAddress `json:"addresses,omitempty"`
	NotReadyAddresses []EndpointAddress `json:"notReadyAddresses,omitempty"`
	Ports             []EndpointPort    `json:"ports,omitempty"`
}

// EndpointAddress is one backend.
type EndpointAddress struct {
	IP        string           `json:"ip"`
	Hostname  string           `json:"hostname,omitempty"`
	NodeName  *string          `json:"nodeName,omitempty"`
	TargetRef *ObjectReference `json:"targetRef,omitempty"`
}

// EndpointPort is one port of the backends.
type EndpointPort struct {
	Name        string   `json:"name,omitempty"`
	Port        int32    `json:"port"`
	Protocol    Protocol `json:"protocol,omitempty"`
	AppProtocol *string  `json:"appProtocol,omitempty"`
}

// EndpointsList is a list of Endpoints.
type EndpointsList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty"`
	// Items are the endpoints.
	Items []Endpoints `json:"items"`
}

// --- ConfigMap and Secret ---

// ConfigMap holds configuration data.
type ConfigMap struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	// Immutable forbids changes to data.
	Immutable *bool `json:"immutable,omitempty"`
	// Data holds UTF-8 values.
	Data map[string]string `json:"data,omitempty"`
	// BinaryData holds other bytes, base64 on the wire.
	BinaryData map[string][]byte `json:"binaryData,omitempty"`
}

// ConfigMapList is a list of ConfigMaps.
type ConfigMapList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty"`
	// Items are the ConfigMaps.
	Items []ConfigMap `json:"items"`
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
	ObjectMeta `json:"metadata,omitempty"`
	// Immutable forbids changes to data.
	Immutable *bool `json:"immutable,omitempty"`
	// Data values are base64 on the wire.
	Data map[string][]byte `json:"data,omitempty"`
	// StringData is write-only: the server merges it into Data.
	StringData map[string]string `json:"stringData,omitempty"`
	// Type is Opaque by default.
	Type SecretType `json:"type,omitempty"`
}

// SecretList is a list of Secrets.
type SecretList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty"`
	// Items are the Secrets.
	Items []Secret `json:"items"`
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
	ObjectMeta `json:"metadata"`
	// InvolvedObject is what the event is about.
	InvolvedObject ObjectReference `json:"involvedObject"`
	// Reason is a CamelCase word, such as Scheduled.
	Reason string `json:"reason,omitempty"`
	// Message is for humans.
	Message string `json:"message,omitempty"`
	// Source is the reporting component.
	Source EventSource `json:"source,omitempty"`
	// FirstTimestamp is when the event first happened.
	FirstTimestamp Time `json:"firstTimestamp,omitempty"`
	// LastTimestamp is when it last happened.
	LastTimestamp Time `json:"lastTimestamp,omitempty"`
	// Count of occurrences.
	Count int32 `json:"count,omitempty"`
	// Type is Normal or Warning.
	Type string `json:"type,omitempty"`
	// EventTime is the precise time of the first occurrence.
	EventTime MicroTime `json:"eventTime,omitempty"`
	// Series of a repeating event.
	Series *EventSeries `json:"series,omitempty"`
	// Action taken, such as Binding.
	Action string `json:"action,omitempty"`
	// Related is a second object involved.
	Related *ObjectReference `json:"related,omitempty"`
	// ReportingController is the component, such as default-scheduler.
	ReportingController string `json:"reportingComponent"`
	// ReportingInstance is the instance of the component.
	ReportingInstance string `json:"reportingInstance"`
}

// EventSource names the component that reported an event.
type EventSource struct {
	Component string `json:"component,omitempty"`
	Host      string `json:"host,omitempty"`
}

// EventSeries counts repeats of an event.
type EventSeries struct {
	Count            int32     `json:"count,omitempty"`
	LastObservedTime MicroTime `json:"lastObservedTime,omitempty"`
}

// EventList is a list of events.
type EventList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty"`
	// Items are the events.
	Items []Event `json:"items"`
}
