package shell

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// syntaxError is the message of a script that does not parse, in
// busybox ash's words (its parser's raise_error_unexpected_syntax):
// "syntax error: unexpected TOKEN", TOKEN a quoted operator or reserved
// word, "newline" or "end of file"; "syntax error: unterminated quoted
// string"; "arithmetic syntax error" for a $((…)) that does not parse.
// mvdan.cc/sh's parser words them its own way ("`done` can only be used
// to end a loop"): the token is found in its message or, after a
// redirection operator, in the script.
func syntaxError(src string, err error) string {
	var pe syntax.ParseError
	switch {
	case isNotSimulated(err):
		return err.Error()
	case !errors.As(err, &pe):
		return "syntax error: " + err.Error()
	}
	text := pe.Text
	switch {
	case strings.Contains(text, "without closing quote"):
		return "syntax error: unterminated quoted string"
	case isArithmetic(text):
		return "arithmetic syntax error"
	case strings.Contains(text, "parameter name"), strings.Contains(text, "parameter expansion"):
		return "syntax error: bad substitution"
	case strings.Contains(text, "must be followed by a word"), strings.Contains(text, "must be followed by") && !pe.Incomplete:
		// `echo x >`, `echo x > && …`, `if true; then fi`: what came
		// instead.
		op := firstToken(text)
		return "syntax error: unexpected " + nextToken(src[min(int(pe.Pos.Offset())+len(op), len(src)):])
	case pe.Incomplete:
		return "syntax error: unexpected end of file"
	}
	if tok := firstToken(text); tok != "" {
		return fmt.Sprintf("syntax error: unexpected %q", tok)
	}
	return "syntax error: " + text
}

// quotedToken finds a token quoted `so` in the parser's message.
var quotedToken = regexp.MustCompile("`([^`]+)`")

// firstToken is the last token the parser's message quotes: the one it
// met ("a command can only contain words and redirects; encountered
// `)`"), or the one a message names first ("`done` can only be used to
// end a loop").
func firstToken(text string) string {
	m := quotedToken.FindAllStringSubmatch(text, -1)
	switch {
	case len(m) == 0:
		return ""
	case strings.Contains(text, "encountered"):
		return m[len(m)-1][1]
	}
	return m[0][1]
}

// nextToken names the token that starts rest as ash does: "newline" at
// the end of a line or of the script, else the operator or the word,
// quoted.
func nextToken(rest string) string {
	rest = strings.TrimLeft(rest, " \t")
	switch {
	case rest == "" || rest[0] == '\n':
		return "newline"
	case strings.HasPrefix(rest, "&&"), strings.HasPrefix(rest, "||"), strings.HasPrefix(rest, ";;"):
		return fmt.Sprintf("%q", rest[:2])
	}
	end := strings.IndexAny(rest, " \t\n;&|()<>")
	switch {
	case end == 0:
		end = 1
	case end < 0:
		end = len(rest)
	}
	return fmt.Sprintf("%q", rest[:end])
}

// isArithmetic: the parser's message is about an arithmetic expression.
func isArithmetic(text string) bool {
	for _, s := range []string{"an expression", "arithmetic", "must follow a name", "ternary operator", "must follow an expression"} {
		if strings.Contains(text, s) {
			return true
		}
	}
	return false
}
