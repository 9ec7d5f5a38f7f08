package client

import (
	"context"
	"net/http"

	"github.com/kubesim/kubesim/api/jsoncodec"
)

// PostSubresource posts obj to a subresource of ns/name and decodes the
// answer into out (serviceaccounts/token answers a TokenRequest).
func (r *Resource[T]) PostSubresource(ctx context.Context, ns, name, sub string, obj, out any) error {
	body, err := jsoncodec.Marshal(obj)
	if err != nil {
		return err
	}
	return r.c.do(ctx, request{method: http.MethodPost, path: r.path(ns, name, sub), body: body, contentType: "application/json"}, out)
}
