package kubelet

import (
	"fmt"
	"maps"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/kubesim/kubesim/api"
)

// This file is the vocabulary of simulated containers: what a container
// does is read from its image, command and args, the few forms courses
// use (docs/containers.md lists them). A program is a timeline: lines
// printed at offsets from the container's start, files touched and
// removed (for exec probes), and how it ends.

// Well-known images whose behaviour is built in.
const (
	// SleepImage sleeps for its first argument (a duration such as 30s,
	// or seconds) and exits 0; with no argument it runs until killed.
	SleepImage = "kubesim/sleep"
	// FailImage exits with code 1 (or its second argument) after its
	// first argument (1s by default), saying so.
	FailImage = "kubesim/fail"
)

// shellImages run `sh` when given no command: with nothing on its
// standard input, the shell exits 0 at once (kubectl run x --image=busybox
// completes and is restarted, as on a real node).
var shellImages = []string{"busybox", "alpine", "ubuntu", "debian", "bash", "centos", "fedora"}

// opKind is what one step of a program does.
type opKind int

const (
	opEcho opKind = iota
	opSleep
	opExit
	opTouch
	opRm
	opStatus // true, false, an unknown command: sets $?
)

// step is one simple command of a program.
type step struct {
	op   opKind
	text string        // echo: the line; touch, rm: the file
	d    time.Duration // sleep; -1 is forever
	code int32         // exit, opStatus
	// and: joined to the previous step by && (skipped if that failed).
	and bool
}

// program is what a simulated container runs.
type program struct {
	steps []step
	// loop, when set, repeats forever after steps (while true; do …; done).
	loop []step
	// server: the container runs until killed whatever steps say (a
	// server image, sleep infinity).
	server bool
}

// logLine is one line printed, at an offset from the container's start.
type logLine struct {
	at   time.Duration
	text string
}

// timeline is a program run out: what it printed, its files, its end.
type timeline struct {
	lines []logLine
	// loopLines are printed at loopStart + k*period + at for every k.
	loopLines []logLine
	loopStart time.Duration
	period    time.Duration
	// files: when each file appears and goes (-1: never).
	files map[string][2]time.Duration
	// exits: the program ends by itself, after exitAfter with exitCode.
	exits     bool
	exitAfter time.Duration
	exitCode  int32
}

// run plays the program out once.
func (p program) run() timeline {
	tl := timeline{files: map[string][2]time.Duration{}}
	var t time.Duration
	var status int32
	done := false
	play := func(steps []step, lines *[]logLine, base time.Duration) {
		for _, s := range steps {
			if done {
				return
			}
			if s.and && status != 0 {
				continue
			}
			switch s.op {
			case opEcho:
				*lines = append(*lines, logLine{at: t - base, text: s.text})
				status = 0
			case opSleep:
				if s.d < 0 {
					tl.exits = false
					done = true
					return
				}
				t += s.d
				status = 0
			case opExit:
				tl.exits, tl.exitAfter, tl.exitCode, done = true, t, s.code, true
				return
			case opTouch:
				if f, ok := tl.files[s.text]; !ok || f[1] >= 0 {
					tl.files[s.text] = [2]time.Duration{t, -1}
				}
				status = 0
			case opRm:
				if f, ok := tl.files[s.text]; ok && f[1] < 0 {
					tl.files[s.text] = [2]time.Duration{f[0], t}
				}
				status = 0
			case opStatus:
				if s.text != "" {
					*lines = append(*lines, logLine{at: t - base, text: s.text})
				}
				status = s.code
			}
		}
	}
	play(p.steps, &tl.lines, 0)
	if done {
		tl.exits = tl.exits && !p.server
		return tl
	}
	if p.loop != nil {
		tl.loopStart = t
		play(p.loop, &tl.loopLines, tl.loopStart)
		if done {
			// The loop's body ended the program on its first pass.
			tl.lines = append(tl.lines, shift(tl.loopLines, tl.loopStart)...)
			tl.loopLines = nil
			tl.exits = tl.exits && !p.server
			return tl
		}
		tl.period = t - tl.loopStart
		if tl.period <= 0 {
			tl.period = time.Second // a busy loop: one pass a second keeps logs finite
		}
		return tl
	}
	if !p.server {
		tl.exits, tl.exitAfter, tl.exitCode = true, t, status
	}
	return tl
}

func shift(lines []logLine, d time.Duration) []logLine {
	out := make([]logLine, len(lines))
	for i, l := range lines {
		out[i] = logLine{at: l.at + d, text: l.text}
	}
	return out
}

// fileExists reports whether the program's file is there at offset t.
func (tl timeline) fileExists(name string, t time.Duration) bool {
	f, ok := tl.files[name]
	return ok && t >= f[0] && (f[1] < 0 || t < f[1])
}

// fileChanges are the offsets where some file appears or goes.
func (tl timeline) fileChanges() []time.Duration {
	var out []time.Duration
	for _, f := range tl.files {
		out = append(out, f[0])
		if f[1] >= 0 {
			out = append(out, f[1])
		}
	}
	return out
}

// linesUpTo are the lines printed by offset end (inclusive), at most the
// last max of them: a long-running loop's log is rotated, not kept whole.
func (tl timeline) linesUpTo(end time.Duration, max int) []logLine {
	var out []logLine
	for _, l := range tl.lines {
		if l.at <= end {
			out = append(out, l)
		}
	}
	if len(tl.loopLines) > 0 && end >= tl.loopStart {
		passes := int64((end-tl.loopStart)/tl.period) + 1
		per := int64(len(tl.loopLines))
		// Skip the passes whose lines would be rotated away anyway.
		first := int64(0)
		if keep := int64(max)/per + 2; passes > keep {
			first = passes - keep
		}
		for k := first; k < passes; k++ {
			base := tl.loopStart + time.Duration(k)*tl.period
			for _, l := range tl.loopLines {
				if base+l.at <= end {
					out = append(out, logLine{at: base + l.at, text: l.text})
				}
			}
		}
	}
	if len(out) > max {
		out = out[len(out)-max:]
	}
	return out
}

// nextLineAfter is the offset of the first line printed after offset t,
// if any (a follower waits for it).
func (tl timeline) nextLineAfter(t time.Duration) (time.Duration, bool) {
	for _, l := range tl.lines {
		if l.at > t {
			return l.at, true
		}
	}
	if len(tl.loopLines) == 0 {
		return 0, false
	}
	k := int64(0)
	if t >= tl.loopStart {
		k = int64((t - tl.loopStart) / tl.period)
	}
	for ; ; k++ {
		base := tl.loopStart + time.Duration(k)*tl.period
		for _, l := range tl.loopLines {
			if base+l.at > t {
				return base + l.at, true
			}
		}
	}
}

// programFor reads what container c of pod runs from its image, command
// and args. env expands $VAR in echo (the container's literal env, and
// HOSTNAME, the pod's name).
func programFor(pod *api.Pod, c *api.Container) program {
	env := map[string]string{"HOSTNAME": pod.Name}
	for _, e := range c.Env {
		if e.ValueFrom == nil {
			env[e.Name] = e.Value
		}
	}
	repo := imageRepo(c.Image)
	argv := append(append([]string(nil), c.Command...), c.Args...)
	switch repo {
	case SleepImage:
		if len(c.Command) == 0 {
			if len(argv) == 0 {
				return program{server: true}
			}
			return program{steps: []step{{op: opSleep, d: parseSleep(argv[0])}}}
		}
	case FailImage:
		if len(c.Command) == 0 {
			after, code := time.Second, int32(1)
			if len(argv) > 0 {
				if d := parseSleep(argv[0]); d >= 0 {
					after = d
				}
			}
			if len(argv) > 1 {
				if n, err := strconv.Atoi(argv[1]); err == nil && n > 0 && n < 256 {
					code = int32(n)
				}
			}
			return program{steps: []step{{op: opEcho, text: fmt.Sprintf("failing in %s with exit code %d", after, code)},
				{op: opSleep, d: after}, {op: opEcho, text: "failed"}, {op: opExit, code: code}}}
		}
	}
	if interactive(pod, c) {
		// A shell with its stdin held open waits for input: it runs
		// until an attached session ends it (interactive.go).
		return program{server: true}
	}
	if len(argv) == 0 {
		if isShellImage(repo) {
			return program{} // sh with nothing to read: exits 0 at once
		}
		return program{server: true}
	}
	if p, ok := commandProgram(argv, env); ok {
		return p
	}
	// Something we do not simulate (a server's own binary): it runs.
	return program{server: true}
}

// commandProgram understands argv when it is one of the vocabulary's
// commands: sh -c SCRIPT, sleep, echo, true, false.
func commandProgram(argv []string, env map[string]string) (program, bool) {
	name := argv[0]
	if i := strings.LastIndex(name, "/"); i >= 0 {
		name = name[i+1:]
	}
	switch name {
	case "sh", "bash", "ash", "dash":
		if len(argv) >= 3 && argv[1] == "-c" {
			return parseScript(argv[2], env), true
		}
		if len(argv) >= 3 && argv[1] == "-ec" {
			return parseScript(argv[2], env), true
		}
		if len(argv) == 1 {
			return program{}, true
		}
		return program{}, false
	case "sleep", "echo", "true", "false":
		steps := parseSimple(argv, env)
		return program{steps: steps}, true
	}
	return program{}, false
}

// parseScript reads a shell script: simple commands separated by ; && or
// newlines, and one `while true; do …; done` loop.
func parseScript(script string, env map[string]string) program {
	var p program
	cmds := splitCommands(script)
	env = maps.Clone(env)
	for i := 0; i < len(cmds); i++ {
		words := cmds[i].words
		if len(words) > 0 && isAssignment(words[0]) {
			// NAME=value sets a variable for what follows (its value is
			// fixed when the script is read: a loop that changes it, as a
			// counter does, prints the first value every time).
			for len(words) > 0 && isAssignment(words[0]) {
				name, value, _ := strings.Cut(words[0], "=")
				env[name] = expand(value, env)
				words = words[1:]
			}
			if len(words) == 0 {
				p.steps = append(p.steps, withAnd([]step{{op: opStatus}}, cmds[i].and)...)
				continue
			}
		}
		if len(words) >= 2 && words[0] == "while" && (words[1] == "true" || words[1] == ":") {
			// while true; do A; B; done — the body runs until "done".
			var body []step
			j := i + 1
			for ; j < len(cmds); j++ {
				w := cmds[j].words
				if len(w) > 0 && w[0] == "done" {
					break
				}
				if len(w) > 0 && w[0] == "do" {
					w = w[1:]
				}
				if len(w) > 0 {
					body = append(body, withAnd(parseSimple(w, env), cmds[j].and)...)
				}
			}
			p.loop = body
			if len(p.loop) == 0 {
				p.loop = []step{{op: opSleep, d: time.Second}}
			}
			return p
		}
		if len(words) >= 3 && words[0] == "for" && words[2] == "in" {
			// for X in A B C; do …; done — unrolled, $X set in turn.
			var body []command
			j := i + 1
			for ; j < len(cmds); j++ {
				w := cmds[j].words
				if len(w) > 0 && w[0] == "done" {
					break
				}
				if len(w) > 0 && w[0] == "do" {
					w = w[1:]
				}
				if len(w) > 0 {
					body = append(body, command{words: w, and: cmds[j].and})
				}
			}
			inner := maps.Clone(env)
			for n, item := range forItems(words[3:]) {
				if n >= maxForItems {
					break
				}
				inner[words[1]] = item
				for _, c := range body {
					p.steps = append(p.steps, withAnd(parseSimple(c.words, inner), c.and)...)
				}
			}
			i = j
			continue
		}
		p.steps = append(p.steps, withAnd(parseSimple(words, env), cmds[i].and)...)
	}
	return p
}

// isAssignment: NAME=value, NAME a valid variable name.
func isAssignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	if !ok || name == "" || name[0] >= '0' && name[0] <= '9' {
		return false
	}
	for _, c := range name {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// maxForItems bounds an unrolled for loop.
const maxForItems = 10000

// forItems are the words a for loop goes over: as written, or the
// numbers of $(seq A B), $(seq B) or {A..B}.
func forItems(words []string) []string {
	joined := strings.Join(words, " ")
	var lo, hi int
	var ok bool
	switch {
	case strings.HasPrefix(joined, "$(seq ") && strings.HasSuffix(joined, ")"):
		args := strings.Fields(strings.TrimSuffix(strings.TrimPrefix(joined, "$(seq "), ")"))
		switch len(args) {
		case 1:
			lo, ok = 1, true
			hi, ok = atoiOK(args[0], ok)
		case 2:
			lo, ok = atoiOK(args[0], true)
			hi, ok = atoiOK(args[1], ok)
		}
	case len(words) == 1 && strings.HasPrefix(joined, "{") && strings.HasSuffix(joined, "}") && strings.Contains(joined, ".."):
		a, b, _ := strings.Cut(strings.Trim(joined, "{}"), "..")
		lo, ok = atoiOK(a, true)
		hi, ok = atoiOK(b, ok)
	}
	if !ok {
		return words
	}
	var out []string
	for n := lo; n <= hi && len(out) < maxForItems; n++ {
		out = append(out, strconv.Itoa(n))
	}
	return out
}

func atoiOK(s string, ok bool) (int, bool) {
	n, err := strconv.Atoi(s)
	return n, ok && err == nil
}

func withAnd(steps []step, and bool) []step {
	if len(steps) > 0 {
		steps[0].and = and
	}
	return steps
}

// command is one simple command of a script and whether && joined it to
// the previous one.
type command struct {
	words []string
	and   bool
}

// splitCommands splits a script into words and commands, honouring
// single and double quotes.
func splitCommands(script string) []command {
	var cmds []command
	var words []string
	var word strings.Builder
	inWord, and := false, false
	flushWord := func() {
		if inWord {
			words = append(words, word.String())
			word.Reset()
			inWord = false
		}
	}
	flushCmd := func(nextAnd bool) {
		flushWord()
		if len(words) > 0 {
			cmds = append(cmds, command{words: words, and: and})
		}
		words, and = nil, nextAnd
	}
	for i := 0; i < len(script); i++ {
		ch := script[i]
		switch {
		case ch == '\'':
			inWord = true
			j := strings.IndexByte(script[i+1:], '\'')
			if j < 0 {
				j = len(script) - i - 1
			}
			word.WriteString(script[i+1 : i+1+j])
			i += j + 1
		case ch == '"':
			inWord = true
			j := i + 1
			for ; j < len(script) && script[j] != '"'; j++ {
				if script[j] == '\\' && j+1 < len(script) {
					j++
				}
				word.WriteByte(script[j])
			}
			i = j
		case ch == ';' || ch == '\n':
			flushCmd(false)
		case ch == '&' && i+1 < len(script) && script[i+1] == '&':
			flushCmd(true)
			i++
		case ch == ' ' || ch == '\t':
			flushWord()
		default:
			inWord = true
			word.WriteByte(ch)
		}
	}
	flushCmd(false)
	return cmds
}

// parseSimple reads one simple command.
func parseSimple(words []string, env map[string]string) []step {
	if len(words) > 0 && words[0] == "exec" {
		words = words[1:]
	}
	if len(words) > 0 && isAssignment(words[0]) {
		for len(words) > 0 && isAssignment(words[0]) {
			words = words[1:] // in a loop's body: see parseScript
		}
		if len(words) == 0 {
			return []step{{op: opStatus}}
		}
	}
	// A redirection sends echo's output to a file instead of the log.
	var redirect string
	for i := 0; i < len(words); i++ {
		if w := words[i]; w == ">" || w == ">>" {
			if i+1 < len(words) {
				redirect = words[i+1]
			}
			words = append(words[:i:i], words[min(i+2, len(words)):]...)
			i--
		} else if strings.HasPrefix(w, ">") || w == "2>&1" || strings.HasPrefix(w, "2>") {
			if r := strings.TrimLeft(w, ">"); r != "" && !strings.HasPrefix(w, "2") {
				redirect = r
			}
			words = append(words[:i:i], words[i+1:]...)
			i--
		}
	}
	if len(words) == 0 {
		return nil
	}
	switch words[0] {
	case "echo":
		args := words[1:]
		if len(args) > 0 && args[0] == "-n" {
			args = args[1:]
		}
		if redirect != "" {
			if redirect == "/dev/null" {
				return []step{{op: opStatus}}
			}
			return []step{{op: opTouch, text: redirect}}
		}
		return []step{{op: opEcho, text: expand(strings.Join(args, " "), env)}}
	case "sleep":
		if len(words) < 2 {
			return []step{{op: opStatus, text: "sleep: missing operand", code: 1}}
		}
		return []step{{op: opSleep, d: parseSleep(words[1])}}
	case "exit":
		code := int32(0)
		if len(words) > 1 {
			if n, err := strconv.Atoi(words[1]); err == nil {
				code = int32(n & 0xff)
			}
		}
		return []step{{op: opExit, code: code}}
	case "true", ":":
		return []step{{op: opStatus}}
	case "false":
		return []step{{op: opStatus, code: 1}}
	case "touch":
		var out []step
		for _, f := range words[1:] {
			out = append(out, step{op: opTouch, text: f})
		}
		return out
	case "rm":
		var out []step
		for _, f := range words[1:] {
			if !strings.HasPrefix(f, "-") {
				out = append(out, step{op: opRm, text: f})
			}
		}
		return out
	case "date", "cat", "ls", "mkdir", "cd", "export", "set", "trap", "hostname", "env", "printenv":
		return []step{{op: opStatus}} // quiet successes in this simulation
	}
	return []step{{op: opStatus, text: "sh: " + words[0] + ": not found", code: 127}}
}

// expand replaces $VAR and ${VAR} with the environment's value.
func expand(s string, env map[string]string) string {
	if !strings.Contains(s, "$") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		j, name := i+1, ""
		if s[j] == '{' {
			k := strings.IndexByte(s[j:], '}')
			if k < 0 {
				b.WriteByte(s[i])
				continue
			}
			name, i = s[j+1:j+k], j+k
		} else {
			k := j
			for k < len(s) && (s[k] == '_' || s[k] >= 'A' && s[k] <= 'Z' || s[k] >= 'a' && s[k] <= 'z' || s[k] >= '0' && s[k] <= '9') {
				k++
			}
			if k == j {
				b.WriteByte(s[i])
				continue
			}
			name, i = s[j:k], k-1
		}
		b.WriteString(env[name])
	}
	return b.String()
}

// parseSleep reads sleep's operand: seconds (maybe fractional), a
// duration with s, m, h or d, or infinity (-1: forever).
func parseSleep(s string) time.Duration {
	if s == "infinity" || s == "inf" {
		return -1
	}
	mult := time.Second
	switch {
	case strings.HasSuffix(s, "d"):
		mult, s = 24*time.Hour, strings.TrimSuffix(s, "d")
	case strings.HasSuffix(s, "h"):
		mult, s = time.Hour, strings.TrimSuffix(s, "h")
	case strings.HasSuffix(s, "m"):
		mult, s = time.Minute, strings.TrimSuffix(s, "m")
	case strings.HasSuffix(s, "s"):
		s = strings.TrimSuffix(s, "s")
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0
	}
	if f*float64(mult) > float64(100*365*24*time.Hour) {
		return -1
	}
	return time.Duration(f * float64(mult))
}

// imageRepo is the image's name without registry, tag or digest, with
// the docker.io/library prefix dropped: "busybox:1.36" → "busybox",
// "docker.io/kubesim/sleep" → "kubesim/sleep".
func imageRepo(image string) string {
	name, _, _ := strings.Cut(image, "@")
	if i := strings.LastIndex(name, ":"); i > strings.LastIndex(name, "/") {
		name = name[:i]
	}
	name = strings.TrimPrefix(name, "docker.io/")
	name = strings.TrimPrefix(name, "library/")
	return name
}

func isShellImage(repo string) bool {
	for _, s := range shellImages {
		if repo == s {
			return true
		}
	}
	return false
}
