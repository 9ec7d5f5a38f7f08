package kinds

import (
	appsv1 "k8s.io/api/apps/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// generations is every built-in kind that has a metadata.generation, and
// what moves it: the PrepareForCreate and PrepareForUpdate of
// kubernetes/pkg/registry/<group>/<resource>/strategy.go at v1.32. A kind
// not here has none: Pods (kube-apiserver sets theirs from v1.33 on),
// Services, ConfigMaps, Secrets, Events, Nodes, Namespaces,
// HorizontalPodAutoscalers (their status.observedGeneration has nothing to
// observe), storage, RBAC and the rest. CustomResourceDefinitions and
// custom resources have theirs in package crd.
func generations() map[k8sschema.GroupResource]*registry.Generation {
	spec := registry.SpecGeneration
	return map[k8sschema.GroupResource]*registry.Generation{
		{Group: "apps", Resource: "deployments"}:                                               {Changed: deploymentChanged},
		{Group: "apps", Resource: "replicasets"}:                                               spec(),
		{Group: "apps", Resource: "statefulsets"}:                                              spec(),
		{Group: "apps", Resource: "daemonsets"}:                                                spec(),
		{Group: "batch", Resource: "jobs"}:                                                     spec(),
		{Group: "batch", Resource: "cronjobs"}:                                                 spec(),
		{Group: "", Resource: "replicationcontrollers"}:                                        spec(),
		{Group: "", Resource: "podtemplates"}:                                                  spec(), // its template
		{Group: "policy", Resource: "poddisruptionbudgets"}:                                    spec(),
		{Group: "networking.k8s.io", Resource: "ingresses"}:                                    spec(),
		{Group: "networking.k8s.io", Resource: "ingressclasses"}:                               spec(),
		{Group: "networking.k8s.io", Resource: "networkpolicies"}:                              spec(),
		{Group: "admissionregistration.k8s.io", Resource: "mutatingwebhookconfigurations"}:     spec(), // its webhooks
		{Group: "admissionregistration.k8s.io", Resource: "validatingwebhookconfigurations"}:   spec(),
		{Group: "admissionregistration.k8s.io", Resource: "validatingadmissionpolicies"}:       spec(),
		{Group: "admissionregistration.k8s.io", Resource: "validatingadmissionpolicybindings"}: spec(),
		{Group: "flowcontrol.apiserver.k8s.io", Resource: "flowschemas"}:                       spec(),
		{Group: "flowcontrol.apiserver.k8s.io", Resource: "prioritylevelconfigurations"}:       spec(),
		{Group: "discovery.k8s.io", Resource: "endpointslices"}:                                {Changed: endpointSliceChanged},
		// Created at 1 and never moved: a PriorityClass's value is
		// immutable.
		{Group: "scheduling.k8s.io", Resource: "priorityclasses"}: {},
		// Moved by a change of spec but not set on create.
		{Group: "storage.k8s.io", Resource: "csidrivers"}: {StartAtZero: true, Changed: registry.DesiredStateChanged},
	}
}

// withGenerations gives each resource its kind's rule from generations.
func withGenerations(resources []*registry.Resource) {
	rules := generations()
	for _, r := range resources {
		r.Generation = rules[r.GroupResource()]
	}
}

// deploymentChanged: a change of annotations is a new generation as a
// change of spec is, because the deployment controller copies a
// Deployment's annotations to its ReplicaSets.
func deploymentChanged(obj, old api.Object) bool {
	d, o := obj.(*appsv1.Deployment), old.(*appsv1.Deployment)
	return !equality.Semantic.DeepEqual(d.Spec, o.Spec) || !equality.Semantic.DeepEqual(d.Annotations, o.Annotations)
}

// endpointSliceChanged: an EndpointSlice has no spec; anything outside its
// metadata is what it says, and a change of labels (which Service it
// belongs to, who manages it) is a new generation too.
func endpointSliceChanged(obj, old api.Object) bool {
	s, o := obj.(*discoveryv1.EndpointSlice), old.(*discoveryv1.EndpointSlice)
	return registry.DesiredStateChanged(obj, old) || !equality.Semantic.DeepEqual(s.Labels, o.Labels)
}
