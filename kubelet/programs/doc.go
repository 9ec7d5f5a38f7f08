// Package programs is what kubesim knows of the images courses use: each
// image's configuration (its entrypoint and cmd, whether it has a shell)
// and its own programs — nginx serving its welcome page and writing its
// access log, perl printing π for the Job tutorial, redis-server and
// mongod answering their protocols, the databases' entrypoints refusing
// to start without a password — run on the container's clock by the
// kubelet's shell (package shell's Environment.Programs).
//
// The list holds every image the simulated registries hold
// (kubelet/images), and no other: those whose own program is not played
// (others.go) say only what they have besides, a shell, bash or curl.
//
// A container of a known image runs what the runtime would run
// (Argv: command replaces the entrypoint, args the cmd); a program the
// image does not have fails to start as runc makes it fail (StartError:
// "executable file not found in $PATH"). A program that listens says so
// (Host.Listen) with a Server, which answers the connections the pod
// network or `kubectl port-forward` brings to the pod's port: HTTP for
// the web servers, RESP for redis, the wire protocol for mongod.
//
// Real counterparts: the images' Dockerfiles and entrypoint scripts
// (docker-library's nginx, redis, mongo, postgres, mysql, perl; the
// Kubernetes e2e images agnhost and serve_hostname, whose subcommands the
// conformance specs run: mounttest reads the container's files through
// Process.FS, webhook and crd-conversion-webhook serve HTTPS with the
// certificate of a mounted Secret), runc's exec of the
// process (libcontainer's "exec: %q: executable file not found in $PATH")
// and containerd's StartError. docs/containers.md lists what each image
// does here.
//
// A server reads the container's files as its processes see them
// (Conn.Files): nginx serves its document root — a page written there
// through kubectl exec, a ConfigMap or a volume mounted there — before
// its own welcome page.
//
// Left out: every program and option the list does not name, the files
// other programs would read (their configuration), and persistence: what
// a server keeps in memory lives as long as its container runs.
package programs
