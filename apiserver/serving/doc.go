// Package serving is the HTTP server around the API server's handler, with
// the limits kube-apiserver puts on every connection and request
// (k8s.io/apiserver/pkg/server: SecureServingInfo and the max-in-flight
// filter in pkg/server/filters/maxinflight.go):
//
//   - a connection that has sent no request headers within
//     ReadHeaderTimeout, or whose body stalls longer than BodyReadTimeout,
//     is closed;
//   - an idle keep-alive connection (HTTP/1.1 or HTTP/2) is closed after
//     IdleTimeout; one that failed authentication is closed at once after
//     its 401 (authn.Unauthorized asks for it), so unauthenticated clients
//     cannot hold connections open;
//   - at most MaxRequestsInFlight read-only and MaxMutatingRequestsInFlight
//     mutating requests run at once (--max-requests-inflight,
//     --max-mutating-requests-inflight); beyond that the server answers 429
//     with Retry-After, so overload costs bounded memory. Long-running
//     requests (watches, logs, exec, attach, port-forward, proxy) are not
//     counted, as in Kubernetes. Inflight reports what each pool holds as
//     apiserver_current_inflight_requests{request_kind} (at the moment of
//     the scrape, where kube-apiserver reports the last second's most);
//   - LIST requests together hold at most a budget of memory (ListBudget,
//     --list-memory-budget): each is charged its estimated size before it
//     runs, and answered 429 beyond the budget; the control plane's
//     components keep a share of their own, and their lists (and service
//     accounts') wait up to 15 s for room before they are refused. The API server applies it
//     after authentication (apiserver/listbudget.go), where the user and
//     the resource are known.
//
// How this relates to API Priority and Fairness. The API serves APF's
// configuration — FlowSchemas and PriorityLevelConfigurations, created
// at start as kube-apiserver 1.32 creates them, each schema's Dangling
// condition kept by controllers/apfconfig — so that `kubectl get
// flowschemas` and the lessons about them show a real cluster's objects.
// But no request is classified by them: the limits here are the older
// max-in-flight model (one pool for reads, one for writes, where APF
// gives each priority level its share of --max-requests-inflight plus
// --max-mutating-requests-inflight), and the list budget's shares stand
// for the levels: exempt is APF's exempt level (kubesim's privileged
// loopback; unlike APF, system:masters is not exempt), system stands for
// the system, node-high, leader-election and workload-high levels that
// the components' schemas (system-nodes, kube-controller-manager,
// kube-scheduler, kube-system-service-accounts...) lead to, and workload
// for workload-low, global-default and catch-all. Left out: the
// classification itself, queues, shuffle sharding and fairness between
// flows, borrowing between levels, and editing the objects to change the
// limits.
package serving
