package shell

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// busybox's ping: a pod answers, a Service's address does not, a name
// that does not resolve is a bad address.
func TestPing(t *testing.T) {
	env := testEnv()
	env.Network = fakeNetwork{}
	env.Files["/etc/hosts"] = []byte("127.0.0.1\tlocalhost\n10.244.1.2\tweb-0.nginx.default.svc.cluster.local\tweb-0\n")
	for _, tc := range []struct {
		name, script string
		out, errs    string
		code         int
		waited       time.Duration
	}{
		{name: "a pod answers", script: "ping -c 2 web-0",
			out: "PING web-0 (10.244.1.2): 56 data bytes\n64 bytes from 10.244.1.2: seq=0 ttl=64 time=0.100 ms\n64 bytes from 10.244.1.2: seq=1 ttl=64 time=0.100 ms\n\n" +
				"--- web-0 ping statistics ---\n2 packets transmitted, 2 packets received, 0% packet loss\nround-trip min/avg/max = 0.100/0.100/0.100 ms\n",
			waited: time.Second},
		{name: "-q", script: "ping -q -c1 localhost",
			out: "PING localhost (127.0.0.1): 56 data bytes\n\n--- localhost ping statistics ---\n1 packets transmitted, 1 packets received, 0% packet loss\nround-trip min/avg/max = 0.100/0.100/0.100 ms\n"},
		{name: "a Service's address does not answer", script: "ping -c 1 web",
			out: "PING web (10.96.0.5): 56 data bytes\n\n--- web ping statistics ---\n1 packets transmitted, 0 packets received, 100% packet loss\n", code: 1, waited: 10 * time.Second},
		{name: "-w ends it", script: "ping -w 3 web > /dev/null 2>&1; echo $?", out: "1\n", waited: 3 * time.Second},
		{name: "the task's loop, silenced", script: "ping -c 1 web-0 > /dev/null 2>&1 && echo ok", out: "ok\n"},
		{name: "bad address", script: "ping -c 1 db", errs: "ping: bad address 'db'\n", code: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb strings.Builder
			clk := &skipClock{start: time.Unix(0, 0)}
			code := Command{Args: []string{"sh", "-c", tc.script}, Env: env, Stdio: Stdio{Stdout: &out, Stderr: &errb}, Clock: clk}.Run(context.Background())
			assert.Equal(t, tc.out, out.String(), "stdout")
			assert.Equal(t, tc.errs, errb.String(), "stderr")
			assert.Equal(t, tc.code, code, "exit code")
			assert.Equal(t, tc.waited, clk.elapsed, "time waited")
		})
	}
}
