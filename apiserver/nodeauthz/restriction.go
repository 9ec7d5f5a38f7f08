package nodeauthz

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/admission"
)

// NodeRestriction is the admission plugin that finishes the Node
// authorizer's work once the object is known: a kubelet writes only its
// own Node and Lease, and the status of (or deletes) only the pods bound
// to it. Refusals are 403s with the plugin's wording.
type NodeRestriction struct {
	// Pods reads a pod. An eviction (a CREATE of pods/eviction) names the
	// pod but carries no old object, so the plugin looks the pod up, as
	// Kubernetes' does.
	Pods func(ctx context.Context, ns, name string) (*corev1.Pod, error)
}

// PluginName is the name kube-apiserver gives the plugin, in the trace
// and the admission metrics.
func (NodeRestriction) PluginName() string { return "NodeRestriction" }

// Validate implements admission.Validator.
func (r NodeRestriction) Validate(ctx context.Context, a *admission.Attributes) error {
	nodeName, isNode := NodeIdentity(a.User)
	if !isNode {
		return nil
	}
	gr := schema.GroupResource{Group: a.Resource.Group, Resource: a.Resource.Resource}
	forbid := func(format string, args ...any) error {
		return api.NewForbidden(gr, a.Name, fmt.Errorf(format, args...))
	}
	switch {
	case gr.Group == "" && gr.Resource == "nodes":
		if a.Operation == admission.Create || a.Operation == admission.Update {
			if a.Name != nodeName {
				return forbid("node %q is not allowed to modify node %q", nodeName, a.Name)
			}
		}
	case gr.Group == "" && gr.Resource == "pods":
		switch {
		case a.Subresource == "status" && a.Operation == admission.Update:
			if boundTo(a.OldObject) != nodeName {
				return forbid("node %q can only update pod status for pods with spec.nodeName set to itself", nodeName)
			}
		case a.Subresource == "eviction":
			bound := boundTo(a.OldObject)
			if r.Pods != nil {
				pod, err := r.Pods(ctx, a.Namespace, a.Name)
				if api.IsNotFound(err) {
					return err
				}
				if err != nil {
					return api.NewForbidden(gr, a.Name, err)
				}
				bound = pod.Spec.NodeName
			}
			if bound != nodeName {
				return forbid("node %q can only evict pods with spec.nodeName set to itself", nodeName)
			}
		case a.Subresource == "" && a.Operation == admission.Delete:
			if boundTo(a.OldObject) != nodeName {
				return forbid("node %q can only delete pods with spec.nodeName set to itself", nodeName)
			}
		case a.Subresource == "" && a.Operation == admission.Create:
			// kubesim has no static pods, so no mirror pods either.
			return forbid("pod does not have %q annotation, node %q can only create mirror pods", "kubernetes.io/config.mirror", nodeName)
		}
	case gr.Group == "storage.k8s.io" && gr.Resource == "csinodes":
		// admitCSINode: a kubelet registers drivers in its own CSINode.
		if a.Name != nodeName {
			return forbid("node %q is not allowed to modify CSINode %q", nodeName, a.Name)
		}
	case gr.Group == "coordination.k8s.io" && gr.Resource == "leases":
		if a.Operation == admission.Create || a.Operation == admission.Update {
			if a.Name != nodeName || a.Namespace != corev1.NamespaceNodeLease {
				return forbid("can only access node lease with the same name as the requesting node")
			}
		}
	}
	return nil
}

func boundTo(obj api.Object) string {
	if p, ok := obj.(*corev1.Pod); ok {
		return p.Spec.NodeName
	}
	return ""
}
