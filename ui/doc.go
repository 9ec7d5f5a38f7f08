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
// this exist?"), the scheduler's per-node decision for each pod, the
// controller switches, and stopping a node's kubelet.
//
// The metrics panel (assets/metrics.js) is the one thing the page samples:
// while it is open, it reads the cluster's /metrics every two seconds, as
// a Prometheus scrape would (with the session's credentials, so the user
// needs the group system:monitoring, or the admin's rights), and draws
// the API server's request rate (the counter's increase between samples,
// as PromQL's rate()) and the controllers' work queue depths as inline
// SVG, with no chart library.
//
// Live mode has no trace, so the page keeps a record of its own, in
// bounded rings (livetrace.go): every component write with the reconcile
// that made it — the controller, the key, the watch event that queued it,
// carried in the request's context (controllers.Reconciling) — from the
// first login on (a server nobody looks at pays nothing for its loops'
// many writes), and the users' writes (kubectl's, the page's) from the
// server's start, so that "why" names kubectl's write made before the
// page was opened; "why" runs the stepper's own chain
// (stepper.ExplainObject) over it, and where the record runs out says so
// (livePhrases). The scheduler tells each decision
// (scheduler.ObserveDecisions), kept per pod for the last 2,048 pods. A
// live controller switch restarts the component (cluster.SetEnabled).
//
// The layout (style.css) is made for 1400x900 and 1920x1080 and fits the
// window: the loops at work (the idle ones folded), the unit of work just
// taken with the timeline under it, then the nodes over the workloads
// beside the events and the apply box; APIServices, metrics and the
// controller switches fold away. A node box grows with its pods (it
// scrolls on its own only past most of a screen), and every chip is as
// wide as the longest pod name needs (measured in app.js), so no chip's
// name or label is cut. e2e/browser's TestPageLayout checks this and
// takes the screenshots in docs/page.
//
// Long lists are virtual (app.js VList): with thousands of pods only the
// chips, tree rows and events in view are in the DOM; the arrow keys,
// Home, End and the page keys move over the whole list. The labels are in
// English or Chinese (ui/assets/i18n.js, the one dictionary, with the
// Chinese labs' terms), as the browser's language asks, with a switch.
//
// Authentication is the API server's: the login form takes a bearer token
// (the kubeconfig's), checked by asking the API server, or a one-time
// login link printed at start, which works once and for ten minutes
// (Config.LoginLinkTTL). The login and the logout must come from the page
// itself (Sec-Fetch-Site or Origin: a forged login would put the victim
// in the attacker's session). Either gives an HttpOnly, SameSite=Strict
// cookie session; the page's API requests carry the cookie and a custom
// header (which a cross-site form cannot set), and the session's token is
// put in their Authorization header, so RBAC and the audit log see the
// user who logged in. A session lasts eight hours, but no longer than its
// token authenticates: the API server is asked again every minute
// (SessionRecheck), and the session and its streams end when it refuses.
//
// In live mode the page's own routes (/ui/api/...) go through the API
// server's filters too, as non-resource paths (guard.go): authenticated
// with the session's token, audited, and authorized by RBAC — the
// bootstrap role kubesim:web-page lets every authenticated user read the
// page and use its apply box, while a controller's switch (post
// /ui/api/switch) and a node's kubelet (post /ui/api/node) are
// cluster-admin's alone by default, and their audit events say what they
// did. The feeds keep to what the user may get: the activity feed drops
// the writes of objects the user may not get, "why" and the scheduler's
// decision answer only for an object the user may get. Step mode's
// cluster has no authentication of its own; there the session (or the
// printed token) is the gate.
//
// The assets are embedded (plain HTML, CSS and JavaScript, no build step,
// no library, nothing fetched from the network).
//
// Left out: editing objects other than by applying a manifest, logs and
// exec, namespaces other than by their names in the lists; in live mode,
// the causes of the loops' writes made before the first login or outside
// a reconcile (heartbeats, an event recorder's flush), and of a ring's
// oldest entries; the timeline in live mode.
package ui
