package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Image pulls through the real kubectl (docs/containers.md, section 12):
// the course's troubleshooting exercises, each failure and its fix.
func TestKubectlImagePulls(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), "--nodes", "1", "--stage-delay", "100ms")
	k := newKubectl(t, s)
	// waitFor waits for the pod's first container to wait for one of
	// reasons.
	waitFor := func(pod string, reasons ...string) {
		k.t.Helper()
		k.eventually(func(out string) bool {
			for _, r := range reasons {
				if out == r {
					return true
				}
			}
			return false
		}, "get", "pod", pod, "-o", "jsonpath={.status.containerStatuses[0].state.waiting.reason}")
	}
	podOf := func(selector, image string) string {
		k.t.Helper()
		return strings.TrimSpace(k.eventually(func(out string) bool { return strings.TrimSpace(out) != "" },
			"get", "pods", "-l", selector, "-o", `jsonpath={range .items[?(@.spec.containers[0].image=="`+image+`")]}{.metadata.name}{"\n"}{end}`))
	}

	t.Run("a bad tag, then a good one", func(t *testing.T) {
		k.ok("create", "deployment", "nginx", "--image=nginx:1.25")
		k.rolledOut("deployment/nginx")
		assert.Equal(t, "deployment.apps/nginx image updated\n", k.ok("set", "image", "deployment/nginx", "nginx=nginx:doesnotexist-1.99"))
		bad := podOf("app=nginx", "nginx:doesnotexist-1.99")
		waitFor(bad, "ImagePullBackOff")
		out := k.ok("get", "pods", "-l", "app=nginx")
		assert.Regexp(t, bad+`\s+0/1\s+ImagePullBackOff\s+0`, out)
		assert.Regexp(t, `\s+1/1\s+Running\s+0`, out, "the old pod keeps serving")
		describe := k.ok("describe", "pod", bad)
		assert.Contains(t, describe, `Pulling image "nginx:doesnotexist-1.99"`)
		assert.Contains(t, describe, `Failed to pull image "nginx:doesnotexist-1.99": rpc error: code = NotFound desc = `+
			`failed to pull and unpack image "docker.io/library/nginx:doesnotexist-1.99": failed to resolve reference `+
			`"docker.io/library/nginx:doesnotexist-1.99": docker.io/library/nginx:doesnotexist-1.99: not found`)
		assert.Contains(t, describe, "Error: ErrImagePull")
		assert.Contains(t, describe, `Back-off pulling image "nginx:doesnotexist-1.99"`)
		assert.Contains(t, describe, "Error: ImagePullBackOff")
		assert.Regexp(t, `Reason:\s+ImagePullBackOff`, describe)
		assert.Equal(t, "Pending", k.jsonpath("pod/"+bad, "{.status.phase}"))
		assert.Contains(t, k.fail("rollout", "status", "deployment/nginx", "--timeout=2s"), "timed out waiting for the condition")

		assert.Equal(t, "deployment.apps/nginx image updated\n", k.ok("set", "image", "deployment/nginx", "nginx=nginx:1.27"))
		k.rolledOut("deployment/nginx")
		k.eventually(func(out string) bool { return out == "nginx:1.27" }, "get", "pods", "-l", "app=nginx",
			"-o", `jsonpath={range .items[*]}{.spec.containers[0].image}{end}`)
		good := podOf("app=nginx", "nginx:1.27")
		assert.Contains(t, k.ok("describe", "pod", good), `Successfully pulled image "nginx:1.27" in `)
		// The node lists what it pulled, by digest and tag.
		k.eventually(func(out string) bool { return strings.Contains(out, "docker.io/library/nginx:1.27") },
			"get", "nodes", "-o", "jsonpath={.items[0].status.images[*].names}")
	})

	t.Run("a missing pull secret, then the right one", func(t *testing.T) {
		k.ok("run", "private", "--image=registry.kubesim.io/team/app:1.0")
		waitFor("private", "ImagePullBackOff")
		assert.Contains(t, k.jsonpath("pod/private", "{.status.containerStatuses[0].state.waiting.message}"),
			`unexpected status from HEAD request to https://registry.kubesim.io/v2/team/app/manifests/1.0: 401 Unauthorized`)

		assert.Equal(t, "secret/regcred created\n", k.ok("create", "secret", "docker-registry", "regcred",
			"--docker-server=registry.kubesim.io", "--docker-username=student", "--docker-password=kubesim", "--docker-email=student@example.com"))
		// kubernetes.io's "Pull an Image from a Private Registry": a pod
		// that names the secret.
		_, errOut, code := k.runIn(`apiVersion: v1
kind: Pod
metadata:
  name: private-reg
spec:
  containers:
  - name: private-reg-container
    image: registry.kubesim.io/team/app:1.0
  imagePullSecrets:
  - name: regcred
`, "apply", "-f", "-")
		assert.Equal(t, 0, code, errOut)
		k.eventually(func(out string) bool { return out == "Running" }, "get", "pod", "private-reg", "-o", "jsonpath={.status.phase}")
		assert.Contains(t, k.ok("describe", "pod", "private-reg"), `Successfully pulled image "registry.kubesim.io/team/app:1.0"`)

		// Or the service account's: its pods get its pull secrets.
		k.ok("patch", "serviceaccount", "default", "-p", `{"imagePullSecrets":[{"name":"regcred"}]}`)
		k.ok("delete", "pod", "private", "--wait=false")
		k.eventually(func(out string) bool { return !strings.Contains(out, "pod/private\n") }, "get", "pods", "-o", "name")
		k.ok("run", "private", "--image=registry.kubesim.io/team/app:2.0")
		assert.Equal(t, "regcred", k.jsonpath("pod/private", "{.spec.imagePullSecrets[*].name}"))
		k.eventually(func(out string) bool { return out == "Running" }, "get", "pod", "private", "-o", "jsonpath={.status.phase}")
		k.ok("patch", "serviceaccount", "default", "--type=json", "-p", `[{"op":"remove","path":"/imagePullSecrets"}]`)
	})

	t.Run("bad input", func(t *testing.T) {
		// A reference that does not parse (kubectl run checks the name
		// itself; the API server does not).
		_, errOut, code := k.runIn(`apiVersion: v1
kind: Pod
metadata:
  name: upper
spec:
  containers:
  - name: upper
    image: NGINX
`, "apply", "-f", "-")
		assert.Equal(t, 0, code, errOut)
		waitFor("upper", "InvalidImageName")
		assert.Regexp(t, `upper\s+0/1\s+InvalidImageName`, k.ok("get", "pod", "upper"))
		assert.Contains(t, k.ok("describe", "pod", "upper"), `Failed to apply default image tag "NGINX": couldn't parse image reference "NGINX": `+
			`invalid reference format: repository name (library/NGINX) must be lowercase`)

		// A pull secret of the wrong type, or for another registry: no
		// credentials for the private registry.
		k.ok("create", "secret", "generic", "notdocker", "--from-literal=.dockerconfigjson="+
			`{"auths":{"registry.kubesim.io":{"username":"student","password":"kubesim"}}}`)
		k.ok("create", "secret", "docker-registry", "ghcr", "--docker-server=ghcr.io", "--docker-username=student", "--docker-password=kubesim")
		for pod, secret := range map[string]string{"wrongtype": "notdocker", "otherregistry": "ghcr"} {
			k.ok("run", pod, "--image=registry.kubesim.io/team/app:1.0", "--image-pull-policy=Always",
				`--overrides={"spec":{"imagePullSecrets":[{"name":"`+secret+`"}]}}`)
			waitFor(pod, "ErrImagePull", "ImagePullBackOff")
			assert.Contains(t, k.jsonpath("pod/"+pod, "{.status.containerStatuses[0].state.waiting.message}"), "401 Unauthorized", pod)
		}

		// A docker config that is not JSON is refused.
		assert.Contains(t, k.fail("create", "secret", "generic", "broken", "--type=kubernetes.io/dockerconfigjson", "--from-literal=.dockerconfigjson={"),
			`error: failed to create secret Secret "broken" is invalid: data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": unexpected end of JSON input`)

		// Never with an image the node lacks.
		k.ok("run", "never", "--image=alpine:3.20", "--image-pull-policy=Never")
		waitFor("never", "ErrImageNeverPull")
		assert.Equal(t, `Container image "alpine:3.20" is not present with pull policy of Never`,
			k.jsonpath("pod/never", "{.status.containerStatuses[0].state.waiting.message}"))
	})
}
