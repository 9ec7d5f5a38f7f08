// Package cni is the network half of the fake kubelet's container
// runtime: what containerd's and CRI-O's CRI plugins do with libcni
// (github.com/containernetworking/cni) when the kubelet asks them for a
// pod sandbox. The first network configuration of the configuration
// directory (a .conflist, else a .conf or .json, in lexical order, as the
// runtimes pick it) names the plugins; they are found in the binary
// directories and executed with the CNI_* environment the runtimes pass —
// CNI_COMMAND, CNI_CONTAINERID, CNI_NETNS, CNI_IFNAME=eth0, CNI_PATH and
// CNI_ARGS with IgnoreUnknown=1 and the pod's K8S_POD_NAMESPACE,
// K8S_POD_NAME, K8S_POD_INFRA_CONTAINER_ID and K8S_POD_UID — and the
// network's configuration on stdin. ADD sets a sandbox up and its result's
// IPs become the pod's; DEL tears it down; CHECK asks whether it is still
// as ADD left it. Each sandbox is recorded as a file under the node's
// directory (its id, network namespace, configuration and result), so
// that a kubelet started again finds the sandboxes the previous one made:
// it adopts those whose pods remain and runs DEL for the others, as the
// kubelet's container garbage collector removes the sandboxes of deleted
// pods.
//
// A plugin that does not answer is killed when the kubelet's runtime
// request timeout (4 minutes: the CRI call's 2-minute timeout, doubled for
// sandbox creation) ends on the injected clock, and the kubelet sees the
// CRI call's DeadlineExceeded. Errors read as containerd words them
// ("failed to setup network for sandbox ...: plugin type=... failed
// (add): ..."), so that the kubelet's FailedCreatePodSandBox event reads
// as a real node's.
//
// The sandbox's network namespace (CNI_NETNS) lives under the node's
// directory: as root on Linux a real one, unshared and pinned there by a
// bind mount as `ip netns add` pins one under /run/netns, so that
// containernetworking/plugins' bridge and host-local work unchanged
// (netns_linux.go); otherwise an empty placeholder file, enough for
// plugins that only read CNI_NETNS, such as the course's mock plugin. It
// is removed after DEL.
//
// Left out: there are no containers, so nothing runs inside the
// namespace; capability
// arguments (portMappings, bandwidth, the pod's annotations) are not
// passed; the configuration directory is read at each sandbox creation
// rather than watched; GC and STATUS are not called. Read the real one in
// containerd's internal/cri/server (sandbox_run.go: setupPodNetwork,
// teardownPodNetwork) and github.com/containerd/go-cni.
package cni
