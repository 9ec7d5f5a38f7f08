// Package sample is a scheduler extender written with plain net/http and
// the types of k8s.io/kube-scheduler/extender/v1, the kind of web service
// kube-scheduler's extenders configuration (and kubesim's, see
// scheduler/extender.go) calls: `kubesim extender` runs it.
//
// It has two verbs:
//
//   - POST /filter (ExtenderArgs in, ExtenderFilterResult out) refuses the
//     nodes that carry the annotation RefuseAnnotation, with the reason
//     "node(s) had annotation KEY" in FailedNodes, so that the scheduler's
//     FailedScheduling message counts them ("0/3 nodes are available: 1
//     node(s) had annotation example.com/drain, ...");
//   - POST /prioritize (ExtenderArgs in, HostPriorityList out) gives
//     MaxExtenderPriority (10) to the nodes with the label PreferLabel
//     (KEY=VALUE) and 0 to the others; the scheduler multiplies it by the
//     extender's weight and by MaxNodeScore/MaxExtenderPriority (10).
//
// It reads the nodes' labels and annotations from the request, so it must
// be configured without nodeCacheCapable (which sends only names).
//
// Left out: the bind and preempt verbs, and a node cache of its own. A
// real extender (for example a GPU-topology or storage-aware one) keeps
// its own view of the cluster through an informer.
package sample
