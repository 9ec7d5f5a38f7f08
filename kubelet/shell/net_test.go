package shell

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/kubesim/kubesim/clock"
)

// fakeNetwork resolves web to 10.96.0.5, which serves "hello" on port 80.
type fakeNetwork struct{}

func (fakeNetwork) Nameserver() string { return "10.96.0.10" }

func (fakeNetwork) LookupHost(_ context.Context, name string) (string, []string, error) {
	if name == "web" {
		return "web.default.svc.cluster.local", []string{"10.96.0.5"}, nil
	}
	return "", nil, ErrNoSuchHost
}

func (fakeNetwork) HTTPGet(_ context.Context, scheme, ip, port, path string) (int, []byte, error) {
	switch {
	case scheme == "https" && ip == "10.96.0.1" && port == "443":
		return 200, []byte("secure\n"), nil
	case ip != "10.96.0.5" || port != "80" || scheme != "http":
		return 0, nil, ErrConnectionRefused
	case path != "/":
		return 404, nil, nil
	}
	return 200, []byte("hello\n"), nil
}

// busybox's nslookup and wget over the container's network.
func TestNslookupAndWget(t *testing.T) {
	env := testEnv()
	env.Network = fakeNetwork{}
	env.Layer = NewLayer()
	for _, tc := range []struct {
		name, script string
		out, errs    string
		code         int
	}{
		{name: "nslookup", script: "nslookup web", out: "Server:\t\t10.96.0.10\nAddress:\t10.96.0.10:53\n\nName:\tweb.default.svc.cluster.local\nAddress: 10.96.0.5\n\n"},
		{name: "nslookup missing", script: "nslookup db", out: "Server:\t\t10.96.0.10\nAddress:\t10.96.0.10:53\n\n** server can't find db: NXDOMAIN\n\n", code: 1},
		{name: "wget -qO-", script: "wget -qO- http://web", out: "hello\n"},
		{name: "wget -O - with progress", script: "wget -O - web:80/", out: "hello\n",
			errs: "Connecting to web:80 (10.96.0.5:80)\nwriting to stdout\nwritten to stdout\n"},
		{name: "wget to a file", script: "cd /tmp && wget -q web && cat index.html", out: "hello\n"},
		{name: "wget 404", script: "wget -qO- web/nope", errs: "wget: server returned error: HTTP/1.1 404 Not Found\n", code: 1},
		{name: "wget refused", script: "wget -qO- web:8080", errs: "wget: can't connect to remote host (10.96.0.5): Connection refused\n", code: 1},
		{name: "wget bad address", script: "wget -qO- db", errs: "wget: bad address 'db'\n", code: 1},
		{name: "wget https on 443", script: "wget -O - https://10.96.0.1", out: "secure\n",
			errs: "Connecting to 10.96.0.1 (10.96.0.1:443)\nwriting to stdout\nwritten to stdout\n"},
		{name: "wget https elsewhere", script: "wget -qO- https://web", errs: "wget: can't connect to remote host (10.96.0.5): Connection refused\n", code: 1},
		{name: "wget ftp", script: "wget -qO- ftp://web", errs: "wget: not an http or ftp url: ftp://web\n", code: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb strings.Builder
			code := Command{Args: []string{"sh", "-c", tc.script}, Env: env, Stdio: Stdio{Stdout: &out, Stderr: &errb},
				Clock: clock.NewFake(time.Unix(0, 0))}.Run(context.Background())
			assert.Equal(t, tc.out, out.String(), "stdout")
			assert.Equal(t, tc.errs, errb.String(), "stderr")
			assert.Equal(t, tc.code, code, "exit code")
		})
	}
}
