package programs

// The images of the registries whose own program kubesim does not play
// (language runtimes, proxies, controllers, charts' images): what the
// list says of them is what they have besides — a shell, bash, curl — so
// that `kubectl exec` finds what the real image has; a container of one
// runs as one of an image kubesim does not know would (Unplayed).

// unplayed is an image whose own program kubesim does not play.
func unplayed(shell, bash, curl bool) Image {
	return Image{Unplayed: true, Shell: shell, Bash: bash, Curl: curl}
}

// Shorthands for what an image has: Debian's or Ubuntu's userland (sh,
// bash), Alpine's (busybox's ash), or none at all (distroless, scratch).
var (
	debianBased = unplayed(true, true, false)
	alpineBased = unplayed(true, false, false)
	distroless  = unplayed(false, false, false)
)

// others are the registries' other images, by the names Lookup finds
// them by (docs/containers.md lists them).
var others = []entry{
	{names: []string{"hello-world"}, image: distroless},
	{names: []string{"mariadb", "memcached", "rabbitmq", "haproxy", "wordpress", "envoy"}, image: debianBased},
	{names: []string{"python", "golang", "node"}, image: unplayed(true, true, true)},
	{names: []string{"traefik", "caddy", "registry"}, image: alpineBased},
	{names: []string{"fluent/fluent-bit"}, image: distroless},
	{names: []string{"nicolaka/netshoot"}, image: unplayed(true, true, true)},
	// kubesim's own images, which the lab servers run in-process.
	{names: []string{"kubesim/extension-apiserver", "kubesim/metrics-server", "kubesim/webhook", "kubesim/controller", "kubesim/private-app"},
		image: distroless},
	// registry.k8s.io's, by their full names where the last element alone
	// would be ambiguous.
	{names: []string{"registry.k8s.io/liveness", "registry.k8s.io/goproxy", "registry.k8s.io/kubectl", "registry.k8s.io/coredns/coredns",
		"registry.k8s.io/metrics-server/metrics-server", "registry.k8s.io/autoscaling/addon-resizer",
		"registry.k8s.io/external-dns/external-dns", "registry.k8s.io/kube-state-metrics/kube-state-metrics"}, image: distroless},
	{names: []string{"registry.k8s.io/echoserver", "registry.k8s.io/e2e-test-images/jessie-dnsutils"}, image: debianBased},
	{names: []string{"registry.k8s.io/ingress-nginx/controller"}, image: unplayed(true, true, false)},
	// Google's samples.
	{names: []string{"node-hello", "gb-frontend", "gb-redis-follower"}, image: debianBased},
	{names: []string{"podinfo"}, image: unplayed(true, false, true)},
	// The charts' controllers.
	{names: []string{"cert-manager-controller", "cert-manager-webhook", "cert-manager-cainjector", "cert-manager-acmesolver",
		"external-secrets", "kyverno", "background-controller", "cleanup-controller", "reports-controller", "kyverno-cli"}, image: distroless},
	// The private registry's exercise.
	{names: []string{"registry.kubesim.io/team/app"}, image: distroless},
}
