package shell

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

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
	stdin := c.Stdio.Stdin
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	s := &state{ctx: ctx, env: c.Env, clock: c.Clock, stdin: stdin, stdout: stdout, stderr: stderr, tty: c.Stdio.TTY,
		dir: c.Env.WorkingDir, vars: map[string]string{}, name: "sh", beforeCommand: c.BeforeCommand}
	if s.dir == "" {
		s.dir = "/"
	}
	for _, v := range c.Env.Env {
		s.set(v.Name, v.Value)
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

// state is one process tree: the variables, directory and streams a
// script shares.
type state struct {
	ctx            context.Context
	env            Environment
	clock          clock.Clock
	stdin          io.Reader
	stdout, stderr io.Writer
	tty            bool
	dir            string
	order          []string
	vars           map[string]string
	last           int
	exited         bool
	// name is the shell's, in its prompt and messages: "sh" or "bash".
	name string
	// loops counts the loops running; breaks and continues the levels a
	// break or continue leaves (compound.go).
	loops, breaks, continues int
	// expandErr is the first error of an arithmetic expansion in the
	// command being expanded.
	expandErr error
	// beforeCommand is Command.BeforeCommand.
	beforeCommand func()
}

func (s *state) set(name, value string) {
	if _, ok := s.vars[name]; !ok {
		s.order = append(s.order, name)
	}
	s.vars[name] = value
}

// programs are the commands the simulated images have, as in /bin.
var programs = []string{"[", "[[", "cat", "date", "echo", "env", "false", "grep", "head", "hostname", "ls", "mkdir", "nslookup", "ping", "printenv", "pwd",
	"rm", "seq", "sh", "sleep", "tail", "tar", "test", "touch", "true", "wc", "wget"}

// Known says whether name is one of the programs of the simulated images
// (sh included, bash not), by name or by path in a bin directory: what a
// container's command may start with to be run by this shell.
func Known(name string) bool {
	return (&state{}).known(name)
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
	env := make([]Var, 0, len(s.order))
	for _, n := range s.order {
		env = append(env, Var{Name: n, Value: s.vars[n]})
	}
	exec := func(args []string) int {
		if len(args) == 0 {
			return 0
		}
		if !s.known(args[0]) {
			return ExitNotFound
		}
		return s.program(args)
	}
	return p(s.ctx, Process{Args: args, Env: env, Stdin: s.stdin, Stdout: s.stdout, Stderr: s.stderr, Clock: s.clock, Exec: exec})
}

// program runs one of the programs (args[0] is known).
func (s *state) program(args []string) int {
	if p := s.imageProgram(args[0]); p != nil {
		return s.runImageProgram(p, args)
	}
	switch path.Base(args[0]) {
	case "cat":
		return s.cat(args[1:])
	case "echo":
		return s.echo(args[1:])
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
		return s.sh(args[1:])
	case "bash":
		s.name = "bash"
		return s.sh(args[1:])
	case "tar":
		return s.tar(args[1:])
	case "test", "[", "[[":
		return s.test(path.Base(args[0]), args[1:])
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
	}
	return ExitNotFound
}

func (s *state) echo(args []string) int {
	newline, escapes := true, false
	for len(args) > 0 && len(args[0]) > 1 && strings.Trim(args[0], "-neE") == "" && args[0][0] == '-' {
		for _, f := range args[0][1:] {
			switch f {
			case 'n':
				newline = false
			case 'e':
				escapes = true
			case 'E':
				escapes = false
			}
		}
		args = args[1:]
	}
	out := strings.Join(args, " ")
	if escapes {
		out = strings.NewReplacer(`\n`, "\n", `\t`, "\t", `\\`, `\`).Replace(out)
	}
	if newline {
		out += "\n"
	}
	io.WriteString(s.stdout, out)
	return 0
}

func (s *state) printenv(prog string, names []string) int {
	if len(names) == 0 {
		for _, n := range s.order {
			fmt.Fprintf(s.stdout, "%s=%s\n", n, s.vars[n])
		}
		return 0
	}
	code := 0
	for _, n := range names {
		v, ok := s.vars[n]
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

// sh runs `sh -c SCRIPT` or, without -c, the commands read from stdin
// (an interactive shell when a terminal is attached).
func (s *state) sh(args []string) int {
	// Options come first: -c, and ones that change nothing here
	// (-e, -x, -u, -l), alone or together (-ec).
	var opts string
	for len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' && args[0] != "-i" {
		opts, args = opts+args[0][1:], args[1:]
	}
	if strings.Contains(opts, "c") {
		args = append([]string{"-c"}, args...)
	}
	if len(args) > 0 && args[0] == "-c" {
		if len(args) < 2 {
			fmt.Fprintln(s.stderr, "sh: -c requires an argument")
			return 2
		}
		return s.script(args[1])
	}
	if len(args) > 0 && args[0] != "-i" && args[0] != "-" {
		// sh FILE: the simulated images hold no scripts to run.
		fmt.Fprintf(s.stderr, "sh: can't open '%s': No such file or directory\n", args[0])
		return ExitNotFound
	}
	lines := bufio.NewReader(s.stdin)
	// pending holds the lines of a compound command not finished yet
	// (`while …; do` typed, `done` to come): the shell reads on, with
	// its second prompt, "> ".
	pending := ""
	for !s.exited {
		if s.tty {
			if pending == "" {
				io.WriteString(s.stdout, s.prompt())
			} else {
				io.WriteString(s.stdout, "> ")
			}
		}
		line, err := s.readLine(lines)
		if pending != "" {
			line = pending + "\n" + line
		}
		pending = ""
		if _, perr := parseScript(line); errors.Is(perr, errIncomplete) && err == nil {
			pending = line
			continue
		}
		if line != "" {
			s.script(line)
		}
		if err != nil {
			break
		}
	}
	return s.last
}

// prompt is busybox's for root (the directory, then " # "), or bash's as
// Debian's root sees it: root@HOST:DIR# .
func (s *state) prompt() string {
	if s.name == "bash" {
		return "root@" + s.env.Hostname + ":" + s.dir + "# "
	}
	return s.dir + " # "
}

// readLine reads one line; with a terminal it does what the terminal's
// line discipline would: echo, erase, ^C and ^D.
func (s *state) readLine(r *bufio.Reader) (string, error) {
	if !s.tty {
		line, err := r.ReadString('\n')
		return strings.TrimSuffix(line, "\n"), err
	}
	var b []byte
	for {
		c, err := r.ReadByte()
		if err != nil {
			return string(b), err
		}
		switch c {
		case '\r', '\n':
			io.WriteString(s.stdout, "\n")
			return string(b), nil
		case 0x7f, '\b':
			if len(b) > 0 {
				b = b[:len(b)-1]
				io.WriteString(s.stdout, "\b \b")
			}
		case 0x03: // ^C abandons the line
			io.WriteString(s.stdout, "^C\n")
			return "", nil
		case 0x04: // ^D on an empty line ends the shell
			if len(b) == 0 {
				return "", io.EOF
			}
		default:
			b = append(b, c)
			s.stdout.Write([]byte{c})
		}
	}
}

// script parses and runs a script; it returns the status of the last
// command, or the code given to exit.
func (s *state) script(src string) int {
	nodes, err := parseScript(src)
	if err != nil {
		fmt.Fprintf(s.stderr, "sh: %v\n", err)
		s.last = 2
		return s.last
	}
	return s.runList(nodes)
}

// parseScript parses src into its commands, compound ones nested.
func parseScript(src string) ([]node, error) {
	cmds, err := parse(src)
	if err != nil {
		return nil, err
	}
	return buildTree(cmds)
}

// run runs one simple command of a script.
func (s *state) run(ws []word) int {
	var args []string
	assigning := true
	for _, w := range ws {
		if assigning {
			if name, value, ok := w.assignment(); ok {
				s.set(name, s.expand(value))
				continue
			}
			assigning = false
		}
		if v, keep := s.expandWord(w); keep {
			if w.splits() {
				// An unquoted $(…) is split into words.
				args = append(args, strings.Fields(v)...)
			} else {
				args = append(args, v)
			}
		}
	}
	if err := s.expandErr; err != nil {
		// ash reports it and, unless interactive, gives up the script.
		s.expandErr = nil
		fmt.Fprintf(s.stderr, "sh: %v\n", err)
		s.exited = !s.tty
		return 2
	}
	if len(args) == 0 {
		return 0
	}
	if s.beforeCommand != nil {
		s.beforeCommand()
	}
	switch args[0] {
	case ":", "set", "trap", "umask", "wait":
		// Builtins that change nothing the simulation keeps.
		return 0
	case "printf":
		return s.printf(args[1:])
	case "read":
		return s.read(args[1:])
	case "exec":
		// exec CMD: the shell becomes CMD, which ends the script.
		if len(args) == 1 {
			return 0
		}
		code := s.run(wordsOf(args[1:]))
		s.exited = true
		return code
	case "break", "continue":
		return s.loopControl(args[0], args[1:])
	case "exit":
		code := s.last
		if len(args) > 1 {
			n, err := strconv.Atoi(args[1])
			if err != nil {
				fmt.Fprintf(s.stderr, "sh: exit: Illegal number: %s\n", args[1])
				n = 2
			}
			code = n & 0xff
		}
		s.exited = true
		return code
	case "cd":
		dir := "/root"
		if len(args) > 1 {
			dir = args[1]
		}
		abs := s.abs(dir)
		if !s.isDir(abs) {
			fmt.Fprintf(s.stderr, "sh: cd: can't cd to %s: No such file or directory\n", dir)
			return 2
		}
		s.dir = abs
		return 0
	case "export":
		for _, a := range args[1:] {
			if name, value, ok := strings.Cut(a, "="); ok {
				s.set(name, value)
			} else if _, ok := s.vars[a]; !ok {
				s.set(a, "")
			}
		}
		return 0
	}
	if !s.known(args[0]) {
		if s.name == "bash" {
			fmt.Fprintf(s.stderr, "bash: %s: command not found\n", args[0])
		} else {
			fmt.Fprintf(s.stderr, "sh: %s: not found\n", args[0])
		}
		return ExitNotFound
	}
	return s.program(args)
}

// expandWord expands a word's variables; an unquoted word that expands
// to nothing is dropped, as the shell's field splitting drops it.
func (s *state) expandWord(w word) (string, bool) {
	var b strings.Builder
	quoted := false
	for _, sg := range w {
		quoted = quoted || sg.quoted
		switch {
		case sg.arith:
			v, err := s.expandArith(sg.text)
			if err != nil && s.expandErr == nil {
				s.expandErr = err
			}
			b.WriteString(v)
		case sg.isVar:
			b.WriteString(s.lookup(sg.text))
		case sg.cmdsub:
			b.WriteString(s.substitute(sg.text))
		default:
			b.WriteString(sg.text)
		}
	}
	return b.String(), quoted || b.Len() > 0
}

func (s *state) expand(w word) string {
	v, _ := s.expandWord(w)
	return v
}

func (s *state) lookup(name string) string {
	switch name {
	case "?":
		return strconv.Itoa(s.last)
	case "PWD":
		return s.dir
	}
	return s.vars[name]
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

// splits: the word holds an unquoted command substitution, whose output
// the shell splits into words.
func (w word) splits() bool {
	for _, sg := range w {
		if sg.cmdsub && !sg.quoted {
			return true
		}
	}
	return false
}

// wordsOf makes words of arguments already expanded (exec's).
func wordsOf(args []string) []word {
	out := make([]word, len(args))
	for i, a := range args {
		out[i] = word{{text: a, quoted: true}}
	}
	return out
}

// substitute runs a command substitution's script in a subshell (its
// variables, directory and exit stay its own) and returns what it
// printed, without the trailing newlines.
func (s *state) substitute(src string) string {
	var b strings.Builder
	saved := *s
	s.vars, s.order = maps.Clone(s.vars), slices.Clone(s.order)
	s.stdout = &b
	s.script(src)
	last := s.last
	*s = saved
	s.last = last
	return strings.TrimRight(b.String(), "\n")
}
