// Package aggregator is kube-aggregator: the router in front of the API
// server. An APIService (apiregistration.k8s.io/v1) is a route, "requests
// for this group and version go to that Service"; without one, or with a
// local one, a request goes on to the API server itself. The seed describes
// the API server as these two parts in one program.
//
// What it does:
//   - serves APIServices as a resource of the API server (Resource), and
//     keeps a local APIService ("v1.apps", "v1.") for every group-version
//     the server serves itself (SyncLocal), built-in or from a CRD;
//   - proxies /apis/GROUP/VERSION/... of a non-local APIService to a ready
//     endpoint of its Service (what --enable-aggregator-routing=true does
//     in Kubernetes), or to spec.externalName:port of an ExternalName
//     Service, which is how a server outside the cluster is reached. The
//     authenticated user travels in X-Remote-User and X-Remote-Group;
//     client-sent X-Remote-* headers are dropped; watches are streamed;
//     a backend that cannot be reached is a 503 ServiceUnavailable Status;
//     a backend's redirect never reaches the client: it becomes a 502 Bad
//     Gateway, "the backend attempted to redirect this request, which is
//     not permitted", as kube-apiserver answers since 1.25
//     (--aggregator-reject-forwarding-redirects, on by default);
//   - merges discovery: /apis lists the groups of every APIService ordered
//     by groupPriorityMinimum, versions by versionPriority; asked for the
//     aggregated form (apidiscovery.k8s.io/v2), it merges the API
//     server's own document with the one each extension server answers at
//     its /apis (fetched with the last ETag, reused for a minute or until
//     the APIService changes; a server without the aggregated form is
//     asked for /apis/GROUP/VERSION instead), and marks the versions of an
//     unreachable server Stale, as kube-aggregator's discovery manager;
//   - merges OpenAPI: /openapi/v3 lists the group-versions of extension
//     servers (their documents are proxied), and /openapi/v2 is the API
//     server's document with each extension server's paths and
//     definitions merged in (fetched and refreshed as discovery is);
//   - CheckAvailability is the check of the availability controller
//     (package controllers/apiserviceavailability, which cluster gives this check).
//
// The extension server trusts the X-Remote-* headers only from a caller
// that presents the front proxy's client certificate (Config.ProxyClientCert,
// from a CA of its own, pki.FrontProxy), checked against its
// --requestheader-client-ca-file, as in Kubernetes: the proof is the TLS
// handshake, so no backend receives a credential it could replay.
//
// Left out: fetching discovery and OpenAPI in the background (kubesim
// fetches them in the request that needs them), renaming clashing OpenAPI
// v2 definitions (the API server's win), proxying /api (the core group is always local), connection upgrades
// (exec, port-forward), and routing through the Service's ClusterIP
// (there is no kube-proxy).
//
// Read the real one in k8s.io/kube-aggregator/pkg/apiserver
// (handler_proxy.go, handler_apis.go, handler_discovery.go) and
// pkg/controllers/status (the availability check).
package aggregator
