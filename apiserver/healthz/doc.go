// Package healthz is the API server's health checks: /healthz, /livez and
// /readyz each run a list of named checks (ping, etcd, ...) and answer
// "ok", or with ?verbose one line per check ("[+]ping ok") and "livez
// check passed"; a check that fails makes the answer a 500 that lists
// every check, the failed one as "[-]etcd failed: reason withheld" (the
// paths are public: the reason goes to the log, and to whoever may read
// the check's own path, /livez/etcd). ?exclude=NAME skips a check. Each
// result is counted for /metrics/slis as kubernetes_healthcheck and
// kubernetes_healthchecks_total.
//
// It simulates k8s.io/apiserver/pkg/server/healthz (HealthChecker,
// NamedCheck, PingHealthz, InstallPathHandler, handleRootHealth,
// adaptCheckToHandler) and k8s.io/component-base/metrics/prometheus/slis,
// with their wording and status codes. Left out: grouped checks
// (GroupedHealthChecker), the log check (kubesim logs with log/slog,
// which never blocks a request), the informer-sync and shutdown checks,
// and /metrics/slis' process_start_time_seconds.
package healthz
