// Package apiserviceavailability is kube-aggregator's APIService availability
// controller ("apiservice-availability"): it checks the backend of every
// APIService and sets its Available condition, True or False with a reason
// (Local, Passed, ServiceNotFound, ServicePortError, EndpointsNotFound,
// MissingEndpoints, FailedDiscoveryCheck) and a message, which
// `kubectl get apiservices` shows.
//
// It is a client of the API server like every loop: it reads APIServices,
// Services and Endpoints from informers and writes /status. The check of
// a backend itself (resolve the endpoint, GET /apis/GROUP/VERSION) is the
// aggregator's (aggregator.CheckAvailability), as the real controller
// shares the proxy's resolver; the cluster injects it as Config.Check, so
// that this package, like every controller, imports no server code.
//
// Left out: the metrics, and the 30-second resync of every APIService
// (a remote one is rechecked every RecheckInterval; a local one never).
//
// Real one: k8s.io/kube-aggregator/pkg/controllers/status/remote/remote_available_controller.go.
package apiserviceavailability
