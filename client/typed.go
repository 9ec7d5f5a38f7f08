package client

import "github.com/kubesim/kubesim/api"

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
func (c *Client) Namespaces() *Resource[*api.Namespace] {
	return For(c, NamespacesResource, func() *api.Namespace { return &api.Namespace{} })
}

// Nodes is the typed client of nodes.
func (c *Client) Nodes() *Resource[*api.Node] {
	return For(c, NodesResource, func() *api.Node { return &api.Node{} })
}

// Pods is the typed client of pods.
func (c *Client) Pods() *Resource[*api.Pod] {
	return For(c, PodsResource, func() *api.Pod { return &api.Pod{} })
}

// Services is the typed client of services.
func (c *Client) Services() *Resource[*api.Service] {
	return For(c, ServicesResource, func() *api.Service { return &api.Service{} })
}

// Endpoints is the typed client of endpoints.
func (c *Client) Endpoints() *Resource[*api.Endpoints] {
	return For(c, EndpointsResource, func() *api.Endpoints { return &api.Endpoints{} })
}

// ConfigMaps is the typed client of config maps.
func (c *Client) ConfigMaps() *Resource[*api.ConfigMap] {
	return For(c, ConfigMapsResource, func() *api.ConfigMap { return &api.ConfigMap{} })
}

// Secrets is the typed client of secrets.
func (c *Client) Secrets() *Resource[*api.Secret] {
	return For(c, SecretsResource, func() *api.Secret { return &api.Secret{} })
}

// Events is the typed client of events.
func (c *Client) Events() *Resource[*api.Event] {
	return For(c, EventsResource, func() *api.Event { return &api.Event{} })
}

// ReplicaSets is the typed client of replica sets.
func (c *Client) ReplicaSets() *Resource[*api.ReplicaSet] {
	return For(c, ReplicaSetsResource, func() *api.ReplicaSet { return &api.ReplicaSet{} })
}

// Deployments is the typed client of deployments.
func (c *Client) Deployments() *Resource[*api.Deployment] {
	return For(c, DeploymentsResource, func() *api.Deployment { return &api.Deployment{} })
}

// StatefulSets is the typed client of stateful sets.
func (c *Client) StatefulSets() *Resource[*api.StatefulSet] {
	return For(c, StatefulSetsResource, func() *api.StatefulSet { return &api.StatefulSet{} })
}

// ControllerRevisions is the typed client of controller revisions.
func (c *Client) ControllerRevisions() *Resource[*api.ControllerRevision] {
	return For(c, ControllerRevisionsResource, func() *api.ControllerRevision { return &api.ControllerRevision{} })
}

// Leases is the typed client of leases.
func (c *Client) Leases() *Resource[*api.Lease] {
	return For(c, LeasesResource, func() *api.Lease { return &api.Lease{} })
}

// The resources of the API server's extensions: CRDs
// (apiextensions-apiserver) and APIServices (the aggregator).
var (
	CustomResourceDefinitionsResource = ResourceInfo{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	APIServicesResource               = ResourceInfo{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"}
)

// CustomResourceDefinitions is the typed client of CRDs.
func (c *Client) CustomResourceDefinitions() *Resource[*api.CustomResourceDefinition] {
	return For(c, CustomResourceDefinitionsResource, func() *api.CustomResourceDefinition { return &api.CustomResourceDefinition{} })
}

// APIServices is the typed client of APIServices.
func (c *Client) APIServices() *Resource[*api.APIService] {
	return For(c, APIServicesResource, func() *api.APIService { return &api.APIService{} })
}
