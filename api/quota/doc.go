// Package quota is what ResourceQuota counts: how much of each quota
// resource an object uses (pods, services, configmaps, count/<resource>,
// requests.cpu...), which objects a quota's scopes cover, and the sums
// and comparisons over resource lists. The ResourceQuota admission plugin
// (apiserver/admission) and the resourcequota controller
// (controllers/resourcequota) both count with it, so that the use the
// plugin adds at admission is the use the controller recounts.
//
// Left out: persistent volume claims' requests.storage (claims are only
// counted), the CrossNamespacePodAffinity and VolumeAttributesClass
// scopes.
//
// Real one: k8s.io/apiserver/pkg/quota/v1 (resources.go) and
// pkg/quota/v1/evaluator/core (pods.go, services.go).
package quota
