package nodeproxy

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
)

// PreferredAddressTypes is the order in which the API server picks the
// address of a node's kubelet: kubeadm's --kubelet-preferred-address-types
// (kube-apiserver's own default puts Hostname first, which needs DNS for
// the node names; kubesim's node names resolve nowhere).
var PreferredAddressTypes = []corev1.NodeAddressType{corev1.NodeInternalIP, corev1.NodeExternalIP, corev1.NodeHostName}

// NodeConnection is the way to the kubelet of a node that runs in
// another process (`kubesim kubelet`): the node's address of the first
// preferred type and its status.daemonEndpoints.kubeletEndpoint.port
// (10250 when unset), reached over HTTPS by transport (the kubelet
// client's NodeConnectionInfoGetter). A node without an address is
// refused, in kube-apiserver's words.
func NodeConnection(node *corev1.Node, transport http.RoundTripper) (Connection, error) {
	host := ""
	for _, t := range PreferredAddressTypes {
		for _, a := range node.Status.Addresses {
			if a.Type == t && a.Address != "" && host == "" {
				host = a.Address
			}
		}
	}
	if host == "" {
		return Connection{}, fmt.Errorf("no preferred addresses found; known addresses: %v", node.Status.Addresses)
	}
	port := node.Status.DaemonEndpoints.KubeletEndpoint.Port
	if port <= 0 {
		port = KubeletPort
	}
	return Connection{Host: net.JoinHostPort(host, strconv.Itoa(int(port))), Transport: transport}, nil
}

// KubeletTransport is how the API server dials kubelets in other
// processes: HTTPS without verifying the kubelet's serving certificate,
// as kube-apiserver does without --kubelet-certificate-authority (a
// kubelet that made its own self-signed certificate cannot be verified).
func KubeletTransport() http.RoundTripper {
	return &http.Transport{
		TLSClientConfig:     &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // kube-apiserver's default without --kubelet-certificate-authority
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		TLSHandshakeTimeout: 5 * time.Second,
	}
}

// forwardRemote proxies the request to a kubelet in another process; a
// connection upgrade (exec, attach, port-forward) is passed through by
// the reverse proxy. A kubelet that cannot be reached is the transport's
// error, as unreachable words it.
func forwardRemote(w http.ResponseWriter, out *http.Request, conn Connection) error {
	var dialErr error
	proxy := &httputil.ReverseProxy{
		Rewrite:       func(*httputil.ProxyRequest) {}, // out is already the kubelet's request
		Transport:     conn.Transport,
		FlushInterval: -1, // logs -f: every line as it comes
		ErrorHandler:  func(_ http.ResponseWriter, _ *http.Request, err error) { dialErr = err },
	}
	out.RequestURI = ""
	proxy.ServeHTTP(w, out)
	if dialErr == nil || errors.Is(dialErr, context.Canceled) {
		return nil
	}
	var ue *url.Error
	if errors.As(dialErr, &ue) {
		dialErr = ue.Err
	}
	if out.Header.Get("Upgrade") != "" {
		// The upgrade-aware proxy's words (exec, attach, port-forward).
		return &api.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusInternalServerError,
			Message: fmt.Sprintf("error dialing backend: %v", dialErr)}}
	}
	verb := "Get"
	if out.Method == http.MethodPost {
		verb = "Post"
	}
	return &api.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusInternalServerError,
		Message: fmt.Sprintf("%s %q: %v", verb, out.URL.String(), dialErr)}}
}
