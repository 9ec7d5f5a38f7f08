// Package metrics is the API server's Prometheus metrics and its /metrics
// endpoint: the requests served (count and latency by verb, group,
// version, resource, subresource, scope, component and code), the
// long-running requests open, the events sent to watchers, the admission
// chain's halves, plugin calls and webhooks, and the objects stored per
// resource. A Metrics is
// registered once on one registry (prometheus.NewRegistry, never the
// default registerer), which the API server serves at /metrics in
// Prometheus' text format; every cluster in a process has its own.
//
// It simulates k8s.io/apiserver/pkg/endpoints/metrics (MonitorRequest,
// CleanVerb, CleanScope, RecordLongRunning, WatchEvents),
// pkg/admission/metrics and pkg/storage/etcd3/metrics' object counts, with
// the names, labels and buckets of k8s.io/apiserver v0.37 (the version
// go.mod pins): watch events are counted by group, version and resource,
// as there. The verb label is the Kubernetes one — GET or LIST by scope,
// WATCH for a watch, APPLY for a server-side apply PATCH, CONNECT for the
// streaming subresources, POST, PUT, PATCH, DELETE, DELETECOLLECTION.
//
// Cardinality is bounded as upstream's: a request is counted only once it
// reached a resource the server serves (a 404 for an unknown resource, and
// a request refused by authentication or authorization, are not counted,
// as in kube-apiserver where no route was instrumented for them), so the
// resource labels are bounded by what is served; namespaces and object
// names never become labels; a request the aggregator proxies to an
// extension API server is that server's to count; a non-resource request
// is counted under its path only for the fixed paths (/version, /healthz,
// /livez, /readyz, /metrics, discovery under /api and /apis, /openapi/v2
// and /openapi/v3).
// Durations are read from the server's injected clock, so in step mode,
// where the clock does not move during a request, they are 0.
//
// Each admission plugin call is timed
// (apiserver_admission_controller_admission_duration_seconds, by the
// plugin's name, admit or validate, operation and refusal); the chain
// reads the clock once per call, a call's end being the next one's start
// (apiserver/admission's pluginTimer). The health checks' results are on
// a registry of their own, served at /metrics/slis (package healthz).
//
// Left out: apiserver_request_sli_duration_seconds, response sizes,
// request terminations and aborts, APF's metrics (kubesim has no
// priority and fairness) and the deprecated-API gauge.
// apiserver_storage_objects is counted when scraped, at most once per
// ObjectCountPeriod (kube-apiserver's --etcd-count-metric-poll-period);
// apiserver_current_inflight_requests is the in-flight count when scraped
// (package serving), not the maximum of the last second.
package metrics
