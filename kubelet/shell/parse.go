package shell

import (
	"fmt"
	"strings"
)

// segment is a piece of a word: literal text, a variable to expand, or
// an arithmetic expansion's expression (arith.go).
type segment struct {
	text   string
	isVar  bool
	arith  bool
	quoted bool
	// cmdsub: text is a command substitution's script, $(…).
	cmdsub bool
}

// literal: plain text, nothing to expand.
func (sg segment) literal() bool { return !sg.isVar && !sg.arith && !sg.cmdsub }

// word is one argument before expansion.
type word []segment

// command is a simple command, its output redirections and the operator
// that joins it to the one before (";" "&&" "||").
type command struct {
	op     string
	words  []word
	redirs []redirect
}

// assignment splits NAME=value (NAME unquoted and valid).
func (w word) assignment() (string, word, bool) {
	if len(w) == 0 || !w[0].literal() || w[0].quoted {
		return "", nil, false
	}
	name, rest, ok := strings.Cut(w[0].text, "=")
	if !ok || !validName(name) {
		return "", nil, false
	}
	value := word{}
	if rest != "" {
		value = append(value, segment{text: rest})
	}
	return name, append(value, w[1:]...), true
}

func validName(n string) bool {
	if n == "" || (n[0] >= '0' && n[0] <= '9') {
		return false
	}
	for _, c := range n {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// parse splits a script into simple commands.
func parse(src string) ([]command, error) {
	p := parser{src: src}
	return p.parse()
}

type parser struct {
	src  string
	i    int
	cmds []command
	cur  command
	w    word
	inW  bool
	// pending is a redirection whose file is the next word.
	pending *redirect
}

func (p *parser) lit(s string, quoted bool) {
	p.inW = true
	if n := len(p.w); n > 0 && p.w[n-1].literal() && p.w[n-1].quoted == quoted {
		p.w[n-1].text += s
		return
	}
	p.w = append(p.w, segment{text: s, quoted: quoted})
}

func (p *parser) endWord() {
	switch {
	case p.inW && p.pending != nil:
		p.pending.target = p.w
		p.cur.redirs = append(p.cur.redirs, *p.pending)
		p.pending = nil
	case p.inW:
		p.cur.words = append(p.cur.words, p.w)
	}
	p.w, p.inW = nil, false
}

func (p *parser) endCommand(nextOp string) error {
	p.endWord()
	if p.pending != nil {
		return errNoRedirectTarget(p.src[p.i:])
	}
	if len(p.cur.words) == 0 && len(p.cur.redirs) == 0 {
		if nextOp == ";" && p.cur.op == ";" {
			// An empty command between separators is harmless.
			return nil
		}
		return fmt.Errorf("syntax error: unexpected %q", nextOp)
	}
	p.cmds = append(p.cmds, p.cur)
	p.cur = command{op: nextOp}
	return nil
}

func (p *parser) parse() ([]command, error) {
	p.cur.op = ";"
	for p.i < len(p.src) {
		c := p.src[p.i]
		switch {
		case c == ' ' || c == '\t':
			p.endWord()
			p.i++
		case c == ';' || c == '\n':
			if err := p.endCommand(";"); err != nil {
				return nil, err
			}
			p.i++
		case strings.HasPrefix(p.src[p.i:], "&&"), strings.HasPrefix(p.src[p.i:], "||"):
			op := p.src[p.i : p.i+2]
			if err := p.endCommand(op); err != nil {
				return nil, err
			}
			p.i += 2
		case c == '>':
			if err := p.redirect(); err != nil {
				return nil, err
			}
		case c == '|':
			// A pipeline: this command's output is the next one's input.
			if err := p.endCommand("|"); err != nil {
				return nil, err
			}
			p.i++
		case c == '<' || c == '&' || c == '`' || c == '(' || c == ')':
			return nil, fmt.Errorf("%q is not simulated (input redirections, background jobs and subshells are left out)", string(c))
		case c == '#' && !p.inW:
			for p.i < len(p.src) && p.src[p.i] != '\n' {
				p.i++
			}
		case c == '\'':
			end := strings.IndexByte(p.src[p.i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("syntax error: unterminated quoted string")
			}
			p.lit(p.src[p.i+1:p.i+1+end], true)
			p.i += end + 2
		case c == '"':
			if err := p.double(); err != nil {
				return nil, err
			}
		case c == '\\':
			if p.i+1 < len(p.src) {
				if p.src[p.i+1] != '\n' {
					p.lit(p.src[p.i+1:p.i+2], true)
				}
				p.i += 2
			} else {
				p.i++
			}
		case c == '$':
			p.dollar(false)
		default:
			p.lit(string(c), false)
			p.i++
		}
	}
	p.endWord()
	if p.pending != nil {
		return nil, errNoRedirectTarget("")
	}
	if len(p.cur.words) > 0 || len(p.cur.redirs) > 0 {
		p.cmds = append(p.cmds, p.cur)
	} else if p.cur.op != ";" {
		return nil, fmt.Errorf("syntax error: unexpected end of file")
	}
	return p.cmds, nil
}

// double reads a "..." string: variables expand, \ escapes $ " \ `.
func (p *parser) double() error {
	p.i++
	p.lit("", true)
	for p.i < len(p.src) {
		c := p.src[p.i]
		switch {
		case c == '"':
			p.i++
			return nil
		case c == '\\' && p.i+1 < len(p.src) && strings.IndexByte("$\"\\`", p.src[p.i+1]) >= 0:
			p.lit(p.src[p.i+1:p.i+2], true)
			p.i += 2
		case c == '$':
			p.dollar(true)
		default:
			p.lit(string(c), true)
			p.i++
		}
	}
	return fmt.Errorf("syntax error: unterminated quoted string")
}

// dollar reads $NAME, ${NAME}, $? or $((EXPR)) (a lone $ is literal).
func (p *parser) dollar(quoted bool) {
	rest := p.src[p.i+1:]
	name, n := "", 0
	if strings.HasPrefix(rest, "((") {
		if end := matchArith(rest[2:]); end >= 0 {
			p.inW = true
			p.w = append(p.w, segment{text: rest[2 : 2+end], arith: true, quoted: quoted})
			p.i += 1 + 2 + end + 2
			return
		}
	}
	if strings.HasPrefix(rest, "(") && !strings.HasPrefix(rest, "((") {
		if end := matchParen(rest[1:]); end >= 0 {
			p.inW = true
			p.w = append(p.w, segment{text: rest[1 : 1+end], cmdsub: true, quoted: quoted})
			p.i += 1 + 1 + end + 1
			return
		}
	}
	switch {
	case strings.HasPrefix(rest, "{"):
		if end := strings.IndexByte(rest, '}'); end > 0 {
			name, n = rest[1:end], end+1
		}
	case strings.HasPrefix(rest, "?"):
		name, n = "?", 1
	default:
		for n < len(rest) && (rest[n] == '_' || rest[n] >= 'a' && rest[n] <= 'z' || rest[n] >= 'A' && rest[n] <= 'Z' || n > 0 && rest[n] >= '0' && rest[n] <= '9') {
			n++
		}
		name = rest[:n]
	}
	if name == "" {
		p.lit("$", quoted)
		p.i++
		return
	}
	p.inW = true
	p.w = append(p.w, segment{text: name, isVar: true, quoted: quoted})
	p.i += 1 + n
}

// matchParen is the index in src of the ')' closing a command
// substitution opened just before src, skipping quoted text and nested
// parentheses; -1 if there is none.
func matchParen(src string) int {
	depth := 0
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '\'':
			j := strings.IndexByte(src[i+1:], '\'')
			if j < 0 {
				return -1
			}
			i += j + 1
		case '"':
			for i++; i < len(src) && src[i] != '"'; i++ {
				if src[i] == '\\' {
					i++
				}
			}
		case '(':
			depth++
		case ')':
			if depth == 0 {
				return i
			}
			depth--
		}
	}
	return -1
}
