package client

import (
	"context"
	"encoding/json"
	"net/http"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
)

// ServiceAccountsResource is core/v1 serviceaccounts.
var ServiceAccountsResource = ResourceInfo{Version: "v1", Resource: "serviceaccounts", Namespaced: true}

// ServiceAccounts is the typed client of service accounts.
func (c *Client) ServiceAccounts() *Resource[*corev1.ServiceAccount] {
	return For(c, ServiceAccountsResource, func() *corev1.ServiceAccount { return &corev1.ServiceAccount{} })
}

// CreateToken asks the API server for a token of a service account
// (POST serviceaccounts/NAME/token, a TokenRequest: what
// `kubectl create token` does) and returns the answer, the token in its
// status.
func (c *Client) CreateToken(ctx context.Context, ns, name string, req *authenticationv1.TokenRequest) (*authenticationv1.TokenRequest, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	out := &authenticationv1.TokenRequest{}
	path := c.ServiceAccounts().path(ns, name, "token")
	if err := c.do(ctx, request{method: http.MethodPost, path: path, body: body, contentType: "application/json"}, out); err != nil {
		return nil, err
	}
	return out, nil
}
