// Package handoff lets the API server hand a watch's decoded objects to a
// client in the same process instead of their JSON.
//
// Kubernetes has no such thing: kube-apiserver's loopback client and every
// controller encode and decode each object, and only the watch cache
// shares one decoded object between watchers inside the server. kubesim
// runs the controllers, the scheduler and the kubelets in the API server's
// process (client.InProcessTransport), where decoding the same pod event
// again in each of their informers was most of the control plane's time.
// So a client's watch request carries a Watch in its context — a Go value,
// which no socket carries, so only an in-process request can bring it to
// the handler — and the watch handler, after the same authentication,
// authorization and audit as any request, claims it and sends each event
// through it: the watch cache's own object when it is the Go type the
// client decodes into, the event's JSON otherwise (a dynamic client, a
// version converted from the stored one). A client that decodes into
// *api.PartialObjectMetadata (a metadata informer, as Kubernetes' garbage
// collector uses) is handed the object's metadata, a shallow copy sharing
// its maps and slices with the watch cache's object.
//
// The objects are shared with the watch cache and every other in-process
// watcher, and so immutable: a component that changes one changes a copy
// (DeepCopy), which client/cache.MutationDetector checks in tests.
//
// A write's answer (Answer) is handed over the same way: an in-process
// client's create, update or patch carries an Answer in its context, and
// the handler, instead of encoding the stored object for the client to
// decode, hands over the object the registry decoded from the very bytes
// it stored — what the answer's JSON decodes to, field for field — with
// an empty body. That object is made for this answer alone and is the
// caller's own, to change as it likes. A wrapper of the transport that
// reads the answer's body (the stepper's trace, the web page's activity
// feed) takes the Answer out of the context (WithoutAnswer) and gets the
// JSON.
//
// Left out: lists and gets still go through JSON (an informer lists once,
// then watches), and so does every request from outside the process.
package handoff
