package shell

import (
	"context"
	"fmt"
	"io"
	"maps"
	"path"
	"slices"
	"strings"
	"time"

	"mvdan.cc/sh/v3/expand"

	"github.com/kubesim/kubesim/clock"
)

// Var is one environment variable.
type Var struct {
	Name, Value string
}

// Environment is what a process in the container sees.
type Environment struct {
	// Env are the variables, in the order the kubelet sets them.
	Env []Var
	// Files are the container's files by absolute path (mounted
	// ConfigMaps and Secrets, the service account token, /etc/hostname).
	Files map[string][]byte
	// Dirs are directories that exist even when empty (mount points).
	Dirs []string
	// ReadOnly are the mount points nothing may be written under
	// (ConfigMap, Secret, projected and downward API volumes, and
	// mounts marked readOnly).
	ReadOnly []string
	// Layer is the container's writable layer, where what a process
	// writes is kept for the next exec (fs.go); nil: nothing can be
	// written.
	Layer *Layer
	// Mounts are the writable volumes mounted into the container
	// (volume.go): under a mount point, files are read from and written
	// to its volume, not the layer. Their paths are in Dirs too.
	Mounts []Mount
	// Hostname is what hostname prints (the pod's name).
	Hostname string
	// WorkingDir is where the process starts ("/" when empty).
	WorkingDir string
	// Network is what the container's network reaches (nslookup, wget);
	// nil: nothing resolves.
	Network Network
	// Bash says the image has bash as well as sh: the Debian-based images
	// (nginx, ubuntu, …) do, busybox and alpine (ash only) do not — so
	// the tutorials' `kubectl exec -it shell-demo -- /bin/bash` works on
	// nginx and fails, as it really does, on busybox.
	Bash bool
	// Curl says the image has curl (curl.go): nginx's does, busybox's
	// and alpine's do not.
	Curl bool
	// Programs are the image's own programs beyond the shell's (nginx,
	// perl, redis-cli…), which the kubelet knows per image: by name, found
	// in the bin directories, or by absolute path.
	Programs map[string]Program
	// Meta is what stat says of the files and directories the kubelet
	// put there (mounted volumes' files and mount points) beyond their
	// content: mode and owner (stat.go). Others are root's, 0644 and 0755.
	Meta map[string]FileMeta
	// Tmpfs are the mount points of memory-backed volumes (an emptyDir
	// of medium Memory, Secret and projected volumes): statfs says tmpfs
	// under them.
	Tmpfs []string
	// User is who the container's processes run as: the owner of the
	// files they create.
	User Owner
	// ReadOnlyRoot says the container's root filesystem is read-only
	// (securityContext.readOnlyRootFilesystem): only its writable
	// mounts and the Writable files take writes.
	ReadOnlyRoot bool
	// Writable are files a process may write even under a read-only
	// root: the termination message file, which the kubelet mounts.
	Writable []string
	// Live are the mount points of the volumes the kubelet rewrites
	// while the container runs (a ConfigMap's, a Secret's, the downward
	// API's): an image's program reads their files through the Network
	// when it is a LiveVolumes (stat.go), and sees them change.
	Live []string
}

// Program is one of the image's own programs, run as a process: it reads
// and writes the process's streams, waits on its clock, and returns its
// exit status.
type Program func(ctx context.Context, p Process) int

// Process is what a Program is given.
type Process struct {
	// Args are its argv, Args[0] as the command named it.
	Args []string
	// Env are the process's variables, in order.
	Env []Var
	// Stdin, Stdout and Stderr are its streams (never nil).
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Clock times its waits: a simulated clock in a container's own
	// command, the real one in an exec.
	Clock clock.Clock
	// Exec runs args as the shell runs a command (the shell's programs
	// and the image's), in the same process: what an entrypoint script's
	// `exec "$@"` does. It returns the status, ExitNotFound without a
	// word when args[0] does not exist (the caller says it, in its words).
	Exec func(args []string) int
	// FS is the container's filesystem as the process sees it (stat.go);
	// nil for a process run outside a shell.
	FS FS
}

// Getenv is the value of the variable name, or "".
func (p Process) Getenv(name string) string {
	for i := len(p.Env) - 1; i >= 0; i-- {
		if p.Env[i].Name == name {
			return p.Env[i].Value
		}
	}
	return ""
}

// Stdio are a process's streams; a nil Stdin reads nothing and a nil
// writer discards.
type Stdio struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// TTY says a terminal is attached: lines are echoed, "\n" is written
	// as "\r\n" and an interactive sh prints a prompt.
	TTY bool
}

// Command is one exec into the container.
type Command struct {
	Args  []string
	Env   Environment
	Stdio Stdio
	// Clock times sleep and tells date the time.
	Clock clock.Clock
	// BeforeCommand, when set, is called before each simple command
	// runs: the kubelet counts a container's commands with it, to stop a
	// script that loops without ever sleeping.
	BeforeCommand func()
}

// ExitNotFound and ExitCannotExecute are the codes of a program that does
// not exist, from a shell (127) and from the runtime (runc: 126).
const (
	ExitNotFound      = 127
	ExitCannotExecute = 126
)

// standardDirs exist in every image the simulation pretends to run.
var standardDirs = []string{"/bin", "/dev", "/etc", "/home", "/proc", "/root", "/sys", "/tmp", "/usr", "/usr/bin", "/usr/sbin", "/var", "/sbin"}

// Run runs the command and returns its exit code.
func (c Command) Run(ctx context.Context) int {
	if c.Clock == nil {
		c.Clock = clock.Real{}
	}
	stdout, stderr := c.Stdio.Stdout, c.Stdio.Stderr
	if stdout == nil {
		stdout = io.Discard
	}
	if stderr == nil {
		stderr = io.Discard
	}
	if c.Stdio.TTY {
		stdout = crlfWriter{stdout}
		stderr = stdout
	}
	stdin, noStdin := c.Stdio.Stdin, c.Stdio.Stdin == nil
	if noStdin {
		stdin = noInput{}
	}
	s := &state{ctx: ctx, env: &c.Env, clock: c.Clock, stdin: stdin, noStdin: noStdin, stdout: stdout, stderr: stderr, tty: c.Stdio.TTY,
		dir: c.Env.WorkingDir, name: "sh", beforeCommand: c.BeforeCommand}
	if s.dir == "" {
		s.dir = "/"
	}
	for _, v := range c.Env.Env {
		s.vars = setVar(s.vars, v.Name, v.Value)
	}
	if len(c.Args) == 0 {
		return 0
	}
	name := c.Args[0]
	if !s.known(name) {
		// The runtime (runc), not a shell, reports a missing program.
		fmt.Fprintf(stdout, "OCI runtime exec failed: exec failed: unable to start container process: exec: %q: executable file not found in $PATH: unknown\n", name)
		return ExitCannotExecute
	}
	return s.program(c.Args)
}

// state is one process: its environment, directory and streams. The
// shell (sh.go) makes one for each program a script runs.
type state struct {
	ctx            context.Context
	env            *Environment
	clock          clock.Clock
	stdin          io.Reader
	stdout, stderr io.Writer
	// noStdin: the process was given no input (stdin reads nothing); a
	// shell then gives its interpreter none either.
	noStdin bool
	tty     bool
	dir     string
	// vars are the process's environment variables, in order; a
	// process a shell starts gets them from its exported variables
	// (exportedFrom, the container's first: exported), when asked.
	vars         []Var
	exportedFrom expand.Environ
	// name is the shell's, in its prompt and messages: "sh" or "bash".
	name string
	// beforeCommand is Command.BeforeCommand.
	beforeCommand func()
	// meta are the modes and owners of the files this process's
	// programs created (stat.go), for as long as it runs.
	meta map[string]FileMeta
	// arg0 is how the shell was started ("sh", "/bin/sh"): ash begins
	// its messages with it.
	arg0 string
}

// variables are the process's environment variables, in order.
func (s *state) variables() []Var {
	if s.exportedFrom != nil {
		s.vars, s.exportedFrom = exported(s.exportedFrom, s.vars), nil
	}
	return s.vars
}

// getenv is the value of the variable name, if it is set.
func (s *state) getenv(name string) (string, bool) {
	for _, v := range s.variables() {
		if v.Name == name {
			return v.Value, true
		}
	}
	return "", false
}

// setVar sets name in vars: in its place when it is there, last when
// it is new.
func setVar(vars []Var, name, value string) []Var {
	for i := range vars {
		if vars[i].Name == name {
			vars[i].Value = value
			return vars
		}
	}
	return append(vars, Var{Name: name, Value: value})
}

// programs are the commands the simulated images have, as in /bin.
var programs = []string{"[", "[[", "cat", "date", "echo", "env", "false", "grep", "head", "hostname", "ls", "mkdir", "nslookup", "ping", "printenv", "pwd",
	"rm", "seq", "sh", "sleep", "printf", "tail", "tar", "test", "touch", "true", "wc", "wget", "which", "hexdump"}

// Known says whether name is one of the programs of the simulated images
// (sh included, bash not), by name or by path in a bin directory: what a
// container's command may start with to be run by this shell.
func Known(name string) bool {
	return (&state{env: &Environment{}}).known(name)
}

// known says whether name is one of the programs, by name or by path in
// a bin directory.
func (s *state) known(name string) bool {
	if s.env.Programs[name] != nil {
		return true
	}
	base := name
	if strings.Contains(name, "/") {
		dir, b := path.Split(name)
		switch path.Clean(dir) {
		case "/bin", "/usr/bin", "/sbin", "/usr/sbin", "/usr/local/bin":
		default:
			return false
		}
		base = b
	}
	if base == "bash" {
		return s.env.Bash
	}
	if base == "curl" {
		return s.env.Curl
	}
	return slices.Contains(programs, base) || s.env.Programs[base] != nil
}

// imageProgram is the image's program args[0] names, if it is one.
func (s *state) imageProgram(name string) Program {
	if p := s.env.Programs[name]; p != nil {
		return p
	}
	if slices.Contains(programs, path.Base(name)) {
		return nil // the shell's own
	}
	return s.env.Programs[path.Base(name)]
}

// runImageProgram runs p as a process of this shell: its variables as
// the environment, its streams and clock.
func (s *state) runImageProgram(p Program, args []string) int {
	env := slices.Clone(s.variables())
	exec := func(args []string) int {
		if len(args) == 0 {
			return 0
		}
		if !s.known(args[0]) {
			return ExitNotFound
		}
		return s.program(args)
	}
	return p(s.ctx, Process{Args: args, Env: env, Stdin: s.stdin, Stdout: s.stdout, Stderr: s.stderr, Clock: s.clock, Exec: exec,
		FS: processFS{s}})
}

// program runs one of the programs (args[0] is known).
func (s *state) program(args []string) int {
	if p := s.imageProgram(args[0]); p != nil {
		return s.runImageProgram(p, args)
	}
	switch path.Base(args[0]) {
	case "cat":
		return s.cat(args[1:])
	case "env":
		return s.printenv("env", nil)
	case "printenv":
		return s.printenv("printenv", args[1:])
	case "false":
		return 1
	case "true":
		return 0
	case "hostname":
		fmt.Fprintln(s.stdout, s.env.Hostname)
		return 0
	case "ls":
		return s.ls(args[1:])
	case "pwd":
		fmt.Fprintln(s.stdout, s.dir)
		return 0
	case "sleep":
		return s.sleep(args[1:])
	case "sh":
		s.arg0 = args[0]
		return s.sh(args[1:])
	case "bash":
		s.name = "bash"
		return s.sh(args[1:])
	case "tar":
		return s.tar(args[1:])
	case "touch":
		return s.touch(args[1:])
	case "mkdir":
		return s.mkdir(args[1:])
	case "nslookup":
		return s.nslookup(args[1:])
	case "wget":
		return s.wget(args[1:])
	case "curl":
		return s.curl(args[1:])
	case "ping":
		return s.ping(args[1:])
	case "date":
		return s.date(args[1:])
	case "grep":
		return s.grep(args[1:])
	case "head", "tail":
		return s.headTail(path.Base(args[0]), args[1:])
	case "rm":
		return s.rm(args[1:])
	case "seq":
		return s.seq(args[1:])
	case "wc":
		return s.wc(args[1:])
	case "hexdump":
		return s.hexdump(args[1:])
	case "which":
		return s.which(args[1:])
	case "echo", "printf", "test", "[", "[[":
		return s.builtin(path.Base(args[0]), args[1:])
	}
	return ExitNotFound
}

func (s *state) printenv(prog string, names []string) int {
	if len(names) == 0 {
		for _, v := range s.variables() {
			fmt.Fprintf(s.stdout, "%s=%s\n", v.Name, v.Value)
		}
		return 0
	}
	code := 0
	for _, n := range names {
		v, ok := s.getenv(n)
		if !ok {
			code = 1
			continue
		}
		fmt.Fprintln(s.stdout, v)
	}
	return code
}

func (s *state) sleep(args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(s.stderr, "BusyBox v1.36.1 (2023-05-18 22:34:17 UTC) multi-call binary.\n\nUsage: sleep [N]...")
		return 1
	}
	// busybox sleeps for the sum of its operands.
	var total time.Duration
	forever := false
	for _, a := range args {
		d, inf, ok := sleepArg(a)
		if !ok {
			fmt.Fprintf(s.stderr, "sleep: invalid number '%s'\n", a)
			return 1
		}
		total, forever = total+d, forever || inf
	}
	if forever {
		total = Forever
	}
	select {
	case <-s.clock.After(total):
		return 0
	case <-s.ctx.Done():
		// The client went away: the process is killed (SIGKILL).
		return 137
	}
}

// abs resolves p against the working directory.
func (s *state) abs(p string) string {
	if !strings.HasPrefix(p, "/") {
		p = path.Join(s.dir, p)
	}
	return path.Clean(p)
}

// isDir says whether p (absolute, clean) is a directory: a standard one,
// a mount point, or a parent of a file.
func (s *state) isDir(p string) bool {
	if v, rel, ok := s.mountAt(p); ok {
		return rel == "/" || v.IsDir(rel) || len(s.mountPointsIn(p)) > 0
	}
	if p == "/" || slices.Contains(standardDirs, p) || slices.Contains(s.env.Dirs, p) || s.env.Layer.isDir(p) {
		return true
	}
	for f := range s.env.Files {
		if strings.HasPrefix(f, p+"/") {
			return true
		}
	}
	for _, d := range s.env.Dirs {
		if strings.HasPrefix(d, p+"/") {
			return true
		}
	}
	return false
}

// children lists the names directly inside directory p, sorted.
func (s *state) children(p string) []string {
	prefix := p + "/"
	if p == "/" {
		prefix = "/"
	}
	seen := map[string]bool{}
	for _, n := range s.mountPointsIn(p) {
		seen[n] = true
	}
	if v, rel, ok := s.mountAt(p); ok {
		// A volume hides what the image has below its mount point.
		for _, n := range v.List(rel) {
			seen[n] = true
		}
		return slices.Sorted(maps.Keys(seen))
	}
	add := func(full string) {
		if full == p || !strings.HasPrefix(full, prefix) {
			return
		}
		name, _, _ := strings.Cut(strings.TrimPrefix(full, prefix), "/")
		if name != "" {
			seen[name] = true
		}
	}
	for f := range s.env.Files {
		add(f)
	}
	for _, d := range s.env.Dirs {
		add(d)
	}
	for _, d := range standardDirs {
		add(d)
	}
	s.env.Layer.each(add)
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

func (s *state) ls(args []string) int {
	all := false
	var paths []string
	for _, a := range args {
		if strings.HasPrefix(a, "-") && len(a) > 1 {
			all = all || strings.Contains(a, "a")
			continue
		}
		paths = append(paths, a)
	}
	if len(paths) == 0 {
		paths = []string{"."}
	}
	code := 0
	for i, p := range paths {
		abs := s.abs(p)
		if _, ok := s.file(abs); ok {
			fmt.Fprintln(s.stdout, p)
			continue
		}
		if !s.isDir(abs) {
			fmt.Fprintf(s.stderr, "ls: %s: No such file or directory\n", p)
			code = 1
			continue
		}
		if len(paths) > 1 {
			if i > 0 {
				fmt.Fprintln(s.stdout)
			}
			fmt.Fprintf(s.stdout, "%s:\n", p)
		}
		if all {
			fmt.Fprintln(s.stdout, ".")
			fmt.Fprintln(s.stdout, "..")
		}
		for _, n := range s.children(abs) {
			fmt.Fprintln(s.stdout, n)
		}
	}
	return code
}

func (s *state) cat(args []string) int {
	if len(args) == 0 {
		args = []string{"-"}
	}
	code := 0
	for _, p := range args {
		if p == "-" {
			io.Copy(s.stdout, s.stdin)
			continue
		}
		abs := s.abs(p)
		if data, ok := s.file(abs); ok {
			s.stdout.Write(data)
			continue
		}
		if s.isDir(abs) {
			fmt.Fprintln(s.stderr, "cat: read error: Is a directory")
		} else {
			fmt.Fprintf(s.stderr, "cat: can't open '%s': No such file or directory\n", p)
		}
		code = 1
	}
	return code
}

// crlfWriter is a terminal's output processing (onlcr): "\n" becomes
// "\r\n".
type crlfWriter struct{ w io.Writer }

func (c crlfWriter) Write(p []byte) (int, error) {
	if _, err := c.w.Write([]byte(strings.ReplaceAll(string(p), "\n", "\r\n"))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// noInput is the stdin of a process given none: it reads nothing.
type noInput struct{}

func (noInput) Read([]byte) (int, error) { return 0, io.EOF }
