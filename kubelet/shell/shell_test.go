package shell

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/kubesim/kubesim/clock"
)

func testEnv() Environment {
	return Environment{
		Env:      []Var{{"PATH", "/usr/bin:/bin"}, {"HOSTNAME", "web-0"}, {"GREETING", "hello world"}},
		Files:    map[string][]byte{"/etc/config/key": []byte("value\n"), "/etc/config/other": []byte("x"), "/etc/hostname": []byte("web-0\n")},
		Dirs:     []string{"/data"},
		Hostname: "web-0",
	}
}

func run(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb strings.Builder
	code := Command{Args: args, Env: testEnv(), Stdio: Stdio{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb},
		Clock: clock.NewFake(time.Unix(0, 0))}.Run(context.Background())
	return out.String(), errb.String(), code
}

func TestCommands(t *testing.T) {
	for _, tc := range []struct {
		name      string
		stdin     string
		args      []string
		out, errs string
		code      int
	}{
		{name: "env", args: []string{"env"}, out: "PATH=/usr/bin:/bin\nHOSTNAME=web-0\nGREETING=hello world\n"},
		{name: "printenv one", args: []string{"printenv", "GREETING"}, out: "hello world\n"},
		{name: "printenv missing", args: []string{"printenv", "NOPE"}, code: 1},
		{name: "hostname", args: []string{"hostname"}, out: "web-0\n"},
		{name: "echo", args: []string{"echo", "a", "b"}, out: "a b\n"},
		{name: "echo -n", args: []string{"/bin/echo", "-n", "a"}, out: "a"},
		{name: "cat", args: []string{"cat", "/etc/config/key"}, out: "value\n"},
		{name: "cat relative missing", args: []string{"cat", "nope"}, errs: "cat: can't open 'nope': No such file or directory\n", code: 1},
		{name: "cat dir", args: []string{"cat", "/etc"}, errs: "cat: read error: Is a directory\n", code: 1},
		{name: "cat stdin", stdin: "piped\n", args: []string{"cat"}, out: "piped\n"},
		{name: "ls dir", args: []string{"ls", "/etc/config"}, out: "key\nother\n"},
		{name: "ls root", args: []string{"ls", "/"}, out: "bin\ndata\ndev\netc\nhome\nproc\nroot\nsbin\nsys\ntmp\nusr\nvar\n"},
		{name: "ls -a empty mount", args: []string{"ls", "-a", "/data"}, out: ".\n..\n"},
		{name: "ls missing", args: []string{"ls", "/nope"}, errs: "ls: /nope: No such file or directory\n", code: 1},
		{name: "pwd", args: []string{"pwd"}, out: "/\n"},
		{name: "true", args: []string{"true"}},
		{name: "false", args: []string{"false"}, code: 1},
		{name: "not a program", args: []string{"curl", "x"},
			out: "OCI runtime exec failed: exec failed: unable to start container process: exec: \"curl\": executable file not found in $PATH: unknown\n", code: 126},
		{name: "sh expands HOSTNAME", args: []string{"sh", "-c", "echo $HOSTNAME"}, out: "web-0\n"},
		{name: "sh braces and quotes", args: []string{"sh", "-c", `echo "${GREETING}!" '$HOSTNAME' \$x`}, out: "hello world! $HOSTNAME $x\n"},
		{name: "sh unset var drops word", args: []string{"sh", "-c", `echo $NOPE a "$NOPE"b`}, out: "a b\n"},
		{name: "sh exit", args: []string{"sh", "-c", "exit 3"}, code: 3},
		{name: "sh exit wraps", args: []string{"sh", "-c", "exit 258"}, code: 2},
		{name: "sh exit stops", args: []string{"sh", "-c", "echo a; exit 4; echo b"}, out: "a\n", code: 4},
		{name: "sh not found", args: []string{"sh", "-c", "curl x"}, errs: "sh: curl: not found\n", code: 127},
		{name: "sh and or", args: []string{"sh", "-c", "false && echo no || echo yes; echo $?"}, out: "yes\n0\n"},
		{name: "sh status", args: []string{"sh", "-c", "false; echo $?"}, out: "1\n"},
		{name: "sh assign export", args: []string{"sh", "-c", "A=1; export B=2; echo $A$B; printenv B"}, out: "12\n2\n"},
		{name: "sh cd", args: []string{"sh", "-c", "cd /etc/config && pwd && cat key && echo $PWD"}, out: "/etc/config\nvalue\n/etc/config\n"},
		{name: "sh cd missing", args: []string{"sh", "-c", "cd /nope"}, errs: "sh: cd: can't cd to /nope: No such file or directory\n", code: 2},
		{name: "sh comment", args: []string{"sh", "-c", "echo a # b"}, out: "a\n"},
		{name: "sh pipe", args: []string{"sh", "-c", "env | grep GREET"}, out: "GREETING=hello world\n"},
		{name: "pipe to wc -c", args: []string{"sh", "-c", "echo hi | wc -c"}, out: "3\n"},
		{name: "pipe of three", args: []string{"sh", "-c", "cat /etc/config/key /etc/hostname | grep -v web | wc -l"}, out: "1\n"},
		{name: "grep finds nothing", args: []string{"sh", "-c", "cat /etc/config/key | grep nope; echo $?"}, out: "1\n"},
		{name: "pipe then &&", args: []string{"sh", "-c", "echo abc | grep -q b && echo found"}, out: "found\n"},
		{name: "subshell", args: []string{"sh", "-c", `(echo a; cd /etc; x=1); pwd; echo "[$x]"`}, out: "a\n/\n[]\n"},
		{name: "command substitution", args: []string{"sh", "-c", `echo "host: $(hostname)"; for i in $(seq 2 3); do echo $i; done`}, out: "host: web-0\n2\n3\n"},
		{name: "substitution is a subshell", args: []string{"sh", "-c", `x=1; y=$(x=2; echo $x; exit 4); echo $x $y $?`}, out: "1 2 4\n"},
		{name: "wc of a file", args: []string{"wc", "/etc/config/key"}, out: "      1       1       6 /etc/config/key\n"},
		{name: "head and tail", args: []string{"sh", "-c", "seq 5 | head -n 2; seq 5 | tail -2"}, out: "1\n2\n4\n5\n"},
		{name: "date", args: []string{"date"}, out: "Thu Jan  1 00:00:00 UTC 1970\n"},
		{name: "date format", args: []string{"date", "+%F %T"}, out: "1970-01-01 00:00:00\n"},
		{name: "read", stdin: "Ada Lovelace\n", args: []string{"sh", "-c", "read first rest; echo hello $first / $rest; read x || echo eof"}, out: "hello Ada / Lovelace\neof\n"},
		{name: "sleep units", args: []string{"sh", "-c", "sleep 0m 0s && sleep 0.0 && echo ok"}, out: "ok\n"},
		{name: "sh -ec and set -e", args: []string{"sh", "-ec", "set -e; printf '%s=%d\\n' a 1 b 2"}, out: "a=1\nb=2\n"},
		{name: "echo -en", args: []string{"sh", "-c", `echo -en '\n'; echo -e 'a\tb'; echo 'c\nd'`}, out: "\na\tb\nc\\nd\n"},
		{name: "[[ as ash has it", args: []string{"sh", "-c", "if [[ -e /etc/hostname ]]; then echo yes; fi"}, out: "yes\n"},
		{name: "exec", args: []string{"sh", "-c", "exec echo replaced; echo never"}, out: "replaced\n"},
		{name: "sh unterminated", args: []string{"sh", "-c", "echo 'a"}, errs: "sh: syntax error: unterminated quoted string\n", code: 2},
		{name: "sh reads stdin", stdin: "echo one\nexit 5\necho never\n", args: []string{"sh"}, out: "one\n", code: 5},
		{name: "sh stdin status", stdin: "false\n", args: []string{"sh"}, code: 1},
		{name: "sleep", args: []string{"sh", "-c", "sleep 0 && echo woke"}, out: "woke\n"},
		{name: "sleep bad", args: []string{"sleep", "x"}, errs: "sleep: invalid number 'x'\n", code: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, code := run(t, tc.stdin, tc.args...)
			assert.Equal(t, tc.out, out, "stdout")
			assert.Equal(t, tc.errs, errs, "stderr")
			assert.Equal(t, tc.code, code, "exit code")
		})
	}
}

// A sleep waits on the injected clock and ends early when the exec's
// client goes away.
func TestSleepWaitsForClock(t *testing.T) {
	fake := clock.NewFake(time.Unix(0, 0))
	done := make(chan int, 1)
	go func() {
		done <- Command{Args: []string{"sleep", "30"}, Env: testEnv(), Clock: fake}.Run(context.Background())
	}()
	for {
		if _, ok := fake.NextDeadline(); ok {
			break
		}
		time.Sleep(time.Millisecond)
	}
	select {
	case <-done:
		t.Fatal("sleep returned before its time")
	default:
	}
	fake.Step(30 * time.Second)
	assert.Equal(t, 0, <-done)

	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		done <- Command{Args: []string{"sleep", "30"}, Env: testEnv(), Clock: fake}.Run(ctx)
	}()
	cancel()
	assert.Equal(t, 137, <-done)
}

// With a terminal, the shell echoes what is typed, prints busybox's
// prompt and ends lines with "\r\n".
func TestInteractiveTTY(t *testing.T) {
	var out strings.Builder
	code := Command{Args: []string{"sh"}, Env: testEnv(),
		Stdio: Stdio{Stdin: strings.NewReader("echo $HOSTNAME\rexiu\x7ft 2\r"), Stdout: &out, TTY: true}}.Run(context.Background())
	assert.Equal(t, 2, code)
	assert.Equal(t, "/ # echo $HOSTNAME\r\nweb-0\r\n/ # exiu\b \bt 2\r\n", out.String())
}

// bash exists only in images that have it; there it is the same shell
// with bash's prompt and its "command not found".
func TestBash(t *testing.T) {
	env := testEnv()
	var out strings.Builder
	code := Command{Args: []string{"/bin/bash"}, Env: env, Stdio: Stdio{Stdout: &out}}.Run(context.Background())
	assert.Equal(t, ExitCannotExecute, code)
	assert.Equal(t, "OCI runtime exec failed: exec failed: unable to start container process: exec: \"/bin/bash\": executable file not found in $PATH: unknown\n", out.String())

	env.Bash = true
	out.Reset()
	code = Command{Args: []string{"/bin/bash"}, Env: env,
		Stdio: Stdio{Stdin: strings.NewReader("cd /etc\rcurl x\rexit 3\r"), Stdout: &out, TTY: true}}.Run(context.Background())
	assert.Equal(t, 3, code)
	assert.Equal(t, "root@web-0:/# cd /etc\r\nroot@web-0:/etc# curl x\r\nbash: curl: command not found\r\nroot@web-0:/etc# exit 3\r\n", out.String())

	var errb strings.Builder
	code = Command{Args: []string{"bash", "-c", "echo $HOSTNAME; nope"}, Env: env, Stdio: Stdio{Stdout: &out, Stderr: &errb}}.Run(context.Background())
	assert.Equal(t, ExitNotFound, code)
	assert.Equal(t, "bash: nope: command not found\n", errb.String())
}

// The image's own programs run as commands — by name, from a bin
// directory, by their absolute path, in scripts and pipes — with the
// shell's variables, streams and clock; Exec runs another command in
// their place, as an entrypoint's `exec "$@"`.
func TestImagePrograms(t *testing.T) {
	env := testEnv()
	env.Programs = map[string]Program{
		"greet": func(ctx context.Context, p Process) int {
			io.WriteString(p.Stdout, p.Getenv("GREETING")+" from "+strings.Join(p.Args, " ")+"\n")
			return 3
		},
		"/entrypoint.sh": func(ctx context.Context, p Process) int {
			io.WriteString(p.Stderr, "starting\n")
			code := p.Exec(p.Args[1:])
			if code == ExitNotFound {
				io.WriteString(p.Stderr, "entrypoint: not found: "+p.Args[1]+"\n")
			}
			return code
		},
	}
	runIn := func(args ...string) (string, string, int) {
		var out, errb strings.Builder
		code := Command{Args: args, Env: env, Stdio: Stdio{Stdout: &out, Stderr: &errb}, Clock: clock.NewFake(time.Unix(0, 0))}.Run(context.Background())
		return out.String(), errb.String(), code
	}
	out, _, code := runIn("greet", "a")
	assert.Equal(t, "hello world from greet a\n", out)
	assert.Equal(t, 3, code)
	out, _, code = runIn("/usr/local/bin/greet")
	assert.Equal(t, "hello world from /usr/local/bin/greet\n", out)
	assert.Equal(t, 3, code)
	out, _, code = runIn("sh", "-c", "GREETING=hi; greet | wc -c; echo $?")
	assert.Equal(t, "14\n0\n", out, "hi from greet")
	assert.Equal(t, 0, code)
	out, errs, code := runIn("/entrypoint.sh", "greet", "x")
	assert.Equal(t, "hello world from greet x\n", out)
	assert.Equal(t, "starting\n", errs)
	assert.Equal(t, 3, code)
	_, errs, code = runIn("/entrypoint.sh", "nope")
	assert.Equal(t, "starting\nentrypoint: not found: nope\n", errs)
	assert.Equal(t, ExitNotFound, code)
	out, _, code = runIn("entrypoint.sh")
	assert.Equal(t, 126, code, "an absolute path's program is not on PATH")
	assert.Contains(t, out, `exec: "entrypoint.sh": executable file not found in $PATH`)
}
