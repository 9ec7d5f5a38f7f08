package shell

import (
	"fmt"
	"io"
	"io/fs"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// The builtins the shell runs itself rather than the interpreter's
// (handlers.go's overridden), as busybox's ash has them: echo with its
// options together (-en), test and [ with ash's messages, pwd, and
// umask, ulimit and kill, which the interpreter does not have; type and
// command -v over the simulated programs; and what `time` prints.

// builtin runs one of them, name, with args.
func (s *state) builtin(name string, args []string) int {
	switch name {
	case "echo":
		return s.echo(args)
	case "test", "[", "[[":
		return s.test(name, args)
	case "pwd":
		fmt.Fprintln(s.stdout, s.dir)
		return 0
	case "umask":
		switch {
		case len(args) == 0:
			fmt.Fprintln(s.stdout, "0022")
		case args[0] == "-S":
			fmt.Fprintln(s.stdout, "u=rwx,g=rx,o=rx")
		}
		return 0
	case "ulimit":
		// Setting a limit changes nothing; every limit is unlimited.
		if len(args) == 0 || strings.HasPrefix(args[len(args)-1], "-") {
			fmt.Fprintln(s.stdout, "unlimited")
		}
		return 0
	case "kill":
		return s.kill(args)
	case "printf":
		return s.printf(args)
	}
	return ExitNotFound
}

// echo prints its arguments; -n leaves the newline out, -e reads
// backslash escapes (-E does not), together or apart (-en).
func (s *state) echo(args []string) int {
	newline, escapes := true, false
	for len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' && strings.Trim(args[0][1:], "neE") == "" {
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
		var stop bool
		out, stop = unescape(out)
		newline = newline && !stop
	}
	if newline {
		out += "\n"
	}
	io.WriteString(s.stdout, out)
	return 0
}

// unescape reads echo -e's escapes: \a \b \e \f \n \r \t \v \\, \0NNN
// (octal), \xHH (hex); \c ends the output (stop).
func unescape(s string) (out string, stop bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch c := s[i]; c {
		case 'a', 'b', 'e', 'f', 'n', 'r', 't', 'v':
			b.WriteByte(map[byte]byte{'a': 7, 'b': 8, 'e': 27, 'f': 12, 'n': '\n', 'r': '\r', 't': '\t', 'v': 11}[c])
		case '\\':
			b.WriteByte('\\')
		case 'c':
			return b.String(), true
		case '0', 'x':
			base, digits, max := 8, "01234567", 3
			if c == 'x' {
				base, digits, max = 16, "0123456789abcdefABCDEF", 2
			}
			j := i + 1
			for j < len(s) && j-i-1 < max && strings.IndexByte(digits, s[j]) >= 0 {
				j++
			}
			if c == 'x' && j == i+1 {
				b.WriteString(`\x`)
				continue
			}
			n, _ := strconv.ParseUint(s[i+1:j], base, 8)
			b.WriteByte(byte(n))
			i = j - 1
		default:
			b.WriteByte('\\')
			b.WriteByte(c)
		}
	}
	return b.String(), false
}

// test evaluates an expression of test or [ (which wants its closing
// "]"): files (-e -f -d -s -r -w -x -L -h -p -S -b -c), strings (-z -n
// = == != < >), integers (-eq -ne -lt -le -gt -ge), ! -a -o and
// parentheses, by POSIX's rules on the number of arguments. Status 0
// true, 1 false, 2 an error, in ash's words.
func (s *state) test(prog string, args []string) int {
	if prog == "[" || prog == "[[" {
		closing := strings.ReplaceAll(prog, "[", "]")
		if len(args) == 0 || args[len(args)-1] != closing {
			fmt.Fprintf(s.stderr, "sh: missing %s\n", closing)
			return 2
		}
		args = args[:len(args)-1]
	}
	t := tester{s: s}
	ok := t.eval(args)
	if t.err != "" {
		fmt.Fprintln(s.stderr, "sh: "+t.err)
		return 2
	}
	if ok {
		return 0
	}
	return 1
}

// tester evaluates one test expression; err is its first error.
type tester struct {
	s   *state
	err string
}

var (
	unaryTests  = map[string]bool{"-e": true, "-f": true, "-d": true, "-s": true, "-r": true, "-w": true, "-x": true, "-L": true, "-h": true, "-p": true, "-S": true, "-b": true, "-c": true, "-t": true, "-z": true, "-n": true}
	binaryTests = map[string]bool{"=": true, "==": true, "!=": true, "<": true, ">": true, "-eq": true, "-ne": true, "-lt": true, "-le": true, "-gt": true, "-ge": true, "-nt": true, "-ot": true, "-ef": true}
)

// eval decides by the number of arguments, as POSIX says, and parses
// longer expressions.
func (t *tester) eval(args []string) bool {
	switch len(args) {
	case 0:
		return false
	case 1:
		return args[0] != ""
	case 2:
		switch {
		case args[0] == "!":
			return !t.eval(args[1:])
		case unaryTests[args[0]]:
			return t.unary(args[0], args[1])
		}
		t.fail(args[1] + ": unknown operand")
		return false
	case 3:
		switch {
		case binaryTests[args[1]]:
			return t.binary(args[0], args[1], args[2])
		case args[0] == "!":
			return !t.eval(args[1:])
		case args[0] == "(" && args[2] == ")":
			return args[1] != ""
		}
	case 4:
		switch {
		case args[0] == "!":
			return !t.eval(args[1:])
		case args[0] == "(" && args[3] == ")":
			return t.eval(args[1:3])
		}
	}
	p := testParser{t: t, args: args}
	v := p.or()
	if p.i < len(args) {
		t.fail("test: syntax error")
	}
	return v
}

func (t *tester) fail(msg string) {
	if t.err == "" {
		t.err = msg
	}
}

func (t *tester) unary(op, arg string) bool {
	switch op {
	case "-z":
		return arg == ""
	case "-n":
		return arg != ""
	case "-t":
		return t.s.tty
	}
	s := t.s
	p := s.abs(arg)
	info, exists := s.info(p)
	switch op {
	case "-e", "-r", "-x":
		return exists
	case "-f":
		return exists && info.Mode().IsRegular()
	case "-d":
		return exists && info.IsDir()
	case "-s":
		return exists && info.Size() > 0
	case "-w":
		return exists && s.writable(p) == nil
	case "-c":
		return exists && info.Mode()&fs.ModeCharDevice != 0
	}
	// -L -h -p -S -b: the simulated files have no links, pipes, sockets
	// or block devices.
	return false
}

func (t *tester) binary(a, op, b string) bool {
	switch op {
	case "=", "==":
		return a == b
	case "!=":
		return a != b
	case "<":
		return a < b
	case ">":
		return a > b
	case "-nt", "-ot":
		return false // the simulated files have no times
	case "-ef":
		return t.s.abs(a) == t.s.abs(b)
	}
	x, errA := strconv.ParseInt(strings.TrimSpace(a), 10, 64)
	y, errB := strconv.ParseInt(strings.TrimSpace(b), 10, 64)
	switch {
	case errA != nil:
		t.fail(a + ": bad number")
		return false
	case errB != nil:
		t.fail(b + ": bad number")
		return false
	}
	switch op {
	case "-eq":
		return x == y
	case "-ne":
		return x != y
	case "-lt":
		return x < y
	case "-le":
		return x <= y
	case "-gt":
		return x > y
	}
	return x >= y
}

// testParser parses an expression of more than four arguments:
// or := and (-o and)*, and := not (-a not)*, not := ! not | primary,
// primary := ( or ) | UNARY arg | arg BINARY arg | arg.
type testParser struct {
	t    *tester
	args []string
	i    int
}

func (p *testParser) peek(n int) string {
	if p.i+n < len(p.args) {
		return p.args[p.i+n]
	}
	return ""
}

func (p *testParser) or() bool {
	v := p.and()
	for p.peek(0) == "-o" {
		p.i++
		v = p.and() || v
	}
	return v
}

func (p *testParser) and() bool {
	v := p.not()
	for p.peek(0) == "-a" {
		p.i++
		v = p.not() && v
	}
	return v
}

func (p *testParser) not() bool {
	if p.peek(0) == "!" {
		p.i++
		return !p.not()
	}
	return p.primary()
}

func (p *testParser) primary() bool {
	if p.i >= len(p.args) {
		p.t.fail("test: syntax error")
		return false
	}
	a := p.args[p.i]
	switch {
	case a == "(":
		p.i++
		v := p.or()
		if p.peek(0) != ")" {
			p.t.fail("test: syntax error")
		}
		p.i++
		return v
	case unaryTests[a] && p.i+1 < len(p.args):
		p.i += 2
		return p.t.unary(a, p.args[p.i-1])
	case binaryTests[p.peek(1)] && p.i+2 < len(p.args):
		p.i += 3
		return p.t.binary(a, p.args[p.i-2], p.args[p.i-1])
	}
	p.i++
	return a != ""
}

// kill signals processes: the simulated container has none to signal
// but the script's shell, which no signal reaches.
func (s *state) kill(args []string) int {
	if len(args) > 0 && args[0] == "-l" {
		fmt.Fprintln(s.stdout, "HUP INT QUIT ILL TRAP ABRT BUS FPE KILL USR1 SEGV USR2 PIPE ALRM TERM")
		return 0
	}
	code := 0
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			continue
		}
		fmt.Fprintf(s.stderr, "sh: can't kill pid %s: No such process\n", a)
		code = 1
	}
	if code == 0 && len(args) == 0 {
		fmt.Fprintln(s.stderr, "kill: usage: kill [-s SIG | -SIG] PID...")
		return 2
	}
	return code
}

// typeOf is type (and command -v, -V: args[0]): what each name runs.
func (sh *shell) typeOf(p *state, args []string) int {
	short := false
	if len(args) > 0 && (args[0] == "-v" || args[0] == "-V") {
		short, args = args[0] == "-v", args[1:]
	}
	code := 0
	for _, a := range args {
		what := ""
		switch {
		case sh.runner.Funcs[a] != nil:
			what = "a function"
		case syntax.IsKeyword(a):
			what = "a shell keyword"
		case interp.IsBuiltin(a) || overridden[a]:
			what = "a shell builtin"
		case p.known(a):
			if short {
				fmt.Fprintln(p.stdout, p.programPath(a))
				continue
			}
			fmt.Fprintf(p.stdout, "%s is %s\n", a, p.programPath(a))
			continue
		default:
			// ash's status for a name it cannot find is 127, bash's 1.
			switch {
			case p.name == "bash":
				code = 1
				if !short {
					fmt.Fprintf(p.stderr, "bash: type: %s: not found\n", a)
				}
			default:
				code = ExitNotFound
				if !short {
					fmt.Fprintf(p.stdout, "%s: not found\n", a)
				}
			}
			continue
		}
		if short {
			fmt.Fprintln(p.stdout, a)
		} else {
			fmt.Fprintf(p.stdout, "%s is %s\n", a, what)
		}
	}
	return code
}

// programPath is where a program is found: as written when it is a
// path, the image's own path for it, else busybox's /bin.
func (s *state) programPath(name string) string {
	if strings.Contains(name, "/") {
		return name
	}
	var paths []string
	for p := range s.env.Programs {
		if strings.HasPrefix(p, "/") && path.Base(p) == name {
			paths = append(paths, p)
		}
	}
	if len(paths) > 0 {
		slices.Sort(paths)
		return paths[0]
	}
	if s.env.Programs[name] != nil {
		return "/usr/bin/" + name
	}
	return "/bin/" + name
}

// which prints where each program is; status 1 when one is not found.
func (s *state) which(args []string) int {
	code := 0
	for _, a := range args {
		if !s.known(a) {
			code = 1
			continue
		}
		fmt.Fprintln(s.stdout, s.programPath(a))
	}
	return code
}

// timed prints what `time` does for a command that took d: busybox's
// time applet's report (its default format, GNU time's), or bash's.
func (s *state) timed(d time.Duration) {
	if s.name == "bash" {
		fmt.Fprintf(s.stderr, "\nreal\t%dm%.3fs\nuser\t0m0.000s\nsys\t0m0.000s\n", int(d.Minutes()), math.Mod(d.Seconds(), 60))
		return
	}
	fmt.Fprintf(s.stderr, "0.00user 0.00system %d:%05.2felapsed 0%%CPU (0avgtext+0avgdata 0maxresident)k\n0inputs+0outputs (0major+0minor)pagefaults 0swaps\n",
		int(d.Minutes()), math.Mod(d.Seconds(), 60))
}

// printf formats its arguments as busybox's does (C's printf): the
// conversions d i o u x X c s b f F e E g G and %%, with flags (-+ #0),
// width and precision (* takes them from the arguments), the format's
// escapes, and the format used again while arguments are left. A number
// it cannot read is 0, with an error (status 1).
func (s *state) printf(args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(s.stderr, "sh: usage: printf FORMAT [ARGUMENT...]")
		return 2
	}
	format, rest := args[0], args[1:]
	var b strings.Builder
	code := 0
	next := func() (string, bool) {
		if len(rest) == 0 {
			return "", false
		}
		a := rest[0]
		rest = rest[1:]
		return a, true
	}
	number := func(conv byte) any {
		a, _ := next()
		if len(a) > 1 && (a[0] == '\'' || a[0] == '"') {
			return int64(a[1]) // 'c: the character's code
		}
		if a == "" {
			a = "0"
		}
		switch conv {
		case 'f', 'F', 'e', 'E', 'g', 'G':
			f, err := strconv.ParseFloat(a, 64)
			if err != nil {
				fmt.Fprintf(s.stderr, "sh: invalid number '%s'\n", a)
				code = 1
			}
			return f
		}
		n, err := strconv.ParseInt(a, 0, 64)
		if err != nil {
			u, uerr := strconv.ParseUint(a, 0, 64)
			if uerr != nil {
				fmt.Fprintf(s.stderr, "sh: invalid number '%s'\n", a)
				code = 1
			}
			n = int64(u)
		}
		if conv == 'd' || conv == 'i' {
			return n
		}
		return uint64(n)
	}
	for {
		used := len(rest)
		stop := false
		for i := 0; i < len(format) && !stop; i++ {
			c := format[i]
			switch {
			case c == '\\' && i+1 < len(format):
				// \NNN (octal) and \xHH here; the others as echo -e's.
				digits, base, j := "01234567", 8, i+1
				if format[j] == 'x' {
					digits, base, j = "0123456789abcdefABCDEF", 16, j+1
				}
				end := j
				for end < len(format) && end-j < 3-(base/16) && strings.IndexByte(digits, format[end]) >= 0 {
					end++
				}
				if end > j {
					n, _ := strconv.ParseUint(format[j:end], base, 16)
					b.WriteByte(byte(n))
					i = end - 1
					continue
				}
				out, cut := unescape(format[i : i+2])
				b.WriteString(out)
				stop = cut
				i++
			case c == '%' && i+1 < len(format) && format[i+1] == '%':
				b.WriteByte('%')
				i++
			case c == '%':
				j := i + 1
				spec := []byte{'%'}
				for j < len(format) && strings.IndexByte("-+ #0", format[j]) >= 0 {
					spec = append(spec, format[j])
					j++
				}
				for _, part := range []string{"width", "precision"} {
					if part == "precision" {
						if j >= len(format) || format[j] != '.' {
							break
						}
						spec = append(spec, '.')
						j++
					}
					if j < len(format) && format[j] == '*' {
						a, _ := next()
						n, _ := strconv.Atoi(a)
						spec = strconv.AppendInt(spec, int64(n), 10)
						j++
						continue
					}
					for j < len(format) && format[j] >= '0' && format[j] <= '9' {
						spec = append(spec, format[j])
						j++
					}
				}
				if j >= len(format) {
					io.WriteString(s.stdout, b.String())
					fmt.Fprintf(s.stderr, "sh: %s: invalid format\n", format[i:])
					return 1
				}
				conv := format[j]
				i = j
				switch conv {
				case 's':
					a, _ := next()
					fmt.Fprintf(&b, string(append(spec, 's')), a)
				case 'b':
					a, _ := next()
					out, cut := unescape(a)
					fmt.Fprintf(&b, string(append(spec, 's')), out)
					stop = cut
				case 'c':
					a, _ := next()
					if a != "" {
						a = a[:1]
					}
					fmt.Fprintf(&b, string(append(spec, 's')), a)
				case 'd', 'i':
					fmt.Fprintf(&b, string(append(spec, 'd')), number(conv))
				case 'u':
					fmt.Fprintf(&b, string(append(spec, 'd')), number(conv))
				case 'o', 'x', 'X':
					fmt.Fprintf(&b, string(append(spec, conv)), number(conv))
				case 'f', 'F', 'e', 'E', 'g', 'G':
					if conv == 'F' {
						conv = 'f'
					}
					fmt.Fprintf(&b, string(append(spec, conv)), number(conv))
				default:
					io.WriteString(s.stdout, b.String())
					fmt.Fprintf(s.stderr, "sh: %s: invalid format\n", format[strings.LastIndexByte(format[:j], '%'):])
					return 1
				}
			default:
				b.WriteByte(c)
			}
		}
		if stop || len(rest) == 0 || len(rest) == used {
			break
		}
	}
	io.WriteString(s.stdout, b.String())
	return code
}
