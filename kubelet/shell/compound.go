package shell

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Compound commands: while, until, for and if, with break and continue,
// as the tutorials' scripts use them
// (`i=0; while [ $i -lt 3 ]; do echo $i; i=$((i+1)); done`). The parser
// (parse.go) splits a script into simple commands; a reserved word at the
// start of one (while, do, done, …) is peeled off here and the commands
// are nested into a tree. Left out: case, functions, select, subshells and
// { … } groups, and redirections of a whole compound command.

// node is one command of a script: a simple command or a compound one.
type node struct {
	// op joins it to the node before: ";", "&&" or "||".
	op string
	// simple is set for a simple command; kind says which compound one
	// it is otherwise: "while", "until", "for" or "if".
	simple *command
	kind   string
	// cond and body: a loop's condition (while, until) and body; an if's
	// conditions and bodies pair up, and elseBody is its else.
	cond, body []node
	conds      [][]node
	bodies     [][]node
	elseBody   []node
	// forVar and forWords: for NAME in WORDS.
	forVar   string
	forWords []word
}

// reserved are the words that start or continue a compound command.
var reserved = map[string]bool{"while": true, "until": true, "for": true, "if": true, "then": true,
	"elif": true, "else": true, "fi": true, "do": true, "done": true}

// errIncomplete is a script that ends inside a compound command: an
// interactive shell asks for the next line (PS2) instead of failing.
var errIncomplete = errors.New("syntax error: unexpected end of file")

// token is a reserved word or a simple command.
type token struct {
	word string // the reserved word, or "" for a command
	op   string
	cmd  command
}

// tokens peels the reserved words off the start of each command.
func tokens(cmds []command) []token {
	var out []token
	for _, c := range cmds {
		op := c.op
		for len(c.words) > 0 {
			w := c.words[0]
			if len(w) != 1 || !w[0].literal() || w[0].quoted || !reserved[w[0].text] {
				break
			}
			kw := w[0].text
			out = append(out, token{word: kw, op: op})
			op = ";"
			c.words = c.words[1:]
			if kw == "for" {
				// for NAME in WORDS: the rest of the command is the header.
				out = append(out, token{op: op, cmd: c})
				c.words, c.redirs = nil, nil
			}
		}
		if len(c.words) > 0 || len(c.redirs) > 0 {
			c.op = op
			out = append(out, token{op: op, cmd: c})
		}
	}
	return out
}

// treeParser nests tokens into nodes.
type treeParser struct {
	toks []token
	i    int
}

// buildTree parses a script's commands into nodes.
func buildTree(cmds []command) ([]node, error) {
	p := &treeParser{toks: tokens(cmds)}
	nodes, err := p.list()
	if err != nil {
		return nil, err
	}
	if p.i < len(p.toks) {
		return nil, fmt.Errorf("syntax error: unexpected %q", p.toks[p.i].word)
	}
	return nodes, nil
}

// list reads nodes up to a reserved word that does not start a command.
func (p *treeParser) list() ([]node, error) {
	var out []node
	for p.i < len(p.toks) {
		t := p.toks[p.i]
		switch t.word {
		case "":
			p.i++
			c := t.cmd
			out = append(out, node{op: t.op, simple: &c})
		case "while", "until", "for", "if":
			n, err := p.compound()
			if err != nil {
				return nil, err
			}
			out = append(out, n)
		default:
			return out, nil
		}
	}
	return out, nil
}

// expect reads reserved word kw.
func (p *treeParser) expect(kw string) error {
	if p.i >= len(p.toks) {
		return errIncomplete
	}
	if t := p.toks[p.i]; t.word != kw {
		what := t.word
		if what == "" {
			what = "word"
		}
		return fmt.Errorf("syntax error: unexpected %q (expecting %q)", what, kw)
	}
	p.i++
	return nil
}

// body reads a non-empty list (ash refuses `do done`).
func (p *treeParser) body() ([]node, error) {
	nodes, err := p.list()
	if err != nil {
		return nil, err
	}
	if len(nodes) == 0 {
		if p.i >= len(p.toks) {
			return nil, errIncomplete
		}
		return nil, fmt.Errorf("syntax error: unexpected %q", p.toks[p.i].word)
	}
	return nodes, nil
}

func (p *treeParser) compound() (node, error) {
	t := p.toks[p.i]
	p.i++
	n := node{op: t.op, kind: t.word}
	var err error
	switch t.word {
	case "while", "until":
		if n.cond, err = p.body(); err != nil {
			return n, err
		}
		if err = p.expect("do"); err != nil {
			return n, err
		}
	case "for":
		h := p.toks[p.i]
		p.i++
		ws := h.cmd.words
		if len(ws) == 0 || len(ws[0]) != 1 || !ws[0][0].literal() || !validName(ws[0][0].text) {
			return n, fmt.Errorf("syntax error: bad for loop variable")
		}
		n.forVar = ws[0][0].text
		if len(ws) > 1 {
			if len(ws[1]) != 1 || ws[1][0].text != "in" {
				return n, fmt.Errorf("syntax error: unexpected %q (expecting \"do\")", ws[1][0].text)
			}
			n.forWords = ws[2:]
		}
		if err = p.expect("do"); err != nil {
			return n, err
		}
	case "if":
		for {
			cond, err := p.body()
			if err != nil {
				return n, err
			}
			if err = p.expect("then"); err != nil {
				return n, err
			}
			body, err := p.body()
			if err != nil {
				return n, err
			}
			n.conds, n.bodies = append(n.conds, cond), append(n.bodies, body)
			if p.i < len(p.toks) && p.toks[p.i].word == "elif" {
				p.i++
				continue
			}
			break
		}
		if p.i < len(p.toks) && p.toks[p.i].word == "else" {
			p.i++
			if n.elseBody, err = p.body(); err != nil {
				return n, err
			}
		}
		return n, p.expect("fi")
	}
	if n.body, err = p.body(); err != nil {
		return n, err
	}
	return n, p.expect("done")
}

// runList runs nodes in order, honouring && and ||, until the script
// exits, a break or continue leaves the list, or the client goes away.
func (s *state) runList(nodes []node) int {
	for i := 0; i < len(nodes); i++ {
		n := nodes[i]
		if s.exited || s.breaks > 0 || s.continues > 0 || s.ctx.Err() != nil {
			break
		}
		end := i
		for end+1 < len(nodes) && nodes[end+1].op == "|" {
			end++
		}
		if (n.op == "&&" && s.last != 0) || (n.op == "||" && s.last == 0) {
			i = end
			continue
		}
		if end > i {
			s.last = s.pipeline(nodes[i : end+1])
			i = end
			continue
		}
		s.last = s.runNode(n)
	}
	return s.last
}

// pipeline runs `a | b | …`: each command's output is the next one's
// input. The simulated programs end once their input is read, so they
// run one after the other; the status is the last one's.
func (s *state) pipeline(nodes []node) int {
	stdin, stdout := s.stdin, s.stdout
	defer func() { s.stdin, s.stdout = stdin, stdout }()
	code := 0
	for k, n := range nodes {
		var buf bytes.Buffer
		if k < len(nodes)-1 {
			s.stdout = &buf
		} else {
			s.stdout = stdout
		}
		code = s.runNode(n)
		if s.ctx.Err() != nil {
			return code
		}
		s.stdin = &buf
	}
	return code
}

func (s *state) runNode(n node) int {
	switch n.kind {
	case "":
		c := n.simple
		return s.redirected(c.redirs, func() int { return s.run(c.words) })
	case "if":
		for i, cond := range n.conds {
			if s.runList(cond); s.stopped() {
				return s.last
			}
			if s.last == 0 {
				return s.runList(n.bodies[i])
			}
		}
		if n.elseBody != nil {
			return s.runList(n.elseBody)
		}
		return 0
	case "for":
		var items []string
		for _, w := range n.forWords {
			items = append(items, s.fields(w)...)
		}
		if err := s.expandErr; err != nil {
			s.expandErr = nil
			fmt.Fprintf(s.stderr, "sh: %v\n", err)
			s.exited = !s.tty
			return 2
		}
		status := 0
		s.loops++
		defer func() { s.loops-- }()
		for _, it := range items {
			s.set(n.forVar, it)
			status = s.runList(n.body)
			if s.loopDone() {
				break
			}
		}
		return status
	}
	// while and until: the status is the body's last, 0 if it never ran.
	status := 0
	s.loops++
	defer func() { s.loops-- }()
	for {
		if s.runList(n.cond); s.stopped() {
			return s.last
		}
		if (s.last == 0) != (n.kind == "while") {
			return status
		}
		status = s.runList(n.body)
		if s.loopDone() {
			return status
		}
	}
}

// stopped: the script exited, or its client went away.
func (s *state) stopped() bool { return s.exited || s.ctx.Err() != nil }

// loopDone is checked after each pass of a loop's body: true when the
// loop ends (exit, break, a break or continue of an outer loop); a
// continue of this loop is used up.
func (s *state) loopDone() bool {
	switch {
	case s.stopped():
		return true
	case s.breaks > 0:
		s.breaks--
		return true
	case s.continues > 1:
		s.continues--
		return true
	case s.continues == 1:
		s.continues = 0
	}
	return false
}

// fields expands a for loop's word: an unquoted expansion is split at
// blanks, as the shell's field splitting does with the default IFS.
func (s *state) fields(w word) []string {
	v, keep := s.expandWord(w)
	for _, sg := range w {
		if !sg.literal() && !sg.quoted {
			return strings.Fields(v)
		}
	}
	if !keep {
		return nil
	}
	return []string{v}
}

// loopControl runs break or continue [N].
func (s *state) loopControl(name string, args []string) int {
	n := 1
	if len(args) > 0 {
		v, err := strconv.Atoi(args[0])
		if err != nil || v < 1 {
			fmt.Fprintf(s.stderr, "sh: %s: Illegal number: %s\n", name, args[0])
			return 2
		}
		n = v
	}
	// Outside a loop they do nothing; past the outermost they leave it.
	n = min(n, s.loops)
	if name == "break" {
		s.breaks = n
	} else {
		s.continues = n
	}
	return 0
}
