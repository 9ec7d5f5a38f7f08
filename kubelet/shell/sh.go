package shell

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// The shell, sh (busybox's ash) and bash: mvdan.cc/sh parses a script
// (its syntax package, in its bash dialect, which holds nearly all of
// ash's) and runs it (its interp package). The interpreter never reaches
// the machine kubesim runs on: every command that is not one of its
// builtins comes to exec, which runs a program of the simulated image
// (shell.go), and every file it opens, stats or lists comes to the
// handlers of files.go, over the container's simulated files. What the
// interpreter would otherwise do with goroutines or the real clock
// (pipelines, background jobs, time), rewrite.go changes in the parsed
// script before it runs, so that a script played on a simulated clock
// plays the same way every time.
//
// The interpreter's builtins (read, cd, export, set, eval, exit, …)
// behave as bash's. Where busybox words an error its own way and a
// course meets it (cd, exit, break, a redirection's file, an arithmetic
// error, a syntax error), the words are ash's: call checks a command
// before the builtin runs, and shellErrors rewords what the interpreter
// prints. echo (with options), printf, test, [, pwd, type and command -v
// are the simulation's own (builtins.go), for ash's options and
// messages, and so are umask, ulimit and kill, which the interpreter
// lacks.

// shell is one sh (or bash) process: an interpreter and what its
// handlers share.
type shell struct {
	// proc is the process the shell is: its environment, clock and
	// streams.
	proc   *state
	runner *interp.Runner
	// errs is the interpreter's own standard error (its messages).
	errs *shellErrors
	// pipes are the outputs of the pipelines' left-hand sides, by their
	// path (rewrite.go), the innermost run last.
	pipes map[string][][]byte
	// sources are the scripts `.` reads, rewritten, by their path.
	sources map[string]string
	// nextID numbers the pipelines and sourced scripts.
	nextID int
	// broken counts the redirections that failed and whose command has
	// not ended: its commands do not run (files.go).
	broken int
	// aborted: an expansion failed (ash's "divide by zero"); the script
	// gives up at its next command, with status 2.
	aborted bool
	// timers are the start times of the time commands running.
	timers []time.Time
	// random is the state of $RANDOM's generator.
	random uint32
	// resetting: the interpreter is reading its environment to start.
	resetting bool
	// idleSteps counts the interpreter's steps since its last command.
	idleSteps int
	// input is an interactive shell's: the lines it reads, which the
	// programs it starts read too.
	input *replInput
}

// replInput is what an interactive shell reads its commands from.
type replInput struct{ *bufio.Reader }

// stepContext is the context a script runs in: the interpreter asks it
// whether to go on (Err) before each statement. A loop of statements
// that run no command (`while [[ 1 ]]; do i=$((i+1)); done`) would never
// call Command.BeforeCommand, by which the kubelet stops a script that
// runs without end: every idleStepsPerCommand steps without a command
// count as one.
type stepContext struct {
	context.Context
	sh *shell
}

// idleStepsPerCommand is how many of the interpreter's steps without a
// command count as one (a command takes a few steps itself).
const idleStepsPerCommand = 100

func (c stepContext) Err() error {
	if c.sh.idleSteps++; c.sh.idleSteps >= idleStepsPerCommand {
		c.sh.idleSteps = 0
		if c.sh.proc.beforeCommand != nil {
			c.sh.proc.beforeCommand()
		}
	}
	return c.Context.Err()
}

// errAborted ends a script that an expansion error gave up.
var errAborted = errors.New("kubesim: script aborted")

// newShell makes the shell of process p: stdin is what its interpreter
// reads (nil: nothing), opts the option letters it was given (e, x, u,
// f, a) and params its $1….
func newShell(p *state, stdin io.Reader, opts string, params []string) (*shell, error) {
	p.variables()
	sh := &shell{proc: p, pipes: map[string][][]byte{}, sources: map[string]string{}, random: 1}
	sh.errs = &shellErrors{sh: sh, w: p.stderr}
	var flags []string
	for _, o := range opts {
		if strings.ContainsRune("euxfa", o) {
			flags = append(flags, "-"+string(o))
		}
	}
	flags = append(append(flags, "--"), params...)
	r, err := interp.New(
		interp.Env(environ{sh}),
		// interp.Dir would stat the directory on this machine.
		func(r *interp.Runner) error { r.Dir = p.dir; return nil },
		interp.StdIO(stdin, p.stdout, sh.errs),
		interp.CallHandler(sh.call),
		interp.ExecHandlers(func(interp.ExecHandlerFunc) interp.ExecHandlerFunc { return sh.exec }),
		interp.OpenHandler(sh.open),
		interp.StatHandler(sh.stat),
		interp.ReadDirHandler2(sh.readDir),
		interp.AccessHandler(sh.access),
		interp.Params(flags...),
	)
	if err != nil {
		return nil, err
	}
	sh.runner = r
	// The interpreter reads HOME, UID and TMPDIR as it starts, and the
	// machine's when they are not set: environ answers instead.
	sh.resetting = true
	r.Reset()
	sh.resetting = false
	return sh, nil
}

// sh runs `sh -c SCRIPT [NAME [ARG…]]`, `sh FILE [ARG…]` or, with
// neither, the commands read from stdin (an interactive shell when a
// terminal is attached).
func (s *state) sh(args []string) int {
	// Options come first: -c, and -e, -x, -u (alone or together: -ec);
	// others (-l, -s) change nothing here.
	var opts string
	for len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' && args[0] != "-i" {
		opt := args[0][1:]
		args = args[1:]
		if opt == "-" {
			break
		}
		if opt == "o" && len(args) > 0 {
			// -o NAME: the options' long names.
			opt, args = longOptions[args[0]], args[1:]
		}
		opts += opt
	}
	switch {
	case strings.Contains(opts, "c"):
		if len(args) == 0 {
			fmt.Fprintf(s.stderr, "%s: -c requires an argument\n", s.name)
			return 2
		}
		name, params := s.name, []string(nil)
		if len(args) > 1 {
			name, params = args[1], args[2:]
		}
		return s.script(opts, args[0], name, params)
	case len(args) > 0 && args[0] != "-i" && args[0] != "-":
		// sh FILE: a script of the container's files (a ConfigMap's).
		data, ok := s.file(s.abs(args[0]))
		if !ok {
			fmt.Fprintf(s.stderr, "%s: can't open '%s': No such file or directory\n", s.name, args[0])
			return ExitNotFound
		}
		return s.script(opts, string(data), args[0], args[1:])
	}
	return s.interactive(opts)
}

// longOptions are the letters of the options -o names.
var longOptions = map[string]string{"errexit": "e", "nounset": "u", "xtrace": "x", "noglob": "f", "allexport": "a"}

// script parses src and runs it; $0 is name.
func (s *state) script(opts, src, name string, params []string) int {
	var stdin io.Reader
	switch in := s.stdin.(type) {
	case *os.File:
		stdin = in // a pipe the interpreter made, for a shell it runs
	case *replInput:
		// Started at an interactive shell's prompt: the lines typed
		// next are that shell's, not the script's.
	default:
		if s.noStdin {
			break
		}
		// The interpreter reads from an OS pipe, which it would make
		// itself and never close: this one is closed when the script
		// ends, and with it the copying.
		pr, pw, err := os.Pipe()
		if err != nil {
			fmt.Fprintf(s.stderr, "%s: %v\n", s.name, err)
			return 2
		}
		go func() {
			io.Copy(pw, in)
			pw.Close()
		}()
		defer pr.Close()
		stdin = pr
	}
	sh, err := newShell(s, stdin, opts, params)
	if err != nil {
		fmt.Fprintf(s.stderr, "%s: %v\n", s.name, err)
		return 2
	}
	f, err := sh.parse(src, name)
	if err != nil {
		fmt.Fprintf(s.stderr, "%s: %s\n", s.name, syntaxError(src, err))
		return 2
	}
	return sh.run(f)
}

// parse parses a script and rewrites it for the interpreter
// (rewrite.go).
func (sh *shell) parse(src, name string) (*syntax.File, error) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), name)
	if err != nil {
		return nil, err
	}
	if err := sh.rewrite(f); err != nil {
		return nil, err
	}
	return f, nil
}

// run runs a parsed script and returns its status. The script is a
// pod's, anyone's: should the interpreter panic on it, the script fails,
// not the kubelet.
func (sh *shell) run(f *syntax.File) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(sh.proc.stderr, "%s: internal error: %v\n", sh.proc.name, r)
			code = 2
		}
	}()
	err := sh.runner.Run(stepContext{Context: sh.proc.ctx, sh: sh}, f)
	var status interp.ExitStatus
	switch {
	case sh.aborted:
		return 2
	case err == nil:
		return 0
	case errors.As(err, &status):
		return int(status)
	case sh.proc.ctx.Err() != nil:
		// The client went away, or the kubelet stopped the play: the
		// process is killed (SIGKILL).
		return 137
	}
	fmt.Fprintf(sh.proc.stderr, "%s: %v\n", sh.proc.name, err)
	return 2
}

// interactive reads commands from stdin, one line at a time, and runs
// them until exit or the end of input; with a terminal, it echoes what
// is typed and prompts.
func (s *state) interactive(opts string) int {
	// The interpreter reads no input: what comes in is the commands.
	sh, err := newShell(s, nil, opts, nil)
	if err != nil {
		fmt.Fprintf(s.stderr, "%s: %v\n", s.name, err)
		return 2
	}
	// The programs it starts read the same input (a shell typed at the
	// prompt reads the next lines).
	in, ok := s.stdin.(*replInput)
	if !ok {
		in = &replInput{bufio.NewReader(s.stdin)}
	}
	sh.input = in
	lines := in.Reader
	// pending holds the lines of a command not finished yet (`while …;
	// do` typed, `done` to come): the shell reads on, with its second
	// prompt, "> ".
	pending, last := "", 0
	for {
		if s.tty {
			if pending == "" {
				io.WriteString(s.stdout, sh.prompt())
			} else {
				io.WriteString(s.stdout, "> ")
			}
		}
		line, err := s.readLine(lines)
		if pending != "" {
			line = pending + "\n" + line
		}
		pending = ""
		if strings.TrimSpace(line) != "" {
			// A here-document starts after the line's newline.
			f, perr := sh.parse(line+"\n", s.name)
			var pe syntax.ParseError
			switch {
			case errors.As(perr, &pe) && pe.Incomplete && err == nil:
				pending = line
				continue
			case perr != nil:
				fmt.Fprintf(s.stderr, "%s: %s\n", s.name, syntaxError(line, perr))
				last = 2
			default:
				last = sh.run(f)
				if sh.runner.Exited() && !sh.aborted || s.ctx.Err() != nil {
					return last
				}
				// An error gives up the line, not the shell.
				sh.aborted, sh.broken = false, 0
			}
		}
		if err != nil {
			return last
		}
	}
}

// prompt is busybox's for root (the directory, then " # "), or bash's as
// Debian's root sees it: root@HOST:DIR# .
func (sh *shell) prompt() string {
	if sh.proc.name == "bash" {
		return "root@" + sh.proc.env.Hostname + ":" + sh.runner.Dir + "# "
	}
	return sh.runner.Dir + " # "
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

// environ is the environment the interpreter starts with: the
// container's variables, exported, and what a shell finds set without
// them (HOME, the user's ids, ~user), which the interpreter would
// otherwise read from the machine kubesim runs on. It also holds $$,
// $PPID and $RANDOM, which rewrite.go renames to it.
type environ struct{ sh *shell }

// The variables rewrite.go gives $$, $PPID and $RANDOM.
const (
	varPID    = "__kubesim_pid"
	varPPID   = "__kubesim_ppid"
	varRandom = "__kubesim_random"
)

func (e environ) Get(name string) expand.Variable {
	for _, v := range e.sh.proc.vars {
		if v.Name == name {
			return expand.Variable{Set: true, Exported: true, Kind: expand.String, Str: v.Value}
		}
	}
	str := func(s string) expand.Variable { return expand.Variable{Set: true, Kind: expand.String, Str: s} }
	switch name {
	case "HOME":
		return str("/root")
	case "UID", "EUID", "GID":
		return str("0")
	case "TMPDIR":
		if e.sh.resetting {
			// The interpreter would open a file there on this machine,
			// for a process substitution (which rewrite.go refuses): a
			// path no file can have.
			return str("/\x00")
		}
	case varPID:
		// A container's command is its process 1.
		return str("1")
	case varPPID:
		return str("0")
	case varRandom:
		// A linear congruential generator (the C library's rand), so a
		// script plays the same way every time.
		e.sh.random = e.sh.random*1103515245 + 12345
		return str(fmt.Sprint(e.sh.random >> 16 & 0x7fff))
	}
	if user, ok := strings.CutPrefix(name, "HOME "); ok {
		// ~user: the home of a user of the container's /etc/passwd;
		// an unknown user's ~ stays as written.
		return str(e.sh.home(user))
	}
	return expand.Variable{}
}

func (e environ) Each(fn func(name string, vr expand.Variable) bool) {
	for _, v := range e.sh.proc.vars {
		if !fn(v.Name, expand.Variable{Set: true, Exported: true, Kind: expand.String, Str: v.Value}) {
			return
		}
	}
}

// home is user's home directory, from the container's /etc/passwd (root
// has /root); "~user" when there is none.
func (sh *shell) home(user string) string {
	if user == "root" {
		return "/root"
	}
	passwd, _ := sh.proc.file("/etc/passwd")
	for line := range strings.Lines(string(passwd)) {
		f := strings.Split(strings.TrimSpace(line), ":")
		if len(f) >= 6 && f[0] == user {
			return f[5]
		}
	}
	return "~" + user
}

// exported are the exported variables of env, as a program started with
// it gets them: the container's first, in their order, then the ones
// the script exported, by name.
func exported(env expand.Environ, base []Var) []Var {
	vals := map[string]string{}
	env.Each(func(name string, vr expand.Variable) bool {
		if vr.IsSet() && vr.Exported && vr.Kind == expand.String {
			vals[name] = vr.Str
		} else {
			delete(vals, name)
		}
		return true
	})
	out := make([]Var, 0, len(vals))
	for _, v := range base {
		if value, ok := vals[v.Name]; ok {
			out = append(out, Var{Name: v.Name, Value: value})
			delete(vals, v.Name)
		}
	}
	start := len(out)
	for name, value := range vals {
		out = append(out, Var{Name: name, Value: value})
	}
	slices.SortFunc(out[start:], func(a, b Var) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// shellErrors is the interpreter's standard error: what it prints
// itself (the errors of its builtins and expansions, never a program's,
// which exec gives the stream underneath), in ash's words.
type shellErrors struct {
	sh *shell
	w  io.Writer
}

func (e *shellErrors) Write(p []byte) (int, error) {
	if msg, ok := e.sh.reword(strings.TrimSuffix(string(p), "\n")); ok {
		io.WriteString(e.w, msg+"\n")
	}
	return len(p), nil
}

func (e *shellErrors) Read([]byte) (int, error) { return 0, io.EOF }

// Close closes the file underneath (a redirection's).
func (e *shellErrors) Close() error {
	if c, ok := e.w.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// underlying is the stream under w when w is a shell's own stderr.
func underlying(w io.Writer) io.Writer {
	if e, ok := w.(*shellErrors); ok {
		return e.w
	}
	return w
}

// reword is an interpreter's message as ash prints it, or false when ash
// prints none. An expansion error gives the script up.
func (sh *shell) reword(msg string) (string, bool) {
	name := sh.proc.name
	switch {
	case msg == errAborted.Error(), msg == "interp: can't read, there's no stdin":
		return "", false
	case strings.HasPrefix(msg, "+"):
		// set -x's trace.
		return msg, true
	case msg == "division by zero":
		sh.aborted = true
		return name + ": divide by zero", true
	case strings.Contains(msg, "arithmetic"), msg == "exponent less than 0":
		sh.aborted = true
		return name + ": arithmetic syntax error", true
	case strings.HasSuffix(msg, ": readonly variable"):
		sh.aborted = true
		return name + ": " + strings.TrimSuffix(msg, ": readonly variable") + ": is read only", true
	case msg == "local: can only be used in a function":
		return name + ": local: not in a function", true
	case strings.HasSuffix(msg, ": unbound variable"):
		sh.aborted = true
		return name + ": " + strings.TrimSuffix(msg, ": unbound variable") + ": parameter not set", true
	}
	return name + ": " + msg, true
}
