package client

import (
	networkingv1 "k8s.io/api/networking/v1"
)

// The networking.k8s.io/v1 resources.
var (
	IngressesResource       = ResourceInfo{Group: networkingv1.GroupName, Version: "v1", Resource: "ingresses", Namespaced: true}
	IngressClassesResource  = ResourceInfo{Group: networkingv1.GroupName, Version: "v1", Resource: "ingressclasses"}
	NetworkPoliciesResource = ResourceInfo{Group: networkingv1.GroupName, Version: "v1", Resource: "networkpolicies", Namespaced: true}
)

// Ingresses is the typed client of Ingresses.
func (c *Client) Ingresses() *Resource[*networkingv1.Ingress] {
	return For(c, IngressesResource, func() *networkingv1.Ingress { return &networkingv1.Ingress{} })
}

// IngressClasses is the typed client of IngressClasses.
func (c *Client) IngressClasses() *Resource[*networkingv1.IngressClass] {
	return For(c, IngressClassesResource, func() *networkingv1.IngressClass { return &networkingv1.IngressClass{} })
}

// NetworkPolicies is the typed client of NetworkPolicies.
func (c *Client) NetworkPolicies() *Resource[*networkingv1.NetworkPolicy] {
	return For(c, NetworkPoliciesResource, func() *networkingv1.NetworkPolicy { return &networkingv1.NetworkPolicy{} })
}
