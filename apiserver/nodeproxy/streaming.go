package nodeproxy

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// streamingSubresources are pods/exec, pods/attach and pods/portforward
// (the pod's ExecREST, AttachREST and PortForwardREST): find the pod's
// container and node, and hand the upgrade to the kubelet. A WebSocket
// is a GET (authorized as get, as in Kubernetes 1.32; 1.35 adds a check
// of create), SPDY a POST (authorized as create).
func streamingSubresources(kubelets ConnectionGetter) map[string]registry.ConnectSubresource {
	verbs := []string{"get", "create"}
	return map[string]registry.ConnectSubresource{
		"exec": {Verbs: verbs, NewConnectOptions: newExecOptions, Serve: func(w http.ResponseWriter, r *http.Request, st *registry.Store, ns, name string) error {
			return streamTo(w, r, st, kubelets, ns, name, "exec")
		}},
		"attach": {Verbs: verbs, NewConnectOptions: newAttachOptions, Serve: func(w http.ResponseWriter, r *http.Request, st *registry.Store, ns, name string) error {
			return streamTo(w, r, st, kubelets, ns, name, "attach")
		}},
		"portforward": {Verbs: verbs, NewConnectOptions: newPortForwardOptions, Serve: func(w http.ResponseWriter, r *http.Request, st *registry.Store, ns, name string) error {
			return streamTo(w, r, st, kubelets, ns, name, "portForward")
		}},
	}
}

// streamTo is streamLocation and the upgrade-aware proxy: the pod's
// checks, the kubelet's path and parameters, then the kubelet answers
// on the client's own connection.
func streamTo(w http.ResponseWriter, r *http.Request, st *registry.Store, kubelets ConnectionGetter, ns, name, kind string) error {
	obj, err := st.Get(r.Context(), ns, name)
	if err != nil {
		return err
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return api.NewInternalError(fmt.Errorf("pod store returned %T", obj))
	}
	q := r.URL.Query()
	path := fmt.Sprintf("/portForward/%s/%s", pod.Namespace, pod.Name)
	var params url.Values
	if kind == "portForward" {
		if params, err = portForwardParams(q); err != nil {
			return err
		}
	} else {
		container, err := ValidateContainer(q.Get("container"), pod)
		if err != nil {
			return err
		}
		if params, err = streamParams(q, kind == "exec"); err != nil {
			return err
		}
		path = fmt.Sprintf("/%s/%s/%s/%s", kind, pod.Namespace, pod.Name, container)
	}
	if pod.Spec.NodeName == "" {
		return api.NewBadRequest(fmt.Sprintf("pod %s does not have a host assigned", name))
	}
	conn, err := kubelets.GetConnection(r.Context(), pod.Spec.NodeName)
	if err != nil {
		return err
	}
	if conn.Handler == nil && conn.Transport == nil {
		// The upgrade-aware proxy's dial failure (a 500 without reason).
		return &api.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusInternalServerError,
			Message: fmt.Sprintf("error dialing backend: dial tcp %s: connect: connection refused", conn.Host)}}
	}
	return Forward(w, r, conn, path, params)
}

// streamParams checks PodExecOptions or PodAttachOptions and writes them
// as the kubelet reads them (input, output, error, tty, command).
func streamParams(q url.Values, exec bool) (url.Values, error) {
	out := url.Values{}
	for _, p := range []struct{ api, kubelet string }{{"stdin", "input"}, {"stdout", "output"}, {"stderr", "error"}, {"tty", "tty"}} {
		v := q.Get(p.api)
		if v == "" {
			continue
		}
		on, err := strconv.ParseBool(v)
		if err != nil {
			return nil, api.NewBadRequest(fmt.Sprintf("invalid value %q for %s: %v", v, p.api, err))
		}
		if on {
			out.Set(p.kubelet, "1")
		}
	}
	if out.Get("input") == "" && out.Get("output") == "" && out.Get("error") == "" {
		return nil, api.NewBadRequest("you must specify at least 1 of stdin, stdout, stderr")
	}
	if exec {
		cmd := q["command"]
		if len(cmd) == 0 {
			return nil, api.NewBadRequest("you must specify at least one command for the container")
		}
		out["command"] = cmd
	}
	return out, nil
}

// portForwardParams passes the ports asked for, each a valid port.
func portForwardParams(q url.Values) (url.Values, error) {
	out := url.Values{}
	var ports []string
	for _, p := range q["ports"] {
		for _, one := range strings.Split(p, ",") {
			n, err := strconv.ParseUint(strings.TrimSpace(one), 10, 16)
			if err != nil || n == 0 {
				return nil, api.NewBadRequest(fmt.Sprintf("invalid port %q: port must be between 1 and 65535", one))
			}
			ports = append(ports, strconv.FormatUint(n, 10))
		}
	}
	if len(ports) > 0 {
		out.Set("port", strings.Join(ports, ","))
	}
	return out, nil
}
