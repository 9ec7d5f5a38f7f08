package shell

import (
	"context"
	"fmt"
	"path"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// internal starts the names of the commands rewrite.go and call put in a
// script for the shell's own use (and the paths of its pipes): a
// noncharacter, which no script holds.
const internal = "\uFDD0"

// The internal commands.
const (
	// cmdStatus N ends with status N.
	cmdStatus = internal + "status"
	// cmdTrue stands for a command made of redirections only.
	cmdTrue = internal + "true"
	// cmdTimeStart and cmdTimeEnd surround what `time` times.
	cmdTimeStart = internal + "time-start"
	cmdTimeEnd   = internal + "time-end"
)

// failedSh and failedBash are a command that failed: ash's status 2,
// bash's 1. The interpreter does not change what call returns.
var (
	failedSh   = []string{cmdStatus, "2"}
	failedBash = []string{cmdStatus, "1"}
)

// overridden are the builtins of the interpreter the shell runs itself
// (builtins.go), for ash's options and words.
var overridden = map[string]bool{"echo": true, "printf": true, "test": true, "[": true, "pwd": true, "umask": true, "ulimit": true, "kill": true, "type": true}

// call sees every simple command, expanded, before it runs (builtins and
// functions included): it counts it (Command.BeforeCommand), fails it
// when its redirections did, and turns the builtins whose words are
// ash's into the shell's own.
func (sh *shell) call(ctx context.Context, args []string) ([]string, error) {
	if sh.aborted {
		return nil, errAborted
	}
	sh.idleSteps = 0
	if sh.proc.beforeCommand != nil {
		sh.proc.beforeCommand()
	}
	// ash fails a command whose redirection, cd or . failed with status
	// 2, bash with 1.
	failed := failedSh
	if sh.proc.name == "bash" {
		failed = failedBash
	}
	if sh.broken > 0 {
		return failed, nil
	}
	if sh.runner.Funcs[args[0]] != nil {
		return args, nil
	}
	hc := interp.HandlerCtx(ctx)
	fail := func(format string, a ...any) ([]string, error) {
		fmt.Fprintf(underlying(hc.Stderr), sh.proc.name+": "+format+"\n", a...)
		return failed, nil
	}
	bash := sh.proc.name == "bash"
	switch name := args[0]; {
	case name == "echo" && (len(args) == 1 || !strings.HasPrefix(args[1], "-")):
		// The interpreter's echo prints plain words as ash's does, at
		// less cost; ash's takes its options together (-en).
		return args, nil
	case overridden[name]:
		args[0] = internal + name
		return args, nil
	case (name == "command" || name == "builtin") && len(args) > 1:
		if args[1] == "-v" || args[1] == "-V" {
			return append([]string{internal + "type", args[1]}, args[2:]...), nil
		}
		if overridden[args[1]] {
			return append([]string{internal + args[1]}, args[2:]...), nil
		}
	case name == "cd":
		dir := ""
		for _, a := range args[1:] {
			if a != "-L" && a != "-P" {
				dir = a
				break
			}
		}
		switch dir {
		case "-":
			return []string{"cd", "-"}, nil
		case "":
			dir = hc.Env.Get("HOME").String()
		}
		p := absIn(hc.Dir, dir)
		if !sh.proc.isDir(p) {
			why := "No such file or directory"
			if _, ok := sh.proc.file(p); ok {
				why = "Not a directory"
			}
			if bash {
				return fail("cd: %s: %s", dir, why)
			}
			return fail("cd: can't cd to %s: %s", dir, why)
		}
		return []string{"cd", dir}, nil
	case name == "exit" && len(args) > 1:
		if _, err := strconv.Atoi(args[1]); err != nil {
			if bash {
				fmt.Fprintf(underlying(hc.Stderr), "bash: exit: %s: numeric argument required\n", args[1])
			} else {
				fmt.Fprintf(underlying(hc.Stderr), "sh: exit: Illegal number: %s\n", args[1])
			}
			return []string{"exit", "2"}, nil
		}
		return args[:2], nil
	case (name == "break" || name == "continue") && len(args) > 1:
		if n, err := strconv.Atoi(args[1]); err != nil || n < 1 {
			if bash {
				return fail("%s: %s: numeric argument required", name, args[1])
			}
			return fail("%s: Illegal number: %s", name, args[1])
		}
		return args[:2], nil
	case name == "trap" && len(args) > 2:
		return sh.trap(args), nil
	case name == "eval" && len(args) > 1:
		src := strings.Join(args[1:], " ")
		text, err := sh.rewritten(src, "eval")
		if err != nil {
			return fail("eval: %s", syntaxError(src, err))
		}
		return []string{"eval", text}, nil
	case (name == "." || name == "source") && len(args) > 1:
		p, ok := sh.findScript(hc.Dir, hc.Env.Get("PATH").String(), args[1])
		// `.` is a special builtin: its error ends ash's script.
		sh.aborted = !ok && !bash
		switch {
		case ok:
		case bash:
			return fail("%s: No such file or directory", args[1])
		case strings.Contains(args[1], "/"):
			return fail("%s: can't open '%s': No such file or directory", name, args[1])
		default:
			return fail("%s: %s: not found", name, args[1])
		}
		data, _ := sh.proc.file(p)
		text, err := sh.rewritten(string(data), p)
		if err != nil {
			return fail("%s: %s", args[1], syntaxError(string(data), err))
		}
		// The interpreter looks the script up on this machine first,
		// then opens what it was given: a path with a NUL in it, which
		// no file has, and which open knows (files.go).
		sh.nextID++
		key := fmt.Sprintf("\x00source/%d", sh.nextID)
		sh.sources[key] = text
		return append([]string{name, key}, args[2:]...), nil
	}
	return args, nil
}

// trap keeps the signals a simulated process can meet: EXIT (0), when
// the script ends, and ERR. The others (TERM, INT, …) never come: the
// kubelet kills a simulated container without a signal.
func (sh *shell) trap(args []string) []string {
	action := args[1]
	var keep []string
	for _, sig := range args[2:] {
		switch strings.TrimPrefix(strings.ToUpper(sig), "SIG") {
		case "EXIT", "0":
			keep = append(keep, "EXIT")
		case "ERR":
			keep = append(keep, "ERR")
		}
	}
	if len(keep) == 0 {
		return []string{cmdStatus, "0"}
	}
	if action != "" && action != "-" {
		if text, err := sh.rewritten(action, "trap"); err == nil {
			action = text
		}
	}
	return append([]string{"trap", action}, keep...)
}

// rewritten parses a script given to eval or `.`, rewrites it
// (rewrite.go) and prints it back, for the interpreter to parse again.
func (sh *shell) rewritten(src, name string) (string, error) {
	f, err := sh.parse(src, name)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := syntax.NewPrinter().Print(&b, f); err != nil {
		return "", err
	}
	return b.String(), nil
}

// findScript finds what `. NAME` reads: NAME itself when it has a
// slash, else the first of PATH's directories holding it, else the
// working directory's.
func (sh *shell) findScript(dir, pathVar, name string) (string, bool) {
	if strings.Contains(name, "/") {
		p := absIn(dir, name)
		_, ok := sh.proc.file(p)
		return p, ok
	}
	for _, d := range append(strings.Split(pathVar, ":"), dir) {
		p := absIn(dir, path.Join(d, name))
		if _, ok := sh.proc.file(p); ok {
			return p, true
		}
	}
	return "", false
}

// absIn resolves p against dir.
func absIn(dir, p string) string {
	if !strings.HasPrefix(p, "/") {
		p = path.Join(dir, p)
	}
	return path.Clean(p)
}

// exec runs every command that is not a builtin or a function: a
// program of the simulated image (shell.go) as a process of the shell,
// with its exported variables, directory and streams; or one of the
// shell's internal commands. Nothing runs on the machine kubesim runs
// on.
func (sh *shell) exec(ctx context.Context, args []string) error {
	hc := interp.HandlerCtx(ctx)
	p := sh.process(ctx, hc)
	name := args[0]
	if cmd, ok := strings.CutPrefix(name, internal); ok {
		return sh.internal(p, hc, cmd, args)
	}
	if !p.known(name) {
		if p.name == "bash" {
			fmt.Fprintf(p.stderr, "bash: %s: command not found\n", name)
		} else {
			fmt.Fprintf(p.stderr, "sh: %s: not found\n", name)
		}
		return interp.ExitStatus(ExitNotFound)
	}
	return exitStatus(p.program(args))
}

// process is the state of a program the shell starts.
func (sh *shell) process(ctx context.Context, hc interp.HandlerContext) *state {
	p := *sh.proc
	p.ctx, p.dir = ctx, hc.Dir
	p.stdin, p.noStdin = hc.Stdin, hc.Stdin == nil
	switch {
	case p.noStdin && sh.input != nil:
		p.stdin, p.noStdin = sh.input, false
	case p.noStdin:
		p.stdin = noInput{}
	}
	p.stdout, p.stderr = hc.Stdout, underlying(hc.Stderr)
	// The exported variables, the container's first (in sh.proc.vars).
	p.exportedFrom = hc.Env
	return &p
}

// internal runs one of the shell's internal commands (args[0] is
// internal+cmd).
func (sh *shell) internal(p *state, hc interp.HandlerContext, cmd string, args []string) error {
	switch cmd {
	case "status":
		n := 0
		if len(args) > 1 {
			n, _ = strconv.Atoi(args[1])
		}
		return exitStatus(n)
	case "true":
		return nil
	case "time-start":
		sh.timers = append(sh.timers, p.clock.Now())
		return exitStatus(hc.LastExitStatus)
	case "time-end":
		if len(sh.timers) > 0 {
			start := sh.timers[len(sh.timers)-1]
			sh.timers = sh.timers[:len(sh.timers)-1]
			p.timed(p.clock.Now().Sub(start))
		}
		return exitStatus(hc.LastExitStatus)
	}
	switch {
	case !overridden[cmd]:
		fmt.Fprintf(p.stderr, "%s: %s: not found\n", p.name, args[0])
		return interp.ExitStatus(ExitNotFound)
	case cmd == "type":
		return exitStatus(sh.typeOf(p, args[1:]))
	}
	return exitStatus(p.builtin(cmd, args[1:]))
}

// exitStatus is the interpreter's error for a status.
func exitStatus(code int) error {
	if code == 0 {
		return nil
	}
	return interp.ExitStatus(uint8(code))
}
