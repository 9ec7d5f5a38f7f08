package api

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// APIVersions lists the versions of the legacy core API, served at /api.
type APIVersions = metav1.APIVersions

// ServerAddressByClientCIDR is the server address for clients in a CIDR.
type ServerAddressByClientCIDR = metav1.ServerAddressByClientCIDR

// APIGroupList lists the named groups, served at /apis.
type APIGroupList = metav1.APIGroupList

// APIGroup describes one group and its versions, served at /apis/<group>.
type APIGroup = metav1.APIGroup

// GroupVersionForDiscovery is one version of a group.
type GroupVersionForDiscovery = metav1.GroupVersionForDiscovery

// APIResourceList lists the resources of one group version, served at
// /api/v1 and /apis/<group>/<version>.
type APIResourceList = metav1.APIResourceList

// APIResource describes one resource or subresource ("pods/status").
type APIResource = metav1.APIResource

// Verbs are the verbs a resource supports, in discovery.
type Verbs = metav1.Verbs
