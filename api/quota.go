package api

import (
	corev1 "k8s.io/api/core/v1"
)

// This file holds core/v1 ResourceQuota and LimitRange
// (k8s.io/api/core/v1/types.go); the protobuf tags are their field numbers.

// Quota resource names beyond the compute ones (core/v1's constants).
const (
	ResourceRequestsCPU              ResourceName = "requests.cpu"
	ResourceRequestsMemory           ResourceName = "requests.memory"
	ResourceRequestsStorage          ResourceName = "requests.storage"
	ResourceRequestsEphemeralStorage ResourceName = "requests.ephemeral-storage"
	ResourceLimitsCPU                ResourceName = "limits.cpu"
	ResourceLimitsMemory             ResourceName = "limits.memory"
	ResourceLimitsEphemeralStorage   ResourceName = "limits.ephemeral-storage"
	ResourceServices                 ResourceName = "services"
	ResourceServicesNodePorts        ResourceName = "services.nodeports"
	ResourceServicesLoadBalancers    ResourceName = "services.loadbalancers"
	ResourceReplicationControllers   ResourceName = "replicationcontrollers"
	ResourceQuotas                   ResourceName = "resourcequotas"
	ResourceSecrets                  ResourceName = "secrets"
	ResourceConfigMaps               ResourceName = "configmaps"
	ResourcePersistentVolumeClaims   ResourceName = "persistentvolumeclaims"
)

// ResourceQuota caps the resources a namespace's objects may use in sum.
type ResourceQuota = corev1.ResourceQuota

// ResourceQuotaSpec holds the hard caps.
type ResourceQuotaSpec = corev1.ResourceQuotaSpec

// ResourceQuotaScope names a set of objects a quota may count.
type ResourceQuotaScope = corev1.ResourceQuotaScope

// The quota scopes.
const (
	ResourceQuotaScopeTerminating    ResourceQuotaScope = "Terminating"
	ResourceQuotaScopeNotTerminating ResourceQuotaScope = "NotTerminating"
	ResourceQuotaScopeBestEffort     ResourceQuotaScope = "BestEffort"
	ResourceQuotaScopeNotBestEffort  ResourceQuotaScope = "NotBestEffort"
	ResourceQuotaScopePriorityClass  ResourceQuotaScope = "PriorityClass"
)

// ScopeSelector is a list of scope requirements, all of which must hold.
type ScopeSelector = corev1.ScopeSelector

// ScopedResourceSelectorRequirement is one requirement over a scope.
type ScopedResourceSelectorRequirement = corev1.ScopedResourceSelectorRequirement

// ScopeSelectorOperator is a scope requirement's operator.
type ScopeSelectorOperator = corev1.ScopeSelectorOperator

// ResourceQuotaStatus is the enforced caps and the counted use.
type ResourceQuotaStatus = corev1.ResourceQuotaStatus

// ResourceQuotaList is a list of quotas.
type ResourceQuotaList = corev1.ResourceQuotaList

// LimitRange sets per-object bounds and defaults in a namespace.
type LimitRange = corev1.LimitRange

// LimitRangeSpec is the list of limits.
type LimitRangeSpec = corev1.LimitRangeSpec

// LimitType is what a limit applies to: Pod, Container or
// PersistentVolumeClaim.
type LimitType = corev1.LimitType

// The limit types.
const (
	LimitTypePod                   LimitType = "Pod"
	LimitTypeContainer             LimitType = "Container"
	LimitTypePersistentVolumeClaim LimitType = "PersistentVolumeClaim"
)

// LimitRangeItem bounds one kind of object.
type LimitRangeItem = corev1.LimitRangeItem

// LimitRangeList is a list of limit ranges.
type LimitRangeList = corev1.LimitRangeList
