package api

// APIVersions lists the versions of the legacy core API, served at /api.
type APIVersions struct {
	TypeMeta `json:",inline"`
	// Versions are the core versions, just "v1".
	Versions []string `json:"versions" protobuf:"bytes,1,rep,name=versions"`
	// ServerAddressByClientCIDRs tells clients where to reach the server.
	ServerAddressByClientCIDRs []ServerAddressByClientCIDR `json:"serverAddressByClientCIDRs" protobuf:"bytes,2,rep,name=serverAddressByClientCIDRs"`
}

// ServerAddressByClientCIDR is the server address for clients in a CIDR.
type ServerAddressByClientCIDR struct {
	// ClientCIDR is the client network.
	ClientCIDR string `json:"clientCIDR" protobuf:"bytes,1,opt,name=clientCIDR"`
	// ServerAddress is host:port.
	ServerAddress string `json:"serverAddress" protobuf:"bytes,2,opt,name=serverAddress"`
}

// APIGroupList lists the named groups, served at /apis.
type APIGroupList struct {
	TypeMeta `json:",inline"`
	// Groups are the API groups.
	Groups []APIGroup `json:"groups" protobuf:"bytes,1,rep,name=groups"`
}

// APIGroup describes one group and its versions, served at /apis/<group>.
type APIGroup struct {
	TypeMeta `json:",inline"`
	// Name of the group, such as apps.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// Versions served, preferred first.
	Versions []GroupVersionForDiscovery `json:"versions" protobuf:"bytes,2,rep,name=versions"`
	// PreferredVersion is the version clients should use.
	PreferredVersion GroupVersionForDiscovery `json:"preferredVersion,omitempty" protobuf:"bytes,3,opt,name=preferredVersion"`
	// ServerAddressByClientCIDRs tells clients where to reach the server.
	ServerAddressByClientCIDRs []ServerAddressByClientCIDR `json:"serverAddressByClientCIDRs,omitempty" protobuf:"bytes,4,rep,name=serverAddressByClientCIDRs"`
}

// GroupVersionForDiscovery is one version of a group.
type GroupVersionForDiscovery struct {
	// GroupVersion is "group/version".
	GroupVersion string `json:"groupVersion" protobuf:"bytes,1,opt,name=groupVersion"`
	// Version is the version alone.
	Version string `json:"version" protobuf:"bytes,2,opt,name=version"`
}

// APIResourceList lists the resources of one group version, served at
// /api/v1 and /apis/<group>/<version>.
type APIResourceList struct {
	TypeMeta `json:",inline"`
	// GroupVersion is "group/version" ("v1" for core).
	GroupVersion string `json:"groupVersion" protobuf:"bytes,1,opt,name=groupVersion"`
	// APIResources are the resources and subresources.
	APIResources []APIResource `json:"resources" protobuf:"bytes,2,rep,name=resources"`
}

// APIResource describes one resource or subresource ("pods/status").
type APIResource struct {
	// Name is the plural, or resource/subresource.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// SingularName is the lower-case singular, such as pod.
	SingularName string `json:"singularName" protobuf:"bytes,6,opt,name=singularName"`
	// Namespaced is true for namespace-scoped resources.
	Namespaced bool `json:"namespaced" protobuf:"varint,2,opt,name=namespaced"`
	// Group is set when it differs from the list's (subresources).
	Group string `json:"group,omitempty" protobuf:"bytes,8,opt,name=group"`
	// Version is set when it differs from the list's (subresources).
	Version string `json:"version,omitempty" protobuf:"bytes,9,opt,name=version"`
	// Kind of the objects, such as Pod.
	Kind string `json:"kind" protobuf:"bytes,3,opt,name=kind"`
	// Verbs supported: get, list, watch, create, update, patch, delete,
	// deletecollection.
	Verbs []string `json:"verbs" protobuf:"bytes,4,opt,name=verbs"`
	// ShortNames are kubectl aliases, such as po.
	ShortNames []string `json:"shortNames,omitempty" protobuf:"bytes,5,rep,name=shortNames"`
	// Categories group resources, such as "all".
	Categories []string `json:"categories,omitempty" protobuf:"bytes,7,rep,name=categories"`
	// StorageVersionHash changes when the storage version changes.
	StorageVersionHash string `json:"storageVersionHash,omitempty" protobuf:"bytes,10,opt,name=storageVersionHash"`
}
