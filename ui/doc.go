// Package ui is kubesim's web page: it shows the control plane at work —
// nodes filling with pods, the workloads and what owns what, the event
// stream, APIServices, the control loops lighting up as they reconcile —
// and, in step mode, drives the stepper one unit of work at a time.
//
// Its real counterpart is kube-scheduler-simulator's web UI (per-plugin
// filter and score results per node) and, for the live view, the
// Kubernetes Dashboard. Unlike both, the page reads the cluster only
// through the API server's own list and watch endpoints (fetch streaming,
// no polling) and writes through the API like any client, so its writes
// show in the trace; the only routes of its own are the ones no API
// resource gives: the step-mode controls, the causality chain ("why does
// this exist?") read from the trace, the scheduler's last decision, and
// stopping a node's kubelet.
//
// Authentication is the API server's: the login form takes a bearer token
// (the kubeconfig's), checked by asking the API server, or a one-time
// login link printed at start. Either gives an HttpOnly, SameSite=Strict
// cookie session; the page's API requests carry the cookie and a custom
// header (which a cross-site form cannot set), and the session's token is
// put in their Authorization header, so RBAC and the audit log see the
// user who logged in. Step mode's cluster has no authentication of its
// own; there the session (or the printed token) is the gate.
//
// The assets are embedded (plain HTML, CSS and JavaScript, no build step,
// no library, nothing fetched from the network).
//
// Left out: editing objects other than by applying a manifest, logs and
// exec, namespaces other than by their names in the lists, and, in live
// mode, the reconcile activity (only the stepper records it).
package ui
