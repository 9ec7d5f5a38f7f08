package apiserver

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"time"

	"github.com/kubesim/kubesim/apiserver/authz"
	"github.com/kubesim/kubesim/apiserver/healthz"
	"github.com/kubesim/kubesim/store"
)

// healthKey is the key the etcd check reads: it need not exist, the
// storage need only answer (kube-apiserver's etcd check gets
// <prefix>/health from etcd the same way).
const healthKey = "/registry/health"

// etcdHealthcheckTimeout is how long the etcd check waits for the
// storage, kube-apiserver's --etcd-healthcheck-timeout default. It is a
// wait for I/O, on the real clock whatever the server's clock is.
const etcdHealthcheckTimeout = 2 * time.Second

// bootstrapHook is the post-start hook Bootstrap plays, under
// kube-apiserver's name: the default RBAC roles and bindings are in place.
const bootstrapHook = "poststarthook/rbac/bootstrap-roles"

// installHealthChecks serves /healthz, /livez and /readyz, and each
// check's own path, through handle. All three run ping, etcd (the
// storage answers a read) and, with RBAC, the bootstrap hook (the roles
// are in place, so that a component's first requests are not refused),
// as kube-apiserver's three lists all hold these; kubesim has none of
// readyz's own (informer-sync, shutdown), so the lists are the same.
func (s *Server) installHealthChecks(handle func(path string, h http.Handler)) {
	checks := []healthz.Checker{
		healthz.Ping(),
		healthz.NamedCheck("etcd", func(r *http.Request) error {
			// A store that does not answer fails the check rather than
			// holding the probe (--etcd-healthcheck-timeout).
			ctx, cancel := context.WithTimeout(r.Context(), etcdHealthcheckTimeout)
			defer cancel()
			if _, err := s.cfg.Storage.Get(ctx, healthKey); err != nil && !store.IsNotFound(err) {
				return err
			}
			return nil
		}),
	}
	if slices.Contains(s.modes, authz.ModeRBAC) && !s.cfg.GenericOnly {
		checks = append(checks, healthz.NamedCheck(bootstrapHook, func(*http.Request) error {
			if !s.bootstrapped.Load() {
				return errNotBootstrapped
			}
			return nil
		}))
	}
	for _, path := range []string{"/healthz", "/livez", "/readyz"} {
		healthz.Endpoint{Path: path, Checks: checks, Metrics: s.health, Logger: s.cfg.Logger}.Install(handle)
	}
}

// errNotBootstrapped is the bootstrap hook's failure, as kube-apiserver
// words a hook that has not finished.
var errNotBootstrapped = errors.New("not finished")
