package client

import (
	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// The built-in resources.
var (
	NamespacesResource   = ResourceInfo{Version: "v1", Resource: "namespaces"}
	NodesResource        = ResourceInfo{Version: "v1", Resource: "nodes"}
	PodsResource         = ResourceInfo{Version: "v1", Resource: "pods", Namespaced: true}
	ServicesResource     = ResourceInfo{Version: "v1", Resource: "services", Namespaced: true}
	EndpointsResource    = ResourceInfo{Version: "v1", Resource: "endpoints", Namespaced: true}
	ConfigMapsResource   = ResourceInfo{Version: "v1", Resource: "configmaps", Namespaced: true}
	SecretsResource      = ResourceInfo{Version: "v1", Resource: "secrets", Namespaced: true}
	EventsResource       = ResourceInfo{Version: "v1", Resource: "events", Namespaced: true}
	ReplicaSetsResource  = ResourceInfo{Group: "apps", Version: "v1", Resource: "replicasets", Namespaced: true}
	DeploymentsResource  = ResourceInfo{Group: "apps", Version: "v1", Resource: "deployments", Namespaced: true}
	StatefulSetsResource = ResourceInfo{Group: "apps", Version: "v1", Resource: "statefulsets", Namespaced: true}
	LeasesResource       = ResourceInfo{Group: "coordination.k8s.io", Version: "v1", Resource: "leases", Namespaced: true}
	// ControllerRevisionsResource holds the StatefulSet controller's history.
	ControllerRevisionsResource = ResourceInfo{Group: "apps", Version: "v1", Resource: "controllerrevisions", Namespaced: true}
)

// Namespaces is the typed client of namespaces.
func (c *Client) Namespaces() *Resource[*corev1.Namespace] {
	return For(c, NamespacesResource, func() *corev1.Namespace { return &corev1.Namespace{} })
}

// Nodes is the typed client of nodes.
func (c *Client) Nodes() *Resource[*corev1.Node] {
	return For(c, NodesResource, func() *corev1.Node { return &corev1.Node{} })
}

// Pods is the typed client of pods.
func (c *Client) Pods() *Resource[*corev1.Pod] {
	return For(c, PodsResource, func() *corev1.Pod { return &corev1.Pod{} })
}

// Services is the typed client of services.
func (c *Client) Services() *Resource[*corev1.Service] {
	return For(c, ServicesResource, func() *corev1.Service { return &corev1.Service{} })
}

// Endpoints is the typed client of endpoints.
func (c *Client) Endpoints() *Resource[*corev1.Endpoints] {
	return For(c, EndpointsResource, func() *corev1.Endpoints { return &corev1.Endpoints{} })
}

// ConfigMaps is the typed client of config maps.
func (c *Client) ConfigMaps() *Resource[*corev1.ConfigMap] {
	return For(c, ConfigMapsResource, func() *corev1.ConfigMap { return &corev1.ConfigMap{} })
}

// Secrets is the typed client of secrets.
func (c *Client) Secrets() *Resource[*corev1.Secret] {
	return For(c, SecretsResource, func() *corev1.Secret { return &corev1.Secret{} })
}

// Events is the typed client of events.
func (c *Client) Events() *Resource[*corev1.Event] {
	return For(c, EventsResource, func() *corev1.Event { return &corev1.Event{} })
}

// ReplicaSets is the typed client of replica sets.
func (c *Client) ReplicaSets() *Resource[*appsv1.ReplicaSet] {
	return For(c, ReplicaSetsResource, func() *appsv1.ReplicaSet { return &appsv1.ReplicaSet{} })
}

// Deployments is the typed client of deployments.
func (c *Client) Deployments() *Resource[*appsv1.Deployment] {
	return For(c, DeploymentsResource, func() *appsv1.Deployment { return &appsv1.Deployment{} })
}

// StatefulSets is the typed client of stateful sets.
func (c *Client) StatefulSets() *Resource[*appsv1.StatefulSet] {
	return For(c, StatefulSetsResource, func() *appsv1.StatefulSet { return &appsv1.StatefulSet{} })
}

// ControllerRevisions is the typed client of controller revisions.
func (c *Client) ControllerRevisions() *Resource[*appsv1.ControllerRevision] {
	return For(c, ControllerRevisionsResource, func() *appsv1.ControllerRevision { return &appsv1.ControllerRevision{} })
}

// Leases is the typed client of leases.
func (c *Client) Leases() *Resource[*coordinationv1.Lease] {
	return For(c, LeasesResource, func() *coordinationv1.Lease { return &coordinationv1.Lease{} })
}

// The resources of the API server's extensions: CRDs
// (apiextensions-apiserver) and APIServices (the aggregator).
var (
	CustomResourceDefinitionsResource = ResourceInfo{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	APIServicesResource               = ResourceInfo{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"}
)

// CustomResourceDefinitions is the typed client of CRDs.
func (c *Client) CustomResourceDefinitions() *Resource[*apiextensionsv1.CustomResourceDefinition] {
	return For(c, CustomResourceDefinitionsResource, func() *apiextensionsv1.CustomResourceDefinition { return &apiextensionsv1.CustomResourceDefinition{} })
}

// APIServices is the typed client of APIServices.
func (c *Client) APIServices() *Resource[*apiregistrationv1.APIService] {
	return For(c, APIServicesResource, func() *apiregistrationv1.APIService { return &apiregistrationv1.APIService{} })
}

// The core group's older workload resources.
var (
	ReplicationControllersResource = ResourceInfo{Version: "v1", Resource: "replicationcontrollers", Namespaced: true}
	PodTemplatesResource           = ResourceInfo{Version: "v1", Resource: "podtemplates", Namespaced: true}
)

// ReplicationControllers is the typed client of replication controllers.
func (c *Client) ReplicationControllers() *Resource[*corev1.ReplicationController] {
	return For(c, ReplicationControllersResource, func() *corev1.ReplicationController { return &corev1.ReplicationController{} })
}

// PodTemplates is the typed client of pod templates.
func (c *Client) PodTemplates() *Resource[*corev1.PodTemplate] {
	return For(c, PodTemplatesResource, func() *corev1.PodTemplate { return &corev1.PodTemplate{} })
}
