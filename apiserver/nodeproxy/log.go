package nodeproxy

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// logSubresource serves GET pods/NAME/log (the pod's LogREST): validate
// the options, find the container and the node, and forward to the
// kubelet's /containerLogs, whose stream is the answer.
func logSubresource(kubelets ConnectionGetter) registry.ConnectSubresource {
	return registry.ConnectSubresource{Verbs: []string{"get"}, Serve: func(w http.ResponseWriter, r *http.Request, st *registry.Store, ns, name string) error {
		params, err := logParams(r.URL.Query(), name)
		if err != nil {
			return err
		}
		obj, err := st.Get(r.Context(), ns, name)
		if err != nil {
			return err
		}
		pod, ok := obj.(*corev1.Pod)
		if !ok {
			return api.NewInternalError(fmt.Errorf("pod store returned %T", obj))
		}
		container, err := ValidateContainer(r.URL.Query().Get("container"), pod)
		if err != nil {
			return err
		}
		if pod.Spec.NodeName == "" {
			// Not scheduled: no kubelet has anything to say (LogLocation
			// returns no location, and the answer is empty).
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(http.StatusOK)
			return nil
		}
		conn, err := kubelets.GetConnection(r.Context(), pod.Spec.NodeName)
		if err != nil {
			return err
		}
		return ForwardStream(w, r, conn, fmt.Sprintf("/containerLogs/%s/%s/%s", pod.Namespace, pod.Name, container), params,
			schema.GroupResource{Resource: "pods"}, name)
	}}
}

// logParams checks the PodLogOptions of the query (ValidatePodLogOptions)
// and returns the parameters passed on to the kubelet.
func logParams(q url.Values, name string) (url.Values, error) {
	out := url.Values{}
	var errs field.ErrorList
	for _, b := range []string{"follow", "previous", "timestamps"} {
		if v := q.Get(b); v != "" {
			on, err := strconv.ParseBool(v)
			if err != nil {
				return nil, api.NewBadRequest(fmt.Sprintf("invalid value %q for %s: %v", v, b, err))
			}
			if on {
				out.Set(b, "true")
			}
		}
	}
	ints := []struct {
		key string
		min int64
		msg string
	}{
		{"tailLines", 0, "must be greater than or equal to 0"},
		{"limitBytes", 1, "must be greater than 0"},
		{"sinceSeconds", 1, "must be greater than 0"},
	}
	for _, p := range ints {
		v := q.Get(p.key)
		if v == "" {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, api.NewBadRequest(fmt.Sprintf("invalid value %q for %s: %v", v, p.key, err))
		}
		if n < p.min {
			errs = append(errs, field.Invalid(field.NewPath(p.key), n, p.msg))
			continue
		}
		out.Set(p.key, v)
	}
	if v := q.Get("sinceTime"); v != "" {
		if _, err := time.Parse(time.RFC3339, v); err != nil {
			return nil, api.NewBadRequest(fmt.Sprintf("invalid value %q for sinceTime: %v", v, err))
		}
		if q.Get("sinceSeconds") != "" {
			errs = append(errs, field.Forbidden(field.NewPath(""), "at most one of `sinceTime` or `sinceSeconds` may be specified"))
		}
		out.Set("sinceTime", v)
	}
	if len(errs) > 0 {
		return nil, api.NewInvalid(schema.GroupKind{Kind: "PodLogOptions"}, name, errs)
	}
	return out, nil
}
