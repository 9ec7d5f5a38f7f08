// Package hostprocess runs one container of a "local image" as a child
// process of the kubelet: a binary on the host, named to the server with
// `kubesim serve --local-image NAME=PATH` (docs/containers.md, section 11).
//
// It plays the part of the container runtime below the kubelet — containerd
// and runc starting the container's process, the runtime's shim capturing
// its stdout and stderr into the CRI log file (one timestamped line each),
// and reporting its exit code — for a process that is not in a container.
//
// Left out: most of what makes a container a container. There are no
// cgroups, image layers or mounts, and no namespaces but one: the process
// sees the host's file system, processes and users. It shares the host's
// network too, unless Spec.NetNS names a network namespace (the pod
// sandbox's, made by the kubelet's CNI manager as root on Linux): then it
// is started inside that one, with the pod's address and loopback. An
// exit by a signal is reported as 128+signal, as runc reports it. A binary
// that cannot be started ends at once with code 128 and the reason in its
// log (containerd's StartError).
//
// StartFunc runs a Main instead, a Go function compiled into kubesim that
// stands for an image's binary (kube-scheduler's, say), in a goroutine of
// the kubelet's process, with the same log, exit code and stop as a
// binary; its stop is a cancelled context, which it must heed.
package hostprocess
