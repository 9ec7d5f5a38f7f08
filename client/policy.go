package client

import "github.com/kubesim/kubesim/api"

// Disruption budgets, quotas, limit ranges, priority classes and endpoint
// slices.
var (
	PodDisruptionBudgetsResource = ResourceInfo{Group: "policy", Version: "v1", Resource: "poddisruptionbudgets", Namespaced: true}
	ResourceQuotasResource       = ResourceInfo{Version: "v1", Resource: "resourcequotas", Namespaced: true}
	LimitRangesResource          = ResourceInfo{Version: "v1", Resource: "limitranges", Namespaced: true}
	PriorityClassesResource      = ResourceInfo{Group: "scheduling.k8s.io", Version: "v1", Resource: "priorityclasses"}
	EndpointSlicesResource       = ResourceInfo{Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices", Namespaced: true}
)

// PodDisruptionBudgets is the typed client of policy/v1 budgets.
func (c *Client) PodDisruptionBudgets() *Resource[*api.PodDisruptionBudget] {
	return For(c, PodDisruptionBudgetsResource, func() *api.PodDisruptionBudget { return &api.PodDisruptionBudget{} })
}

// ResourceQuotas is the typed client of quotas.
func (c *Client) ResourceQuotas() *Resource[*api.ResourceQuota] {
	return For(c, ResourceQuotasResource, func() *api.ResourceQuota { return &api.ResourceQuota{} })
}

// LimitRanges is the typed client of limit ranges.
func (c *Client) LimitRanges() *Resource[*api.LimitRange] {
	return For(c, LimitRangesResource, func() *api.LimitRange { return &api.LimitRange{} })
}

// PriorityClasses is the typed client of priority classes.
func (c *Client) PriorityClasses() *Resource[*api.PriorityClass] {
	return For(c, PriorityClassesResource, func() *api.PriorityClass { return &api.PriorityClass{} })
}

// EndpointSlices is the typed client of endpoint slices.
func (c *Client) EndpointSlices() *Resource[*api.EndpointSlice] {
	return For(c, EndpointSlicesResource, func() *api.EndpointSlice { return &api.EndpointSlice{} })
}
