package api

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
)

// This file holds apiextensions.k8s.io: CustomResourceDefinition at v1 (the
// version kubesim stores) and at v1beta1 (the version of the seed's course
// material, served and converted for compatibility). The schema type,
// JSONSchemaProps, is in jsonschema.go.

// ResourceScope says whether a custom resource lives in a namespace.
type ResourceScope = apiextensionsv1.ResourceScope

// The two scopes of a custom resource.
const (
	ClusterScoped   ResourceScope = "Cluster"
	NamespaceScoped ResourceScope = "Namespaced"
)

// CustomResourceDefinitionConditionType names a CRD condition.
type CustomResourceDefinitionConditionType = apiextensionsv1.CustomResourceDefinitionConditionType

// The conditions the apiextensions-apiserver sets on a CRD.
const (
	// Established: the resource is served.
	Established CustomResourceDefinitionConditionType = "Established"
	// NamesAccepted: the names do not clash with another CRD of the group.
	NamesAccepted CustomResourceDefinitionConditionType = "NamesAccepted"
	// NonStructuralSchema: the (v1beta1) schema is not structural.
	NonStructuralSchema CustomResourceDefinitionConditionType = "NonStructuralSchema"
	// Terminating: the CRD is being deleted with its custom resources.
	Terminating CustomResourceDefinitionConditionType = "Terminating"
)

// ConversionStrategyType says how objects move between served versions.
type ConversionStrategyType = apiextensionsv1.ConversionStrategyType

// The conversion strategies; kubesim implements None only.
const (
	NoneConverter    ConversionStrategyType = "None"
	WebhookConverter ConversionStrategyType = "Webhook"
)

// CustomResourceDefinition (apiextensions.k8s.io/v1) defines a new resource
// type served by the API server.
type CustomResourceDefinition = apiextensionsv1.CustomResourceDefinition

// CustomResourceDefinitionSpec describes how a custom resource is served.
type CustomResourceDefinitionSpec = apiextensionsv1.CustomResourceDefinitionSpec

// CustomResourceDefinitionNames are the names of a custom resource.
type CustomResourceDefinitionNames = apiextensionsv1.CustomResourceDefinitionNames

// CustomResourceDefinitionVersion is one served version.
type CustomResourceDefinitionVersion = apiextensionsv1.CustomResourceDefinitionVersion

// SelectableField names a field usable in field selectors.
type SelectableField = apiextensionsv1.SelectableField

// CustomResourceValidation holds the schema of a version.
type CustomResourceValidation = apiextensionsv1.CustomResourceValidation

// CustomResourceSubresources enables the status and scale subresources.
type CustomResourceSubresources = apiextensionsv1.CustomResourceSubresources

// CustomResourceSubresourceStatus has no fields (it is {} in JSON): its
// presence enables /status.
type CustomResourceSubresourceStatus = apiextensionsv1.CustomResourceSubresourceStatus

// CustomResourceSubresourceScale says where the replica counts are.
type CustomResourceSubresourceScale = apiextensionsv1.CustomResourceSubresourceScale

// CustomResourceColumnDefinition is one column of kubectl get.
type CustomResourceColumnDefinition = apiextensionsv1.CustomResourceColumnDefinition

// CustomResourceConversion says how objects convert between versions.
type CustomResourceConversion = apiextensionsv1.CustomResourceConversion

// WebhookConversion configures a conversion webhook.
type WebhookConversion = apiextensionsv1.WebhookConversion

// WebhookClientConfig is a webhook's address: a URL or a service.
type WebhookClientConfig = apiextensionsv1.WebhookClientConfig

// ServiceReference names a service serving a webhook.
type ServiceReference = apiextensionsv1.ServiceReference

// CustomResourceDefinitionStatus is what the API server reports.
type CustomResourceDefinitionStatus = apiextensionsv1.CustomResourceDefinitionStatus

// CustomResourceDefinitionCondition is one condition of a CRD.
type CustomResourceDefinitionCondition = apiextensionsv1.CustomResourceDefinitionCondition

// CustomResourceDefinitionList is a list of CRDs.
type CustomResourceDefinitionList = apiextensionsv1.CustomResourceDefinitionList

// CustomResourceDefinitionV1beta1 is apiextensions.k8s.io/v1beta1
// CustomResourceDefinition (removed in Kubernetes 1.22): one version may be
// given in spec.version, the schema in spec.validation, and subresources and
// columns at the top level for every version.
type CustomResourceDefinitionV1beta1 = apiextensionsv1beta1.CustomResourceDefinition

// CustomResourceDefinitionSpecV1beta1 is the v1beta1 spec.
type CustomResourceDefinitionSpecV1beta1 = apiextensionsv1beta1.CustomResourceDefinitionSpec

// CustomResourceDefinitionVersionV1beta1 is one v1beta1 version.
type CustomResourceDefinitionVersionV1beta1 = apiextensionsv1beta1.CustomResourceDefinitionVersion

// CustomResourceColumnDefinitionV1beta1 is a v1beta1 column: its path
// field is spelled JSONPath.
type CustomResourceColumnDefinitionV1beta1 = apiextensionsv1beta1.CustomResourceColumnDefinition

// CustomResourceConversionV1beta1 is the v1beta1 conversion settings.
type CustomResourceConversionV1beta1 = apiextensionsv1beta1.CustomResourceConversion

// CustomResourceDefinitionListV1beta1 is a list of v1beta1 CRDs.
type CustomResourceDefinitionListV1beta1 = apiextensionsv1beta1.CustomResourceDefinitionList
