// Package nodeauthz is the Node authorizer and the NodeRestriction
// admission plugin: what keeps a kubelet to its own node
// (k8s.io/kubernetes plugin/pkg/auth/authorizer/node and
// plugin/pkg/admission/noderestriction).
//
// A kubelet authenticates as system:node:<nodeName> in the group
// system:nodes. With --authorization-mode Node,RBAC (the real default) its
// requests meet this authorizer first: it may read its own Node and
// create or update it, list and watch only the pods bound to it (the
// spec.nodeName field selector), update their status, read the Secrets,
// ConfigMaps and PersistentVolumeClaims those pods use, ask a token for
// their ServiceAccounts, keep its own Lease in kube-node-lease and write
// Events; everything else is "no opinion", so RBAC decides (and grants a
// node nothing: system:node has no binding, as in Kubernetes since 1.8).
//
// NodeRestriction checks what the authorizer cannot see before the body
// is read: that the Node written is the kubelet's own, that the pod whose
// status is updated or which is deleted is bound to it, that the Lease
// created bears its name, that the CSINode written is its own.
//
// Left out: the authorizer's graph. Kubernetes keeps a graph of pods,
// secrets, PVCs, PVs and nodes, fed by informers, and walks it; this
// package asks the pod store for the node's pods on each check (kubesim's
// kubelets rarely read secrets or configmaps, so the cost is small).
// PersistentVolumes, VolumeAttachments and ResourceClaims are not
// related to the node's pods (the system:node rules let a kubelet get any
// of the first two); CSINodes are checked by name only. Mirror pods are
// not modelled (a kubelet here may not create pods).
package nodeauthz
