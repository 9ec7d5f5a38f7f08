package api

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

// IsExtendedResourceName reports whether name is an extended resource: a
// name with a domain outside kubernetes.io (example.com/gpu), not a
// quota's requests.* name, that is a qualified name once prefixed with
// "requests." (v1helper.IsExtendedResourceName). Device plugins may only
// register such names, and the scheduler counts them from a node's
// allocatable.
func IsExtendedResourceName(name corev1.ResourceName) bool {
	s := string(name)
	if !strings.Contains(s, "/") || strings.Contains(s, corev1.ResourceDefaultNamespacePrefix) ||
		strings.HasPrefix(s, corev1.DefaultResourceRequestsPrefix) {
		return false
	}
	return len(validation.IsQualifiedName(corev1.DefaultResourceRequestsPrefix+s)) == 0
}
