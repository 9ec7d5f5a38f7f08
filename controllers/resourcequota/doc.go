// Package resourcequota is the resourcequota controller of
// kube-controller-manager ("resourcequota"): for every ResourceQuota it
// copies spec.hard to status.hard and recounts status.used from the
// namespace's objects (with api/quota, as the ResourceQuota admission
// plugin charges them), whenever a quota, pod, service, configmap or
// secret changes — so that the use admission charged comes back when a
// pod finishes or is deleted.
//
// Every quota is also recounted every five minutes (the real full
// resync), which undoes a charge the admission plugin made for a create
// that failed after it.
//
// Left out: the replenishment informers of other resources (a quota on
// count/deployments.apps, say, is recounted at the resync only), the
// discovery of every resource the API serves.
//
// Real one: pkg/controller/resourcequota/resource_quota_controller.go.
package resourcequota
