// Package hostprocess runs one container of a "local image" as a child
// process of the kubelet: a binary on the host, named to the server with
// `kubesim serve --local-image NAME=PATH` (docs/containers.md, section 11).
//
// It plays the part of the container runtime below the kubelet — containerd
// and runc starting the container's process, the runtime's shim capturing
// its stdout and stderr into the CRI log file (one timestamped line each),
// and reporting its exit code — for a process that is not in a container.
//
// Left out: everything that makes a container a container. There are no
// namespaces, cgroups, image layers or mounts: the process sees the host's
// file system, network and users, and it listens on the host's ports. An
// exit by a signal is reported as 128+signal, as runc reports it. A binary
// that cannot be started ends at once with code 128 and the reason in its
// log (containerd's StartError).
package hostprocess
