package client

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/handoff"
	"github.com/kubesim/kubesim/api/jsoncodec"
	"github.com/kubesim/kubesim/pki"
)

// Config says how to reach the API server.
type Config struct {
	// Server is the base URL, such as https://127.0.0.1:6443.
	Server string
	// Token is sent as a bearer token.
	Token string
	// TLS configures HTTPS (trusted CA); nil uses the system roots.
	TLS *tls.Config
	// Transport, when set, replaces the HTTP transport (in-process).
	Transport http.RoundTripper
	// UserAgent names the component in the server's logs.
	UserAgent string
}

// Client talks to one API server.
type Client struct {
	base  *url.URL
	http  *http.Client
	token string
	ua    string
}

// New returns a client for cfg.
func New(cfg Config) (*Client, error) {
	u, err := url.Parse(cfg.Server)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("client: invalid server URL %q", cfg.Server)
	}
	tr := cfg.Transport
	if tr == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.TLSClientConfig = cfg.TLS
		t.MaxIdleConnsPerHost = 64
		tr = t
	}
	ua := cfg.UserAgent
	if ua == "" {
		ua = "kubesim-client"
	}
	return &Client{base: u, http: &http.Client{Transport: tr}, token: cfg.Token, ua: ua}, nil
}

// NewInProcess returns a client that calls h directly, without a socket.
func NewInProcess(h http.Handler, userAgent string) *Client {
	c, _ := New(Config{Server: "http://in-process", Transport: &InProcessTransport{Handler: h}, UserAgent: userAgent})
	return c
}

// FromKubeconfig returns a client for the current context of a kubeconfig.
func FromKubeconfig(path, userAgent string) (*Client, error) {
	kc, err := pki.LoadKubeconfig(path)
	if err != nil {
		return nil, err
	}
	tlsCfg, err := kc.TLSConfig()
	if err != nil {
		return nil, err
	}
	return New(Config{Server: kc.Server, Token: kc.Token, TLS: tlsCfg, UserAgent: userAgent})
}

// WithUserAgent returns a copy of c that names itself ua (each control loop
// names itself, so the trace and the logs say who wrote what).
func (c *Client) WithUserAgent(ua string) *Client {
	cp := *c
	cp.ua = ua
	return &cp
}

// request is one HTTP call.
type request struct {
	method      string
	path        string
	query       url.Values
	contentType string
	body        []byte
}

// send performs r and returns the response; a non-2xx answer becomes the
// API error its Status describes.
func (c *Client) send(ctx context.Context, r request) (*http.Response, error) {
	u := *c.base
	u.Path = strings.TrimSuffix(u.Path, "/") + r.path
	u.RawQuery = r.query.Encode()
	var body io.Reader
	if r.body != nil {
		body = bytes.NewReader(r.body)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, u.String(), body)
	if err != nil {
		return nil, err
	}
	if r.contentType != "" {
		req.Header.Set("Content-Type", r.contentType)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.ua)
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer resp.Body.Close()
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		return nil, errorFromResponse(resp.StatusCode, data)
	}
	return resp, nil
}

// errorFromResponse decodes a Status body, or makes one from the code.
func errorFromResponse(code int, data []byte) error {
	var st metav1.Status
	if json.Unmarshal(data, &st) == nil && st.Kind == "Status" {
		if err := api.FromObject(&st); err != nil {
			return err
		}
	}
	return &api.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: int32(code), Reason: metav1.StatusReasonUnknown,
		Message: fmt.Sprintf("the server responded with the status code %d but did not return more information: %s", code, bytes.TrimSpace(data)),
	}}
}

// do performs r and decodes a JSON answer into out (if not nil).
func (c *Client) do(ctx context.Context, r request, out any) error {
	resp, err := c.send(ctx, r)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if out == nil {
		return nil
	}
	if a := handoff.AnswerFromContext(ctx); a != nil && a.Object() != nil {
		return nil // handed over decoded: the body is empty
	}
	if err := jsoncodec.Unmarshal(data, out); err != nil {
		return fmt.Errorf("decoding the answer to %s %s: %w", r.method, r.path, err)
	}
	return nil
}

// RawGet fetches a path (discovery, /version...) and returns the body.
func (c *Client) RawGet(ctx context.Context, path string) ([]byte, error) {
	resp, err := c.send(ctx, request{method: http.MethodGet, path: path})
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}

// ErrWatchClosed is what Watch.Err reports after the server ended a watch
// normally (timeout): the caller watches again from its last version.
var ErrWatchClosed = errors.New("watch closed by the server")
