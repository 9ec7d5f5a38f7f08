package api

import (
	corev1 "k8s.io/api/core/v1"
)

// This file holds the core/v1 kinds (k8s.io/api/core/v1/types.go).

// ResourceName names a resource such as cpu or memory.
type ResourceName = corev1.ResourceName

// The resource names the scheduler and kubelet look at.
const (
	ResourceCPU              ResourceName = "cpu"
	ResourceMemory           ResourceName = "memory"
	ResourcePods             ResourceName = "pods"
	ResourceEphemeralStorage ResourceName = "ephemeral-storage"
)

// ResourceList maps resource names to amounts, as requests, limits,
// capacity and allocatable.
type ResourceList = corev1.ResourceList

// ObjectReference points at another object, possibly at a field of it.
type ObjectReference = corev1.ObjectReference

// LocalObjectReference names an object in the same namespace.
type LocalObjectReference = corev1.LocalObjectReference

// --- Namespace ---

// NamespacePhase is Active or Terminating.
type NamespacePhase = corev1.NamespacePhase

// The namespace phases.
const (
	NamespaceActive      NamespacePhase = "Active"
	NamespaceTerminating NamespacePhase = "Terminating"
)

// FinalizerName is a namespace spec finalizer.
type FinalizerName = corev1.FinalizerName

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
type Namespace = corev1.Namespace

// NamespaceSpec holds the finalizers that must run before deletion ends.
type NamespaceSpec = corev1.NamespaceSpec

// NamespaceStatus says whether the namespace is being deleted.
type NamespaceStatus = corev1.NamespaceStatus

// NamespaceConditionType names a namespace condition.
type NamespaceConditionType = corev1.NamespaceConditionType

// NamespaceCondition reports deletion progress.
type NamespaceCondition = corev1.NamespaceCondition

// NamespaceList is a list of namespaces.
type NamespaceList = corev1.NamespaceList

// --- Node ---

// Node is a machine that runs pods; in kubesim a fake kubelet.
type Node = corev1.Node

// NodeSpec holds scheduling settings of a node.
type NodeSpec = corev1.NodeSpec

// NodeStatus is what the kubelet reports about its node.
type NodeStatus = corev1.NodeStatus

// NodePhase is the deprecated lifecycle phase of a node.
type NodePhase = corev1.NodePhase

// NodeConditionType names a node condition.
type NodeConditionType = corev1.NodeConditionType

// The node conditions.
const (
	NodeReady              NodeConditionType = "Ready"
	NodeMemoryPressure     NodeConditionType = "MemoryPressure"
	NodeDiskPressure       NodeConditionType = "DiskPressure"
	NodePIDPressure        NodeConditionType = "PIDPressure"
	NodeNetworkUnavailable NodeConditionType = "NetworkUnavailable"
)

// NodeCondition is one health report of a node.
type NodeCondition = corev1.NodeCondition

// NodeAddressType is the kind of a node address.
type NodeAddressType = corev1.NodeAddressType

// The node address types.
const (
	NodeHostName    NodeAddressType = "Hostname"
	NodeInternalIP  NodeAddressType = "InternalIP"
	NodeExternalIP  NodeAddressType = "ExternalIP"
	NodeInternalDNS NodeAddressType = "InternalDNS"
	NodeExternalDNS NodeAddressType = "ExternalDNS"
)

// NodeAddress is one address of a node.
type NodeAddress = corev1.NodeAddress

// NodeDaemonEndpoints are the ports of daemons on the node.
type NodeDaemonEndpoints = corev1.NodeDaemonEndpoints

// DaemonEndpoint is a port; the capital P is Kubernetes' own.
type DaemonEndpoint = corev1.DaemonEndpoint

// NodeSystemInfo describes the software of a node.
type NodeSystemInfo = corev1.NodeSystemInfo

// ContainerImage is an image present on a node.
type ContainerImage = corev1.ContainerImage

// NodeList is a list of nodes.
type NodeList = corev1.NodeList

// TaintEffect says what a taint does to pods that do not tolerate it.
type TaintEffect = corev1.TaintEffect

// The taint effects.
const (
	TaintEffectNoSchedule       TaintEffect = "NoSchedule"
	TaintEffectPreferNoSchedule TaintEffect = "PreferNoSchedule"
	TaintEffectNoExecute        TaintEffect = "NoExecute"
)

// Taint repels pods from a node.
type Taint = corev1.Taint

// TolerationOperator is Exists or Equal.
type TolerationOperator = corev1.TolerationOperator

// The toleration operators.
const (
	TolerationOpExists TolerationOperator = "Exists"
	TolerationOpEqual  TolerationOperator = "Equal"
)

// Toleration lets a pod ignore a taint.
type Toleration = corev1.Toleration

// --- Pod ---

// Pod is a group of containers run together on one node.
type Pod = corev1.Pod

// PodList is a list of pods.
type PodList = corev1.PodList

// PodTemplateSpec is the pod a controller creates copies of.
type PodTemplateSpec = corev1.PodTemplateSpec

// PodSpec describes a pod.
type PodSpec = corev1.PodSpec

// ContainerRestartPolicy is a container's own restart policy: Always,
// for a sidecar init container.
type ContainerRestartPolicy = corev1.ContainerRestartPolicy

// ContainerRestartPolicyAlways makes an init container a sidecar.
const ContainerRestartPolicyAlways ContainerRestartPolicy = "Always"

// RestartPolicy says when the kubelet restarts containers.
type RestartPolicy = corev1.RestartPolicy

// The restart policies.
const (
	RestartPolicyAlways    RestartPolicy = "Always"
	RestartPolicyOnFailure RestartPolicy = "OnFailure"
	RestartPolicyNever     RestartPolicy = "Never"
)

// DNSPolicy says how the pod resolves names.
type DNSPolicy = corev1.DNSPolicy

// The DNS policies.
const (
	DNSClusterFirstWithHostNet DNSPolicy = "ClusterFirstWithHostNet"
	DNSClusterFirst            DNSPolicy = "ClusterFirst"
	DNSDefault                 DNSPolicy = "Default"
	DNSNone                    DNSPolicy = "None"
)

// PreemptionPolicy says whether a pod may preempt others.
type PreemptionPolicy = corev1.PreemptionPolicy

// The preemption policies.
const (
	PreemptLowerPriority PreemptionPolicy = "PreemptLowerPriority"
	PreemptNever         PreemptionPolicy = "Never"
)

// DefaultSchedulerName is the scheduler of pods that name none.
const DefaultSchedulerName = "default-scheduler"

// PodSecurityContext holds pod-wide security settings.
type PodSecurityContext = corev1.PodSecurityContext

// SecurityContext holds a container's security settings.
type SecurityContext = corev1.SecurityContext

// Capability is a POSIX capability such as NET_ADMIN.
type Capability = corev1.Capability

// Capabilities to add and drop.
type Capabilities = corev1.Capabilities

// Container is one process of a pod.
type Container = corev1.Container

// TerminationMessagePolicy says where the termination message comes from.
type TerminationMessagePolicy = corev1.TerminationMessagePolicy

// The termination message policies.
const (
	TerminationMessageReadFile              TerminationMessagePolicy = "File"
	TerminationMessageFallbackToLogsOnError TerminationMessagePolicy = "FallbackToLogsOnError"
)

// PullPolicy says when to pull an image.
type PullPolicy = corev1.PullPolicy

// The pull policies.
const (
	PullAlways       PullPolicy = "Always"
	PullNever        PullPolicy = "Never"
	PullIfNotPresent PullPolicy = "IfNotPresent"
)

// Protocol is a network protocol.
type Protocol = corev1.Protocol

// The protocols.
const (
	ProtocolTCP  Protocol = "TCP"
	ProtocolUDP  Protocol = "UDP"
	ProtocolSCTP Protocol = "SCTP"
)

// ContainerPort is a port a container listens on.
type ContainerPort = corev1.ContainerPort

// EnvVar is one environment variable.
type EnvVar = corev1.EnvVar

// EnvVarSource is where a variable's value comes from.
type EnvVarSource = corev1.EnvVarSource

// ObjectFieldSelector selects a field of the pod, such as metadata.name.
type ObjectFieldSelector = corev1.ObjectFieldSelector

// ResourceFieldSelector selects a container's request or limit.
type ResourceFieldSelector = corev1.ResourceFieldSelector

// ConfigMapKeySelector selects a key of a ConfigMap.
type ConfigMapKeySelector = corev1.ConfigMapKeySelector

// SecretKeySelector selects a key of a Secret.
type SecretKeySelector = corev1.SecretKeySelector

// EnvFromSource imports all keys of a ConfigMap or Secret.
type EnvFromSource = corev1.EnvFromSource

// ConfigMapEnvSource names a ConfigMap to import.
type ConfigMapEnvSource = corev1.ConfigMapEnvSource

// SecretEnvSource names a Secret to import.
type SecretEnvSource = corev1.SecretEnvSource

// ResourceRequirements are a container's requests and limits.
type ResourceRequirements = corev1.ResourceRequirements

// VolumeMount mounts a volume into a container.
type VolumeMount = corev1.VolumeMount

// Probe is a health check.
type Probe = corev1.Probe

// ProbeHandler is how a probe checks: one of the three.
type ProbeHandler = corev1.ProbeHandler

// ExecAction runs a command.
type ExecAction = corev1.ExecAction

// HTTPGetAction sends a GET.
type HTTPGetAction = corev1.HTTPGetAction

// URIScheme is HTTP or HTTPS.
type URIScheme = corev1.URIScheme

// HTTPHeader is one request header.
type HTTPHeader = corev1.HTTPHeader

// TCPSocketAction opens a connection.
type TCPSocketAction = corev1.TCPSocketAction

// Volume is a named volume of a pod.
type Volume = corev1.Volume

// VolumeSource is where a volume's data comes from: exactly one field.
type VolumeSource = corev1.VolumeSource

// HostPathVolumeSource mounts a directory of the node.
type HostPathVolumeSource = corev1.HostPathVolumeSource

// EmptyDirVolumeSource is a scratch directory.
type EmptyDirVolumeSource = corev1.EmptyDirVolumeSource

// SecretVolumeSource mounts a Secret's keys as files.
type SecretVolumeSource = corev1.SecretVolumeSource

// ConfigMapVolumeSource mounts a ConfigMap's keys as files.
type ConfigMapVolumeSource = corev1.ConfigMapVolumeSource

// KeyToPath maps a key to a file.
type KeyToPath = corev1.KeyToPath

// PersistentVolumeClaimVolumeSource mounts a claimed volume.
type PersistentVolumeClaimVolumeSource = corev1.PersistentVolumeClaimVolumeSource

// DownwardAPIVolumeSource mounts pod fields as files.
type DownwardAPIVolumeSource = corev1.DownwardAPIVolumeSource

// DownwardAPIVolumeFile is one file of a downward API volume.
type DownwardAPIVolumeFile = corev1.DownwardAPIVolumeFile

// ProjectedVolumeSource merges several sources into one directory; every
// pod gets one for its service account token (kube-api-access-xxxxx).
type ProjectedVolumeSource = corev1.ProjectedVolumeSource

// VolumeProjection is one source of a projected volume.
type VolumeProjection = corev1.VolumeProjection

// SecretProjection projects a Secret's keys.
type SecretProjection = corev1.SecretProjection

// ConfigMapProjection projects a ConfigMap's keys.
type ConfigMapProjection = corev1.ConfigMapProjection

// DownwardAPIProjection projects pod fields.
type DownwardAPIProjection = corev1.DownwardAPIProjection

// ServiceAccountTokenProjection projects a bound token.
type ServiceAccountTokenProjection = corev1.ServiceAccountTokenProjection

// PodPhase is the coarse lifecycle state of a pod.
type PodPhase = corev1.PodPhase

// The pod phases.
const (
	PodPending   PodPhase = "Pending"
	PodRunning   PodPhase = "Running"
	PodSucceeded PodPhase = "Succeeded"
	PodFailed    PodPhase = "Failed"
	PodUnknown   PodPhase = "Unknown"
)

// PodConditionType names a pod condition.
type PodConditionType = corev1.PodConditionType

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
type PodQOSClass = corev1.PodQOSClass

// The QoS classes.
const (
	PodQOSGuaranteed PodQOSClass = "Guaranteed"
	PodQOSBurstable  PodQOSClass = "Burstable"
	PodQOSBestEffort PodQOSClass = "BestEffort"
)

// PodStatus is what the kubelet (and scheduler) report about a pod.
type PodStatus = corev1.PodStatus

// HostIP is an address of the pod's node.
type HostIP = corev1.HostIP

// PodIP is an address of the pod.
type PodIP = corev1.PodIP

// PodCondition is one condition of a pod.
type PodCondition = corev1.PodCondition

// ContainerStatus reports one container.
type ContainerStatus = corev1.ContainerStatus

// ContainerState is one of waiting, running or terminated.
type ContainerState = corev1.ContainerState

// ContainerStateWaiting is a container not yet running.
type ContainerStateWaiting = corev1.ContainerStateWaiting

// ContainerStateRunning is a running container.
type ContainerStateRunning = corev1.ContainerStateRunning

// ContainerStateTerminated is a container that exited.
type ContainerStateTerminated = corev1.ContainerStateTerminated

// Binding assigns a pod to a node; the scheduler posts it to pods/binding.
type Binding = corev1.Binding

// --- Service and Endpoints ---

// ServiceType says how a service is exposed.
type ServiceType = corev1.ServiceType

// The service types.
const (
	ServiceTypeClusterIP    ServiceType = "ClusterIP"
	ServiceTypeNodePort     ServiceType = "NodePort"
	ServiceTypeLoadBalancer ServiceType = "LoadBalancer"
	ServiceTypeExternalName ServiceType = "ExternalName"
)

// ServiceAffinity is None or ClientIP.
type ServiceAffinity = corev1.ServiceAffinity

// The session affinities.
const (
	ServiceAffinityClientIP ServiceAffinity = "ClientIP"
	ServiceAffinityNone     ServiceAffinity = "None"
)

// ClusterIPNone makes a headless service.
const ClusterIPNone = "None"

// IPFamily is IPv4 or IPv6.
type IPFamily = corev1.IPFamily

// The IP families.
const (
	IPv4Protocol IPFamily = "IPv4"
	IPv6Protocol IPFamily = "IPv6"
)

// IPFamilyPolicy says how many families a service gets.
type IPFamilyPolicy = corev1.IPFamilyPolicy

// The IP family policies.
const (
	IPFamilyPolicySingleStack      IPFamilyPolicy = "SingleStack"
	IPFamilyPolicyPreferDualStack  IPFamilyPolicy = "PreferDualStack"
	IPFamilyPolicyRequireDualStack IPFamilyPolicy = "RequireDualStack"
)

// Service is a stable address in front of the pods its selector picks.
type Service = corev1.Service

// ServiceSpec describes a service.
type ServiceSpec = corev1.ServiceSpec

// ServicePort is one port of a service.
type ServicePort = corev1.ServicePort

// ServiceStatus holds load balancer state.
type ServiceStatus = corev1.ServiceStatus

// LoadBalancerStatus lists ingress points.
type LoadBalancerStatus = corev1.LoadBalancerStatus

// LoadBalancerIngress is one ingress point.
type LoadBalancerIngress = corev1.LoadBalancerIngress

// ServiceList is a list of services.
type ServiceList = corev1.ServiceList

// Endpoints lists the addresses behind a service.
type Endpoints = corev1.Endpoints

// EndpointSubset is a set of addresses sharing ports.
type EndpointSubset = corev1.EndpointSubset

// EndpointAddress is one backend.
type EndpointAddress = corev1.EndpointAddress

// EndpointPort is one port of the backends.
type EndpointPort = corev1.EndpointPort

// EndpointsList is a list of Endpoints.
type EndpointsList = corev1.EndpointsList

// --- ConfigMap and Secret ---

// ConfigMap holds configuration data.
type ConfigMap = corev1.ConfigMap

// ConfigMapList is a list of ConfigMaps.
type ConfigMapList = corev1.ConfigMapList

// SecretType says what a Secret holds.
type SecretType = corev1.SecretType

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
type Secret = corev1.Secret

// SecretList is a list of Secrets.
type SecretList = corev1.SecretList

// --- Event ---

// The event types.
const (
	EventTypeNormal  = "Normal"
	EventTypeWarning = "Warning"
)

// Event reports something that happened to an object (core/v1 Event, what
// kubectl describe and kubectl get events show).
type Event = corev1.Event

// EventSource names the component that reported an event.
type EventSource = corev1.EventSource

// EventSeries counts repeats of an event.
type EventSeries = corev1.EventSeries

// EventList is a list of events.
type EventList = corev1.EventList

// The options of pods/exec, pods/attach and pods/portforward.
type (
	PodExecOptions        = corev1.PodExecOptions
	PodAttachOptions      = corev1.PodAttachOptions
	PodPortForwardOptions = corev1.PodPortForwardOptions
	PodLogOptions         = corev1.PodLogOptions
)
