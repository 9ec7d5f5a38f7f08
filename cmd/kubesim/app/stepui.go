package app

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/scenario"
	"github.com/kubesim/kubesim/ui"
)

// StepUI is the web page over a step-mode scenario (`kubesim demo --ui`,
// `kubesim scenario step FILE --ui`): the page drives the stepper.
type StepUI struct {
	// URL is the page's address; LoginURL the one-time login link; Token
	// the token the login form (and kubectl) takes.
	URL, LoginURL, Token string

	hs   *http.Server
	errc chan error
}

// StartStepUI serves the page for runner on addr (plain HTTP: step mode
// has no certificates; keep it on the loopback interface). Step mode's
// cluster has no authentication of its own, so the page's session, or the
// printed token, is the gate to its API too.
func StartStepUI(runner *scenario.Runner, addr string, logger *slog.Logger) (*StepUI, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	b := make([]byte, 24)
	if _, err := io.ReadFull(rand.Reader, b); err != nil {
		return nil, err
	}
	token := base64.RawURLEncoding.EncodeToString(b)
	page, err := ui.New(ui.Config{API: runner.Cluster().Server().Handler(), Runner: runner, Token: token,
		Clock: clock.Real{}, Rand: rand.Reader, Logger: logger})
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--ui-addr %q: %w", addr, err)
	}
	u := &StepUI{URL: "http://" + ln.Addr().String() + ui.Prefix, Token: token, errc: make(chan error, 1),
		hs: &http.Server{Handler: page, ReadHeaderTimeout: 10 * time.Second}}
	u.LoginURL = "http://" + ln.Addr().String() + page.LoginPath()
	go func() { u.errc <- u.hs.Serve(ln) }()
	return u, nil
}

// Wait serves until ctx ends, then stops.
func (u *StepUI) Wait(ctx context.Context) error {
	select {
	case err := <-u.errc:
		return err
	case <-ctx.Done():
	}
	return u.Close()
}

// Close stops serving (watches end).
func (u *StepUI) Close() error {
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := u.hs.Shutdown(sctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = u.hs.Close()
	}
	return err
}
