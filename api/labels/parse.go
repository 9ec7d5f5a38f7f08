package labels

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// token is a lexical unit of the selector grammar.
type token int

const (
	errorToken token = iota
	endOfStringToken
	closedParToken
	commaToken
	doesNotExistToken
	doubleEqualsToken
	equalsToken
	greaterThanToken
	identifierToken
	inToken
	lessThanToken
	notEqualsToken
	notInToken
	openParToken
)

// literalToken maps the fixed spellings to their tokens; anything else the
// lexer reads between special symbols and spaces is an identifier.
func literalToken(s string) (token, bool) {
	switch s {
	case ")":
		return closedParToken, true
	case ",":
		return commaToken, true
	case "!":
		return doesNotExistToken, true
	case "==":
		return doubleEqualsToken, true
	case "=":
		return equalsToken, true
	case ">":
		return greaterThanToken, true
	case "in":
		return inToken, true
	case "<":
		return lessThanToken, true
	case "!=":
		return notEqualsToken, true
	case "notin":
		return notInToken, true
	case "(":
		return openParToken, true
	}
	return errorToken, false
}

func isWhitespace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func isSpecialSymbol(c byte) bool {
	switch c {
	case '=', '!', '(', ')', ',', '>', '<':
		return true
	}
	return false
}

// scannedItem is a token with the text it was read from.
type scannedItem struct {
	tok     token
	literal string
}

// lexer splits a selector into tokens byte by byte, as Kubernetes does. A
// NUL byte reads like the end of input (also as in Kubernetes): it ends an
// identifier or operator, and where a token would start it ends the list.
type lexer struct {
	s   string
	pos int
}

func (l *lexer) read() byte {
	if l.pos < len(l.s) {
		b := l.s[l.pos]
		l.pos++
		return b
	}
	return 0
}

func (l *lexer) unread() { l.pos-- }

func (l *lexer) lex() scannedItem {
	c := l.read()
	for isWhitespace(c) {
		c = l.read()
	}
	switch {
	case c == 0:
		return scannedItem{endOfStringToken, ""}
	case isSpecialSymbol(c):
		l.unread()
		return l.scanSpecialSymbol()
	default:
		l.unread()
		return l.scanIDOrKeyword()
	}
}

func (l *lexer) scanIDOrKeyword() scannedItem {
	var buf []byte
	for {
		c := l.read()
		if c == 0 {
			break
		}
		if isSpecialSymbol(c) || isWhitespace(c) {
			l.unread()
			break
		}
		buf = append(buf, c)
	}
	s := string(buf)
	if t, ok := literalToken(s); ok {
		return scannedItem{t, s}
	}
	return scannedItem{identifierToken, s}
}

// scanSpecialSymbol reads the longest run of special symbols that still
// spells an operator ("!=" rather than "!" then "=").
func (l *lexer) scanSpecialSymbol() scannedItem {
	var last scannedItem
	var buf []byte
	for {
		c := l.read()
		if c == 0 {
			break
		}
		if !isSpecialSymbol(c) {
			l.unread()
			break
		}
		buf = append(buf, c)
		if t, ok := literalToken(string(buf)); ok {
			last = scannedItem{t, string(buf)}
		} else if last.tok != errorToken {
			l.unread()
			break
		}
	}
	if last.tok == errorToken {
		return scannedItem{errorToken, fmt.Sprintf("error expected: keyword found '%s'", buf)}
	}
	return last
}

// parserContext says whether "in"/"notin" are keywords (after a key) or
// plain values ("x in (in)").
type parserContext int

const (
	keyAndOperator parserContext = iota
	values
)

// parser is a recursive-descent parser over the scanned tokens.
type parser struct {
	items    []scannedItem
	position int
}

func (p *parser) lookahead(ctx parserContext) (token, string) {
	it := p.items[p.position]
	if ctx == values && (it.tok == inToken || it.tok == notInToken) {
		return identifierToken, it.literal
	}
	return it.tok, it.literal
}

func (p *parser) consume(ctx parserContext) (token, string) {
	t, lit := p.lookahead(ctx)
	if p.position < len(p.items)-1 { // never step past the end token
		p.position++
	}
	return t, lit
}

// Parse reads a label selector in Kubernetes' syntax:
//
//	<selector>    ::= <requirement> | <requirement> "," <selector>
//	<requirement> ::= [!] KEY [ <set-based> | <exact-match> | <compare> ]
//	<set-based>   ::= ("in" | "notin") "(" VALUE { "," VALUE } ")"
//	<exact-match> ::= ("=" | "==" | "!=") VALUE
//	<compare>     ::= (">" | "<") INTEGER
//
// A bare KEY means the key exists, !KEY that it does not. Whitespace
// between tokens is ignored. Values may be empty. The empty string selects
// everything. Requirements are sorted by key.
func Parse(selector string) (Selector, error) {
	reqs, err := ParseToRequirements(selector)
	if err != nil {
		return nil, err
	}
	return internalSelector(reqs), nil
}

// ParseToRequirements is Parse returning the requirements themselves.
func ParseToRequirements(selector string) ([]Requirement, error) {
	l := &lexer{s: selector}
	p := &parser{}
	for {
		it := l.lex()
		p.items = append(p.items, it)
		if it.tok == endOfStringToken {
			break
		}
	}
	reqs, err := p.parse()
	if err != nil {
		return nil, err
	}
	sortByKey(reqs)
	return reqs, nil
}

func (p *parser) parse() ([]Requirement, error) {
	var reqs []Requirement
	for {
		tok, lit := p.lookahead(values)
		switch tok {
		case identifierToken, doesNotExistToken:
			r, err := p.parseRequirement()
			if err != nil {
				return nil, fmt.Errorf("unable to parse requirement: %w", err)
			}
			reqs = append(reqs, *r)
			t, l := p.consume(values)
			switch t {
			case endOfStringToken:
				return reqs, nil
			case commaToken:
				t2, l2 := p.lookahead(values)
				if t2 != identifierToken && t2 != doesNotExistToken {
					return nil, fmt.Errorf("found '%s', expected: identifier after ','", l2)
				}
			default:
				return nil, fmt.Errorf("found '%s', expected: ',' or 'end of string'", l)
			}
		case endOfStringToken:
			return reqs, nil
		default:
			return nil, fmt.Errorf("found '%s', expected: !, identifier, or 'end of string'", lit)
		}
	}
}

func (p *parser) parseRequirement() (*Requirement, error) {
	key, op, err := p.parseKeyAndInferOperator()
	if err != nil {
		return nil, err
	}
	if op == Exists || op == DoesNotExist {
		return NewRequirement(key, op, []string{})
	}
	op, err = p.parseOperator()
	if err != nil {
		return nil, err
	}
	var vals []string
	switch op {
	case In, NotIn:
		vals, err = p.parseValues()
	default:
		vals, err = p.parseExactValue()
	}
	if err != nil {
		return nil, err
	}
	return NewRequirement(key, op, vals)
}

// parseKeyAndInferOperator reads [!]KEY and infers Exists or DoesNotExist
// when no operator follows.
func (p *parser) parseKeyAndInferOperator() (string, Operator, error) {
	var op Operator
	tok, lit := p.consume(values)
	if tok == doesNotExistToken {
		op = DoesNotExist
		tok, lit = p.consume(values)
	}
	if tok != identifierToken {
		return "", "", fmt.Errorf("found '%s', expected: identifier", lit)
	}
	if err := validateLabelKey(lit, nil); err != nil {
		return "", "", err
	}
	if t, _ := p.lookahead(values); t == endOfStringToken || t == commaToken {
		if op != DoesNotExist {
			op = Exists
		}
	}
	return lit, op, nil
}

func (p *parser) parseOperator() (Operator, error) {
	tok, lit := p.consume(keyAndOperator)
	switch tok {
	case inToken:
		return In, nil
	case equalsToken:
		return Equals, nil
	case doubleEqualsToken:
		return DoubleEquals, nil
	case greaterThanToken:
		return GreaterThan, nil
	case lessThanToken:
		return LessThan, nil
	case notInToken:
		return NotIn, nil
	case notEqualsToken:
		return NotEquals, nil
	}
	return "", fmt.Errorf("found '%s', expected: %s", lit, strings.Join(binaryOperators(), ", "))
}

// parseValues reads "(a,b,...)"; "()" and empty list elements are the
// empty value.
func (p *parser) parseValues() ([]string, error) {
	tok, lit := p.consume(values)
	if tok != openParToken {
		return nil, fmt.Errorf("found '%s' expected: '('", lit)
	}
	tok, lit = p.lookahead(values)
	switch tok {
	case identifierToken, commaToken:
		s, err := p.parseIdentifiersList()
		if err != nil {
			return nil, err
		}
		if tok, _ = p.consume(values); tok != closedParToken {
			return nil, fmt.Errorf("found '%s', expected: ')'", lit)
		}
		return s, nil
	case closedParToken:
		p.consume(values)
		return []string{""}, nil
	}
	return nil, fmt.Errorf("found '%s', expected: ',', ')' or identifier", lit)
}

// parseIdentifiersList reads a comma-separated list whose elements may be
// empty, returning the distinct values sorted (Kubernetes keeps a set).
func (p *parser) parseIdentifiersList() ([]string, error) {
	set := map[string]bool{}
	result := func() []string {
		out := slices.Sorted(maps.Keys(set))
		return out
	}
	for {
		tok, lit := p.consume(values)
		switch tok {
		case identifierToken:
			set[lit] = true
			tok2, lit2 := p.lookahead(values)
			switch tok2 {
			case commaToken:
				continue
			case closedParToken:
				return result(), nil
			}
			return nil, fmt.Errorf("found '%s', expected: ',' or ')'", lit2)
		case commaToken:
			if len(set) == 0 {
				set[""] = true // "(,": an empty first element
			}
			tok2, _ := p.lookahead(values)
			if tok2 == closedParToken {
				set[""] = true // ",)": an empty last element
				return result(), nil
			}
			if tok2 == commaToken {
				p.consume(values)
				set[""] = true // ",,": an empty element between
			}
		default:
			return nil, fmt.Errorf("found '%s', expected: ',', or identifier", lit)
		}
	}
}

// parseExactValue reads the one value after =, ==, !=, > or <; nothing
// before a comma or the end means the empty value.
func (p *parser) parseExactValue() ([]string, error) {
	tok, _ := p.lookahead(values)
	if tok == endOfStringToken || tok == commaToken {
		return []string{""}, nil
	}
	tok, lit := p.consume(values)
	if tok == identifierToken {
		return []string{lit}, nil
	}
	return nil, fmt.Errorf("found '%s', expected: identifier", lit)
}
