package shell

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/kubesim/kubesim/clock"
)

// fakeNetwork resolves web to 10.96.0.5, which serves "hello" on port 80
// (and its Host header on /host); a NetworkPolicy drops connections to
// 10.96.0.6 (guarded) and every DNS query for "blocked"; 10.96.0.7 is a
// proxy whose backend does not answer (504 after a minute).
type fakeNetwork struct{}

func (fakeNetwork) Nameserver() string { return "10.96.0.10" }

func (fakeNetwork) LookupHost(_ context.Context, name string) (string, []string, error) {
	switch name {
	case "web":
		return "web.default.svc.cluster.local", []string{"10.96.0.5"}, nil
	case "guarded":
		return "guarded.default.svc.cluster.local", []string{"10.96.0.6"}, nil
	case "blocked":
		return "", nil, ErrTimedOut
	}
	return "", nil, ErrNoSuchHost
}

// Ping: pods answer, Services do not.
func (fakeNetwork) Ping(_ context.Context, ip string) error {
	if strings.HasPrefix(ip, "10.244.") || ip == "127.0.0.1" {
		return nil
	}
	return ErrTimedOut
}

func (fakeNetwork) HTTPGet(_ context.Context, req HTTPRequest) (HTTPResponse, error) {
	switch {
	case req.Scheme == "https" && req.IP == "10.96.0.1" && req.Port == "443":
		return HTTPResponse{Code: 200, Body: []byte("secure\n")}, nil
	case req.IP == "10.96.0.6":
		return HTTPResponse{}, ErrTimedOut
	case req.IP == "127.0.0.1" && req.Port == "8080":
		// The container itself (the kubelet's network sends a loopback
		// address to the pod's own IP).
		return HTTPResponse{Code: 200, Body: []byte("self\n")}, nil
	case req.IP == "10.96.0.7":
		return HTTPResponse{Code: 504, Reason: "Gateway Time-out", After: time.Minute}, nil
	case req.IP != "10.96.0.5" || req.Port != "80" || req.Scheme != "http":
		return HTTPResponse{}, ErrConnectionRefused
	case req.Path == "/host":
		return HTTPResponse{Code: 200, Body: []byte(req.Host + "\n")}, nil
	case req.Path != "/":
		return HTTPResponse{Code: 404}, nil
	}
	return HTTPResponse{Code: 200, Body: []byte("hello\n")}, nil
}

// skipClock fires every timer at once and adds its wait to elapsed, as a
// simulated container's clock does: the test sees how long the shell
// waited without waiting.
type skipClock struct {
	start   time.Time
	elapsed time.Duration
}

func (c *skipClock) Now() time.Time { return c.start.Add(c.elapsed) }

func (c *skipClock) After(d time.Duration) <-chan time.Time {
	c.elapsed += d
	ch := make(chan time.Time, 1)
	ch <- c.Now()
	return ch
}

func (c *skipClock) NewTimer(d time.Duration) clock.Timer { return skipTimer{c.After(d)} }

type skipTimer struct{ c <-chan time.Time }

func (t skipTimer) C() <-chan time.Time { return t.c }
func (t skipTimer) Stop() bool          { return false }

// A client that goes away while wget waits for a dropped connection
// kills it (exit 137), on any clock.
func TestWgetKilledWhileWaiting(t *testing.T) {
	env := testEnv()
	env.Network = fakeNetwork{}
	env.Layer = NewLayer()
	fake := clock.NewFake(time.Unix(0, 0))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- Command{Args: []string{"wget", "-qO-", "guarded"}, Env: env, Clock: fake}.Run(ctx)
	}()
	// Wait until wget waits on the clock, then leave.
	for {
		if _, ok := fake.NextDeadline(); ok {
			break
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	assert.Equal(t, 137, <-done)
}

// busybox's nslookup and wget over the container's network.
func TestNslookupAndWget(t *testing.T) {
	env := testEnv()
	env.Network = fakeNetwork{}
	env.Layer = NewLayer()
	env.Files["/etc/hosts"] = []byte("# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost\n")
	for _, tc := range []struct {
		name, script string
		out, errs    string
		code         int
		waited       time.Duration
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
		// The NetworkPolicy tutorial's check: allowed, then dropped.
		{name: "wget --spider", script: "wget --spider --timeout=1 web", errs: "Connecting to web (10.96.0.5:80)\nremote file exists\n"},
		{name: "wget --spider quiet", script: "wget -q --spider web"},
		{name: "dropped: --timeout", script: "wget --spider --timeout=1 guarded", errs: "Connecting to guarded (10.96.0.6:80)\nwget: download timed out\n", code: 1, waited: time.Second},
		{name: "dropped: -T", script: "wget -qO- -T 2 guarded", errs: "wget: download timed out\n", code: 1, waited: 2 * time.Second},
		{name: "dropped: -T5", script: "wget -qO- -T5 guarded", errs: "wget: download timed out\n", code: 1, waited: 5 * time.Second},
		{name: "dropped: the kernel gives up first", script: "wget -qO- guarded", errs: "wget: can't connect to remote host (10.96.0.6): Connection timed out\n", code: 1, waited: 127 * time.Second},
		{name: "bad -T", script: "wget -T x web", code: 1,
			errs: "BusyBox v1.36.1 (2023-05-18 22:34:17 UTC) multi-call binary.\n\nUsage: wget [-cqS] [--spider] [-O FILE] [-o LOGFILE] [--header STR]\n\t[--post-data STR | --post-file FILE] [-Y on/off]\n\t[-P DIR] [-U AGENT] [-T SEC] URL...\n"},
		{name: "DNS dropped: nslookup", script: "nslookup blocked", out: ";; connection timed out; no servers could be reached\n", code: 1, waited: 5 * time.Second},
		{name: "DNS dropped: wget", script: "wget -qO- -T 1 blocked", errs: "wget: bad address 'blocked'\n", code: 1, waited: 10 * time.Second},
		{name: "a slow proxy answers 504", script: "wget -qO- 10.96.0.7", errs: "wget: server returned error: HTTP/1.1 504 Gateway Time-out\n", code: 1, waited: time.Minute},
		{name: "a slow proxy: wget gives up first", script: "wget -qO- -T 10 10.96.0.7", errs: "wget: download timed out\n", code: 1, waited: 10 * time.Second},
		{name: "wget localhost: /etc/hosts", script: "wget -qO- localhost:8080", out: "self\n"},
		{name: "Host header: the URL's", script: "wget -qO- web:80/host", out: "web:80\n"},
		{name: "Host header: --header", script: "wget -qO- --header 'Host: shop.example.com' 10.96.0.5/host", out: "shop.example.com\n"},
		{name: "Host header: --header=", script: "wget -qO- --header='host:  a.example.com' web/host", out: "a.example.com\n"},
		{name: "wget https on 443", script: "wget -O - https://10.96.0.1", out: "secure\n",
			errs: "Connecting to 10.96.0.1 (10.96.0.1:443)\nwriting to stdout\nwritten to stdout\n"},
		{name: "wget https elsewhere", script: "wget -qO- https://web", errs: "wget: can't connect to remote host (10.96.0.5): Connection refused\n", code: 1},
		{name: "wget ftp", script: "wget -qO- ftp://web", errs: "wget: not an http or ftp url: ftp://web\n", code: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb strings.Builder
			clk := &skipClock{start: time.Unix(0, 0)}
			code := Command{Args: []string{"sh", "-c", tc.script}, Env: env, Stdio: Stdio{Stdout: &out, Stderr: &errb},
				Clock: clk}.Run(context.Background())
			assert.Equal(t, tc.out, out.String(), "stdout")
			assert.Equal(t, tc.errs, errb.String(), "stderr")
			assert.Equal(t, tc.code, code, "exit code")
			assert.Equal(t, tc.waited, clk.elapsed, "time waited")
		})
	}
}
