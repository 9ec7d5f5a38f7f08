package shell

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tutorialEnv is a busybox container with the files the tutorials'
// scripts look at: resolv.conf and nsswitch.conf, a ConfigMap mounted at
// /etc/config and an emptyDir at /data holding two files.
func tutorialEnv() Environment {
	env := testEnv()
	env.Layer = NewLayer()
	env.Files["/etc/resolv.conf"] = []byte("nameserver 10.96.0.10\nsearch default.svc.cluster.local svc.cluster.local cluster.local\noptions ndots:5\n")
	env.Files["/etc/nsswitch.conf"] = []byte("hosts: files dns\n")
	env.Files["/etc/passwd"] = []byte("root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/home:/bin/false\n")
	vol := NewMemoryVolume()
	_ = vol.WriteFile("/a.txt", []byte("alpha\n"))
	_ = vol.WriteFile("/b.log", []byte("beta\n"))
	env.Mounts = []Mount{{Path: "/data", Volume: vol}}
	return env
}

// runScript runs sh -c script in env on a clock that moves on at once,
// and says how long the script waited on it.
func runScript(env Environment, shell, script string) (out, errs string, code int, waited time.Duration) {
	var o, e strings.Builder
	clk := &skipClock{start: time.Unix(0, 0)}
	code = Command{Args: []string{shell, "-c", script}, Env: env, Stdio: Stdio{Stdout: &o, Stderr: &e}, Clock: clk}.Run(context.Background())
	return o.String(), e.String(), code, clk.elapsed
}

// Scripts from kubernetes.io's tutorials and tasks (and the shapes of
// them courses write) that kubelet/shell's own parser refused: case,
// functions, globs, here-documents, subshells, input redirections and
// backquotes.
func TestTutorialScripts(t *testing.T) {
	for _, tc := range []struct {
		name, script string
		out, errs    string
		code         int
	}{
		{name: "case on the completion index", script: `JOB_COMPLETION_INDEX=1
case $JOB_COMPLETION_INDEX in
  0) echo "first: foo" ;;
  1|2) echo "middle: bar" ;;
  *) echo "last" ;;
esac`, out: "middle: bar\n"},
		{name: "case with patterns", script: `for f in app.log notes.txt core; do case "$f" in *.log) echo "log $f";; *.txt) echo "text $f";; *) echo "other $f";; esac; done`,
			out: "log app.log\ntext notes.txt\nother core\n"},
		{name: "a function", script: `log() { echo "$(date +%T) [$1] $2"; }
log INFO starting; log WARN "disk low"`, out: "00:00:00 [INFO] starting\n00:00:00 [WARN] disk low\n"},
		{name: "a function's status and return", script: `ready() { [ -f /etc/config/key ] || return 1; echo ready; }; ready && echo go; f() { return 3; }; f; echo $?`,
			out: "ready\ngo\n3\n"},
		{name: "local variables", script: `x=outer; f() { local x=inner; echo $x; }; f; echo $x`, out: "inner\nouter\n"},
		{name: "ls a glob", script: `ls /etc/*.conf`, out: "/etc/nsswitch.conf\n/etc/resolv.conf\n"},
		{name: "for over a mount's files", script: `for f in /data/*; do echo "$f: $(cat $f)"; done`, out: "/data/a.txt: alpha\n/data/b.log: beta\n"},
		{name: "a glob that matches nothing stays as written", script: `echo /data/*.csv`, out: "/data/*.csv\n"},
		{name: "a relative glob", script: `cd /etc/config && echo *`, out: "key other\n"},
		// ConfigMap's "binary data should be reflected in volume"
		// (test/e2e/common/storage/configmap_volume.go) looks for "de ca
		// fe ba d0 fe ff" in `hexdump -C` of the file.
		{name: "hexdump -C", script: `printf '\336\312\376\272\320\376\377Hello, hexdump!' | hexdump -C`,
			out: "00000000  de ca fe ba d0 fe ff 48  65 6c 6c 6f 2c 20 68 65  |.......Hello, he|\n" +
				"00000010  78 64 75 6d 70 21                                 |xdump!|\n00000016\n"},
		{name: "a here-document to a file", script: `cat <<EOF > /tmp/app.conf
host=$HOSTNAME
greeting=${GREETING}
EOF
cat /tmp/app.conf`, out: "host=web-0\ngreeting=hello world\n"},
		{name: "a quoted here-document", script: "cat <<'EOF'\n$HOSTNAME stays\nEOF", out: "$HOSTNAME stays\n"},
		{name: "a here-document with tabs stripped", script: "cat <<-EOF\n\tindented\n\tEOF", out: "indented\n"},
		{name: "a here-string", script: `grep -c o <<< "foo boo"`, out: "1\n"},
		{name: "a subshell keeps its directory and variables", script: `(cd /etc/config; x=1; pwd); pwd; echo "x=$x"`, out: "/etc/config\n/\nx=\n"},
		{name: "a subshell's exit", script: `(exit 3); echo $?; (echo in; exit 0) && echo ok`, out: "3\nin\nok\n"},
		{name: "a group's output redirected", script: `{ echo one; echo two; } > /tmp/both; wc -l < /tmp/both`, out: "2\n"},
		{name: "input redirection", script: `while read line; do echo "got: $line"; done < /etc/resolv.conf`,
			out: "got: nameserver 10.96.0.10\ngot: search default.svc.cluster.local svc.cluster.local cluster.local\ngot: options ndots:5\n"},
		{name: "read from a file", script: `read first rest < /etc/passwd; echo "$first"`, out: "root:x:0:0:root:/root:/bin/sh\n"},
		{name: "backquotes", script: "echo \"host is `hostname`\"; n=`seq 3 | wc -l`; echo $n", out: "host is web-0\n3\n"},
		{name: "the init container's wait", script: `until nslookup myservice.$(cat /var/run/secrets/kubernetes.io/serviceaccount/namespace 2>/dev/null || echo default).svc.cluster.local > /dev/null 2>&1; do echo waiting; break; done`,
			out: "waiting\n"},
		{name: "the downward API's loop", script: `if [[ -e /etc/config/key ]]; then echo -en '\n'; cat /etc/config/key; fi`, out: "\nvalue\n"},
		{name: "eval with a pipe", script: `eval "echo a b | wc -w"`, out: "2\n"},
		{name: "source a file", script: `echo 'X=from-file; f() { echo f; }' > /tmp/lib.sh; . /tmp/lib.sh; echo $X; f`, out: "from-file\nf\n"},
		{name: "source a missing file", script: `. /nope; echo never`, errs: "sh: .: can't open '/nope': No such file or directory\n", code: 2},
		{name: "parameter expansions", script: `x=hello.tar.gz; echo ${x%%.*} ${x#*.} ${#x} ${y:-default} ${x:0:5} ${x/l/L}`, out: "hello tar.gz 12 default hello heLlo.tar.gz\n"},
		{name: "positional parameters", script: `set -- a "b c"; echo $#; for a in "$@"; do echo "[$a]"; done; shift; echo $1`, out: "2\n[a]\n[b c]\nb c\n"},
		{name: "trap on exit", script: `trap 'echo cleanup' EXIT TERM; echo work`, out: "work\ncleanup\n"},
		{name: "trap on a signal only", script: `trap 'echo never' TERM INT; echo ok`, out: "ok\n"},
		{name: "printf", script: `printf '%-5s|%3d|%s\n' ab 7 x`, out: "ab   |  7|x\n"},
		{name: "set -e stops at a failure, not a pipeline's", script: `set -e; false | true; echo ok; false; echo never`, out: "ok\n", code: 1},
		{name: "pipes, negated", script: `! echo abc | grep -q z && echo absent`, out: "absent\n"},
		{name: "pipes in a loop", script: `for w in a bb ccc; do echo $w | wc -c; done`, out: "2\n3\n4\n"},
		{name: "command -v and type", script: `command -v ls; command -v cd; type echo; type nope; echo $?`,
			out: "/bin/ls\ncd\necho is a shell builtin\nnope: not found\n127\n"},
		{name: "sh has no brace expansion", script: `echo {1..3} {a,b}`, out: "{1..3} {a,b}\n"},
		{name: "$$ is the container's process 1", script: `echo $$ $PPID`, out: "1 0\n"},
		{name: "set -u", script: `set -u; echo $NOPE; echo never`, errs: "sh: NOPE: parameter not set\n", code: 2},
		{name: "an arithmetic error after output", script: `echo a; echo $((1/0)); echo b`, out: "a\n", errs: "sh: divide by zero\n", code: 2},
		{name: "exit with a bad number", script: `exit abc`, errs: "sh: exit: Illegal number: abc\n", code: 2},
		{name: "break with a bad number", script: `for i in 1; do break x; done; echo $?`, out: "2\n", errs: "sh: break: Illegal number: x\n"},
		{name: "cd to a file", script: `cd /etc/hostname`, errs: "sh: cd: can't cd to /etc/hostname: Not a directory\n", code: 2},
		{name: "test's errors", script: `[ a b ]; echo $?; [ -q x ]; echo $?`, out: "2\n2\n", errs: "sh: b: unknown operand\nsh: x: unknown operand\n"},
		{name: "test's expressions", script: `[ 1 -lt 2 -a 3 -gt 1 ] && [ ! -d /etc/hostname ] && [ \( -f /etc/hostname -o -d /nope \) ] && test -w /tmp && echo yes`, out: "yes\n"},
		{name: "echo -e's escapes", script: `echo -e 'a\tb\x41\0102\cnever'; echo end`, out: "a\tbAB" + "end\n"},
		{name: "printf with no format", script: `printf`, errs: "sh: usage: printf FORMAT [ARGUMENT...]\n", code: 2},
		{name: "printf's conversions", script: `printf '%05d|%+d|%.3s|%5s|%-5s|%5.2f|%e|%X|%o|%c|%*d|\n' 42 7 abcdef ab cd 3.14159 1234.5 255 8 hello 3 1; printf '\101\x42 %b\n' 'a\tb'; printf '%s,' a b c; echo`,
			out: "00042|+7|abc|   ab|cd   | 3.14|1.234500e+03|FF|10|h|  1|\nAB a\tb\na,b,c,\n"},
		{name: "printf's errors", script: `printf '%d|\n' abc; echo $?; printf '%q\n' a`, out: "0|\n1\n", errs: "sh: invalid number 'abc'\nsh: %q\\n: invalid format\n", code: 1},
		{name: "echo to stderr", script: `echo oops >&2; echo out 2>&1 >/dev/null; cd /nope 2>&1`, errs: "oops\n", out: "sh: cd: can't cd to /nope: No such file or directory\n", code: 2},
		{name: "the interpreter's messages into a file", script: `local x 2> /tmp/err; cat /tmp/err`, out: "sh: local: not in a function\n"},
		{name: "a read-only variable", script: `readonly r=1; r=2; echo never`, errs: "sh: r: is read only\n", code: 2},
		{name: "/dev/null reads nothing", script: `wc -l < /dev/null; cat /dev/null; [ -c /dev/null ] && [ ! -f /dev/null ] && echo device`, out: "0\ndevice\n"},
		{name: "umask and ulimit", script: `umask; ulimit -n`, out: "0022\nunlimited\n"},
		{name: "a syntax error: fi", script: `if true; then fi`, errs: "sh: syntax error: unexpected \"fi\"\n", code: 2},
		{name: "a syntax error: )", script: `echo )`, errs: "sh: syntax error: unexpected \")\"\n", code: 2},
		{name: "a syntax error: unfinished case", script: `case x in`, errs: "sh: syntax error: unexpected end of file\n", code: 2},
		{name: "the shell's own names are not a script's", script: "\uFDD0time-end; \uFDD0status; \uFDD0nope; echo $?",
			out: "127\n", errs: "sh: \uFDD0nope: not found\n"},
		{name: "background jobs are left out", script: `sleep 5 & echo started`, errs: "sh: \"&\" is not simulated (background jobs are left out)\n", code: 2},
		{name: "process substitutions are left out", script: `cat <(echo a)`, errs: "sh: \"<(\" is not simulated (process substitutions are left out)\n", code: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, code, _ := runScript(tutorialEnv(), "sh", tc.script)
			assert.Equal(t, tc.out, out, "stdout")
			assert.Equal(t, tc.errs, errs, "stderr")
			assert.Equal(t, tc.code, code, "exit code")
		})
	}
}

// bash, in the images that have it, expands braces and has bash's words.
func TestBashScripts(t *testing.T) {
	env := tutorialEnv()
	env.Bash = true
	for _, tc := range []struct {
		name, script string
		out, errs    string
		code         int
	}{
		{name: "brace expansion", script: `echo {1..3} x{a,b}`, out: "1 2 3 xa xb\n"},
		{name: "arrays (the indexed job's init container)", script: `items=(foo bar baz qux xyz); JOB_COMPLETION_INDEX=2; echo ${items[$JOB_COMPLETION_INDEX]} > /tmp/data.txt; cat /tmp/data.txt`, out: "baz\n"},
		{name: "a C-style for", script: `for ((i=0; i<3; i++)); do echo -n $i; done; echo`, out: "012\n"},
		{name: "not found", script: `nope`, errs: "bash: nope: command not found\n", code: 127},
		{name: "cd", script: `cd /nope`, errs: "bash: cd: /nope: No such file or directory\n", code: 1},
		{name: "a redirection's file", script: `echo x > /nope/f`, errs: "bash: /nope/f: No such file or directory\n", code: 1},
		{name: "source", script: `. /nope; echo $?`, out: "1\n", errs: "bash: /nope: No such file or directory\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, code, _ := runScript(env, "bash", tc.script)
			assert.Equal(t, tc.out, out, "stdout")
			assert.Equal(t, tc.errs, errs, "stderr")
			assert.Equal(t, tc.code, code, "exit code")
		})
	}
}

// The shell reaches nothing of the machine kubesim runs on: its files,
// its programs, its process ids.
func TestTheMachineIsOutOfReach(t *testing.T) {
	env := testEnv()
	for _, tc := range []struct {
		name, script string
		out, errs    string
		code         int
	}{
		{name: "the machine's /etc/passwd", script: `cat /etc/passwd`, errs: "cat: can't open '/etc/passwd': No such file or directory\n", code: 1},
		{name: "by a redirection", script: `cat < /etc/passwd`, errs: "sh: can't open /etc/passwd: no such file\n", code: 2},
		{name: "by $(<file)", script: `echo "[$(< /etc/passwd)]"`, out: "[]\n", errs: "sh: can't open /etc/passwd: no such file\n"},
		{name: "ls / is the container's", script: `ls /`, out: "bin\ndata\ndev\netc\nhome\nproc\nroot\nsbin\nsys\ntmp\nusr\nvar\n"},
		{name: "a glob of / is the container's", script: `echo /*`, out: "/bin /data /dev /etc /home /proc /root /sbin /sys /tmp /usr /var\n"},
		{name: "a glob of the machine's files", script: `echo /etc/*.conf /usr/bin/*`, out: "/etc/*.conf /usr/bin/*\n"},
		{name: "test", script: `[ -e /etc/passwd ] || [[ -e /etc/os-release ]] || test -d /usr/lib || echo none`, out: "none\n"},
		{name: "cd", script: `cd /usr/lib`, errs: "sh: cd: can't cd to /usr/lib: No such file or directory\n", code: 2},
		{name: "source", script: `. /etc/os-release`, errs: "sh: .: can't open '/etc/os-release': No such file or directory\n", code: 2},
		{name: "a program on the machine's PATH", script: `go version; git --version; command -v go; which git`, errs: "sh: go: not found\nsh: git: not found\n", code: 1},
		{name: "exec of a machine's program", script: `exec /usr/local/go/bin/go`, errs: "sh: /usr/local/go/bin/go: not found\n", code: 127},
		{name: "writes land in the container", script: `echo x > /tmp/kubesim-shell-test; cat /tmp/kubesim-shell-test`, errs: "sh: can't create /tmp/kubesim-shell-test: Read-only file system\ncat: can't open '/tmp/kubesim-shell-test': No such file or directory\n", code: 1},
		{name: "~ is root's", script: `echo ~ ~root ~nobody`, out: "/root /root ~nobody\n"},
		{name: "the process ids", script: `echo $$ $PPID $UID`, out: "1 0 0\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, code, _ := runScript(env, "sh", tc.script)
			assert.Equal(t, tc.out, out, "stdout")
			assert.Equal(t, tc.errs, errs, "stderr")
			assert.Equal(t, tc.code, code, "exit code")
		})
	}
}

// A directory of the machine's, with a file in it, is not there for the
// shell: not to read, list, glob, test, enter or source; and what is
// written under its path lands in the container's layer, not in it.
func TestTheMachinesFilesAreNotTheContainers(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret")
	require.NoError(t, os.WriteFile(secret, []byte("echo leaked\n"), 0o755))
	env := testEnv()
	env.Layer = NewLayer()
	script := strings.NewReplacer("DIR", dir).Replace(`cat DIR/secret; cat < DIR/secret; ls DIR; echo DIR/*; [ -e DIR/secret ] || [[ -f DIR/secret ]] || echo absent; cd DIR; . DIR/secret; echo after`)
	out, errs, code, _ := runScript(env, "sh", script)
	assert.Equal(t, 2, code)
	assert.Equal(t, dir+"/*\nabsent\n", out)
	assert.Equal(t, strings.NewReplacer("DIR", dir).Replace("cat: can't open 'DIR/secret': No such file or directory\nsh: can't open DIR/secret: no such file\n"+
		"ls: DIR: No such file or directory\nsh: cd: can't cd to DIR: No such file or directory\nsh: .: can't open 'DIR/secret': No such file or directory\n"), errs)

	_, errs, _, _ = runScript(env, "sh", "echo x > "+dir+"/new; mkdir -p "+dir+"/sub; touch "+dir+"/t")
	assert.Equal(t, "sh: can't create "+dir+"/new: nonexistent directory\n", errs)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "the machine's directory holds only its own file")
	assert.True(t, env.Layer.isDir(dir+"/sub"), "mkdir -p made the directory in the container's layer")
	_, touched := env.Layer.file(dir + "/t")
	assert.True(t, touched, "and touch its file there")
}

// A script plays the same way every time, its clock moving with its
// sleeps, pipelines included: $RANDOM gives the same numbers, and a
// pipeline's sides run one after the other.
func TestScriptsPlayTheSameWayEveryTime(t *testing.T) {
	script := `echo $RANDOM $RANDOM; for i in 1 2 3; do echo "tick $i $(date +%s)"; sleep 2; done | while read w n s; do echo "$n at $s, read at $(date +%s)"; sleep 1; done; time sleep 5`
	first, errs, code, waited := runScript(testEnv(), "sh", script)
	assert.Equal(t, 0, code, errs)
	assert.Equal(t, 14*time.Second, waited, "the left side's 6 s, the right side's 3, time's 5")
	lines := strings.Split(first, "\n")
	assert.Equal(t, []string{"1 at 0, read at 6", "2 at 2, read at 7", "3 at 4, read at 8", ""}, lines[1:])
	assert.Equal(t, "0.00user 0.00system 0:05.00elapsed 0%CPU (0avgtext+0avgdata 0maxresident)k\n0inputs+0outputs (0major+0minor)pagefaults 0swaps\n", errs)
	for range 3 {
		again, _, _, _ := runScript(testEnv(), "sh", script)
		assert.Equal(t, first, again)
	}
}

// Typed at a terminal, a here-document and a case ask for their next
// lines with the second prompt.
func TestInteractiveCompound(t *testing.T) {
	var out strings.Builder
	code := Command{Args: []string{"sh"}, Env: testEnv(),
		Stdio: Stdio{Stdin: strings.NewReader("case a in\ra) echo A;;\resac\rcat <<E\rhi\rE\recho $((1/0)); echo never\recho still here\r"), Stdout: &out, TTY: true}}.Run(context.Background())
	assert.Equal(t, 0, code)
	assert.Equal(t, "/ # case a in\r\n> a) echo A;;\r\n> esac\r\nA\r\n/ # cat <<E\r\n> hi\r\n> E\r\nhi\r\n/ # echo $((1/0)); echo never\r\nsh: divide by zero\r\n/ # echo still here\r\nstill here\r\n/ # ", out.String())
}

// sh's options: -e, -u, -x, together or apart, and by their names (-o).
func TestShOptions(t *testing.T) {
	for _, args := range [][]string{{"sh", "-eu", "-c"}, {"sh", "-e", "-u", "-c"}, {"sh", "-o", "errexit", "-o", "nounset", "-c"}, {"sh", "-euc"}} {
		var out, errs strings.Builder
		code := Command{Args: append(args, `echo a; false; echo b`), Env: testEnv(), Stdio: Stdio{Stdout: &out, Stderr: &errs}}.Run(context.Background())
		assert.Equal(t, 1, code, args)
		assert.Equal(t, "a\n", out.String(), args)
	}
	var errs strings.Builder
	code := Command{Args: []string{"sh", "-xc", `x=1; echo $x`}, Env: testEnv(), Stdio: Stdio{Stderr: &errs}}.Run(context.Background())
	assert.Equal(t, 0, code)
	assert.Equal(t, "+ x=1\n+ echo 1\n", errs.String())
}

// A shell typed at the prompt (bash, on nginx) reads the next lines;
// when it exits, the first shell reads on.
func TestShellStartedAtThePrompt(t *testing.T) {
	env := testEnv()
	env.Bash = true
	var out strings.Builder
	code := Command{Args: []string{"sh"}, Env: env,
		Stdio: Stdio{Stdin: strings.NewReader("bash\rcd /etc; echo in bash\rexit 3\recho back $?; sh -c 'read x; echo [$x]'\rexit\r"), Stdout: &out, TTY: true}}.Run(context.Background())
	assert.Equal(t, 0, code)
	assert.Equal(t, "/ # bash\r\nroot@web-0:/# cd /etc; echo in bash\r\nin bash\r\nroot@web-0:/etc# exit 3\r\n/ # echo back $?; sh -c 'read x; echo [$x]'\r\nback 3\r\n[]\r\n/ # exit\r\n", out.String())
}

// sh FILE runs a script of the container's files: a ConfigMap's.
func TestShRunsAFile(t *testing.T) {
	env := testEnv()
	env.Files["/scripts/run.sh"] = []byte("#!/bin/sh\necho \"$0 $1 $#\"\nexit 4\n")
	var out, errs strings.Builder
	code := Command{Args: []string{"sh", "/scripts/run.sh", "a", "b"}, Env: env, Stdio: Stdio{Stdout: &out, Stderr: &errs}}.Run(context.Background())
	assert.Equal(t, 4, code)
	assert.Equal(t, "/scripts/run.sh a 2\n", out.String())
	code = Command{Args: []string{"sh", "/scripts/nope.sh"}, Env: env, Stdio: Stdio{Stdout: &out, Stderr: &errs}}.Run(context.Background())
	assert.Equal(t, ExitNotFound, code)
	assert.Equal(t, "sh: can't open '/scripts/nope.sh': No such file or directory\n", errs.String())
}

// A loop that runs no command still counts as running commands
// (Command.BeforeCommand), so that the kubelet can stop a play that
// would never end.
func TestLoopsWithoutCommandsAreCounted(t *testing.T) {
	for _, script := range []string{`while [[ 1 ]]; do i=$((i+1)); done`, `for ((;;)); do x=1; done`, `while true; do :; done`} {
		ctx, cancel := context.WithCancel(context.Background())
		calls := 0
		code := Command{Args: []string{"bash", "-c", script}, Env: Environment{Bash: true}, Clock: &skipClock{},
			BeforeCommand: func() {
				if calls++; calls == 1000 {
					cancel()
				}
			}}.Run(ctx)
		assert.Equal(t, 137, code, script)
		assert.Equal(t, 1000, calls, script)
	}
}
