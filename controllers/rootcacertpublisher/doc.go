// Package rootcacertpublisher is kube-controller-manager's
// root-ca-cert-publisher (pkg/controller/certificates/rootcacertpublisher):
// every active namespace has a ConfigMap named kube-root-ca.crt whose key
// ca.crt is the cluster CA, so that a pod's projected service account
// volume can hand its containers the CA to trust the API server with. An
// edited or deleted ConfigMap is put back.
//
// Left out: metrics, and rotating the CA while running.
package rootcacertpublisher
