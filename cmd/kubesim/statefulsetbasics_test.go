package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// stsBasicsPods prints "name uid ip" for each Running pod of app=nginx.
var stsBasicsPods = []string{"get", "pods", "-l", "app=nginx", "--field-selector", "status.phase=Running",
	"-o", `jsonpath={range .items[*]}{.metadata.name}{" "}{.metadata.uid}{" "}{.status.podIP}{"\n"}{end}`}

// kubernetes.io's "StatefulSet Basics" tutorial, its commands as
// written (web.yaml in testdata): ordinal names, stable hostnames and the
// per-pod DNS names of the headless Service (web-0.nginx resolves, a pod
// that does not exist does not), the claims of the volumeClaimTemplates,
// and what each pod writes on its claim surviving the pods' deletion and a
// restart of kubesim; scaling keeps the claims.
func TestStatefulSetBasicsTutorial(t *testing.T) {
	t.Parallel()
	requireScript(t)
	dir := t.TempDir()
	// Stages of 200ms: kubectl delete waits for the pods' DELETED
	// events, which must not come before it watches (containers that
	// stop at once would be deleted and made again in between).
	s := startServer(t, dir, "--nodes", "3", "--stage-delay", "200ms")
	k := newKubectl(t, s)
	running := func(n int) map[string][2]string {
		t.Helper()
		out := k.eventually(func(out string) bool { return countLines(out) == n }, stsBasicsPods...)
		pods := map[string][2]string{}
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			f := strings.Fields(l)
			pods[f[0]] = [2]string{f[1], f[2]}
		}
		return pods
	}

	// Creating a StatefulSet.
	out := k.ok("apply", "-f", "testdata/statefulset-basics-web.yaml")
	assert.Equal(t, "service/nginx created\nstatefulset.apps/web created\n", out)
	pods := running(2)
	assert.Regexp(t, `(?m)^nginx\s+ClusterIP\s+None\s+<none>\s+80/TCP\s+\d+s$`, k.ok("get", "service", "nginx"))
	assert.Regexp(t, `(?m)^web\s+2/2\s+\d+s$`, k.eventually(func(out string) bool { return strings.Contains(out, "2/2") }, "get", "statefulset", "web"))

	// Pods in a StatefulSet: ordinal index, stable network identity.
	for _, i := range []string{"0", "1"} {
		assert.Equal(t, "web-"+i+"\n", k.ok("exec", "web-"+i, "--", "sh", "-c", "hostname"))
	}
	lookup := func() string {
		return k.script("nslookup web-2.nginx\rnslookup web-0.nginx\rnslookup web-1.nginx\rexit\r",
			"run", "-i", "--tty", "--image", "busybox:1.28", "dns-test", "--restart=Never", "--rm")
	}
	out = lookup()
	assert.Contains(t, out, "Name:\tweb-0.nginx.default.svc.cluster.local\r\nAddress: "+pods["web-0"][1]+"\r\n")
	assert.Contains(t, out, "Name:\tweb-1.nginx.default.svc.cluster.local\r\nAddress: "+pods["web-1"][1]+"\r\n")
	assert.Contains(t, out, "** server can't find web-2.nginx: NXDOMAIN", "no pod web-2: no name")

	// Writing to stable storage: each pod's claim.
	out = k.ok("get", "pvc", "-l", "app=nginx")
	assert.Regexp(t, `(?m)^www-web-0\s+Bound\s+pvc-\S+\s+1Gi\s+RWO\s+standard\s+`, out)
	assert.Regexp(t, `(?m)^www-web-1\s+Bound\s+pvc-\S+\s+1Gi\s+RWO\s+standard\s+`, out)
	curl := func(pod string) string {
		out, _ := k.run(false, "exec", "-i", "-t", pod, "--", "curl", "http://localhost/")
		return out
	}
	assert.Contains(t, curl("web-0"), "403 Forbidden", "an empty volume over nginx's document root")
	for _, i := range []string{"0", "1"} {
		k.ok("exec", "web-"+i, "--", "sh", "-c", `echo "$(hostname)" > /usr/share/nginx/html/index.html`)
	}
	for _, i := range []string{"0", "1"} {
		assert.Equal(t, "web-"+i+"\n", curl("web-"+i))
	}

	// Delete the pods: the StatefulSet makes them again with the same
	// names, hostnames and claims — and what they wrote.
	k.ok("delete", "pod", "-l", "app=nginx")
	old := pods
	k.eventually(func(out string) bool {
		return countLines(out) == 2 && !strings.Contains(out, old["web-0"][0]) && !strings.Contains(out, old["web-1"][0])
	}, stsBasicsPods...)
	pods = running(2)
	for _, i := range []string{"0", "1"} {
		assert.Equal(t, "web-"+i+"\n", k.ok("exec", "web-"+i, "--", "sh", "-c", "hostname"))
		assert.Equal(t, "web-"+i+"\n", curl("web-"+i), "the claim kept what web-%s wrote", i)
	}
	assert.Contains(t, lookup(), "Address: "+pods["web-0"][1]+"\r\n", "the name follows the new pod")

	// Scaling up and down: scaling down deletes pods, not their claims.
	k.ok("scale", "sts", "web", "--replicas=5")
	running(5)
	k.ok("patch", "sts", "web", "-p", `{"spec":{"replicas":3}}`)
	k.eventually(func(out string) bool { return countLines(out) == 3 }, "get", "pods", "-l", "app=nginx", "--no-headers")
	out = k.ok("get", "pvc", "-l", "app=nginx")
	assert.Equal(t, 6, countLines(out), "five claims and the header:\n%s", out)
	assert.Regexp(t, regexp.MustCompile(`(?m)^www-web-4\s+Bound\s+`), out)

	// kubesim stops and starts again on its data directory: the volumes
	// still hold the pages.
	s.stop()
	s = startServer(t, dir, "--nodes", "3", "--stage-delay", "200ms")
	k = newKubectl(t, s)
	running(3)
	assert.Equal(t, "web-0\n", curl("web-0"))
	assert.Equal(t, "web-1\n", curl("web-1"))
}
