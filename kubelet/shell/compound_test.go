package shell

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// $((…)) as busybox ash evaluates it, and the loops and conditionals
// tutorials write.
func TestArithmeticAndCompound(t *testing.T) {
	for _, tc := range []struct {
		name, script string
		out, errs    string
		code         int
	}{
		{name: "the tutorials' counter", script: `i=0; while [ $i -lt 3 ]; do echo $i; i=$((i+1)); done`, out: "0\n1\n2\n"},
		{name: "operators", script: `echo $((7+3*2)) $((17/5)) $((17%5)) $((-4-2)) $(( (1+2)*3 )) $((2<<3))`, out: "13 3 2 -6 9 16\n"},
		{name: "comparisons", script: `echo $((3<4)) $((3>=4)) $((2==2)) $((2!=2)) $((!0)) $((1&&0)) $((0||5))`, out: "1 0 1 0 1 0 1\n"},
		{name: "variables with and without $", script: `a=6; b=7; echo $((a*b)) $(($a*$b)) $((${a}+1)) $((nope+1))`, out: "42 42 7 1\n"},
		{name: "nesting", script: `n=2; echo $(( $((n+1)) * (n+$((1+1))) ))`, out: "12\n"},
		{name: "assignment", script: `x=1; : $((x+=4)); echo $x $((y=3)) $y`, out: "5 3 3\n"},
		{name: "ternary and short circuit", script: `z=0; echo $((z ? 1/z : 9)) $((z && 1/z))`, out: "9 0\n"},
		{name: "hex and octal", script: `echo $((0x10)) $((010))`, out: "16 8\n"},
		{name: "in double quotes", script: `n=4; echo "n+1=$((n+1))"`, out: "n+1=5\n"},
		{name: "divide by zero", script: `echo $((1/0)); echo after`, errs: "sh: divide by zero\n", code: 2},
		{name: "syntax error", script: `echo $((1+)); echo after`, errs: "sh: arithmetic syntax error\n", code: 2},
		{name: "until", script: `n=3; until [ $n -eq 0 ]; do echo -n $n; n=$((n-1)); done; echo`, out: "321\n"},
		{name: "for", script: `for x in a "b c" d; do echo $x; done`, out: "a\nb c\nd\n"},
		{name: "for splits an unquoted variable", script: `L="1 2  3"; s=0; for n in $L; do s=$((s+n)); done; echo $s`, out: "6\n"},
		{name: "if elif else", script: `for n in 1 2 3; do if [ $n -eq 1 ]; then echo one; elif [ $n = 2 ]; then echo two; else echo many; fi; done`,
			out: "one\ntwo\nmany\n"},
		{name: "break and continue", script: `i=0; while true; do i=$((i+1)); [ $i -eq 2 ] && continue; [ $i -gt 4 ] && break; echo $i; done; echo end $?`,
			out: "1\n3\n4\nend 0\n"},
		{name: "break 2", script: `for a in 1 2; do for b in x y; do echo $a$b; break 2; done; done`, out: "1x\n"},
		{name: "loop status", script: `while false; do :; done; echo $?; for x in; do false; done; echo $?`, out: "0\n0\n"},
		{name: "and after a loop", script: `for x in 1; do false; done && echo no || echo yes`, out: "yes\n"},
		{name: "multi-line", script: "for i in 1 2\ndo\n  echo $i\ndone\n", out: "1\n2\n"},
		{name: "exit inside a loop", script: `while true; do echo once; exit 7; done; echo never`, out: "once\n", code: 7},
		{name: "integer test", script: `[ 10 -gt 9 ] && [ 3 -le 3 ] && [ 1 -ne 2 ] && echo ok; [ x -lt 1 ]`, out: "ok\n", errs: "sh: x: bad number\n", code: 2},
		{name: "error in a for list", script: `for x in $((1/0)); do echo $x; done; echo after`, errs: "sh: divide by zero\n", code: 2},
		{name: "unfinished", script: `while true; do echo x`, errs: "sh: syntax error: unexpected end of file\n", code: 2},
		{name: "stray done", script: `echo a; done`, errs: "sh: syntax error: unexpected \"done\"\n", code: 2},
		{name: "keywords only at a command's start", script: `echo do done if`, out: "do done if\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, code := run(t, "", "sh", "-c", tc.script)
			assert.Equal(t, tc.out, out, "stdout")
			assert.Equal(t, tc.errs, errs, "stderr")
			assert.Equal(t, tc.code, code, "exit code")
		})
	}
}

// Typed at a terminal, an unfinished loop asks for more with ash's
// second prompt.
func TestInteractiveLoop(t *testing.T) {
	var out strings.Builder
	code := Command{Args: []string{"sh"}, Env: testEnv(),
		Stdio: Stdio{Stdin: strings.NewReader("for i in 1 2; do\recho $((i*10))\rdone\rexit\r"), Stdout: &out, TTY: true}}.Run(context.Background())
	assert.Equal(t, 0, code)
	assert.Equal(t, "/ # for i in 1 2; do\r\n> echo $((i*10))\r\n> done\r\n10\r\n20\r\n/ # exit\r\n", out.String())
}
