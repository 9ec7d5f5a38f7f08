package shell

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// curl over the container's network, with curl's words and exit codes;
// only an image that has it runs it.
func TestCurl(t *testing.T) {
	for _, tc := range []struct {
		name, script, out, errs string
		code                    int
		waited                  time.Duration
	}{
		{name: "get", script: "curl http://web/", out: "hello\n"},
		{name: "no scheme, -s", script: "curl -s web", out: "hello\n"},
		{name: "404 prints the body", script: "curl -s web/x; echo $?", out: "0\n"},
		{name: "-f on an error status", script: "curl -f web/x", errs: "curl: (22) The requested URL returned error: 404\n", code: 22},
		{name: "-sf is quiet", script: "curl -sf web/x", code: 22},
		{name: "-sSf says why", script: "curl -sSf web/x", errs: "curl: (22) The requested URL returned error: 404\n", code: 22},
		{name: "-I", script: "curl -I web", out: "HTTP/1.1 200 OK\r\n\r\n"},
		{name: "Host header", script: "curl -H 'Host: shop.example.com' web/host", out: "shop.example.com\n"},
		{name: "-o FILE", script: "curl -s -o /tmp/page web && cat /tmp/page", out: "hello\n"},
		{name: "unknown host", script: "curl nope", errs: "curl: (6) Could not resolve host: nope\n", code: 6},
		{name: "refused", script: "curl http://web:8080/", errs: "curl: (7) Failed to connect to web port 8080 after 0 ms: Couldn't connect to server\n", code: 7},
		{name: "dropped, -m", script: "curl -m 2 guarded", errs: "curl: (28) Connection timed out after 2000 milliseconds\n", code: 28, waited: 2 * time.Second},
		{name: "dropped", script: "curl guarded", errs: "curl: (28) Failed to connect to guarded port 80 after 127000 ms: Connection timed out\n", code: 28, waited: 127 * time.Second},
		{name: "no URL", script: "curl -s", errs: "curl: no URL specified\ncurl: try 'curl --help' or 'curl --manual' for more information\n", code: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := testEnv()
			env.Network, env.Layer, env.Curl = fakeNetwork{}, NewLayer(), true
			clk := &skipClock{start: time.Unix(0, 0)}
			var out, errb strings.Builder
			code := Command{Args: []string{"sh", "-c", tc.script}, Env: env, Stdio: Stdio{Stdout: &out, Stderr: &errb}, Clock: clk}.Run(context.Background())
			assert.Equal(t, tc.code, code)
			assert.Equal(t, tc.out, out.String())
			assert.Equal(t, tc.errs, errb.String())
			assert.Equal(t, tc.waited, clk.elapsed)
		})
	}
	env := testEnv()
	env.Network = fakeNetwork{}
	var errb strings.Builder
	code := Command{Args: []string{"sh", "-c", "curl web"}, Env: env, Stdio: Stdio{Stderr: &errb}, Clock: &skipClock{}}.Run(context.Background())
	assert.Equal(t, 127, code)
	assert.Equal(t, "sh: curl: not found\n", errb.String(), "busybox has no curl")
}
