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
		// first are the first lines of a program that runs on.
		first     []string
		linesAt60 int
	}{
		{name: "a server image runs", image: "nginx:1.25"},
		{name: "an init container's own binary ends with 0", init: true, image: "reg.kyverno.io/kyverno/kyvernopre:v1.15.2", args: []string{"--v=2"}, exits: true},
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
		{name: "$(VAR) in command and args is the container's variable", image: "busybox", command: []string{"/bin/echo", "$(GREETING) world"},
			args: []string{"$$(GREETING)", "$(MISSING)", "$(HOSTNAME)"}, exits: true, lines: []string{"hello world $(GREETING) $(MISSING) $(HOSTNAME)"}},
		{name: "curl of an image that has it", image: "curlimages/curl", args: []string{"curl", "-sS", "http://web"}, exits: true, code: 6,
			lines: []string{"curl: (6) Could not resolve host: web"}},
		{name: "bash runs as sh", image: "busybox", command: []string{"/bin/bash", "-c", "echo $((6*7))"}, exits: true, lines: []string{"42"}},
		{name: "sleep command", image: "busybox", command: []string{"sleep", "3600"}, exits: true, after: time.Hour},
		{name: "sleep infinity", image: "busybox", command: []string{"sleep", "infinity"}},
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
