package client

import (
	"context"
	"encoding/json"
	"net/http"
)

// PostSubresource posts obj to a subresource of ns/name and decodes the
// answer into out (serviceaccounts/token answers a TokenRequest).
func (r *Resource[T]) PostSubresource(ctx context.Context, ns, name, sub string, obj, out any) error {
	body, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	return r.c.do(ctx, request{method: http.MethodPost, path: r.path(ns, name, sub), body: body, contentType: "application/json"}, out)
}
