// Package realstack measures kubesim against the real thing on the same
// machine in one run: custom resource creates against `kubesim serve`
// and against the real k8s.io/apiextensions-apiserver (the CRD server
// that kube-apiserver embeds) over Debian's etcd, driven by one load
// generator.
//
// The real server runs standalone, without the kube-apiserver it
// normally sits behind: its clients present a certificate in the
// system:masters group (so authorization never asks a SubjectAccessReview
// of a kube-apiserver that is not there), and the admission plugins that
// watch core objects (namespaces, webhook configurations, admission
// policies) are off. Both shortcuts make the real server's creates a
// little cheaper than in a cluster, never dearer, so the ratio measured
// here understates kubesim's lead rather than flatters it.
//
// The package holds only a benchmark: `make test` never runs it, and it
// skips with a message where etcd or the real server's binary is missing.
package realstack
