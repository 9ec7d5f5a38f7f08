// Package fields parses and evaluates field selectors, the
// "metadata.name=web,status.phase!=Running" strings that `kubectl get
// --field-selector` sends and that informers use to watch, say, only the
// pods bound to one node (spec.nodeName=node-1).
//
// It simulates k8s.io/apimachinery/pkg/fields (selector.go, fields.go):
// only =, == and != exist; terms are separated by commas; a value may
// contain ',', '=' or '\' only escaped with a backslash; field names are
// taken literally (no whitespace trimming, no validation: which fields are
// selectable is for the API server's per-kind strategy to decide). Error
// messages are Kubernetes'.
//
// Differences: the parsed terms are ordered by their canonical text rather
// than by their raw text, so that String is canonical (Parse(s.String())
// prints the same); selection semantics are unaffected. Left out:
// Transform, DeepCopySelector, and the selection.Operator type shared with
// labels (this package has its own Operator).
//
// Read the real one at
// https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apimachinery/pkg/fields/selector.go
package fields
