package client

import "github.com/kubesim/kubesim/api"

// ServiceAccountsResource is core/v1 serviceaccounts (issue 14).
var ServiceAccountsResource = ResourceInfo{Version: "v1", Resource: "serviceaccounts", Namespaced: true}

// ServiceAccounts is the typed client of service accounts.
func (c *Client) ServiceAccounts() *Resource[*api.ServiceAccount] {
	return For(c, ServiceAccountsResource, func() *api.ServiceAccount { return &api.ServiceAccount{} })
}
