package nodeproxy

import (
	"net/http"
	"strings"

	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/request"
)

// NodeSubresources are the node subresources served by the node's
// kubelet, by name: nodes/NAME/proxy/PATH (the node's ProxyREST), which
// forwards PATH and the query to the kubelet API — /metrics, /stats/summary,
// /containerLogs/... — as `kubectl get --raw /api/v1/nodes/node-1/proxy/metrics`
// and Prometheus' node scrapes through the API server use it. It is
// authorized as the resource nodes/proxy, which only the admin holds by
// default.
func NodeSubresources(kubelets ConnectionGetter) map[string]registry.ConnectSubresource {
	return map[string]registry.ConnectSubresource{
		"proxy": {Kind: "NodeProxyOptions", Verbs: []string{"create", "delete", "get", "patch", "update"}, Path: true,
			Serve: func(w http.ResponseWriter, r *http.Request, st *registry.Store, _, name string) error {
				if _, err := st.Get(r.Context(), "", name); err != nil {
					return err // a node that does not exist: NotFound
				}
				conn, err := kubelets.GetConnection(r.Context(), name)
				if err != nil {
					return err
				}
				path := "/"
				if parts := request.InfoOf(r).Parts; len(parts) > 3 {
					path += strings.Join(parts[3:], "/")
				}
				return Forward(w, r, conn, path, r.URL.Query())
			}},
	}
}
