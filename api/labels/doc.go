// Package labels parses and evaluates label selectors, the
// "app=web,tier in (frontend,backend),!canary" strings that `kubectl get -l`
// sends and that every list, watch, ReplicaSet and Service uses to pick the
// objects it owns.
//
// It simulates k8s.io/apimachinery/pkg/labels (selector.go, labels.go) with
// the operators of k8s.io/apimachinery/pkg/selection, and the conversion
// metav1.LabelSelectorAsSelector from
// k8s.io/apimachinery/pkg/apis/meta/v1/helpers.go. The grammar, the
// canonical String form (requirements sorted by key, values sorted) and the
// error messages follow Kubernetes, including the validation wording of
// k8s.io/apimachinery/pkg/util/validation for keys (qualified names) and
// values.
//
// Left out: field.PathOption arguments (errors always use the paths "key"
// and "values[i][key]", as Kubernetes does without a path), DeepCopySelector,
// ValidatedSetSelector and the Transform helpers. This package does not
// import package api, so api can import it.
//
// Read the real one at
// https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apimachinery/pkg/labels/selector.go
package labels
