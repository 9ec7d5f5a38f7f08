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
//     counted, as in Kubernetes;
//   - LIST requests together hold at most a budget of memory (ListBudget,
//     --list-memory-budget): each is charged its estimated size before it
//     runs, and answered 429 beyond the budget; the control plane's
//     components keep a share of their own. The API server applies it
//     after authentication (apiserver/listbudget.go), where the user and
//     the resource are known.
//
// Left out: API Priority and Fairness (flow schemas, priority levels,
// queuing): one pool per kind of request is the older max-in-flight
// model, and the list budget's three shares stand for APF's priority
// levels without its queues and fairness between flows.
package serving
