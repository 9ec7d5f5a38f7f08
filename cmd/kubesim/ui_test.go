package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"net/http/cookiejar"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runUntil runs the real command in process until its output matches re,
// and returns the match; the command stops with the test.
func runUntil(t *testing.T, re *regexp.Regexp, args ...string) []string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		code := run(ctx, args, pw, io.Discard)
		pw.Close()
		done <- code
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case code := <-done:
			assert.Equal(t, 0, code, "%s exits cleanly when interrupted", args[0])
		case <-time.After(30 * time.Second):
			t.Errorf("%s did not stop", args[0])
		}
	})
	found := make(chan []string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				found <- m
			}
		}
	}()
	select {
	case m := <-found:
		return m
	case code := <-done:
		t.Fatalf("%s exited with %d before printing %s", args[0], code, re)
	case <-time.After(60 * time.Second):
		t.Fatalf("%s did not print %s", args[0], re)
	}
	return nil
}

// browserClient keeps cookies and does not follow redirects, so the
// login's 303 can be checked.
func browserClient(t *testing.T) *http.Client {
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	return &http.Client{Jar: jar, Timeout: 30 * time.Second,
		Transport:     &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, // the test trusts its own server
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func TestServePrintsTheWebPageLink(t *testing.T) {
	t.Parallel()
	m := runUntil(t, regexp.MustCompile(`^web page: (https://\S+)/ui/ \(log in with the kubeconfig's token, or once within 10 minutes with (\S+)\)$`),
		"serve", "--data-dir", t.TempDir(), "--addr", "127.0.0.1:0", "--nodes", "1", "--unsafe-no-fsync")
	c := browserClient(t)
	resp, err := c.Get(m[1] + "/ui/")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusSeeOther, resp.StatusCode, "no session: to the login page")
	resp, err = c.Get(m[2])
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	resp, err = c.Get(m[1] + "/ui/")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, string(body), "/ui/static/app.js")
}

func TestDemoAndScenarioStepServeThePage(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"demo", "--ui", "--ui-addr", "127.0.0.1:0"},
		{"scenario", "step", "--ui", "--ui-addr", "127.0.0.1:0", "../../examples/scenarios/demo.yaml"},
	} {
		t.Run(args[0], func(t *testing.T) {
			m := runUntil(t, regexp.MustCompile(`^Open (http://\S+/ui/login\?code=\S+) \(works once, within 10 minutes\), or (\S+) and log in with the token (\S+)$`), args...)
			c := browserClient(t)
			resp, err := c.Get(m[1])
			require.NoError(t, err)
			resp.Body.Close()
			require.Equal(t, http.StatusSeeOther, resp.StatusCode)
			req, err := http.NewRequest(http.MethodPost, strings.TrimSuffix(m[2], "/ui/")+"/ui/api/step", nil)
			require.NoError(t, err)
			req.Header.Set("X-Kubesim-UI", "1")
			resp, err = c.Do(req)
			require.NoError(t, err)
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
			assert.Contains(t, string(body), `"scenario":{"name":"kubesim demo: a ReplicaSet and its control loop"`)
			// kubectl's way in: the printed token.
			req, err = http.NewRequest(http.MethodGet, strings.TrimSuffix(m[2], "/ui/")+"/api/v1/namespaces", nil)
			require.NoError(t, err)
			req.Header.Set("Authorization", "Bearer "+m[3])
			resp, err = (&http.Client{Timeout: 30 * time.Second}).Do(req)
			require.NoError(t, err)
			resp.Body.Close()
			assert.Equal(t, http.StatusOK, resp.StatusCode)
		})
	}
}
