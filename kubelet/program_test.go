package kubelet

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestProgramTimeline(t *testing.T) {
	cases := []struct {
		name    string
		init    bool // an init container; sidecar: with restartPolicy Always
		sidecar bool
		image   string
		command []string
		args    []string
		exits   bool
		after   time.Duration
		code    int32
		lines   []string
		// startErr is the runtime's error (a program the image lacks).
		startErr string
		// first are the first lines of a program that runs on.
		first     []string
		linesAt60 int
	}{
		{name: "nginx serves", image: "nginx:1.25", first: []string{
			"/docker-entrypoint.sh: /docker-entrypoint.d/ is not empty, will attempt to perform configuration",
			"/docker-entrypoint.sh: Looking for shell scripts in /docker-entrypoint.d/"}},
		{name: "nginx without daemon off goes to the background", image: "nginx", command: []string{"nginx"}, exits: true},
		{name: "nginx -v", image: "nginx:1.26-alpine", command: []string{"nginx", "-v"}, exits: true, lines: []string{"nginx version: nginx/1.26.3"}},
		{name: "a program the image lacks does not start", image: "busybox", command: []string{"perl", "-e", "print 1"},
			exits: true, code: 128, startErr: `failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: ` +
				`unable to start container process: error during container init: exec: "perl": executable file not found in $PATH: unknown`},
		{name: "a path the image lacks", image: "alpine", command: []string{"/app/server"},
			exits: true, code: 128, startErr: `failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: ` +
				`unable to start container process: error during container init: exec: "/app/server": stat /app/server: no such file or directory: unknown`},
		{name: "a distroless image has no shell", image: "registry.k8s.io/pause:3.10", command: []string{"sh", "-c", "echo hi"},
			exits: true, code: 128, startErr: `failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: ` +
				`unable to start container process: error during container init: exec: "sh": executable file not found in $PATH: unknown`},
		{name: "an unknown init program in a known image does not start", init: true, image: "busybox", command: []string{"migrate"},
			exits: true, code: 128, startErr: `failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: ` +
				`unable to start container process: error during container init: exec: "migrate": executable file not found in $PATH: unknown`},
		{name: "the Job tutorial's pi", image: "perl:5.34.0", command: []string{"perl", "-Mbignum=bpi", "-wle", "print bpi(20)"},
			exits: true, after: 40*time.Millisecond + 300*time.Microsecond, lines: []string{"3.1415926535897932385"}},
		{name: "perl's default debugger ends without a terminal", image: "perl", exits: true, first: []string{"", "Loading DB routines from perl5db.pl version 1.77"}},
		{name: "a perl program kubesim does not run", image: "perl", command: []string{"perl", "-e", "my $x = <STDIN>; print $x"}, exits: true, code: 255,
			lines: []string{"kubesim: this perl program is not simulated (docs/containers.md lists what is): my $x = <STDIN>; print $x"}},
		{name: "an entrypoint execs what it is given", image: "redis:7", args: []string{"sh", "-c", "echo from redis"}, exits: true, lines: []string{"from redis"}},
		{name: "an entrypoint that cannot exec", image: "redis:7", args: []string{"frobnicate"}, exits: true, code: 127,
			lines: []string{"/usr/local/bin/docker-entrypoint.sh: line 24: exec: frobnicate: not found"}},
		{name: "redis-server with options", image: "redis:7", args: []string{"--appendonly", "yes"}, first: []string{
			"1:C 01 Jan 1970 00:00:00.000 # WARNING Memory overcommit must be enabled! Without it, a background save or replication may fail under low memory condition. " +
				"Being disabled, it can also cause failures without low memory condition, see https://github.com/jemalloc/jemalloc/issues/1328. " +
				"To fix this issue add 'vm.overcommit_memory = 1' to /etc/sysctl.conf and then reboot or run the command 'sysctl vm.overcommit_memory=1' for this to take effect.",
			"1:C 01 Jan 1970 00:00:00.000 * oO0OoO0OoO0Oo Redis is starting oO0OoO0OoO0Oo",
			"1:C 01 Jan 1970 00:00:00.000 * Redis version=7.4.2, bits=64, commit=00000000, modified=0, pid=1, just started",
			"1:C 01 Jan 1970 00:00:00.000 * Configuration loaded"}},
		{name: "postgres wants a password", image: "postgres:16", exits: true, code: 1,
			first: []string{"Error: Database is uninitialized and superuser password is not specified."}},
		{name: "mysql wants a password", image: "mysql:8.0", exits: true, code: 1,
			first: []string{"1970-01-01 00:00:00+00:00 [Note] [Entrypoint]: Entrypoint script for MySQL Server 8.0.41-1.el9 started.",
				"1970-01-01 00:00:00+00:00 [ERROR] [Entrypoint]: Database is uninitialized and password option is not specified"}},
		{name: "cert-manager's startupapicheck", image: "quay.io/jetstack/cert-manager-startupapicheck:v1.19.1", args: []string{"check", "api", "--wait=1m"},
			exits: true, after: 2 * time.Second, lines: []string{"The cert-manager API is ready"}},
		{name: "kyverno's init container", init: true, image: "reg.kyverno.io/kyverno/kyvernopre:v1.15.2", args: []string{"--v=2"}, exits: true, after: time.Second,
			first: []string{"1970-01-01T00:00:00Z INFO setup.maxprocs maxprocs/maxprocs.go:47 maxprocs: Leaving GOMAXPROCS=4: CPU quota undefined"}},
		{name: "an init container's image entrypoint ends with 0", init: true, image: "example.com/migrate:1", exits: true},
		{name: "a sidecar's own binary runs", init: true, sidecar: true, image: "envoyproxy/envoy:v1.30"},
		{name: "an init container's script says how it ends", init: true, image: "busybox", args: []string{"sh", "-c", "exit 2"}, exits: true, code: 2},
		{name: "busybox alone: sh exits 0 at once", image: "busybox", exits: true},
		{name: "radial/busyboxplus alone is sh too", image: "radial/busyboxplus:curl", exits: true},
		{name: "kubectl run -- sh -c", image: "busybox:1.36", args: []string{"sh", "-c", "echo hi; exit 1"},
			exits: true, code: 1, lines: []string{"hi"}},
		{name: "sleep then exit", image: "alpine", command: []string{"/bin/sh", "-c"}, args: []string{"echo start && sleep 5; echo 'bye now'; exit 3"},
			exits: true, after: 5 * time.Second, code: 3, lines: []string{"start", "bye now"}},
		{name: "&& skips after a failure", image: "busybox", args: []string{"sh", "-c", "false && echo no; echo yes"},
			exits: true, lines: []string{"yes"}},
		{name: "the script's status is the last command's", image: "busybox", args: []string{"sh", "-c", "echo a; false"},
			exits: true, code: 1, lines: []string{"a"}},
		{name: "unknown command", image: "busybox", args: []string{"sh", "-c", "frobnicate"},
			exits: true, code: 127, lines: []string{"sh: frobnicate: not found"}},
		{name: "an assignment is no command", image: "busybox", args: []string{"sh", "-c", "who=world; echo hello $who"},
			exits: true, lines: []string{"hello world"}},
		{name: "the logging tutorial's counter", image: "busybox", args: []string{"sh", "-c", `i=0; while true; do echo "$i: $(date +%T)"; i=$((i+1)); sleep 1; done`},
			first: []string{"0: 00:00:00", "1: 00:00:01", "2: 00:00:02"}},
		{name: "a counter that ends", image: "busybox", command: []string{"sh", "-c", "i=0; while [ $i -lt 3 ]; do echo $i; i=$((i+1)); sleep 1; done"},
			exits: true, after: 3 * time.Second, lines: []string{"0", "1", "2"}},
		{name: "a pipe", image: "busybox", args: []string{"sh", "-c", "echo hi | wc -c"}, exits: true, lines: []string{"3"}},
		{name: "a here-document, a function, a case, a subshell and a glob", image: "busybox", args: []string{"sh", "-c", `cat <<EOF > /tmp/app.conf
mode=worker
EOF
role() { case "$(cat /tmp/app.conf)" in mode=worker) echo "I work";; *) echo "I wait";; esac; }
role; (cd /tmp && sleep 2 && echo /tmp/*.conf)`}, exits: true, after: 2 * time.Second, lines: []string{"I work", "/tmp/app.conf"}},
		{name: "wget without a network", image: "busybox", args: []string{"wget", "-qO-", "http://web"}, exits: true, code: 1,
			lines: []string{"wget: bad address 'web'"}},
		{name: "a loop that never sleeps runs on", image: "busybox", args: []string{"sh", "-c", "echo begin; while true; do :; done"},
			lines: []string{"begin"}},
		{name: "exit code of a plain command", image: "busybox", command: []string{"false"}, exits: true, code: 1},
		{name: "the downward API tutorial's loop", image: "busybox", command: []string{"sh", "-c"},
			args:  []string{"while true; do echo -en '\\n'; printenv GREETING HOSTNAME; sleep 10; done"},
			first: []string{"", "hello", "p", "", "hello", "p"}},
		{name: "the dependent variables tutorial's printf", image: "busybox", command: []string{"sh", "-c"},
			args: []string{"printf GREETING=$GREETING'\\n'; printf HOST=$HOSTNAME'\\n'"}, exits: true, lines: []string{"GREETING=hello", "HOST=p"}},
		{name: "bash runs as sh", image: "ubuntu", command: []string{"/bin/bash", "-c", "echo $((6*7))"}, exits: true, lines: []string{"42"}},
		{name: "bash expands braces", image: "ubuntu", command: []string{"bash", "-c", "for n in {1..2}; do echo n=$n; done; nope"}, exits: true, code: 127,
			lines: []string{"n=1", "n=2", "bash: nope: command not found"}},
		{name: "busybox has no bash", image: "busybox", command: []string{"/bin/bash", "-c", "echo $((6*7))"}, exits: true, code: 128,
			startErr: `failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: ` +
				`unable to start container process: error during container init: exec: "/bin/bash": stat /bin/bash: no such file or directory: unknown`},
		{name: "an image kubesim does not know runs the shell's programs", image: "example.com/app:1", command: []string{"sh", "-c", "echo hi"}, exits: true, lines: []string{"hi"}},
		{name: "$(VAR) in command and args is the container's variable", image: "busybox", command: []string{"/bin/echo", "$(GREETING) world"},
			args: []string{"$$(GREETING)", "$(MISSING)", "$(HOSTNAME)"}, exits: true, lines: []string{"hello world $(GREETING) $(MISSING) $(HOSTNAME)"}},
		{name: "curl of an image that has it", image: "curlimages/curl", args: []string{"curl", "-sS", "http://web"}, exits: true, code: 6,
			lines: []string{"curl: (6) Could not resolve host: web"}},
		{name: "sleep command", image: "busybox", command: []string{"sleep", "3600"}, exits: true, after: time.Hour},
		{name: "sleep infinity", image: "busybox", command: []string{"sleep", "infinity"}},
		// Variable Expansion's "should succeed in writing subpaths in
		// container" (test/e2e/common/node/expansion.go) waits for its
		// `sh -c "tail -f /dev/null"` pod to be Running.
		// The hostAliases spec (test/e2e/common/node/kubelet.go) reads
		// the hosts file agnhost etc-hosts prints.
		{name: "agnhost etc-hosts", image: "registry.k8s.io/e2e-test-images/agnhost:2.53", args: []string{"etc-hosts"}, exits: true,
			first: []string{"# Kubernetes-managed hosts file.", "127.0.0.1\tlocalhost"}},
		// The Containers specs (test/e2e/common/node/containers.go):
		// "[/agnhost-2 entrypoint-tester override arguments]", and the
		// image's defaults, /agnhost pause: "Paused".
		{name: "agnhost entrypoint-tester", image: "registry.k8s.io/e2e-test-images/agnhost:2.53", command: []string{"/agnhost-2"},
			args: []string{"entrypoint-tester", "override", "arguments"}, exits: true, lines: []string{"[/agnhost-2 entrypoint-tester override arguments]"}},
		{name: "agnhost's defaults", image: "registry.k8s.io/e2e-test-images/agnhost:2.53", first: []string{"Paused"}},
		{name: "tail -f runs on", image: "registry.k8s.io/e2e-test-images/busybox:1.36.1-1", command: []string{"sh", "-c", "tail -f /dev/null"}},
		{name: "echo command with env", image: "busybox", command: []string{"sh", "-c", "echo $GREETING from ${HOSTNAME}"},
			exits: true, lines: []string{"hello from p"}},
		{name: "while loop", image: "busybox", args: []string{"sh", "-c", "echo start; while true; do echo tick; sleep 10; done"},
			first: []string{"start", "tick", "tick"}, linesAt60: 8},
		{name: "for loop", image: "busybox", args: []string{"sh", "-c", "for i in 1 2 3; do echo line $i; sleep 1; done"},
			exits: true, after: 3 * time.Second, lines: []string{"line 1", "line 2", "line 3"}},
		{name: "for over seq", image: "busybox", args: []string{"sh", "-c", "for i in $(seq 2 3); do echo $i; done; echo end"},
			exits: true, lines: []string{"2", "3", "end"}},
		{name: "busybox has no brace ranges", image: "busybox", args: []string{"sh", "-c", "for n in {1..2}; do echo n=$n; done"},
			exits: true, lines: []string{"n={1..2}"}},
		{name: "kubesim/sleep", image: "kubesim/sleep", args: []string{"30s"}, exits: true, after: 30 * time.Second},
		{name: "kubesim/sleep forever", image: "kubesim/sleep"},
		{name: "kubesim/fail", image: "kubesim/fail:latest", args: []string{"5s", "42"}, exits: true, after: 5 * time.Second, code: 42,
			lines: []string{"failing in 5s with exit code 42", "failed"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}}
			ct := &corev1.Container{Name: "c", Image: c.image, Command: c.command, Args: c.args,
				Env: []corev1.EnvVar{{Name: "GREETING", Value: "hello"}}}
			if c.init {
				if c.sidecar {
					always := corev1.ContainerRestartPolicyAlways
					ct.RestartPolicy = &always
				}
				pod.Spec.InitContainers = []corev1.Container{*ct}
				ct = &pod.Spec.InitContainers[0]
			}
			tl := programFor(pod, ct).run(pod, ct)
			assert.Equal(t, c.startErr, tl.startErr, "start error")
			assert.Equal(t, c.exits, tl.exits, "exits")
			assert.Equal(t, c.after, tl.exitAfter, "after")
			assert.Equal(t, c.code, tl.exitCode, "code")
			var texts []string
			for _, l := range tl.lines {
				texts = append(texts, l.text)
			}
			if c.first != nil {
				require.GreaterOrEqual(t, len(texts), len(c.first))
				assert.Equal(t, c.first, texts[:len(c.first)])
			} else {
				assert.Equal(t, c.lines, texts)
			}
			if c.linesAt60 > 0 {
				assert.Len(t, tl.linesUpTo(60*time.Second, 1000), c.linesAt60)
				assert.Len(t, tl.linesUpTo(time.Hour, 5), 5, "bounded")
			}
		})
	}
}

func TestProgramFiles(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}}
	ct := &corev1.Container{Image: "busybox", Args: []string{"/bin/sh", "-c",
		"touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600"}}
	tl := programFor(pod, ct).run(pod, ct)
	assert.True(t, tl.fileExists("/tmp/healthy", 0))
	assert.True(t, tl.fileExists("/tmp/healthy", 29*time.Second))
	assert.False(t, tl.fileExists("/tmp/healthy", 30*time.Second))
	assert.True(t, tl.exits)
	assert.Equal(t, 630*time.Second, tl.exitAfter)
}

// A container's timeline is kept as long as its pod runs, in every pod of a
// Deployment: its lines in a slice of their exact length (five lines, not
// room for eight), no map of files for a program that touched none, and
// the files of one that did.
func TestTimelineKeptCompact(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}}
	ct := &corev1.Container{Name: "c", Image: "busybox", Command: []string{"sh", "-c", "for i in 1 2 3 4 5; do echo $i; done"}}
	tl := programFor(pod, ct).run(pod, ct)
	require.Len(t, tl.lines, 5)
	assert.Equal(t, len(tl.lines), cap(tl.lines), "no room to spare")
	assert.Nil(t, tl.files, "no file touched, no map")

	ct.Command = []string{"sh", "-c", "touch /tmp/ready; sleep 5; rm /tmp/ready"}
	tl = programFor(pod, ct).run(pod, ct)
	assert.Equal(t, []span{{from: 0, to: 5 * time.Second}}, tl.files["/tmp/ready"])
}

// A pod gone from the node takes the timelines of all its containers with
// it, and only its own (ns/a is not ns/ab).
func TestForgetTimelinesOfOnePod(t *testing.T) {
	k := &Kubelet{sims: map[simKey]*simEntry{
		{pod: "ns/a", container: "app"}: {}, {pod: "ns/a", container: "sidecar"}: {},
		{pod: "ns/ab", container: "app"}: {}, {pod: "other/a", container: "app"}: {},
	}}
	k.forgetTimelines("ns/a")
	assert.Equal(t, map[simKey]*simEntry{{pod: "ns/ab", container: "app"}: {}, {pod: "other/a", container: "app"}: {}}, k.sims)
}
