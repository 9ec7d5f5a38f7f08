package client

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/kubesim/kubesim/api"
)

// ServiceAccountsResource is core/v1 serviceaccounts.
var ServiceAccountsResource = ResourceInfo{Version: "v1", Resource: "serviceaccounts", Namespaced: true}

// ServiceAccounts is the typed client of service accounts.
func (c *Client) ServiceAccounts() *Resource[*api.ServiceAccount] {
	return For(c, ServiceAccountsResource, func() *api.ServiceAccount { return &api.ServiceAccount{} })
}

// CreateToken asks the API server for a token of a service account
// (POST serviceaccounts/NAME/token, a TokenRequest: what
// `kubectl create token` does) and returns the answer, the token in its
// status.
func (c *Client) CreateToken(ctx context.Context, ns, name string, req *api.TokenRequest) (*api.TokenRequest, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	out := &api.TokenRequest{}
	path := c.ServiceAccounts().path(ns, name, "token")
	if err := c.do(ctx, request{method: http.MethodPost, path: path, body: body, contentType: "application/json"}, out); err != nil {
		return nil, err
	}
	return out, nil
}
