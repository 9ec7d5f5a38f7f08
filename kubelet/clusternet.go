package kubelet

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/kubelet/containerenv"
	"github.com/kubesim/kubesim/kubelet/podnet"
	"github.com/kubesim/kubesim/kubelet/shell"
)

// clusterNetwork is the cluster network as a container's shell sees it
// (nslookup, wget): the part of CoreDNS's kubernetes plugin that answers
// Service and pod names, the part of kube-proxy that sends a connection
// to a Service's cluster IP on to one of its endpoints, the CNI plugin's
// NetworkPolicy enforcement (netpolicy.go) and the ingress-nginx
// controller's proxy (ingressnet.go). There is no DNS server, no proxy
// and no packet: the kubelet answers from the objects it reads from the
// API server, at the moment it is asked. A pod answers a connection only
// when kubesim knows what its image serves (simulatedServer) or runs it
// for real (the pod network). A connection a NetworkPolicy drops is
// never answered (shell.ErrTimedOut), and the container waits out its
// timeout. Left out: ExternalName and other record types, reverse
// lookups, session affinity, NodePorts, and every protocol but HTTP GET.
type clusterNetwork struct {
	k   *Kubelet
	pod *corev1.Pod
	// container is the container whose run asks (its volumes are read
	// live: ReadVolumeFile); empty for an exec.
	container string
}

// ClusterDNS is the address of the cluster DNS, the kube-dns Service's
// in a kubeadm or kind cluster: the nameserver of every pod's
// /etc/resolv.conf (the kubelet's --cluster-dns).
const ClusterDNS = "10.96.0.10"

// clusterDomain is the cluster's DNS domain.
const clusterDomain = "cluster.local"

var _ shell.Network = clusterNetwork{}

func (n clusterNetwork) Nameserver() string { return ClusterDNS }

// resolvConf is the /etc/resolv.conf the kubelet writes for a pod with
// dnsPolicy ClusterFirst.
func resolvConf(namespace string) string {
	return fmt.Sprintf("search %s.svc.%s svc.%s %s\nnameserver %s\noptions ndots:5\n",
		namespace, clusterDomain, clusterDomain, clusterDomain, ClusterDNS)
}

// LookupHost tries name with each search domain (it has fewer than five
// dots, ndots:5), then as written; a name no cluster record has may be an
// Ingress's host. The queries go to the cluster DNS: a NetworkPolicy that
// limits the pod's egress must let them out (dnsReachable), or the lookup
// times out.
func (n clusterNetwork) LookupHost(ctx context.Context, name string) (string, []string, error) {
	name = strings.TrimSuffix(strings.ToLower(name), ".")
	if net.ParseIP(name) != nil {
		return name, []string{name}, nil
	}
	if !n.dnsReachable(ctx) {
		return "", nil, shell.ErrTimedOut
	}
	candidates := []string{name}
	if !strings.HasSuffix(name, "."+clusterDomain) && strings.Count(name, ".") < 5 {
		ns := n.pod.Namespace
		candidates = []string{name + "." + ns + ".svc." + clusterDomain, name + ".svc." + clusterDomain, name + "." + clusterDomain, name}
	}
	for _, fqdn := range candidates {
		if addrs := n.resolve(ctx, fqdn); len(addrs) > 0 {
			return fqdn, addrs, nil
		}
	}
	if addrs := n.ingressHostAddresses(ctx, name); len(addrs) > 0 {
		return name, addrs, nil
	}
	return "", nil, shell.ErrNoSuchHost
}

// resolve answers one fully qualified name as CoreDNS's kubernetes plugin
// does: SERVICE.NS.svc.cluster.local is the Service's cluster IP, or, for
// a headless Service, the addresses of its ready endpoints;
// ENDPOINT.SERVICE.NS.svc.cluster.local is the ready endpoint whose
// hostname is ENDPOINT (a pod whose hostname and subdomain name the
// Service, as a StatefulSet's pods are named: web-0.nginx), or whose
// address, dashes for dots, is ENDPOINT (10-244-1-5.nginx); and
// A-B-C-D.NS.pod.cluster.local is the address A.B.C.D (the plugin's
// "pods insecure" mode, kubeadm's default). A not-ready pod has no name.
func (n clusterNetwork) resolve(ctx context.Context, fqdn string) []string {
	if rest, ok := strings.CutSuffix(fqdn, ".pod."+clusterDomain); ok {
		labels := strings.Split(rest, ".")
		if ip := net.ParseIP(strings.ReplaceAll(labels[0], "-", ".")); len(labels) == 2 && ip != nil && ip.To4() != nil {
			return []string{ip.String()}
		}
		return nil
	}
	rest, ok := strings.CutSuffix(fqdn, ".svc."+clusterDomain)
	if !ok {
		return nil
	}
	labels := strings.Split(rest, ".")
	switch len(labels) {
	case 2:
		svc, err := n.k.c.Services().Get(ctx, labels[1], labels[0])
		if err != nil {
			return nil
		}
		if svc.Spec.ClusterIP != "" && svc.Spec.ClusterIP != "None" {
			return []string{svc.Spec.ClusterIP}
		}
		var out []string
		for _, a := range n.endpointAddresses(ctx, labels[1], labels[0]) {
			out = append(out, a.IP)
		}
		return out
	case 3:
		for _, a := range n.endpointAddresses(ctx, labels[2], labels[1]) {
			if a.Hostname == labels[0] || a.Hostname == "" && strings.ReplaceAll(a.IP, ".", "-") == labels[0] {
				return []string{a.IP}
			}
		}
	}
	return nil
}

func (n clusterNetwork) endpointAddresses(ctx context.Context, ns, name string) []corev1.EndpointAddress {
	ep, err := n.k.c.Endpoints().Get(ctx, ns, name)
	if err != nil {
		return nil
	}
	var out []corev1.EndpointAddress
	for _, s := range ep.Subsets {
		out = append(out, s.Addresses...)
	}
	return out
}

// HTTPGet connects to req's ip:port — a Service's cluster IP, sent on to
// one of its ready endpoints, the ingress controller's, or a pod's IP —
// and asks for its path, if the NetworkPolicies of both ends let the
// connection through. The API server's address (the kubernetes Service's
// endpoint) is served by the API server; pods serve plain HTTP only.
func (n clusterNetwork) HTTPGet(ctx context.Context, req shell.HTTPRequest) (shell.HTTPResponse, error) {
	if ip := net.ParseIP(req.IP); ip != nil && ip.IsLoopback() {
		// localhost is the pod itself: its containers share one network
		// namespace, and no NetworkPolicy stands between them.
		ip := n.ownIP()
		if ip == "" {
			return shell.HTTPResponse{}, shell.ErrConnectionRefused
		}
		code, body, err := n.podGet(ctx, "127.0.0.1", ip, req.Port, req.Path, req.Host)
		return shell.HTTPResponse{Code: code, Body: body}, err
	}
	if n.isIngressController(ctx, req.IP, req.Port) {
		return n.ingressGet(ctx, req)
	}
	backendIP, backendPort, err := n.route(ctx, req.IP, req.Port)
	if err != nil {
		return shell.HTTPResponse{}, err
	}
	if !n.allowed(ctx, n.self(ctx), n.peerAt(ctx, backendIP), corev1.ProtocolTCP, backendPort) {
		return shell.HTTPResponse{}, shell.ErrTimedOut
	}
	var code int
	var body []byte
	switch api := n.k.cfg.APIServer; {
	case api != nil && net.JoinHostPort(backendIP, backendPort) == api.Address:
		code, body, err = n.apiServerGet(ctx, api.Handler, req.Scheme, req.Path)
	case req.Scheme != "http" && req.Scheme != "":
		return shell.HTTPResponse{}, shell.ErrConnectionRefused
	default:
		code, body, err = n.podGet(ctx, n.pod.Status.PodIP, backendIP, backendPort, req.Path, req.Host)
	}
	return shell.HTTPResponse{Code: code, Body: body}, err
}

// apiServerGet asks the API server for path as a container's request
// reaches it: from the pod's address, with no credentials. Plain HTTP to
// its TLS port gets Go's answer to that, as from kube-apiserver.
func (n clusterNetwork) apiServerGet(ctx context.Context, h http.Handler, scheme, path string) (int, []byte, error) {
	if scheme != "https" {
		return http.StatusBadRequest, []byte("Client sent an HTTP request to an HTTPS server.\n"), nil
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req := httptest.NewRequestWithContext(ctx, http.MethodGet, "https://kubernetes.default.svc"+path, nil)
	if n.pod.Status.PodIP != "" {
		req.RemoteAddr = net.JoinHostPort(n.pod.Status.PodIP, "40000")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	body := rec.Body.Bytes()
	if len(body) > 1<<20 {
		body = body[:1<<20]
	}
	return rec.Code, body, nil
}

// Ping answers for the addresses that answer an ICMP echo: the pod
// itself (localhost too), a running pod, a node. A Service's cluster IP
// does not, as with kube-proxy's iptables rules, which only forward the
// Service's ports. Left out: NetworkPolicies, which say nothing of ICMP
// in their rules but drop it for an isolated pod on most plugins.
func (n clusterNetwork) Ping(ctx context.Context, ip string) error {
	if addr := net.ParseIP(ip); addr != nil && addr.IsLoopback() || ip == n.ownIP() {
		return nil
	}
	if p := n.peerAt(ctx, ip); p.Pod != nil && p.Pod.Status.Phase == corev1.PodRunning {
		return nil
	}
	// The pod network knows the nodes (kindnetd reads them; a kubelet may
	// read only its own).
	if nodes, err := n.k.networkPolicyClient().Nodes().List(ctx, "", client.ListOptions{}); err == nil {
		for _, node := range nodes.Items {
			for _, a := range node.Status.Addresses {
				if a.Address == ip {
					return nil
				}
			}
		}
	}
	return shell.ErrTimedOut
}

// ownIP is the pod's address: its status's, or, before the status is
// written, the one the kubelet gave it.
func (n clusterNetwork) ownIP() string {
	if n.pod.Status.PodIP != "" {
		return n.pod.Status.PodIP
	}
	n.k.stateMu.Lock()
	defer n.k.stateMu.Unlock()
	if rt := n.k.runtimes[n.pod.Namespace+"/"+n.pod.Name]; rt != nil {
		return rt.ip
	}
	return ""
}

// route is kube-proxy's part: a cluster IP and Service port become an
// endpoint's address and port; any other address is taken as a pod's.
func (n clusterNetwork) route(ctx context.Context, ip, port string) (string, string, error) {
	list, err := n.k.c.Services().List(ctx, "", client.ListOptions{})
	if err != nil {
		return "", "", shell.ErrConnectionRefused
	}
	for _, svc := range list.Items {
		if svc.Spec.ClusterIP != ip || ip == "" {
			continue
		}
		var sp *corev1.ServicePort
		for i := range svc.Spec.Ports {
			if strconv.Itoa(int(svc.Spec.Ports[i].Port)) == port {
				sp = &svc.Spec.Ports[i]
			}
		}
		if sp == nil {
			return "", "", shell.ErrConnectionRefused // no rule for that port
		}
		ep, err := n.k.c.Endpoints().Get(ctx, svc.Namespace, svc.Name)
		if err != nil {
			return "", "", shell.ErrConnectionRefused // no endpoints: kube-proxy rejects
		}
		backends := api.EndpointsOfPort(ep, sp.Name)
		if len(backends) == 0 {
			return "", "", shell.ErrConnectionRefused
		}
		b := backends[(n.k.proxyTurn.Add(1)-1)%uint64(len(backends))]
		return b.IP, strconv.Itoa(int(b.Port)), nil
	}
	return ip, port, nil
}

// podGet asks the pod at ip for path on port (with the Host header host),
// from the address from: an HTTP exchange over the pod network, which
// reaches a pod run for real, or routes to the kubelet of the pod's node,
// whose container's simulated server answers (listen.go); without a pod
// network, only this node's pods answer.
func (n clusterNetwork) podGet(ctx context.Context, from, ip, port, path, host string) (int, []byte, error) {
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		if c, ok := n.k.dialSimulated(ctx, ip, port); ok {
			return c, nil
		}
		return nil, shell.ErrConnectionRefused
	}
	if pn := n.k.cfg.Network; pn != nil {
		dial = pn.DialContext
	}
	return realGet(podnet.WithSource(ctx, from), dial, ip+":"+port, path, host)
}

// realGet is an HTTP GET over the pod network, as busybox's wget sends
// it (its User-Agent, one request on the connection).
func realGet(ctx context.Context, dial func(context.Context, string, string) (net.Conn, error), addr, path, host string) (int, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	hc := &http.Client{Transport: &http.Transport{DialContext: dial, DisableKeepAlives: true, DisableCompression: true}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+path, nil)
	if err != nil {
		return 0, nil, err
	}
	if host != "" {
		req.Host = host
	}
	req.Header.Set("User-Agent", "Wget")
	resp, err := hc.Do(req)
	if err != nil {
		return 0, nil, shell.ErrConnectionRefused
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, body, err
}

// ReadVolumeFile reads a file of the container's ConfigMap, Secret,
// projected or downward API volumes as the kubelet would have rewritten it
// by now: from the objects and the pod as the API server has them.
func (n clusterNetwork) ReadVolumeFile(ctx context.Context, name string) ([]byte, bool) {
	pod := n.pod
	n.k.mu.Lock()
	inf := n.k.loops.pods
	n.k.mu.Unlock()
	if inf != nil {
		if p, ok := inf.Get(pod.Namespace, pod.Name); ok && p.UID == pod.UID {
			pod = p
		}
	}
	c := specContainer(pod, n.container)
	if c == nil {
		return nil, false
	}
	env := containerenv.Build(ctx, pod, c, simSources{envSources: n.k.envSources(false)})
	return shell.ReadFile(env, name)
}
