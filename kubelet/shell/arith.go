package shell

import (
	"errors"
	"strconv"
	"strings"
)

// Arithmetic expansion, $((EXPR)), as busybox ash evaluates it (its
// shell/math.c): 64-bit integers; numbers in decimal, 0x hex or 0 octal;
// variables by bare name (unset or empty is 0) or as $NAME; the C
// operators by C's precedence — unary + - ! ~, * / %, + -, << >>,
// < <= > >=, == !=, & ^ |, && ||, ?: — and the assignments = += -= *= /=
// %=, which set the variable. Left out: ++ and --, and the comma.

// Busybox's messages for what cannot be evaluated.
var (
	errArithSyntax = errors.New("arithmetic syntax error")
	errDivideZero  = errors.New("divide by zero")
)

// arith evaluates expr (its $ expansions already done) in s.
func (s *state) arith(expr string) (int64, error) {
	toks, err := arithTokens(expr)
	if err != nil {
		return 0, err
	}
	p := &arithParser{s: s, toks: toks}
	v, err := p.expr(0)
	if err != nil {
		return 0, err
	}
	if p.i != len(p.toks) {
		return 0, errArithSyntax
	}
	return v.val, nil
}

// arithTok is a number, a name or an operator.
type arithTok struct {
	kind byte // 'n' number, 'v' variable, 'o' operator
	text string
	num  int64
}

// arithOps are the operators, longest first so that "<=" wins over "<".
var arithOps = []string{"<<=", ">>=", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=",
	"+", "-", "*", "/", "%", "<", ">", "!", "~", "&", "|", "^", "?", ":", "=", "(", ")"}

func arithTokens(src string) ([]arithTok, error) {
	var out []arithTok
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			i++
		case c >= '0' && c <= '9':
			j := i
			for j < len(src) && isNameByte(src[j]) {
				j++
			}
			n, err := strconv.ParseInt(src[i:j], 0, 64)
			if err != nil {
				return nil, errArithSyntax
			}
			out = append(out, arithTok{kind: 'n', num: n})
			i = j
		case isNameByte(c):
			j := i
			for j < len(src) && isNameByte(src[j]) {
				j++
			}
			out = append(out, arithTok{kind: 'v', text: src[i:j]})
			i = j
		default:
			found := false
			for _, op := range arithOps {
				if strings.HasPrefix(src[i:], op) {
					out = append(out, arithTok{kind: 'o', text: op})
					i += len(op)
					found = true
					break
				}
			}
			if !found {
				return nil, errArithSyntax
			}
		}
	}
	return out, nil
}

func isNameByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// binaryPrec is each binary operator's precedence, higher binds tighter.
var binaryPrec = map[string]int{
	"||": 1, "&&": 2, "|": 3, "^": 4, "&": 5, "==": 6, "!=": 6,
	"<": 7, "<=": 7, ">": 7, ">=": 7, "<<": 8, ">>": 8,
	"+": 9, "-": 9, "*": 10, "/": 10, "%": 10,
}

// arithVal is a value, and the variable it was read from (for assignment).
type arithVal struct {
	val  int64
	name string
}

type arithParser struct {
	s    *state
	toks []arithTok
	i    int
	// skip > 0 evaluates without effects: the untaken side of && || ?:.
	skip int
}

func (p *arithParser) peek() (arithTok, bool) {
	if p.i < len(p.toks) {
		return p.toks[p.i], true
	}
	return arithTok{}, false
}

func (p *arithParser) isOp(op string) bool {
	t, ok := p.peek()
	return ok && t.kind == 'o' && t.text == op
}

// expr parses an expression whose operators bind tighter than minPrec,
// with assignment and ?: (right-associative, lowest) on top.
func (p *arithParser) expr(minPrec int) (arithVal, error) {
	left, err := p.unary()
	if err != nil {
		return left, err
	}
	if minPrec == 0 {
		if t, ok := p.peek(); ok && t.kind == 'o' && (t.text == "=" || len(t.text) >= 2 && t.text[len(t.text)-1] == '=' && binaryPrec[t.text] == 0) {
			return p.assign(left, t.text)
		}
	}
	for {
		t, ok := p.peek()
		prec := binaryPrec[t.text]
		if !ok || t.kind != 'o' || prec == 0 || prec <= minPrec {
			break
		}
		p.i++
		if t.text == "&&" || t.text == "||" {
			// The side that does not decide is parsed, not evaluated.
			short := (t.text == "&&") == (left.val == 0)
			p.skipIf(short)
			right, err := p.expr(prec)
			p.unskipIf(short)
			if err != nil {
				return left, err
			}
			if short {
				left = arithVal{val: boolInt(t.text == "||")}
			} else {
				left = arithVal{val: boolInt(right.val != 0)}
			}
			continue
		}
		right, err := p.expr(prec)
		if err != nil {
			return left, err
		}
		v, err := p.binary(t.text, left.val, right.val)
		if err != nil {
			return left, err
		}
		left = arithVal{val: v}
	}
	if minPrec == 0 && p.isOp("?") {
		p.i++
		p.skipIf(left.val == 0)
		yes, err := p.expr(0)
		p.unskipIf(left.val == 0)
		if err != nil {
			return left, err
		}
		if !p.isOp(":") {
			return left, errArithSyntax
		}
		p.i++
		p.skipIf(left.val != 0)
		no, err := p.expr(0)
		p.unskipIf(left.val != 0)
		if err != nil {
			return left, err
		}
		if left.val != 0 {
			return arithVal{val: yes.val}, nil
		}
		return arithVal{val: no.val}, nil
	}
	return left, nil
}

func (p *arithParser) skipIf(b bool) {
	if b {
		p.skip++
	}
}

func (p *arithParser) unskipIf(b bool) {
	if b {
		p.skip--
	}
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// assign evaluates NAME op= EXPR and sets the variable.
func (p *arithParser) assign(left arithVal, op string) (arithVal, error) {
	if left.name == "" {
		return left, errArithSyntax
	}
	p.i++
	right, err := p.expr(0)
	if err != nil {
		return left, err
	}
	v := right.val
	if op != "=" {
		if v, err = p.binary(strings.TrimSuffix(op, "="), left.val, right.val); err != nil {
			return left, err
		}
	}
	if p.skip == 0 {
		p.s.set(left.name, strconv.FormatInt(v, 10))
	}
	return arithVal{val: v}, nil
}

func (p *arithParser) binary(op string, a, b int64) (int64, error) {
	switch op {
	case "+":
		return a + b, nil
	case "-":
		return a - b, nil
	case "*":
		return a * b, nil
	case "/", "%":
		if b == 0 {
			if p.skip > 0 {
				return 0, nil
			}
			return 0, errDivideZero
		}
		if op == "/" {
			return a / b, nil
		}
		return a % b, nil
	case "<<":
		return a << uint64(b&63), nil
	case ">>":
		return a >> uint64(b&63), nil
	case "<":
		return boolInt(a < b), nil
	case "<=":
		return boolInt(a <= b), nil
	case ">":
		return boolInt(a > b), nil
	case ">=":
		return boolInt(a >= b), nil
	case "==":
		return boolInt(a == b), nil
	case "!=":
		return boolInt(a != b), nil
	case "&":
		return a & b, nil
	case "|":
		return a | b, nil
	case "^":
		return a ^ b, nil
	}
	return 0, errArithSyntax
}

func (p *arithParser) unary() (arithVal, error) {
	t, ok := p.peek()
	if !ok {
		return arithVal{}, errArithSyntax
	}
	p.i++
	switch {
	case t.kind == 'n':
		return arithVal{val: t.num}, nil
	case t.kind == 'v':
		v, err := p.variable(t.text)
		return arithVal{val: v, name: t.text}, err
	case t.text == "(":
		v, err := p.expr(0)
		if err != nil {
			return v, err
		}
		if !p.isOp(")") {
			return v, errArithSyntax
		}
		p.i++
		return arithVal{val: v.val}, nil
	case t.text == "-", t.text == "+", t.text == "!", t.text == "~":
		v, err := p.unary()
		if err != nil {
			return v, err
		}
		switch t.text {
		case "-":
			return arithVal{val: -v.val}, nil
		case "!":
			return arithVal{val: boolInt(v.val == 0)}, nil
		case "~":
			return arithVal{val: ^v.val}, nil
		}
		return arithVal{val: v.val}, nil
	}
	return arithVal{}, errArithSyntax
}

// variable is a name's value as a number: unset or empty is 0, anything
// else must be a number.
func (p *arithParser) variable(name string) (int64, error) {
	v := strings.TrimSpace(p.s.lookup(name))
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 0, 64)
	if err != nil {
		return 0, errArithSyntax
	}
	return n, nil
}

// expandArith expands the $NAME, ${NAME}, $? and nested $((…)) inside an
// arithmetic expression's text, then evaluates it.
func (s *state) expandArith(text string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(text); {
		if text[i] != '$' {
			b.WriteByte(text[i])
			i++
			continue
		}
		rest := text[i+1:]
		switch {
		case strings.HasPrefix(rest, "(("):
			end := matchArith(rest[2:])
			if end < 0 {
				return "", errArithSyntax
			}
			v, err := s.expandArith(rest[2 : 2+end])
			if err != nil {
				return "", err
			}
			b.WriteString(v)
			i += 1 + 2 + end + 2
		case strings.HasPrefix(rest, "{"):
			end := strings.IndexByte(rest, '}')
			if end < 0 {
				return "", errArithSyntax
			}
			b.WriteString(s.lookup(rest[1:end]))
			i += 1 + end + 1
		case strings.HasPrefix(rest, "?"):
			b.WriteString(s.lookup("?"))
			i += 2
		default:
			n := 0
			for n < len(rest) && isNameByte(rest[n]) && !(n == 0 && rest[n] >= '0' && rest[n] <= '9') {
				n++
			}
			if n == 0 {
				return "", errArithSyntax
			}
			b.WriteString(s.lookup(rest[:n]))
			i += 1 + n
		}
	}
	v, err := s.arith(b.String())
	if err != nil {
		return "", err
	}
	return strconv.FormatInt(v, 10), nil
}

// matchArith finds the "))" that closes an arithmetic expansion whose
// text starts at src (after "$(("), counting the parentheses between; -1
// when there is none.
func matchArith(src string) int {
	depth := 0
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '(':
			depth++
		case ')':
			if depth == 0 {
				if strings.HasPrefix(src[i:], "))") {
					return i
				}
				return -1
			}
			depth--
		}
	}
	return -1
}
