package shell

import (
	"errors"
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// rewrite changes a parsed script where the interpreter would otherwise
// leave the simulation: it runs the two sides of a pipeline at once, in
// goroutines joined by an OS pipe, and a background job (&) in a
// goroutine of its own, which would make a script's output and its
// simulated clock depend on how Go schedules them; `time` reads the real
// clock; $$, $PPID and $RANDOM are the machine's process ids and a
// random number; a process substitution makes a named pipe in the
// machine's /tmp; [[ -O ]] and [[ -G ]] ask the machine's user. So:
//
//   - a pipeline `A | B` runs A, then B reading what A printed: `! ( A )
//     > PIPE; ( B ) < PIPE`, PIPE a path only files.go knows (each side
//     in a subshell, as ash runs them; the `!` keeps set -e from ending
//     the script when A fails, as it would not in a pipeline). The
//     simulated programs end once their input is read, so a pipeline
//     prints what it would; what it cannot do is run a left-hand side
//     that never ends (`yes | head -1`).
//   - `time A` times A on the shell's clock.
//   - $$, $PPID and $RANDOM read variables the shell's environ answers
//     (process 1, its parent 0, a generator that gives the same numbers
//     every run).
//   - [[ -O F ]] and [[ -G F ]] are [[ -e F ]]: the shell runs as root.
//   - a command made of redirections only (`> FILE`) runs cmdTrue, so
//     that call fails it when its redirection failed.
//   - what is written to stderr by a redirection (`2> FILE`, `2>&1`,
//     `>&2`) goes through open (files.go), so that the interpreter's own
//     messages keep ash's words there too, and a command's output sent
//     to stderr (`echo oops >&2`) is not taken for one of them.
//   - in sh, a { in a command's words is quoted: ash has no brace
//     expansion (`echo {1..3}` prints {1..3}); bash has.
//
// Background jobs, coprocesses and process substitutions are refused
// with a syntax error: they would run beside the script.
func (sh *shell) rewrite(f *syntax.File) error {
	var err error
	syntax.Walk(f, func(n syntax.Node) bool {
		if err != nil {
			return false
		}
		switch n := n.(type) {
		case *syntax.Stmt:
			switch {
			case n.Background || n.Disown:
				err = errNotSimulated("&", "background jobs")
				return false
			case n.Coprocess:
				err = errNotSimulated("coproc", "coprocesses")
				return false
			}
			switch c := n.Cmd.(type) {
			case *syntax.BinaryCmd:
				if c.Op == syntax.Pipe || c.Op == syntax.PipeAll {
					n.Cmd = sh.pipeline(c)
				}
			case *syntax.TimeClause:
				n.Cmd = timed(c)
			case nil:
				if len(n.Redirs) > 0 {
					n.Cmd = call(cmdTrue)
				}
			}
		case *syntax.CoprocClause:
			err = errNotSimulated("coproc", "coprocesses")
		case *syntax.ProcSubst:
			err = errNotSimulated(n.Op.String(), "process substitutions")
		case *syntax.ParamExp:
			if n.Param != nil {
				switch n.Param.Value {
				case "$":
					n.Param = &syntax.Lit{Value: varPID}
				case "PPID":
					n.Param = &syntax.Lit{Value: varPPID}
				case "RANDOM", "SRANDOM":
					n.Param = &syntax.Lit{Value: varRandom}
				}
			}
		case *syntax.CallExpr:
			if sh.proc.name != "bash" {
				for _, w := range n.Args {
					noBraces(w)
				}
			}
		case *syntax.WordIter:
			if sh.proc.name != "bash" {
				for _, w := range n.Items {
					noBraces(w)
				}
			}
		case *syntax.Redirect:
			stderrRedirect(n)
		case *syntax.UnaryTest:
			if n.Op == syntax.TsUsrOwn || n.Op == syntax.TsGrpOwn {
				n.Op = syntax.TsExists
			}
		}
		return true
	})
	return err
}

// notSimulated is the error of a construct the simulation leaves out.
type notSimulated struct{ token, what string }

func (e notSimulated) Error() string {
	return fmt.Sprintf("%q is not simulated (%s are left out)", e.token, e.what)
}

func errNotSimulated(token, what string) error { return notSimulated{token, what} }

// isNotSimulated says whether err is a notSimulated.
func isNotSimulated(err error) bool {
	var ns notSimulated
	return errors.As(err, &ns)
}

// pipeline is `A | B` as `! ( A ) > PIPE; ( B ) < PIPE` (`|&` sends A's
// stderr to the pipe too).
func (sh *shell) pipeline(b *syntax.BinaryCmd) syntax.Command {
	sh.nextID++
	pipe := fmt.Sprintf("%s%d", pipePrefix, sh.nextID)
	left := &syntax.Stmt{Negated: true, Cmd: &syntax.Subshell{Stmts: []*syntax.Stmt{b.X}},
		Redirs: []*syntax.Redirect{{Op: syntax.RdrOut, Word: word(pipe)}}}
	if b.Op == syntax.PipeAll {
		left.Redirs = append(left.Redirs, &syntax.Redirect{Op: syntax.DplOut, N: &syntax.Lit{Value: "2"}, Word: word("1")})
	}
	right := &syntax.Stmt{Cmd: &syntax.Subshell{Stmts: []*syntax.Stmt{b.Y}},
		Redirs: []*syntax.Redirect{{Op: syntax.RdrIn, Word: word(pipe)}}}
	return &syntax.Block{Stmts: []*syntax.Stmt{left, right}}
}

// timed is `time A` as A between cmdTimeStart and cmdTimeEnd.
func timed(t *syntax.TimeClause) syntax.Command {
	stmts := []*syntax.Stmt{{Cmd: call(cmdTimeStart)}}
	if t.Stmt != nil {
		stmts = append(stmts, t.Stmt)
	}
	return &syntax.Block{Stmts: append(stmts, &syntax.Stmt{Cmd: call(cmdTimeEnd)})}
}

// call is a simple command of literal words.
func call(args ...string) *syntax.CallExpr {
	c := &syntax.CallExpr{}
	for _, a := range args {
		c.Args = append(c.Args, word(a))
	}
	return c
}

func word(s string) *syntax.Word {
	return &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: s}}}
}

// noBraces quotes each { of w's literal text, which keeps the
// interpreter from expanding braces in it.
func noBraces(w *syntax.Word) {
	var parts []syntax.WordPart
	for _, p := range w.Parts {
		lit, ok := p.(*syntax.Lit)
		if !ok || !strings.Contains(lit.Value, "{") {
			parts = append(parts, p)
			continue
		}
		for i, s := range strings.Split(lit.Value, "{") {
			if i > 0 {
				parts = append(parts, &syntax.SglQuoted{Value: "{"})
			}
			if s != "" {
				parts = append(parts, &syntax.Lit{Value: s})
			}
		}
	}
	w.Parts = parts
}

// The paths stderrRedirect gives: stdout and stderr as they are when the
// redirection is made, and a file stderr goes to (errFile, the file's
// path after it).
const (
	fdStdout = internal + "fd/1"
	fdStderr = internal + "fd/2"
	errFile  = internal + "stderr:"
)

// stderrRedirect makes `>&2`, `2>&1` and `2> FILE` redirections to the
// paths open knows (files.go): `> fdStderr`, `2> fdStdout`, `2>
// errFile+FILE`.
func stderrRedirect(r *syntax.Redirect) {
	fd := "1"
	if r.N != nil {
		fd = r.N.Value
	}
	switch {
	case r.Op == syntax.DplOut && r.Word.Lit() == "2" && fd == "1":
		r.Op, r.Word = syntax.RdrOut, word(fdStderr)
	case r.Op == syntax.DplOut && r.Word.Lit() == "1" && fd == "2":
		r.Op, r.Word = syntax.RdrOut, word(fdStdout)
	case (r.Op == syntax.RdrOut || r.Op == syntax.AppOut) && fd == "2":
		r.Word = &syntax.Word{Parts: append([]syntax.WordPart{&syntax.Lit{Value: errFile}}, r.Word.Parts...)}
	}
}
