package api

// This file holds apiextensions.k8s.io: CustomResourceDefinition at v1 (the
// version kubesim stores) and at v1beta1 (the version of the seed's course
// material, served and converted for compatibility). The schema type,
// JSONSchemaProps, is in jsonschema.go.

// ResourceScope says whether a custom resource lives in a namespace.
type ResourceScope string

// The two scopes of a custom resource.
const (
	ClusterScoped   ResourceScope = "Cluster"
	NamespaceScoped ResourceScope = "Namespaced"
)

// CustomResourceDefinitionConditionType names a CRD condition.
type CustomResourceDefinitionConditionType string

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
type ConversionStrategyType string

// The conversion strategies; kubesim implements None only.
const (
	NoneConverter    ConversionStrategyType = "None"
	WebhookConverter ConversionStrategyType = "Webhook"
)

// CustomResourceDefinition (apiextensions.k8s.io/v1) defines a new resource
// type served by the API server.
type CustomResourceDefinition struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	// Spec describes the resource.
	Spec CustomResourceDefinitionSpec `json:"spec"`
	// Status is written by the API server: accepted names, conditions.
	Status CustomResourceDefinitionStatus `json:"status,omitempty"`
}

// CustomResourceDefinitionSpec describes how a custom resource is served.
type CustomResourceDefinitionSpec struct {
	// Group is the API group of the resource (auth.ilinux.io).
	Group string `json:"group"`
	// Names are the resource's names in URLs, manifests and kubectl.
	Names CustomResourceDefinitionNames `json:"names"`
	// Scope is Namespaced or Cluster.
	Scope ResourceScope `json:"scope"`
	// Versions are the served versions; exactly one is stored.
	Versions []CustomResourceDefinitionVersion `json:"versions"`
	// Conversion says how versions convert (None: only apiVersion changes).
	Conversion *CustomResourceConversion `json:"conversion,omitempty"`
	// PreserveUnknownFields (deprecated) turns off pruning for a CRD
	// created as v1beta1; v1 uses x-kubernetes-preserve-unknown-fields.
	PreserveUnknownFields bool `json:"preserveUnknownFields,omitempty"`
}

// CustomResourceDefinitionNames are the names of a custom resource.
type CustomResourceDefinitionNames struct {
	// Plural is the resource name in URLs (users).
	Plural string `json:"plural"`
	// Singular is the lower-case singular (user); defaults to kind in
	// lower case.
	Singular string `json:"singular,omitempty"`
	// ShortNames are kubectl's short aliases (u).
	ShortNames []string `json:"shortNames,omitempty"`
	// Kind is the CamelCase kind of objects (User).
	Kind string `json:"kind"`
	// ListKind is the kind of lists (UserList); defaults to kind+"List".
	ListKind string `json:"listKind,omitempty"`
	// Categories group resources for kubectl get <category> (all).
	Categories []string `json:"categories,omitempty"`
}

// CustomResourceDefinitionVersion is one served version.
type CustomResourceDefinitionVersion struct {
	// Name is the version (v1beta1) in apiVersion and URLs.
	Name string `json:"name"`
	// Served turns serving this version on or off.
	Served bool `json:"served"`
	// Storage marks the one version objects are stored at.
	Storage bool `json:"storage"`
	// Deprecated makes responses at this version carry a warning.
	Deprecated bool `json:"deprecated,omitempty"`
	// DeprecationWarning overrides the default deprecation warning.
	DeprecationWarning *string `json:"deprecationWarning,omitempty"`
	// Schema validates, prunes and defaults objects at this version.
	Schema *CustomResourceValidation `json:"schema,omitempty"`
	// Subresources enables /status and /scale.
	Subresources *CustomResourceSubresources `json:"subresources,omitempty"`
	// AdditionalPrinterColumns are the columns of kubectl get.
	AdditionalPrinterColumns []CustomResourceColumnDefinition `json:"additionalPrinterColumns,omitempty"`
	// SelectableFields are more fields usable in field selectors.
	SelectableFields []SelectableField `json:"selectableFields,omitempty"`
}

// SelectableField names a field usable in field selectors.
type SelectableField struct {
	// JSONPath is a simple path such as .spec.color.
	JSONPath string `json:"jsonPath"`
}

// CustomResourceValidation holds the schema of a version.
type CustomResourceValidation struct {
	// OpenAPIV3Schema is the structural schema of the whole object.
	OpenAPIV3Schema *JSONSchemaProps `json:"openAPIV3Schema,omitempty"`
}

// CustomResourceSubresources enables the status and scale subresources.
type CustomResourceSubresources struct {
	// Status, when present, splits status writes to /status.
	Status *CustomResourceSubresourceStatus `json:"status,omitempty"`
	// Scale, when present, serves /scale.
	Scale *CustomResourceSubresourceScale `json:"scale,omitempty"`
}

// CustomResourceSubresourceStatus has no fields (it is {} in JSON): its
// presence enables /status.
type CustomResourceSubresourceStatus struct {
	// Unused is never serialized; it only makes the type non-empty,
	// because Go gives every pointer to a zero-size value the same address
	// and a DeepCopy must never share memory with its original.
	Unused bool `json:"-"`
}

// CustomResourceSubresourceScale says where the replica counts are.
type CustomResourceSubresourceScale struct {
	// SpecReplicasPath is a path under .spec (.spec.replicas).
	SpecReplicasPath string `json:"specReplicasPath"`
	// StatusReplicasPath is a path under .status (.status.replicas).
	StatusReplicasPath string `json:"statusReplicasPath"`
	// LabelSelectorPath is a path under .status or .spec holding the
	// selector in string form.
	LabelSelectorPath *string `json:"labelSelectorPath,omitempty"`
}

// CustomResourceColumnDefinition is one column of kubectl get.
type CustomResourceColumnDefinition struct {
	// Name is the column header.
	Name string `json:"name"`
	// Type is integer, number, string, boolean or date.
	Type string `json:"type"`
	// Format refines the type (int32, date-time, name...).
	Format string `json:"format,omitempty"`
	// Description is the column's help text.
	Description string `json:"description,omitempty"`
	// Priority above 0 shows the column only with -o wide.
	Priority int32 `json:"priority,omitempty"`
	// JSONPath is the simple path of the value (.spec.userID).
	JSONPath string `json:"jsonPath"`
}

// CustomResourceConversion says how objects convert between versions.
type CustomResourceConversion struct {
	// Strategy is None or Webhook.
	Strategy ConversionStrategyType `json:"strategy"`
	// Webhook configures the Webhook strategy (not run by kubesim).
	Webhook *WebhookConversion `json:"webhook,omitempty"`
}

// WebhookConversion configures a conversion webhook.
type WebhookConversion struct {
	// ClientConfig says how to call the webhook.
	ClientConfig *WebhookClientConfig `json:"clientConfig,omitempty"`
	// ConversionReviewVersions are the ConversionReview versions it speaks.
	ConversionReviewVersions []string `json:"conversionReviewVersions"`
}

// WebhookClientConfig is a webhook's address: a URL or a service.
type WebhookClientConfig struct {
	URL      *string           `json:"url,omitempty"`
	Service  *ServiceReference `json:"service,omitempty"`
	CABundle []byte            `json:"caBundle,omitempty"`
}

// ServiceReference names a service serving a webhook.
type ServiceReference struct {
	Namespace string  `json:"namespace"`
	Name      string  `json:"name"`
	Path      *string `json:"path,omitempty"`
	Port      *int32  `json:"port,omitempty"`
}

// CustomResourceDefinitionStatus is what the API server reports.
type CustomResourceDefinitionStatus struct {
	// Conditions are NamesAccepted, Established, Terminating...
	Conditions []CustomResourceDefinitionCondition `json:"conditions,omitempty"`
	// AcceptedNames are the names actually served.
	AcceptedNames CustomResourceDefinitionNames `json:"acceptedNames"`
	// StoredVersions are every version objects were ever stored at.
	StoredVersions []string `json:"storedVersions"`
}

// CustomResourceDefinitionCondition is one condition of a CRD.
type CustomResourceDefinitionCondition struct {
	Type               CustomResourceDefinitionConditionType `json:"type"`
	Status             ConditionStatus                       `json:"status"`
	LastTransitionTime Time                                  `json:"lastTransitionTime,omitempty"`
	Reason             string                                `json:"reason,omitempty"`
	Message            string                                `json:"message,omitempty"`
}

// CustomResourceDefinitionList is a list of CRDs.
type CustomResourceDefinitionList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty"`
	// Items are the CRDs.
	Items []CustomResourceDefinition `json:"items"`
}

// CustomResourceDefinitionV1beta1 is apiextensions.k8s.io/v1beta1
// CustomResourceDefinition (removed in Kubernetes 1.22): one version may be
// given in spec.version, the schema in spec.validation, and subresources and
// columns at the top level for every version.
type CustomResourceDefinitionV1beta1 struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	// Spec describes the resource.
	Spec CustomResourceDefinitionSpecV1beta1 `json:"spec"`
	// Status is the same as at v1.
	Status CustomResourceDefinitionStatus `json:"status,omitempty"`
}

// CustomResourceDefinitionSpecV1beta1 is the v1beta1 spec.
type CustomResourceDefinitionSpecV1beta1 struct {
	Group string `json:"group"`
	// Version is the first version (deprecated in favour of versions).
	Version string                        `json:"version,omitempty"`
	Names   CustomResourceDefinitionNames `json:"names"`
	Scope   ResourceScope                 `json:"scope"`
	// Validation is the schema of every version.
	Validation *CustomResourceValidation `json:"validation,omitempty"`
	// Subresources are the subresources of every version.
	Subresources *CustomResourceSubresources `json:"subresources,omitempty"`
	// Versions are the served versions.
	Versions []CustomResourceDefinitionVersionV1beta1 `json:"versions,omitempty"`
	// AdditionalPrinterColumns are the columns of every version.
	AdditionalPrinterColumns []CustomResourceColumnDefinitionV1beta1 `json:"additionalPrinterColumns,omitempty"`
	Conversion               *CustomResourceConversionV1beta1        `json:"conversion,omitempty"`
	// PreserveUnknownFields defaults to true at v1beta1: no pruning.
	PreserveUnknownFields *bool `json:"preserveUnknownFields,omitempty"`
}

// CustomResourceDefinitionVersionV1beta1 is one v1beta1 version.
type CustomResourceDefinitionVersionV1beta1 struct {
	Name                     string                                  `json:"name"`
	Served                   bool                                    `json:"served"`
	Storage                  bool                                    `json:"storage"`
	Deprecated               bool                                    `json:"deprecated,omitempty"`
	DeprecationWarning       *string                                 `json:"deprecationWarning,omitempty"`
	Schema                   *CustomResourceValidation               `json:"schema,omitempty"`
	Subresources             *CustomResourceSubresources             `json:"subresources,omitempty"`
	AdditionalPrinterColumns []CustomResourceColumnDefinitionV1beta1 `json:"additionalPrinterColumns,omitempty"`
}

// CustomResourceColumnDefinitionV1beta1 is a v1beta1 column: its path
// field is spelled JSONPath.
type CustomResourceColumnDefinitionV1beta1 struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Format      string `json:"format,omitempty"`
	Description string `json:"description,omitempty"`
	Priority    int32  `json:"priority,omitempty"`
	JSONPath    string `json:"JSONPath"`
}

// CustomResourceConversionV1beta1 is the v1beta1 conversion settings.
type CustomResourceConversionV1beta1 struct {
	Strategy                 ConversionStrategyType `json:"strategy"`
	WebhookClientConfig      *WebhookClientConfig   `json:"webhookClientConfig,omitempty"`
	ConversionReviewVersions []string               `json:"conversionReviewVersions,omitempty"`
}

// CustomResourceDefinitionListV1beta1 is a list of v1beta1 CRDs.
type CustomResourceDefinitionListV1beta1 struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty"`
	// Items are the CRDs.
	Items []CustomResourceDefinitionV1beta1 `json:"items"`
}
