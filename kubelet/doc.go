// Package kubelet is kubesim's fake kubelet: one per node, an API client
// like every other loop. It registers its Node, heartbeats through a Lease
// in kube-node-lease and the node's Ready condition, watches the pods bound
// to its node (a field selector on spec.nodeName) and drives each through
// the stages a real kubelet reports — Pending, ContainerCreating, Running,
// Ready — with configurable delays on the injected clock.
//
// A container starts once its image is on the node (pulls.go, with the
// image manager and the simulated registries of kubelet/images): its
// imagePullPolicy, a pull that takes the image's time on the clock, one at
// a time per node, and the pull secrets a private registry needs; an image
// that cannot be had leaves it waiting in ErrImagePull, ImagePullBackOff
// (the pull tried again after 10 s, doubling to 5 minutes),
// InvalidImageName or ErrImageNeverPull, and the node's status lists the
// images it has.
//
// Each container then lives as the pod says (docs/containers.md): what
// the runtime would run — the image's entrypoint and cmd, or the pod's
// command and args — runs through kubelet/shell, the interpreter exec and
// attach use, with the image's own programs (kubelet/programs: nginx,
// perl, redis-server…) on a simulated clock (program.go, simulation.go:
// what it prints and when, its files, the ports it listens on, its end);
// a program the image lacks fails to start as containerd reports it
// (StartError, RunContainerError), or the kubesim.io/behaviour annotation
// says when it exits (behaviour.go). An exit restarts it as restartPolicy
// says, after the real CrashLoopBackOff back-off; init containers run in
// order before the pod's (each reported ready once it completed), sidecars
// (restartPolicy: Always init containers) keep running beside them; a pod
// active longer than its activeDeadlineSeconds is killed and fails with
// reason DeadlineExceeded (activedeadline.go); liveness and readiness probes are worked out from the
// script's files or the annotation (probes.go). The pod is Ready when its
// containers are and, as the status manager decides it, the condition of
// every readiness gate is True (written by someone else through
// pods/status; reason ReadinessGatesNotReady until then). The lifecycle is a pure
// function, nextTransition (pods.go): what the kubelet knows of the pod
// and the time give the next change, written as one status update; there
// is no goroutine per container. What a container printed is computed
// from its program and served by ContainerLogs (logs.go); its simulated
// CPU and memory use by StatsSummary (usage.go). Exec, attach and
// port-forward (exec.go) run the built-in commands of kubelet/shell in the
// environment kubelet/containerenv builds, follow the container's output,
// and reach what the pod's containers listen on: a connection to a pod's
// port is answered by its program's simulated server (listen.go), whose
// access log is the container's log. Package kubelet/server
// serves them over the kubelet's HTTP API. The kubelet restarts a
// container whose image the pod's spec changes, finishes graceful
// deletions (stops the containers, then deletes the pod with grace 0),
// and can be stopped and started to simulate a node failure.
//
// It simulates the kubelet (kubernetes/pkg/kubelet: kubelet_node_status.go
// for registration and node status, nodelease for the heartbeat, the pod
// workers and status manager for pod status, kuberuntime for container
// restarts and back-off, prober for probes, kuberuntime_logs for logs) in
// the way kwok (sigs.k8s.io/kwok) does: status rewritten on a timeline,
// without a container runtime.
//
// Of the volume manager it keeps (volumes.go): no container starts
// before every PersistentVolumeClaim the pod mounts is bound (FailedMount,
// retried after the pod worker's back-off); an emptyDir is made with the
// pod and dropped with it; a claim's mount is the bound PersistentVolume's
// data (kubelet/volumedata), which outlives the pod. Of the runtime
// class manager, one more (runtimeclass.go): a pod whose RuntimeClass
// names a handler the fake runtime lacks (it has runc and the default)
// gets no sandbox (FailedCreatePodSandBox, retried likewise). Pod
// addresses come from the node's range (ipam.go, as host-local gives
// them) or, with Config.CNI, from real CNI plugins the runtime's network
// half calls through libcni (network.go, kubelet/cni: ADD before the
// containers start, DEL when the pod is gone, a failing plugin's
// FailedCreatePodSandBox retried likewise). With
// Config.DevicePlugins the kubelet's device manager (devices.go,
// kubelet/deviceplugin) serves the device plugins' Registration socket:
// their devices join the node's capacity and allocatable, a pod is given
// its devices at admission (or rejected, UnexpectedAdmissionError) and
// the plugin's answer is in its containers' environment. A container
// started with stdin whose program is a shell is run by `kubectl attach`
// (interactive.go): typed lines run and the shell's exit ends the
// container. Ephemeral containers (kubectl debug) start as soon as the
// pod's spec names them and are never restarted (ephemeral.go). In place
// of CoreDNS and kube-proxy, the kubelet answers a container's nslookup
// and wget from the Services and Endpoints it reads (clusternet.go); in
// place of the CNI plugin's NetworkPolicy agent it drops the connections
// the NetworkPolicies forbid, DNS queries included (netpolicy.go, with
// network/policy); in place of the ingress-nginx controller's nginx it
// routes a request to the controller's address by the Ingresses
// (ingressnet.go, with network/ingress).
//
// Metrics (metrics.go): kubelet_node_name, kubelet_running_pods,
// kubelet_running_containers{container_state} and
// kubelet_pod_start_duration_seconds, on a registry of the kubelet's own
// (Config.Metrics), which the kubelet API serves at /metrics and the API
// server's node proxy at /api/v1/nodes/NAME/proxy/metrics — as each real
// kubelet serves its own port. With thousands of fake nodes in one process
// that is the honest shape: a node label on the cluster's registry would
// make every kubelet series once per node in every API server scrape, and
// a Prometheus scraping nodes through the proxy labels them by target, as
// in a real cluster. The Go and process collectors are the cluster's, not
// each kubelet's (they would describe the same process). Left out: the
// pod worker, PLEG, runtime and eviction metrics, /metrics/cadvisor and
// /metrics/resource.
//
// Left out: there are no real containers (except the in-process images of
// images.go, and the local images of localimage.go: a host binary named
// by `kubesim serve --local-image`, run as a child process whose output
// is the container's log and whose exit drives the same lifecycle, or a
// Go program of kubesim's own run so in a goroutine, such as
// kube-scheduler's image running the scheduler),
// image layers, mounts, cgroups, eviction on pressure, static pods,
// startup probes or lifecycle hooks; probes other
// than exec on a file succeed unless the annotation says otherwise; the
// shell (mvdan.cc/sh's interpreter) runs only the programs
// docs/containers.md lists, and no background jobs. Read the real
// one in kubernetes/pkg/kubelet and, for the stage idea, kwok's
// pkg/kwok/controllers.
package kubelet
