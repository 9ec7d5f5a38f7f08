// Package serviceaccount is kube-controller-manager's serviceaccount
// controller (pkg/controller/serviceaccount/serviceaccounts_controller.go):
// every active namespace has a ServiceAccount named "default", made when
// the namespace appears and made again if it is deleted. Pods that name no
// account run as it (the ServiceAccount admission plugin in
// apiserver/admission).
//
// Left out: the legacy token controller that made a token Secret per
// account (tokens now come from TokenRequest, serviceaccounts/NAME/token),
// and a configurable list of accounts to ensure.
package serviceaccount
