// Package deviceplugin is the fake kubelet's device manager: what the
// kubelet's pkg/kubelet/cm/devicemanager does for a node's hardware. It
// serves the device plugin Registration service of k8s.io/kubelet's
// pkg/apis/deviceplugin/v1beta1 over gRPC on a unix socket,
// `<node dir>/device-plugins/kubelet.sock` (a real node's
// /var/lib/kubelet/device-plugins/kubelet.sock). A plugin registers its
// resource name, its socket (an endpoint in the same directory) and its
// API version; the manager checks the version ("v1beta1") and that the
// name is an extended resource name, as the kubelet does, dials the
// plugin's socket, asks GetDevicePluginOptions and keeps a ListAndWatch
// stream open. Every list the stream sends replaces the resource's
// devices: all of them count in the node's capacity, the Healthy ones in
// its allocatable. A second Register of the same resource replaces the
// first endpoint (the old stream is closed), as the kubelet's
// registerEndpoint does.
//
// When the stream ends (the plugin died, or was stopped) the resource's
// devices are all marked unhealthy at once — allocatable 0, capacity
// unchanged — and they are forgotten after EndpointStopGracePeriod (5
// minutes, the kubelet's endpointStopGracePeriod): the capacity is then
// reported as 0, not dropped, so that the node still shows the resource
// was a device plugin's. A plugin that registers again within the grace
// brings them back.
//
// When a pod is admitted, Allocate picks devices for each container's
// limit of a registered resource: healthy ones not in use, the plugin's
// choice first when its options offer GetPreferredAllocation, then in
// order of id; it calls the plugin's Allocate and keeps the answer
// (environment, mounts, device nodes, annotations, CDI devices) per pod
// and container; PreStart calls PreStartContainer when the options ask
// for it. The devices are in use until Release, when the pod ends or is
// gone. The allocations are written, as JSON, to
// `<node dir>/device-plugins/kubelet_internal_checkpoint` after each
// change, so that a student can read what the node gave whom.
//
// Left out: the topology manager (NUMA hints, GetTopologyHint,
// TopologyInfo of the devices is ignored); the reuse of an init
// container's devices by the pod's containers (only the pod's regular
// containers are given devices); the real checkpoint's format and its
// reading after a kubelet restart (a restarted kubelet starts with no
// allocations and waits for its plugins to register again); the
// PodResources API; dynamic resource allocation (DRA); and the kubelet's
// re-registration after its own socket is removed. gRPC calls to a
// plugin have wall-clock deadlines (a plugin is a real process). Read the
// real one in kubernetes/pkg/kubelet/cm/devicemanager (manager.go,
// endpoint.go, plugin/v1beta1/server.go and client.go).
package deviceplugin
