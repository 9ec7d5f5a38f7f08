package programs

import (
	"context"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"
)

// perl's image: perl runs the one-liners courses give it — above all the
// Job tutorial's `perl -Mbignum=bpi -wle 'print bpi(2000)'`, which
// prints π to 2000 digits after a few seconds of work. The image's
// default, `perl -de0` (perl5.x.y -de0 in the image), starts the
// debugger, which finds no terminal and ends.
var perlImage = Image{Cmd: []string{"perl", "-de0"}, Shell: true, Bash: true, programs: map[string]Program{"perl": perl}}

// perlVersions are the last releases of the branches a tag may name.
var perlVersions = map[string]string{
	"5": "5.40.2", "5.32": "5.32.1", "5.34": "5.34.3", "5.36": "5.36.3", "5.38": "5.38.4", "5.40": "5.40.2",
}

func perlVersion(tag string) string {
	v, _, _ := strings.Cut(tag, "-")
	if strings.Count(v, ".") == 2 && strings.Trim(v, "0123456789.") == "" {
		return v
	}
	if full, ok := perlVersions[v]; ok {
		return full
	}
	return "5.40.2"
}

// perlStart is how long perl takes to start and load its modules.
const perlStart = 40 * time.Millisecond

// maxPiDigits bounds bpi(N): more would cost the server what it costs
// perl.
const maxPiDigits = 50000

// perl runs a one-liner (-e, -E) whose statements it knows: print and
// say of string literals, numbers, arithmetic and bpi(N) (with bignum),
// sleep and exit. Any other program is not simulated: it says so and
// ends with perl's status for an error (255), rather than pretend.
func perl(ctx context.Context, r Run) int {
	p, version := r.Process, perlVersion(r.Tag)
	var code []string
	newline, bignum, debug := false, false, false
	args := p.Args[1:]
switches:
	for len(args) > 0 && strings.HasPrefix(args[0], "-") && args[0] != "-" {
		a := args[0][1:]
		args = args[1:]
		for a != "" {
			c := a[0]
			a = a[1:]
			switch c {
			case 'v':
				major, minor, patch := versionParts(version)
				fmt.Fprintf(p.Stdout, "\nThis is perl %d, version %d, subversion %d (v%s) built for x86_64-linux-gnu\n\n"+
					"Copyright 1987-2024, Larry Wall\n\nPerl may be copied only under the terms of either the Artistic License or the\n"+
					"GNU General Public License, which may be found in the Perl 5 source kit.\n\n"+
					"Complete documentation for Perl, including FAQ lists, should be found on\nthis system using \"man perl\" or \"perldoc perl\".  "+
					"If you have access to the\nInternet, point your browser at https://www.perl.org/, the Perl Home Page.\n\n", major, minor, patch, version)
				return 0
			case 'M', 'm':
				if strings.HasPrefix(strings.TrimPrefix(a, "-"), "bignum") || strings.HasPrefix(a, "bigrat") || strings.HasPrefix(a, "bigfloat") {
					bignum = true
				}
				a = ""
			case 'l':
				newline = true
				a = strings.TrimLeft(a, "01234567")
			case 'e', 'E':
				if a == "" {
					if len(args) == 0 {
						fmt.Fprintf(p.Stderr, "No code specified for -%c.\n", c)
						return 29
					}
					a, args = args[0], args[1:]
				}
				code = append(code, a)
				a = ""
			case 'd':
				debug = true
				a = ""
			case 'w', 'W', 'X', 's', 'T', 't', 'U':
			case '-':
				break switches
			default:
				a = ""
			}
		}
	}
	if len(code) == 0 {
		if len(args) > 0 {
			fmt.Fprintf(p.Stderr, "Can't open perl script \"%s\": No such file or directory\n", args[0])
			return 2
		}
		if debug {
			fmt.Fprint(p.Stdout, "\nLoading DB routines from perl5db.pl version 1.77\nEditor support available.\n\n"+
				"Enter h or 'h h' for help, or 'man perldebug' for more help.\n\nmain::(-e:1):\t0\n")
		}
		return 0 // the program read from stdin: nothing
	}
	prog := strings.Join(code, "\n")
	stmts, ok := perlStatements(prog, bignum)
	if !ok {
		fmt.Fprintf(p.Stderr, "kubesim: this perl program is not simulated (docs/containers.md lists what is): %s\n", prog)
		return 255
	}
	select {
	case <-p.Clock.After(perlStart):
	case <-ctx.Done():
		return 137
	}
	for _, st := range stmts {
		switch st.kind {
		case "print", "say":
			out, work := st.eval()
			if work > 0 {
				select {
				case <-p.Clock.After(work):
				case <-ctx.Done():
					return 137
				}
			}
			if newline || st.kind == "say" {
				out += "\n"
			}
			fmt.Fprint(p.Stdout, out)
		case "sleep":
			select {
			case <-p.Clock.After(time.Duration(st.n) * time.Second):
			case <-ctx.Done():
				return 137
			}
		case "exit":
			return int(st.n) & 0xff
		}
	}
	return 0
}

// perlStatement is one statement of a one-liner kubesim runs.
type perlStatement struct {
	kind  string // print, say, sleep, exit
	terms []perlTerm
	n     int64
}

// perlTerm is one item of a print list: a string, or bpi(digits).
type perlTerm struct {
	text   string
	digits int
}

// eval is what the statement prints and how long working it out takes
// (bpi's digits cost time: about three seconds for 2000).
func (st perlStatement) eval() (string, time.Duration) {
	var b strings.Builder
	var work time.Duration
	for _, t := range st.terms {
		if t.digits > 0 {
			b.WriteString(Pi(t.digits))
			f := float64(t.digits) / 2000
			work += time.Duration(f * f * float64(3*time.Second))
			continue
		}
		b.WriteString(t.text)
	}
	return b.String(), work
}

// perlStatements parses a one-liner into the statements kubesim runs;
// ok is false for any other program.
func perlStatements(prog string, bignum bool) ([]perlStatement, bool) {
	var out []perlStatement
	for _, s := range splitOutsideQuotes(prog, ';') {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		word, rest, _ := strings.Cut(s, " ")
		if i := strings.IndexAny(s, "(\"'"); i > 0 && i < len(word) {
			word, rest = s[:i], s[i:]
		}
		rest = strings.TrimSpace(rest)
		switch word {
		case "use":
			if strings.HasPrefix(rest, "bignum") || strings.HasPrefix(rest, "bigrat") || strings.HasPrefix(rest, "bigfloat") {
				bignum = true
			}
		case "print", "say":
			if strings.HasPrefix(rest, "(") && strings.HasSuffix(rest, ")") && balanced(rest[1:len(rest)-1]) {
				rest = rest[1 : len(rest)-1]
			}
			st := perlStatement{kind: word}
			for _, item := range splitOutsideQuotes(rest, ',') {
				t, ok := perlTermOf(strings.TrimSpace(item), bignum)
				if !ok {
					return nil, false
				}
				st.terms = append(st.terms, t)
			}
			out = append(out, st)
		case "sleep", "exit":
			rest = strings.Trim(rest, "() ")
			if rest == "" {
				rest = "0"
			}
			n, err := strconv.ParseInt(rest, 10, 64)
			if err != nil || n < 0 {
				return nil, false
			}
			out = append(out, perlStatement{kind: word, n: n})
		default:
			return nil, false
		}
	}
	return out, true
}

// perlTermOf reads one print item: a quoted string, a number or integer
// arithmetic, bpi(N).
func perlTermOf(s string, bignum bool) (perlTerm, bool) {
	switch {
	case len(s) >= 2 && s[0] == '\'' && s[len(s)-1] == '\'':
		return perlTerm{text: strings.NewReplacer(`\\`, `\`, `\'`, `'`).Replace(s[1 : len(s)-1])}, true
	case len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"':
		body := s[1 : len(s)-1]
		if strings.ContainsAny(body, "$@") {
			return perlTerm{}, false // interpolation
		}
		return perlTerm{text: strings.NewReplacer(`\n`, "\n", `\t`, "\t", `\\`, `\`, `\"`, `"`).Replace(body)}, true
	case bignum && strings.HasPrefix(s, "bpi(") && strings.HasSuffix(s, ")"):
		arg := strings.TrimSpace(s[4 : len(s)-1])
		n := 40
		if arg != "" {
			v, err := strconv.Atoi(arg)
			if err != nil || v < 1 || v > maxPiDigits {
				return perlTerm{}, false
			}
			n = v
		}
		return perlTerm{digits: n}, true
	}
	if v, ok := arith(s); ok {
		return perlTerm{text: v}, true
	}
	return perlTerm{}, false
}

// arith evaluates integer arithmetic (+ - * / with parentheses) the way
// perl prints it: a division that does not come out even is not
// simulated.
func arith(s string) (string, bool) {
	e := &arithParser{s: strings.ReplaceAll(s, " ", "")}
	v, ok := e.sum()
	if !ok || e.pos != len(e.s) {
		return "", false
	}
	return v.String(), true
}

type arithParser struct {
	s   string
	pos int
}

func (e *arithParser) sum() (*big.Int, bool) {
	v, ok := e.product()
	for ok && e.pos < len(e.s) && (e.s[e.pos] == '+' || e.s[e.pos] == '-') {
		op := e.s[e.pos]
		e.pos++
		var w *big.Int
		if w, ok = e.product(); ok {
			if op == '+' {
				v.Add(v, w)
			} else {
				v.Sub(v, w)
			}
		}
	}
	return v, ok
}

func (e *arithParser) product() (*big.Int, bool) {
	v, ok := e.factor()
	for ok && e.pos < len(e.s) && (e.s[e.pos] == '*' || e.s[e.pos] == '/') {
		op := e.s[e.pos]
		e.pos++
		var w *big.Int
		if w, ok = e.factor(); ok {
			if op == '*' {
				v.Mul(v, w)
			} else {
				if w.Sign() == 0 {
					return nil, false
				}
				q, r := new(big.Int).QuoRem(v, w, new(big.Int))
				if r.Sign() != 0 {
					return nil, false
				}
				v = q
			}
		}
	}
	return v, ok
}

func (e *arithParser) factor() (*big.Int, bool) {
	if e.pos < len(e.s) && e.s[e.pos] == '(' {
		e.pos++
		v, ok := e.sum()
		if !ok || e.pos >= len(e.s) || e.s[e.pos] != ')' {
			return nil, false
		}
		e.pos++
		return v, true
	}
	neg := false
	if e.pos < len(e.s) && e.s[e.pos] == '-' {
		neg = true
		e.pos++
	}
	start := e.pos
	for e.pos < len(e.s) && e.s[e.pos] >= '0' && e.s[e.pos] <= '9' {
		e.pos++
	}
	if start == e.pos || e.pos-start > 30 {
		return nil, false
	}
	v, _ := new(big.Int).SetString(e.s[start:e.pos], 10)
	if neg {
		v.Neg(v)
	}
	return v, true
}

// splitOutsideQuotes splits s at sep where it is outside quotes and
// parentheses.
func splitOutsideQuotes(s string, sep byte) []string {
	var out []string
	depth, start := 0, 0
	outsideQuotes(s, func(i int, c byte) bool {
		switch {
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == sep && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
		return true
	})
	return append(out, s[start:])
}

// balanced says whether s's parentheses pair up outside quotes.
func balanced(s string) bool {
	depth := 0
	outsideQuotes(s, func(_ int, c byte) bool {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
		}
		return depth >= 0
	})
	return depth == 0
}

// outsideQuotes calls visit with each byte of s that stands outside a
// quoted string (a backslash inside quotes escapes the next byte), until
// visit returns false: the one scanner splitting and balancing share.
func outsideQuotes(s string, visit func(i int, c byte) bool) {
	var quote byte
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		default:
			if !visit(i, c) {
				return
			}
		}
	}
}

// Pi is π to digits significant digits, rounded to the nearest as
// Math::BigFloat's bpi rounds it: Pi(10) is "3.141592654".
func Pi(digits int) string {
	guard := 10
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(digits+guard)), nil)
	// Machin: π = 16·arctan(1/5) − 4·arctan(1/239), in fixed point.
	pi := new(big.Int).Mul(arctanInv(5, scale), big.NewInt(16))
	pi.Sub(pi, new(big.Int).Mul(arctanInv(239, scale), big.NewInt(4)))
	// pi is π·10^(digits+guard); keep digits significant digits (one
	// before the point), rounded half up on the guard digits.
	div := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(guard+1)), nil)
	q, r := new(big.Int).QuoRem(pi, div, new(big.Int))
	if r.Mul(r, big.NewInt(2)).Cmp(div) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	s := q.String()
	if len(s) == 1 {
		return s
	}
	return s[:1] + "." + s[1:]
}

// arctanInv is arctan(1/x)·scale, by its series.
func arctanInv(x int64, scale *big.Int) *big.Int {
	sum := new(big.Int)
	xx := big.NewInt(x * x)
	term := new(big.Int).Quo(scale, big.NewInt(x))
	for n := int64(1); term.Sign() != 0; n += 2 {
		t := new(big.Int).Quo(term, big.NewInt(n))
		if (n/2)%2 == 0 {
			sum.Add(sum, t)
		} else {
			sum.Sub(sum, t)
		}
		term.Quo(term, xx)
	}
	return sum
}
