package programs

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/kubesim/kubesim/kubelet/shell"
)

// Image is what kubesim knows of one image: its configuration and its
// own programs.
type Image struct {
	// Name is the image as the list names it ("nginx").
	Name string
	// Tag is the reference's tag ("1.27"; "latest" when it has none).
	Tag string
	// Entrypoint and Cmd are the image configuration's ENTRYPOINT and CMD.
	Entrypoint, Cmd []string
	// Shell says the image has /bin/sh and the usual programs (busybox's
	// applets or Debian's coreutils): the shell's programs are its.
	// Distroless and scratch images have none of them.
	Shell bool
	// Bash says it has bash (and Debian's dash) besides sh; the others
	// have busybox's ash.
	Bash bool
	// Curl says it has curl (the shell's curl): nginx's images and
	// curl's own do; busybox, alpine and the bare distributions do not.
	Curl bool
	// Dirs are directories it has beyond the standard ones, where a file
	// written through kubectl exec goes (nginx's document root).
	Dirs []string
	// Unplayed says kubesim does not play the image's own program (a
	// language runtime, a proxy, a chart's controller): a container of it
	// runs as one of an image kubesim does not know would
	// (docs/containers.md), and only what the image has besides (a shell,
	// bash, curl) is known.
	Unplayed bool
	// programs are its own, by name (found in the bin directories) or by
	// absolute path.
	programs map[string]Program
	// alpineTags: the tags that name an Alpine variant ("1.27-alpine")
	// have no bash.
	alpineTags bool
}

// Program is one of an image's programs.
type Program func(ctx context.Context, r Run) int

// Run is one run of a program: its process, what it reaches beyond its
// streams (a port to listen on), and its image's tag (which says its
// version).
type Run struct {
	shell.Process
	Host Host
	Tag  string
}

// Host is what a program's process reaches beyond its streams and clock.
type Host interface {
	// Listen says the process serves port with s from now until it ends.
	Listen(port int, s Server)
}

// NoHost is the host of a process whose listening is not simulated (a
// program run by `kubectl exec`): Listen does nothing.
type NoHost struct{}

// Listen does nothing.
func (NoHost) Listen(int, Server) {}

// entry is one image of the list: the names it goes by and what it is.
// The list is a table of constants: Lookup copies an entry's Image, whose
// slices and programs are shared and never changed.
type entry struct {
	names []string
	image Image
}

// catalog is the list of the images kubesim knows, the ones courses use
// (docs/containers.md says what each does).
var catalog = []entry{
	{names: []string{"busybox"}, image: Image{Cmd: []string{"sh"}, Shell: true}},
	{names: []string{"alpine"}, image: Image{Cmd: []string{"/bin/sh"}, Shell: true}},
	{names: []string{"ubuntu", "centos", "fedora", "rockylinux", "almalinux"}, image: Image{Cmd: []string{"/bin/bash"}, Shell: true, Bash: true}},
	{names: []string{"debian"}, image: Image{Cmd: []string{"bash"}, Shell: true, Bash: true}},
	{names: []string{"bash"}, image: Image{Entrypoint: []string{"docker-entrypoint.sh"}, Cmd: []string{"bash"}, Shell: true, Bash: true,
		programs: map[string]Program{"docker-entrypoint.sh": entrypoint("bash", nil)}}},
	{names: []string{"nginx"}, image: nginxImage},
	{names: []string{"nginx-slim"}, image: nginxSlimImage},
	{names: []string{"httpd"}, image: httpdImage},
	{names: []string{"redis"}, image: redisImage},
	{names: []string{"mongo"}, image: mongoImage},
	{names: []string{"postgres"}, image: postgresImage},
	{names: []string{"mysql"}, image: mysqlImage},
	{names: []string{"perl"}, image: perlImage},
	{names: []string{"agnhost"}, image: agnhostImage},
	{names: []string{"serve_hostname"}, image: serveHostnameImage},
	{names: []string{"http-echo"}, image: httpEchoImage},
	{names: []string{"hello-app"}, image: helloAppImage},
	{names: []string{"kubernetes-bootcamp"}, image: bootcampImage},
	{names: []string{"hpa-example"}, image: phpApacheImage},
	{names: []string{"curlimages/curl"}, image: curlImage},
	{names: []string{"radial/busyboxplus"}, image: busyboxPlusImage},
	{names: []string{"pause"}, image: pauseImage},
	{names: []string{SleepImage}, image: sleepImage},
	{names: []string{FailImage}, image: failImage},
	{names: []string{"cert-manager-startupapicheck"}, image: startupAPICheckImage},
	{names: []string{"kyvernopre"}, image: kyvernoPreImage},
}

// Lookup finds what kubesim knows of image: by its repository without
// registry defaults ("docker.io/library/nginx:1.27" is "nginx"), or by the
// repository's last element ("registry.k8s.io/e2e-test-images/agnhost" is
// agnhost, "registry.k8s.io/busybox" busybox); kubesim's own images by
// their full name.
func Lookup(image string) (Image, bool) {
	repo, tag := Repo(image)
	base := repo[strings.LastIndex(repo, "/")+1:]
	for _, list := range [...][]entry{catalog, others} {
		for _, e := range list {
			for _, n := range e.names {
				if n == repo || !strings.Contains(n, "/") && n == base {
					img := e.image
					img.Name, img.Tag = n, tag
					if img.alpineTags && strings.Contains(tag, "alpine") {
						img.Bash = false
					}
					return img, true
				}
			}
		}
	}
	return Image{}, false
}

// Names are the names the list knows images by: a repository without
// its registry defaults, or the last element of one.
func Names() []string {
	var out []string
	for _, e := range slices.Concat(catalog, others) {
		out = append(out, e.names...)
	}
	return out
}

// Repo splits an image reference into its repository, without the
// docker.io/library prefix, and its tag ("latest" when it has none):
// "busybox:1.36" is ("busybox", "1.36").
func Repo(image string) (repo, tag string) {
	name, _, _ := strings.Cut(image, "@")
	tag = "latest"
	if i := strings.LastIndex(name, ":"); i > strings.LastIndex(name, "/") {
		name, tag = name[:i], name[i+1:]
	}
	name = strings.TrimPrefix(name, "docker.io/")
	name = strings.TrimPrefix(name, "library/")
	return name, tag
}

// Argv is what the runtime runs for a container of the image: command
// replaces the entrypoint (and drops the cmd), args replace the cmd.
func (img Image) Argv(command, args []string) []string {
	switch {
	case len(command) > 0:
		return append(slices.Clone(command), args...)
	case len(args) > 0:
		return append(slices.Clone(img.Entrypoint), args...)
	}
	return append(slices.Clone(img.Entrypoint), img.Cmd...)
}

// Has says whether the image has the program name: as runc looks it up,
// in the bin directories of PATH when it has no slash, at that path when
// it has one.
func (img Image) Has(name string) bool {
	if img.programs[name] != nil {
		return true
	}
	base := name
	if strings.Contains(name, "/") {
		dir, b := path.Split(name)
		switch path.Clean(dir) {
		case "/bin", "/usr/bin", "/sbin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin":
		default:
			return false
		}
		base = b
	}
	if img.programs[base] != nil {
		return true
	}
	if base == "curl" {
		return img.Curl
	}
	if !img.Shell {
		return false
	}
	switch base {
	case "bash", "dash":
		return img.Bash
	case "ash":
		return !img.Bash
	}
	return shell.Known(base)
}

// Programs are the image's own programs for the shell, their processes
// reaching h.
func (img Image) Programs(h Host) map[string]shell.Program {
	if len(img.programs) == 0 {
		return nil
	}
	out := make(map[string]shell.Program, len(img.programs))
	for name, p := range img.programs {
		out[name] = func(ctx context.Context, proc shell.Process) int {
			return p(ctx, Run{Process: proc, Host: h, Tag: img.Tag})
		}
	}
	return out
}

// ExitStartError is the exit code the runtime gives a container whose
// process could not start (containerd's errorStartExitCode, as Docker's).
const ExitStartError = 128

// StartError is the runtime's error for a program the image does not
// have, as containerd (runc 1.2) words it and the kubelet reports it: the
// Failed event's "Error: …", the waiting RunContainerError's message and
// the StartError termination's.
func StartError(name string) string {
	why := fmt.Sprintf("exec: %q: executable file not found in $PATH", name)
	if strings.Contains(name, "/") {
		why = fmt.Sprintf("exec: %q: stat %s: no such file or directory", name, name)
	}
	return "failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: " +
		"unable to start container process: error during container init: " + why + ": unknown"
}
