package shell

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// curl over the container's network, in the words of curl 8.
func TestCurl(t *testing.T) {
	env := testEnv()
	env.Network = fakeNetwork{}
	env.Layer = NewLayer()
	env.Curl = true
	env.Files["/etc/hosts"] = []byte("# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n10.244.1.2\tweb-0.nginx.default.svc.cluster.local\tweb-0\n")
	meter := "  % Total    % Received % Xferd  Average Speed   Time    Time     Time  Current\n" +
		"                                 Dload  Upload   Total   Spent    Left  Speed\n"
	for _, tc := range []struct {
		name, script string
		tty          bool
		out, errs    string
		code         int
		waited       time.Duration
	}{
		{name: "a terminal: the body alone", script: "curl http://web", tty: true, out: "hello\n"},
		{name: "no terminal: the progress meter on stderr", script: "curl web", out: "hello\n",
			errs: meter + "\r100     6  100     6    0     0   6000      0 --:--:-- --:--:-- --:--:--  6000\n"},
		{name: "-s", script: "curl -s web", out: "hello\n"},
		{name: "localhost is the container", script: "curl -s http://localhost:8080/", out: "self\n"},
		{name: "404 without --fail: the body, status 0", script: "curl -s web/nope"},
		{name: "404 with --fail", script: "curl -sSf web/nope", errs: "curl: (22) The requested URL returned error: 404\n", code: 22},
		{name: "-f alone is quiet", script: "curl -sf web/nope", code: 22},
		{name: "unknown host", script: "curl -sS db", errs: "curl: (6) Could not resolve host: db\n", code: 6},
		{name: "refused", script: "curl -s -S web:8080", errs: "curl: (7) Failed to connect to web port 8080 after 0 ms: Couldn't connect to server\n", code: 7},
		{name: "dropped, with --max-time", script: "curl -sS -m 2 guarded", errs: "curl: (28) Connection timed out after 2000 milliseconds\n", code: 28, waited: 2 * time.Second},
		{name: "dropped: the kernel gives up", script: "curl -sS guarded",
			errs: "curl: (28) Failed to connect to guarded port 80 after 127000 ms: Couldn't connect to server\n", code: 28, waited: 127 * time.Second},
		{name: "dropped, with --connect-timeout", script: "curl -sS --connect-timeout 3 guarded",
			errs: "curl: (28) Failed to connect to guarded port 80 after 3000 ms: Couldn't connect to server\n", code: 28, waited: 3 * time.Second},
		{name: "-o a file", script: "cd /tmp && curl -so page.html web && cat page.html", out: "hello\n"},
		{name: "-O", script: "cd /tmp && curl -sO web/ && echo no", errs: "", code: 23},
		{name: "-w the status code", script: `curl -s -o /dev/null -w "%{http_code}\n" web/nope`, out: "404\n"},
		{name: "-I", script: "curl -sI web", out: "HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\n"},
		{name: "Host header", script: "curl -s -H 'Host: shop.example.com' 10.96.0.5/host", out: "shop.example.com\n"},
		{name: "no URL", script: "curl -s", errs: "curl: no URL specified\ncurl: try 'curl --help' or 'curl --manual' for more information\n", code: 2},
		{name: "unknown option", script: "curl --frobnicate web",
			errs: "curl: option --frobnicate: is unknown\ncurl: try 'curl --help' or 'curl --manual' for more information\n", code: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb strings.Builder
			clk := &skipClock{start: time.Unix(0, 0)}
			code := Command{Args: []string{"sh", "-c", tc.script}, Env: env, Stdio: Stdio{Stdout: &out, Stderr: &errb, TTY: tc.tty},
				Clock: clk}.Run(context.Background())
			if tc.tty {
				// A terminal writes "\n" as "\r\n".
				assert.Equal(t, tc.out, strings.ReplaceAll(out.String(), "\r\n", "\n"), "stdout")
			} else {
				assert.Equal(t, tc.out, out.String(), "stdout")
			}
			assert.Equal(t, tc.errs, errb.String(), "stderr")
			assert.Equal(t, tc.code, code, "exit code")
			assert.Equal(t, tc.waited, clk.elapsed, "time waited")
		})
	}
	assert.Equal(t, " 600k", max5(615000))
	assert.Equal(t, "1562k", max5(1600000))
	assert.Equal(t, "19.0M", max5(20000000))

	// An image without curl.
	env.Curl = false
	var errb strings.Builder
	code := Command{Args: []string{"sh", "-c", "curl web"}, Env: env, Stdio: Stdio{Stderr: &errb}, Clock: &skipClock{}}.Run(context.Background())
	assert.Equal(t, 127, code)
	assert.Equal(t, "sh: curl: not found\n", errb.String())
}
