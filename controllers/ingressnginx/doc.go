// Package ingressnginx is the control loop of kubesim's ingress
// controller, the ingress-nginx controller as kind's install runs it: it
// publishes, in status.loadBalancer.ingress of every Ingress it serves,
// the address clients reach it at — the cluster IP of its Service
// ingress-nginx/ingress-nginx-controller (ingress-nginx's
// --publish-service) — so that `kubectl get ingress` shows an ADDRESS.
// Which Ingresses it serves, and how a request to that address is
// routed, is package network/ingress; the requests themselves are
// carried by the pod network (the kubelet's ingressnet.go), as nginx
// would carry them with the configuration this loop would write.
//
// The install that kind's deploy.yaml makes — namespace ingress-nginx,
// the controller's service account and ClusterRole, its Service and the
// IngressClass "nginx" — is done by the cluster at start (the cluster
// package's ingress-nginx add-on), as kind's default StorageClass is.
//
// It simulates the status sync of ingress-nginx
// (internal/ingress/status/status.go): on an Ingress of its class whose
// status lacks the address, it writes it; when the Service's address
// changes, every Ingress it serves gets the new one. Left out: the
// leader election among controller replicas (the controller manager's
// lease covers it), removing the address on shutdown, the Events
// ("Scheduled for sync"), and everything nginx itself does (TLS,
// annotations). Read the real one at
// https://github.com/kubernetes/ingress-nginx.
package ingressnginx
