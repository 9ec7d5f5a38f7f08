package client

import (
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
)

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
func (c *Client) PodDisruptionBudgets() *Resource[*policyv1.PodDisruptionBudget] {
	return For(c, PodDisruptionBudgetsResource, func() *policyv1.PodDisruptionBudget { return &policyv1.PodDisruptionBudget{} })
}

// ResourceQuotas is the typed client of quotas.
func (c *Client) ResourceQuotas() *Resource[*corev1.ResourceQuota] {
	return For(c, ResourceQuotasResource, func() *corev1.ResourceQuota { return &corev1.ResourceQuota{} })
}

// LimitRanges is the typed client of limit ranges.
func (c *Client) LimitRanges() *Resource[*corev1.LimitRange] {
	return For(c, LimitRangesResource, func() *corev1.LimitRange { return &corev1.LimitRange{} })
}

// PriorityClasses is the typed client of priority classes.
func (c *Client) PriorityClasses() *Resource[*schedulingv1.PriorityClass] {
	return For(c, PriorityClassesResource, func() *schedulingv1.PriorityClass { return &schedulingv1.PriorityClass{} })
}

// EndpointSlices is the typed client of endpoint slices.
func (c *Client) EndpointSlices() *Resource[*discoveryv1.EndpointSlice] {
	return For(c, EndpointSlicesResource, func() *discoveryv1.EndpointSlice { return &discoveryv1.EndpointSlice{} })
}
