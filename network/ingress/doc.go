// Package ingress is what the ingress-nginx controller's nginx does with
// a request, as pure functions over the Ingresses: which Ingresses the
// controller serves (Handles), which backend a request for HOST/PATH
// goes to (Route: the server blocks and locations ingress-nginx writes
// into nginx.conf), the Service port's endpoints it is proxied to
// (Endpoints), and nginx's error pages. Both halves of kubesim's
// ingress-nginx use it: the controller that publishes each Ingress's
// address (controllers/ingress) and the pod network that carries a
// container's `wget http://HOST/PATH` to a backend pod (kubelet).
//
// kubesim's ingress-nginx is installed as kind's ingress-nginx manifest
// installs it (deploy/static/provider/kind/deploy.yaml): namespace
// ingress-nginx, the IngressClass "nginx" of controller
// k8s.io/ingress-nginx (not the default class: an Ingress names it, or
// names no class at all, which this install also serves, as kind's sets
// --watch-ingress-without-class=true), and the Service
// ingress-nginx-controller, whose address each Ingress's
// status.loadBalancer shows.
//
// Routing follows the Ingress API and ingress-nginx:
//
//   - a request's host picks one server: the rules of that exact host,
//     else of a wildcard host ("*.example.com" matches one more label, as
//     the API defines it; nginx would match deeper names too), else the
//     rules without host;
//   - within it the longest matching path wins, Exact before Prefix at
//     equal length; Prefix matches whole path elements ("/foo" matches
//     /foo and /foo/bar, not /foobar); ImplementationSpecific is nginx's
//     own location prefix, which matches /foobar too;
//   - the same host and path in two Ingresses: the older Ingress wins;
//   - no path matches: the defaultBackend of the first Ingress that made
//     the server (for the rules without host: of an Ingress without
//     rules), else the controller's 404.
//
// Left out: TLS (port 443), every annotation (rewrite-target, regexes,
// canaries, auth), resource backends (nginx answers 503), and the
// admission webhook that refuses conflicting Ingresses.
//
// Read the real one: https://github.com/kubernetes/ingress-nginx,
// internal/ingress/controller/controller.go (createServers,
// getBackendServers) and the Ingress API reference.
package ingress
