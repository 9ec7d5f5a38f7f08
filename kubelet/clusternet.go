package kubelet

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/kubelet/containerenv"
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
}

// clusterDNSIP is the cluster DNS Service's address in a kubeadm or kind
// cluster (the tenth of 10.96.0.0/12), what resolv.conf names.
const clusterDNSIP = "10.96.0.10"

// clusterDomain is the cluster's DNS domain.
const clusterDomain = "cluster.local"

var _ shell.Network = clusterNetwork{}

func (n clusterNetwork) Nameserver() string { return clusterDNSIP }

// resolvConf is the /etc/resolv.conf the kubelet writes for a pod with
// dnsPolicy ClusterFirst.
func resolvConf(namespace string) string {
	return fmt.Sprintf("search %s.svc.%s svc.%s %s\nnameserver %s\noptions ndots:5\n",
		namespace, clusterDomain, clusterDomain, clusterDomain, clusterDNSIP)
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

// resolve answers one fully qualified name: SERVICE.NS.svc.cluster.local
// (its cluster IP, or a headless Service's endpoints) and
// HOSTNAME.SERVICE.NS.svc.cluster.local (a pod of a headless Service, as
// a StatefulSet's pods are named).
func (n clusterNetwork) resolve(ctx context.Context, fqdn string) []string {
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
			if a.Hostname == labels[0] {
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
// connection through.
func (n clusterNetwork) HTTPGet(ctx context.Context, req shell.HTTPRequest) (shell.HTTPResponse, error) {
	if ip := net.ParseIP(req.IP); ip != nil && ip.IsLoopback() {
		// localhost is the pod itself: its containers share one network
		// namespace, and no NetworkPolicy stands between them.
		code, body, err := n.podGet(ctx, n.ownIP(), req.Port, req.Path, req.Host)
		return shell.HTTPResponse{Code: code, Body: body}, err
	}
	if n.isIngressController(ctx, req.IP, req.Port) {
		return n.ingressGet(ctx, req)
	}
	podIP, podPort, err := n.route(ctx, req.IP, req.Port)
	if err != nil {
		return shell.HTTPResponse{}, err
	}
	if !n.allowed(ctx, n.self(ctx), n.peerAt(ctx, podIP), corev1.ProtocolTCP, podPort) {
		return shell.HTTPResponse{}, shell.ErrTimedOut
	}
	code, body, err := n.podGet(ctx, podIP, podPort, req.Path, req.Host)
	return shell.HTTPResponse{Code: code, Body: body}, err
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
		type backend struct{ ip, port string }
		var backends []backend
		for _, s := range ep.Subsets {
			for _, p := range s.Ports {
				if p.Name != sp.Name {
					continue
				}
				for _, a := range s.Addresses {
					backends = append(backends, backend{a.IP, strconv.Itoa(int(p.Port))})
				}
			}
		}
		if len(backends) == 0 {
			return "", "", shell.ErrConnectionRefused
		}
		b := backends[(n.k.proxyTurn.Add(1)-1)%uint64(len(backends))]
		return b.ip, b.port, nil
	}
	return ip, port, nil
}

// podGet asks the pod at ip for path on port (with the Host header host):
// through the pod network, which reaches a pod run for real, or routes to
// the kubelet of the pod's node (simulatedHTTP); without a pod network,
// only this node's pods answer.
func (n clusterNetwork) podGet(ctx context.Context, ip, port, path, host string) (int, []byte, error) {
	pn := n.k.cfg.Network
	if pn == nil {
		if code, body, ok := n.k.simulatedHTTP(ctx, ip, port, path); ok {
			return code, body, nil
		}
		return 0, nil, shell.ErrConnectionRefused
	}
	if _, ok := pn.Lookup(ip + ":" + port); ok {
		return realGet(ctx, pn.DialContext, ip+":"+port, path, host)
	}
	if code, body, ok := pn.SimulatedGet(ctx, ip, port, path); ok {
		return code, body, nil
	}
	return 0, nil, shell.ErrConnectionRefused
}

// simulatedHTTP answers for this node's pods (a podnet.SimulatedServer):
// the running pod with address ip, if a running container's image is
// known to serve port (simulatedServer).
func (k *Kubelet) simulatedHTTP(ctx context.Context, ip, port, path string) (int, []byte, bool) {
	k.stateMu.Lock()
	var key string
	var running []string
	layers := map[string]*shell.Layer{}
	for kk, rt := range k.runtimes {
		if rt.ip == ip && rt.stage == stageStarted {
			key = kk
			for _, c := range rt.containers {
				if c.state == containerRunning && !c.ephemeral {
					running = append(running, c.name)
					layers[c.name] = c.layer
				}
			}
		}
	}
	k.stateMu.Unlock()
	if key == "" {
		return 0, nil, false
	}
	k.mu.Lock()
	inf := k.loops.pods
	k.mu.Unlock()
	ns, name, _ := strings.Cut(key, "/")
	pod, ok := inf.Get(ns, name)
	if !ok {
		return 0, nil, false
	}
	for i := range pod.Spec.Containers {
		c := &pod.Spec.Containers[i]
		if slices.Contains(running, c.Name) {
			files := func(p string) ([]byte, bool) {
				if data, ok := layers[c.Name].ReadFile(p); ok {
					return data, true
				}
				if !mountsUnder(c, p) {
					return nil, false
				}
				// A ConfigMap or Secret volume's files (no token: the
				// server reads its pages, not its credentials).
				data, ok := containerenv.Build(ctx, pod, c, simSources{envSources{k.c}}).Files[p]
				return data, ok
			}
			if code, body, ok := simulatedServer(pod, c, port, path, files); ok {
				return code, body, true
			}
		}
	}
	return 0, nil, false
}

// realGet is an HTTP GET over the pod network.
func realGet(ctx context.Context, dial func(context.Context, string, string) (net.Conn, error), addr, path, host string) (int, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	hc := &http.Client{Transport: &http.Transport{DialContext: dial}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+path, nil)
	if err != nil {
		return 0, nil, err
	}
	if host != "" {
		req.Host = host
	}
	resp, err := hc.Do(req)
	if err != nil {
		return 0, nil, shell.ErrConnectionRefused
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, body, err
}

// simulatedServer is what the images of the tutorials answer on their
// port: nginx (and the StatefulSet tutorial's nginx-slim) its welcome
// page on 80, serve_hostname (and agnhost
// serve-hostname) the pod's name on 9376, http-echo its -text on 5678 (or
// -listen), the Kubernetes Basics bootcamp its greeting on 8080,
// google-samples' hello-app its version and hostname on 8080, the HPA
// walkthrough's php-apache "OK!" on 80. Any other container listens
// nowhere.
func simulatedServer(pod *corev1.Pod, c *corev1.Container, port, path string, files func(string) ([]byte, bool)) (int, []byte, bool) {
	repo := imageRepo(c.Image)
	argv := append(append([]string(nil), c.Command...), c.Args...)
	base := repo[strings.LastIndex(repo, "/")+1:]
	switch {
	case (base == "nginx" || base == "nginx-slim") && port == "80":
		// nginx serves /usr/share/nginx/html: what was written there (the
		// StatefulSet tutorial's echo $(hostname) > index.html) or
		// mounted there (a ConfigMap's pages); a volume mounted over it
		// hides the image's welcome page, and a directory without an
		// index is forbidden.
		file := nginxRoot + strings.SplitN(path, "?", 2)[0]
		if strings.HasSuffix(file, "/") {
			file += "index.html"
		}
		if files != nil {
			if data, ok := files(file); ok {
				return http.StatusOK, data, true
			}
		}
		if mountsUnder(c, nginxRoot+"/") {
			if strings.HasSuffix(path, "/") {
				return http.StatusForbidden, []byte(nginx403), true
			}
			return http.StatusNotFound, []byte(nginx404), true
		}
		if path != "/" && path != "/index.html" {
			return http.StatusNotFound, []byte(nginx404), true
		}
		return http.StatusOK, []byte(nginxWelcome), true
	case (base == "serve_hostname" || base == "serve-hostname" || base == "agnhost" && slices.Contains(argv, "serve-hostname")) && port == "9376":
		return http.StatusOK, []byte(hostnameOf(pod) + "\n"), true
	case base == "kubernetes-bootcamp" && port == "8080":
		// server.js of the bootcamp's image: the tag's number is its v=.
		return http.StatusOK, []byte("Hello Kubernetes bootcamp! | Running on: " + hostnameOf(pod) + " | v=" +
			strings.TrimPrefix(imageTag(c.Image, "v1"), "v") + "\n"), true
	case base == "hello-app" && port == "8080":
		return http.StatusOK, []byte("Hello, world!\nVersion: " + imageTag(c.Image, "1.0") + ".0\nHostname: " + hostnameOf(pod) + "\n"), true
	case base == "hpa-example" && port == "80":
		return http.StatusOK, []byte("OK!"), true
	case base == "http-echo":
		text, listen := "", ":5678"
		for _, a := range argv {
			a = strings.TrimLeft(a, "-")
			if v, ok := strings.CutPrefix(a, "text="); ok {
				text = v
			} else if v, ok := strings.CutPrefix(a, "listen="); ok {
				listen = v
			}
		}
		if strings.TrimPrefix(listen[strings.LastIndex(listen, ":"):], ":") == port {
			return http.StatusOK, []byte(text + "\n"), true
		}
	}
	return 0, nil, false
}

// nginxRoot is where nginx's image keeps the pages it serves.
const nginxRoot = "/usr/share/nginx/html"

// mountsUnder reports whether one of c's volumes is mounted at p's
// directory or above it.
func mountsUnder(c *corev1.Container, p string) bool {
	for _, m := range c.VolumeMounts {
		mp := strings.TrimSuffix(m.MountPath, "/")
		if strings.HasPrefix(p, mp+"/") {
			return true
		}
	}
	return false
}

// imageTag is the tag of image, or def when it names none.
func imageTag(image, def string) string {
	name, _, _ := strings.Cut(image, "@")
	if i := strings.LastIndex(name, ":"); i > strings.LastIndex(name, "/") {
		return name[i+1:]
	}
	return def
}

func hostnameOf(pod *corev1.Pod) string {
	if pod.Spec.Hostname != "" {
		return pod.Spec.Hostname
	}
	return pod.Name
}

const nginxWelcome = `<!DOCTYPE html>
<html>
<head>
<title>Welcome to nginx!</title>
<style>
html { color-scheme: light dark; }
body { width: 35em; margin: 0 auto;
font-family: Tahoma, Verdana, Arial, sans-serif; }
</style>
</head>
<body>
<h1>Welcome to nginx!</h1>
<p>If you see this page, the nginx web server is successfully installed and
working. Further configuration is required.</p>

<p>For online documentation and support please refer to
<a href="http://nginx.org/">nginx.org</a>.<br/>
Commercial support is available at
<a href="http://nginx.com/">nginx.com</a>.</p>

<p><em>Thank you for using nginx.</em></p>
</body>
</html>
`

const nginx403 = `<html>
<head><title>403 Forbidden</title></head>
<body>
<center><h1>403 Forbidden</h1></center>
<hr><center>nginx</center>
</body>
</html>
`

const nginx404 = `<html>
<head><title>404 Not Found</title></head>
<body>
<center><h1>404 Not Found</h1></center>
<hr><center>nginx</center>
</body>
</html>
`
