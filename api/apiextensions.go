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
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec describes the resource.
	Spec CustomResourceDefinitionSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	// Status is written by the API server: accepted names, conditions.
	Status CustomResourceDefinitionStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// CustomResourceDefinitionSpec describes how a custom resource is served.
type CustomResourceDefinitionSpec struct {
	// Group is the API group of the resource (auth.ilinux.io).
	Group string `json:"group" protobuf:"bytes,1,opt,name=group"`
	// Names are the resource's names in URLs, manifests and kubectl.
	Names CustomResourceDefinitionNames `json:"names" protobuf:"bytes,3,opt,name=names"`
	// Scope is Namespaced or Cluster.
	Scope ResourceScope `json:"scope" protobuf:"bytes,4,opt,name=scope,casttype=ResourceScope"`
	// Versions are the served versions; exactly one is stored.
	Versions []CustomResourceDefinitionVersion `json:"versions" protobuf:"bytes,7,rep,name=versions"`
	// Conversion says how versions convert (None: only apiVersion changes).
	Conversion *CustomResourceConversion `json:"conversion,omitempty" protobuf:"bytes,9,opt,name=conversion"`
	// PreserveUnknownFields (deprecated) turns off pruning for a CRD
	// created as v1beta1; v1 uses x-kubernetes-preserve-unknown-fields.
	PreserveUnknownFields bool `json:"preserveUnknownFields,omitempty" protobuf:"varint,10,opt,name=preserveUnknownFields"`
}

// CustomResourceDefinitionNames are the names of a custom resource.
type CustomResourceDefinitionNames struct {
	// Plural is the resource name in URLs (users).
	Plural string `json:"plural" protobuf:"bytes,1,opt,name=plural"`
	// Singular is the lower-case singular (user); defaults to kind in
	// lower case.
	Singular string `json:"singular,omitempty" protobuf:"bytes,2,opt,name=singular"`
	// ShortNames are kubectl's short aliases (u).
	ShortNames []string `json:"shortNames,omitempty" protobuf:"bytes,3,opt,name=shortNames"`
	// Kind is the CamelCase kind of objects (User).
	Kind string `json:"kind" protobuf:"bytes,4,opt,name=kind"`
	// ListKind is the kind of lists (UserList); defaults to kind+"List".
	ListKind string `json:"listKind,omitempty" protobuf:"bytes,5,opt,name=listKind"`
	// Categories group resources for kubectl get <category> (all).
	Categories []string `json:"categories,omitempty" protobuf:"bytes,6,rep,name=categories"`
}

// CustomResourceDefinitionVersion is one served version.
type CustomResourceDefinitionVersion struct {
	// Name is the version (v1beta1) in apiVersion and URLs.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// Served turns serving this version on or off.
	Served bool `json:"served" protobuf:"varint,2,opt,name=served"`
	// Storage marks the one version objects are stored at.
	Storage bool `json:"storage" protobuf:"varint,3,opt,name=storage"`
	// Deprecated makes responses at this version carry a warning.
	Deprecated bool `json:"deprecated,omitempty" protobuf:"varint,7,opt,name=deprecated"`
	// DeprecationWarning overrides the default deprecation warning.
	DeprecationWarning *string `json:"deprecationWarning,omitempty" protobuf:"bytes,8,opt,name=deprecationWarning"`
	// Schema validates, prunes and defaults objects at this version.
	Schema *CustomResourceValidation `json:"schema,omitempty" protobuf:"bytes,4,opt,name=schema"`
	// Subresources enables /status and /scale.
	Subresources *CustomResourceSubresources `json:"subresources,omitempty" protobuf:"bytes,5,opt,name=subresources"`
	// AdditionalPrinterColumns are the columns of kubectl get.
	AdditionalPrinterColumns []CustomResourceColumnDefinition `json:"additionalPrinterColumns,omitempty" protobuf:"bytes,6,rep,name=additionalPrinterColumns"`
	// SelectableFields are more fields usable in field selectors.
	SelectableFields []SelectableField `json:"selectableFields,omitempty" protobuf:"bytes,9,rep,name=selectableFields"`
}

// SelectableField names a field usable in field selectors.
type SelectableField struct {
	// JSONPath is a simple path such as .spec.color.
	JSONPath string `json:"jsonPath" protobuf:"bytes,1,opt,name=jsonPath"`
}

// CustomResourceValidation holds the schema of a version.
type CustomResourceValidation struct {
	// OpenAPIV3Schema is the structural schema of the whole object.
	OpenAPIV3Schema *JSONSchemaProps `json:"openAPIV3Schema,omitempty" protobuf:"bytes,1,opt,name=openAPIV3Schema"`
}

// CustomResourceSubresources enables the status and scale subresources.
type CustomResourceSubresources struct {
	// Status, when present, splits status writes to /status.
	Status *CustomResourceSubresourceStatus `json:"status,omitempty" protobuf:"bytes,1,opt,name=status"`
	// Scale, when present, serves /scale.
	Scale *CustomResourceSubresourceScale `json:"scale,omitempty" protobuf:"bytes,2,opt,name=scale"`
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
	SpecReplicasPath string `json:"specReplicasPath" protobuf:"bytes,1,name=specReplicasPath"`
	// StatusReplicasPath is a path under .status (.status.replicas).
	StatusReplicasPath string `json:"statusReplicasPath" protobuf:"bytes,2,opt,name=statusReplicasPath"`
	// LabelSelectorPath is a path under .status or .spec holding the
	// selector in string form.
	LabelSelectorPath *string `json:"labelSelectorPath,omitempty" protobuf:"bytes,3,opt,name=labelSelectorPath"`
}

// CustomResourceColumnDefinition is one column of kubectl get.
type CustomResourceColumnDefinition struct {
	// Name is the column header.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// Type is integer, number, string, boolean or date.
	Type string `json:"type" protobuf:"bytes,2,opt,name=type"`
	// Format refines the type (int32, date-time, name...).
	Format string `json:"format,omitempty" protobuf:"bytes,3,opt,name=format"`
	// Description is the column's help text.
	Description string `json:"description,omitempty" protobuf:"bytes,4,opt,name=description"`
	// Priority above 0 shows the column only with -o wide.
	Priority int32 `json:"priority,omitempty" protobuf:"bytes,5,opt,name=priority"`
	// JSONPath is the simple path of the value (.spec.userID).
	JSONPath string `json:"jsonPath" protobuf:"bytes,6,opt,name=jsonPath"`
}

// CustomResourceConversion says how objects convert between versions.
type CustomResourceConversion struct {
	// Strategy is None or Webhook.
	Strategy ConversionStrategyType `json:"strategy" protobuf:"bytes,1,name=strategy"`
	// Webhook configures the Webhook strategy (not run by kubesim).
	Webhook *WebhookConversion `json:"webhook,omitempty" protobuf:"bytes,2,opt,name=webhook"`
}

// WebhookConversion configures a conversion webhook.
type WebhookConversion struct {
	// ClientConfig says how to call the webhook.
	ClientConfig *WebhookClientConfig `json:"clientConfig,omitempty" protobuf:"bytes,2,name=clientConfig"`
	// ConversionReviewVersions are the ConversionReview versions it speaks.
	ConversionReviewVersions []string `json:"conversionReviewVersions" protobuf:"bytes,3,rep,name=conversionReviewVersions"`
}

// WebhookClientConfig is a webhook's address: a URL or a service.
type WebhookClientConfig struct {
	URL      *string           `json:"url,omitempty" protobuf:"bytes,3,opt,name=url"`
	Service  *ServiceReference `json:"service,omitempty" protobuf:"bytes,1,opt,name=service"`
	CABundle []byte            `json:"caBundle,omitempty" protobuf:"bytes,2,opt,name=caBundle"`
}

// ServiceReference names a service serving a webhook.
type ServiceReference struct {
	Namespace string  `json:"namespace" protobuf:"bytes,1,opt,name=namespace"`
	Name      string  `json:"name" protobuf:"bytes,2,opt,name=name"`
	Path      *string `json:"path,omitempty" protobuf:"bytes,3,opt,name=path"`
	Port      *int32  `json:"port,omitempty" protobuf:"varint,4,opt,name=port"`
}

// CustomResourceDefinitionStatus is what the API server reports.
type CustomResourceDefinitionStatus struct {
	// Fields of the Kubernetes type that kubesim does not model, by their
	// protobuf numbers: the codec reads past them, and writes the zero value
	// of the ones Kubernetes always writes (the non-struct{} ones).
	_ int64 `json:"-" protobuf:"varint,4,opt,name=observedGeneration"`
	// Conditions are NamesAccepted, Established, Terminating...
	Conditions []CustomResourceDefinitionCondition `json:"conditions,omitempty" protobuf:"bytes,1,opt,name=conditions"`
	// AcceptedNames are the names actually served.
	AcceptedNames CustomResourceDefinitionNames `json:"acceptedNames" protobuf:"bytes,2,opt,name=acceptedNames"`
	// StoredVersions are every version objects were ever stored at.
	StoredVersions []string `json:"storedVersions" protobuf:"bytes,3,rep,name=storedVersions"`
}

// CustomResourceDefinitionCondition is one condition of a CRD.
type CustomResourceDefinitionCondition struct {
	// Fields of the Kubernetes type that kubesim does not model, by their
	// protobuf numbers: the codec reads past them, and writes the zero value
	// of the ones Kubernetes always writes (the non-struct{} ones).
	_                  int64                                 `json:"-" protobuf:"varint,6,opt,name=observedGeneration"`
	Type               CustomResourceDefinitionConditionType `json:"type" protobuf:"bytes,1,opt,name=type,casttype=CustomResourceDefinitionConditionType"`
	Status             ConditionStatus                       `json:"status" protobuf:"bytes,2,opt,name=status,casttype=ConditionStatus"`
	LastTransitionTime Time                                  `json:"lastTransitionTime,omitempty" protobuf:"bytes,3,opt,name=lastTransitionTime"`
	Reason             string                                `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	Message            string                                `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
}

// CustomResourceDefinitionList is a list of CRDs.
type CustomResourceDefinitionList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the CRDs.
	Items []CustomResourceDefinition `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// CustomResourceDefinitionV1beta1 is apiextensions.k8s.io/v1beta1
// CustomResourceDefinition (removed in Kubernetes 1.22): one version may be
// given in spec.version, the schema in spec.validation, and subresources and
// columns at the top level for every version.
type CustomResourceDefinitionV1beta1 struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec describes the resource.
	Spec CustomResourceDefinitionSpecV1beta1 `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	// Status is the same as at v1.
	Status CustomResourceDefinitionStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// CustomResourceDefinitionSpecV1beta1 is the v1beta1 spec.
type CustomResourceDefinitionSpecV1beta1 struct {
	// Fields of the Kubernetes type that kubesim does not model, by their
	// protobuf numbers: the codec reads past them, and writes the zero value
	// of the ones Kubernetes always writes (the non-struct{} ones).
	_     struct{} `json:"-" protobuf:"bytes,11,rep,name=selectableFields"`
	Group string   `json:"group" protobuf:"bytes,1,opt,name=group"`
	// Version is the first version (deprecated in favour of versions).
	Version string                        `json:"version,omitempty" protobuf:"bytes,2,opt,name=version"`
	Names   CustomResourceDefinitionNames `json:"names" protobuf:"bytes,3,opt,name=names"`
	Scope   ResourceScope                 `json:"scope" protobuf:"bytes,4,opt,name=scope,casttype=ResourceScope"`
	// Validation is the schema of every version.
	Validation *CustomResourceValidation `json:"validation,omitempty" protobuf:"bytes,5,opt,name=validation"`
	// Subresources are the subresources of every version.
	Subresources *CustomResourceSubresources `json:"subresources,omitempty" protobuf:"bytes,6,opt,name=subresources"`
	// Versions are the served versions.
	Versions []CustomResourceDefinitionVersionV1beta1 `json:"versions,omitempty" protobuf:"bytes,7,rep,name=versions"`
	// AdditionalPrinterColumns are the columns of every version.
	AdditionalPrinterColumns []CustomResourceColumnDefinitionV1beta1 `json:"additionalPrinterColumns,omitempty" protobuf:"bytes,8,rep,name=additionalPrinterColumns"`
	Conversion               *CustomResourceConversionV1beta1        `json:"conversion,omitempty" protobuf:"bytes,9,opt,name=conversion"`
	// PreserveUnknownFields defaults to true at v1beta1: no pruning.
	PreserveUnknownFields *bool `json:"preserveUnknownFields,omitempty" protobuf:"varint,10,opt,name=preserveUnknownFields"`
}

// CustomResourceDefinitionVersionV1beta1 is one v1beta1 version.
type CustomResourceDefinitionVersionV1beta1 struct {
	// Fields of the Kubernetes type that kubesim does not model, by their
	// protobuf numbers: the codec reads past them, and writes the zero value
	// of the ones Kubernetes always writes (the non-struct{} ones).
	_                        struct{}                                `json:"-" protobuf:"bytes,9,rep,name=selectableFields"`
	Name                     string                                  `json:"name" protobuf:"bytes,1,opt,name=name"`
	Served                   bool                                    `json:"served" protobuf:"varint,2,opt,name=served"`
	Storage                  bool                                    `json:"storage" protobuf:"varint,3,opt,name=storage"`
	Deprecated               bool                                    `json:"deprecated,omitempty" protobuf:"varint,7,opt,name=deprecated"`
	DeprecationWarning       *string                                 `json:"deprecationWarning,omitempty" protobuf:"bytes,8,opt,name=deprecationWarning"`
	Schema                   *CustomResourceValidation               `json:"schema,omitempty" protobuf:"bytes,4,opt,name=schema"`
	Subresources             *CustomResourceSubresources             `json:"subresources,omitempty" protobuf:"bytes,5,opt,name=subresources"`
	AdditionalPrinterColumns []CustomResourceColumnDefinitionV1beta1 `json:"additionalPrinterColumns,omitempty" protobuf:"bytes,6,rep,name=additionalPrinterColumns"`
}

// CustomResourceColumnDefinitionV1beta1 is a v1beta1 column: its path
// field is spelled JSONPath.
type CustomResourceColumnDefinitionV1beta1 struct {
	Name        string `json:"name" protobuf:"bytes,1,opt,name=name"`
	Type        string `json:"type" protobuf:"bytes,2,opt,name=type"`
	Format      string `json:"format,omitempty" protobuf:"bytes,3,opt,name=format"`
	Description string `json:"description,omitempty" protobuf:"bytes,4,opt,name=description"`
	Priority    int32  `json:"priority,omitempty" protobuf:"bytes,5,opt,name=priority"`
	JSONPath    string `json:"JSONPath" protobuf:"bytes,6,opt,name=JSONPath"`
}

// CustomResourceConversionV1beta1 is the v1beta1 conversion settings.
type CustomResourceConversionV1beta1 struct {
	Strategy                 ConversionStrategyType `json:"strategy" protobuf:"bytes,1,name=strategy"`
	WebhookClientConfig      *WebhookClientConfig   `json:"webhookClientConfig,omitempty" protobuf:"bytes,2,name=webhookClientConfig"`
	ConversionReviewVersions []string               `json:"conversionReviewVersions,omitempty" protobuf:"bytes,3,rep,name=conversionReviewVersions"`
}

// CustomResourceDefinitionListV1beta1 is a list of v1beta1 CRDs.
type CustomResourceDefinitionListV1beta1 struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the CRDs.
	Items []CustomResourceDefinitionV1beta1 `json:"items" protobuf:"bytes,2,rep,name=items"`
}
