// Package metricsserver is kubesim's metrics-server
// (sigs.k8s.io/metrics-server): an extension API server that serves the
// resource metrics API, metrics.k8s.io/v1beta1 NodeMetrics and PodMetrics,
// behind the APIService v1beta1.metrics.k8s.io. `kubectl top` and the
// HorizontalPodAutoscaler controller read it through the aggregator.
//
// It runs as the pod image kubesim/metrics-server (the fake kubelet runs
// it in process, as the sample API server: see
// examples/metrics-server.yaml). Like the real one it lists the nodes from
// the API server, scrapes each node's kubelet at its InternalIP:10250
// (GET /stats/summary, served by package kubelet/server), keeps only the
// latest point of every node, pod and container, and answers get and
// list (label selectors, one namespace or all) from those points. It
// trusts the user the aggregator names in X-Remote-User (the front-proxy
// client certificate proves it) and asks the API server whether that user
// may read the metrics with a SubjectAccessReview, as the real server's
// delegated authorization does.
//
// Left out: the scrape is done when a request comes and the last one is
// older than the resolution (15s by default, --metric-resolution),
// rather than by a ticker, so that step mode gives the same answers every
// run; the CPU usage is the kubelet's usageNanoCores, not a rate computed
// from two cumulative samples (a new pod has metrics after one scrape);
// no watch, no Table output, no protobuf, no OpenAPI, no /metrics of its
// own.
package metricsserver
