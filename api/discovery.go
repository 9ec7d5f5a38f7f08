package api

// APIVersions lists the versions of the legacy core API, served at /api.
type APIVersions struct {
	TypeMeta `json:",inline"`
	// Versions are the core versions, just "v1".
	Versions []string `json:"versions"`
	// ServerAddressByClientCIDRs tells clients where to reach the server.
	ServerAddressByClientCIDRs []ServerAddressByClientCIDR `json:"serverAddressByClientCIDRs"`
}

// ServerAddressByClientCIDR is the server address for clients in a CIDR.
type ServerAddressByClientCIDR struct {
	// ClientCIDR is the client network.
	ClientCIDR string `json:"clientCIDR"`
	// ServerAddress is host:port.
	ServerAddress string `json:"serverAddress"`
}

// APIGroupList lists the named groups, served at /apis.
type APIGroupList struct {
	TypeMeta `json:",inline"`
	// Groups are the API groups.
	Groups []APIGroup `json:"groups"`
}

// APIGroup describes one group and its versions, served at /apis/<group>.
type APIGroup struct {
	TypeMeta `json:",inline"`
	// Name of the group, such as apps.
	Name string `json:"name"`
	// Versions served, preferred first.
	Versions []GroupVersionForDiscovery `json:"versions"`
	// PreferredVersion is the version clients should use.
	PreferredVersion GroupVersionForDiscovery `json:"preferredVersion,omitempty"`
	// ServerAddressByClientCIDRs tells clients where to reach the server.
	ServerAddressByClientCIDRs []ServerAddressByClientCIDR `json:"serverAddressByClientCIDRs,omitempty"`
}

// GroupVersionForDiscovery is one version of a group.
type GroupVersionForDiscovery struct {
	// GroupVersion is "group/version".
	GroupVersion string `json:"groupVersion"`
	// Version is the version alone.
	Version string `json:"version"`
}

// APIResourceList lists the resources of one group version, served at
// /api/v1 and /apis/<group>/<version>.
type APIResourceList struct {
	TypeMeta `json:",inline"`
	// GroupVersion is "group/version" ("v1" for core).
	GroupVersion string `json:"groupVersion"`
	// APIResources are the resources and subresources.
	APIResources []APIResource `json:"resources"`
}

// APIResource describes one resource or subresource ("pods/status").
type APIResource struct {
	// Name is the plural, or resource/subresource.
	Name string `json:"name"`
	// SingularName is the lower-case singular, such as pod.
	SingularName string `json:"singularName"`
	// Namespaced is true for namespace-scoped resources.
	Namespaced bool `json:"namespaced"`
	// Group is set when it differs from the list's (subresources).
	Group string `json:"group,omitempty"`
	// Version is set when it differs from the list's (subresources).
	Version string `json:"version,omitempty"`
	// Kind of the objects, such as Pod.
	Kind string `json:"kind"`
	// Verbs supported: get, list, watch, create, update, patch, delete,
	// deletecollection.
	Verbs []string `json:"verbs"`
	// ShortNames are kubectl aliases, such as po.
	ShortNames []string `json:"shortNames,omitempty"`
	// Categories group resources, such as "all".
	Categories []string `json:"categories,omitempty"`
	// StorageVersionHash changes when the storage version changes.
	StorageVersionHash string `json:"storageVersionHash,omitempty"`
}
