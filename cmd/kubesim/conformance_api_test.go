package main

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubesim/kubesim/pki"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"
)

// The API behaviours Kubernetes' conformance specs check, each through the
// real kubectl: what the specs' failures against kubesim were about.

// createFrom creates what manifest holds (kubectl create -f -).
func (k *kubectl) createFrom(manifest string) {
	k.t.Helper()
	_, errOut, code := k.runIn(manifest, "create", "-f", "-")
	require.Zero(k.t, code, errOut)
}

// metadata.generation only where kube-apiserver's strategy sets one: a
// Deployment starts at 1 and counts changes of spec (a scale too) and the
// start of its deletion; a ConfigMap, an Event and an HPA have none (the
// Events specs compare the whole object they wrote with what they read).
func TestKubectlGenerationOnlyWhereKubernetesSetsIt(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), "--api-server-only")
	k := newKubectl(t, s)
	gen := func(resource string) string {
		t.Helper()
		return k.jsonpath(resource, "{.metadata.generation}")
	}
	k.ok("create", "configmap", "plain", "--from-literal=a=b")
	assert.Empty(t, gen("configmap/plain"))
	k.ok("label", "configmap", "plain", "x=y")
	assert.Empty(t, gen("configmap/plain"))

	k.createFrom(`apiVersion: v1
kind: Event
metadata: {name: seen, namespace: default}
involvedObject: {kind: ConfigMap, name: plain, namespace: default}
reason: Seen
message: looked at
type: Normal
`)
	assert.Empty(t, gen("event/seen"))

	k.ok("create", "deployment", "web", "--image=nginx")
	assert.Equal(t, "1", gen("deployment/web"))
	k.ok("label", "deployment", "web", "tier=front")
	assert.Equal(t, "1", gen("deployment/web"), "labels are not the desired state")
	k.ok("annotate", "deployment", "web", "note=copied-to-replicasets")
	assert.Equal(t, "2", gen("deployment/web"), "a Deployment's annotations count")
	k.ok("scale", "deployment", "web", "--replicas=3")
	assert.Equal(t, "3", gen("deployment/web"))

	k.ok("autoscale", "deployment", "web", "--min=1", "--max=4", "--cpu-percent=50")
	assert.Empty(t, gen("hpa/web"))
	k.ok("patch", "hpa", "web", "-p", `{"spec":{"maxReplicas":5}}`)
	assert.Empty(t, gen("hpa/web"))

	k.ok("patch", "deployment", "web", "--type=merge", "-p", `{"metadata":{"finalizers":["example.com/hold"]}}`)
	assert.Equal(t, "3", gen("deployment/web"))
	k.ok("delete", "deployment", "web", "--wait=false")
	assert.Equal(t, "4", gen("deployment/web"), "the start of deletion is a new generation")
	k.ok("patch", "deployment", "web", "--type=merge", "-p", `{"metadata":{"finalizers":null}}`)
}

// TokenReview and LocalSubjectAccessReview are served and discovered: a
// token from the TokenRequest API is reviewed as its service account with
// system:authenticated and its credential id; a LocalSubjectAccessReview is asked in a namespace
// and about that namespace only.
func TestKubectlTokenReviewAndLocalSubjectAccessReview(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), "--api-server-only")
	k := newKubectl(t, s)
	resources := k.ok("api-resources", "-o", "name")
	assert.Contains(t, resources, "tokenreviews.authentication.k8s.io\n")
	assert.Contains(t, resources, "localsubjectaccessreviews.authorization.k8s.io\n")
	assert.Regexp(t, `(?m)^localsubjectaccessreviews\s+authorization.k8s.io/v1\s+true\s+LocalSubjectAccessReview$`, k.ok("api-resources", "--api-group=authorization.k8s.io"))

	k.ok("create", "serviceaccount", "robot")
	token := strings.TrimSpace(k.ok("create", "token", "robot"))
	review := func(token string, audiences ...string) map[string]any {
		t.Helper()
		spec := map[string]any{"token": token}
		if len(audiences) > 0 {
			spec["audiences"] = audiences
		}
		body, err := json.Marshal(map[string]any{"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": spec})
		require.NoError(t, err)
		out, errOut, code := k.runIn(string(body), "create", "-f", "-", "-o", "json")
		require.Zero(t, code, errOut)
		var got map[string]any
		require.NoError(t, json.Unmarshal([]byte(out), &got), out)
		return got["status"].(map[string]any)
	}
	st := review(token)
	assert.Equal(t, true, st["authenticated"], st)
	user := st["user"].(map[string]any)
	assert.Equal(t, "system:serviceaccount:default:robot", user["username"])
	assert.ElementsMatch(t, []any{"system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"}, user["groups"])
	assert.Equal(t, k.jsonpath("serviceaccount/robot", "{.metadata.uid}"), user["uid"])
	assert.NotEmpty(t, st["audiences"])
	// The token's own id, as kube-apiserver 1.32 reports it.
	extra, _ := user["extra"].(map[string]any)
	assert.Regexp(t, `^\[JTI=[0-9a-f-]{36}\]$`, fmt.Sprint(extra["authentication.kubernetes.io/credential-id"]), user)

	st = review(token, "https://elsewhere.example.com")
	assert.Nil(t, st["authenticated"], "false, so omitted")
	assert.Contains(t, st["error"], `is invalid for the target audiences ["https://elsewhere.example.com"]`)

	_, errOut, code := k.runIn(`{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{}}`, "create", "-f", "-")
	assert.NotZero(t, code)
	assert.Contains(t, errOut, "token is required for TokenReview in authentication")

	lsar := func(ns, attrNS string) (map[string]any, string) {
		t.Helper()
		body := `{"apiVersion":"authorization.k8s.io/v1","kind":"LocalSubjectAccessReview","metadata":{"namespace":"` + ns + `"},` +
			`"spec":{"user":"system:serviceaccount:default:robot","resourceAttributes":{"namespace":"` + attrNS + `","verb":"list","resource":"pods"}}}`
		out, errOut, code := k.runIn(body, "create", "-f", "-", "-o", "json")
		if code != 0 {
			return nil, errOut
		}
		var got map[string]any
		require.NoError(t, json.Unmarshal([]byte(out), &got), out)
		return got, ""
	}
	got, errOut := lsar("default", "default")
	require.Empty(t, errOut)
	assert.Equal(t, false, got["status"].(map[string]any)["allowed"])
	assert.Equal(t, "default", got["metadata"].(map[string]any)["namespace"])
	k.ok("create", "rolebinding", "robot-view", "--clusterrole=view", "--serviceaccount=default:robot")
	got, _ = lsar("default", "default")
	assert.Equal(t, true, got["status"].(map[string]any)["allowed"])
	_, errOut = lsar("default", "kube-system")
	assert.Contains(t, errOut, `The LocalSubjectAccessReview "" is invalid: spec.resourceAttributes.namespace: Invalid value: "kube-system": must match metadata.namespace`)
}

// A webhook's matchConditions compile when the configuration is written:
// a bad expression is a 422 saying "compilation failed", as a policy's is;
// and a review asked for as a Table answers 406, having no table form.
func TestKubectlMatchConditionsCompiledAndReviewsHaveNoTable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tokens := filepath.Join(t.TempDir(), "tokens.csv")
	require.NoError(t, os.WriteFile(tokens, []byte("root-token,root,root-uid,system:masters\n"), 0o600))
	s := startServer(t, dir, "--api-server-only", "--token-file", tokens)
	k := newKubectl(t, s)
	webhook := func(kind, name, expr string) string {
		return `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"` + kind + `","metadata":{"name":"` + name + `"},
"webhooks":[{"name":"deny.example.com","clientConfig":{"url":"https://hook.example.com/"},"sideEffects":"None","admissionReviewVersions":["v1"],
"rules":[{"operations":["CREATE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["configmaps"]}],
"matchConditions":[{"name":"not-skip-me","expression":` + strconv.Quote(expr) + `}]}]}`
	}
	for _, kind := range []string{"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"} {
		_, errOut, code := k.runIn(webhook(kind, "bad", "... [] bad expression"), "create", "-f", "-")
		assert.NotZero(t, code, kind)
		assert.Contains(t, errOut, `The `+kind+` "bad" is invalid: webhooks[0].matchConditions[0].expression: Invalid value: "... [] bad expression": compilation failed: `, kind)

		k.createFrom(webhook(kind, "good", "object.metadata.name != 'skip-me'"))
	}

	// kubectl asks for tables first and takes JSON instead; a client
	// asking only for a Table (the conformance spec's) gets the 406.
	k.createFrom(`{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","spec":{"nonResourceAttributes":{"path":"/","verb":"get"}}}`)
	caPEM, err := os.ReadFile(filepath.Join(dir, pki.CACertFile))
	require.NoError(t, err)
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(caPEM))
	hc := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	ask := func(accept string) (int, string) {
		t.Helper()
		body := strings.NewReader(`{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","spec":{"nonResourceAttributes":{"path":"/","verb":"get"}}}`)
		req, err := http.NewRequest(http.MethodPost, s.url+"/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", body)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer root-token")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", accept)
		resp, err := hc.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, string(b)
	}
	code, body := ask("application/json;as=Table;v=v1;g=meta.k8s.io")
	assert.Equal(t, http.StatusNotAcceptable, code, body)
	assert.Contains(t, body, `"reason":"NotAcceptable"`)
	code, body = ask("application/json;as=Table;v=v1;g=meta.k8s.io, application/json")
	assert.Equal(t, http.StatusCreated, code, body)
	assert.Contains(t, body, `"kind":"SelfSubjectAccessReview"`)
}

// A pod past its activeDeadlineSeconds is killed and fails with reason
// DeadlineExceeded, whether the deadline was there from the start or set
// by an update while it ran.
func kubeletActiveDeadlineSecondsFailsThePod(t *testing.T, k *kubectl) {
	k.ok("run", "short", "--image=nginx", "--restart=Never", `--overrides={"spec":{"activeDeadlineSeconds":2}}`)
	k.ok("run", "updated", "--image=nginx", "--restart=Never")
	k.ok("wait", "--for=condition=Ready", "pod/updated", "--timeout=60s")
	k.ok("patch", "pod", "updated", "-p", `{"spec":{"activeDeadlineSeconds":1}}`)
	for _, name := range []string{"short", "updated"} {
		k.eventually(func(out string) bool { return out == "Failed DeadlineExceeded" },
			"get", "pod", name, "-o", "jsonpath={.status.phase} {.status.reason}")
		assert.Equal(t, "Pod was active on the node longer than the specified deadline", k.jsonpath("pod/"+name, "{.status.message}"))
		assert.Equal(t, "137", k.jsonpath("pod/"+name, "{.status.containerStatuses[0].state.terminated.exitCode}"))
	}
	assert.Contains(t, k.ok("events", "--for", "pod/short"), "Pod was active on the node longer than the specified deadline")
}

// The downward API's limits.cpu and limits.memory of a container without
// limits are its node's allocatable, as the kubelet says them.
func kubeletDownwardAPIDefaultLimitsAreNodeAllocatable(t *testing.T, k *kubectl) {
	k.createFrom(`apiVersion: v1
kind: Pod
metadata: {name: limits}
spec:
  containers:
  - name: app
    image: nginx
    env:
    - name: CPU_LIMIT
      valueFrom: {resourceFieldRef: {resource: limits.cpu}}
    - name: MEMORY_LIMIT
      valueFrom: {resourceFieldRef: {resource: limits.memory}}
`)
	k.ok("wait", "--for=condition=Ready", "pod/limits", "--timeout=60s")
	node := k.jsonpath("pod/limits", "{.spec.nodeName}")
	cpu := resource.MustParse(k.jsonpath("node/"+node, "{.status.allocatable.cpu}"))
	memory := resource.MustParse(k.jsonpath("node/"+node, "{.status.allocatable.memory}"))
	assert.Equal(t, strconv.FormatInt((cpu.MilliValue()+999)/1000, 10)+"\n", k.ok("exec", "limits", "--", "printenv", "CPU_LIMIT"))
	assert.Equal(t, strconv.FormatInt(memory.Value(), 10)+"\n", k.ok("exec", "limits", "--", "printenv", "MEMORY_LIMIT"))
}

// An init container that completed is reported ready, as the kubelet's
// prober manager reports it.
func kubeletCompletedInitContainerIsReady(t *testing.T, k *kubectl) {
	k.createFrom(`apiVersion: v1
kind: Pod
metadata: {name: initialized}
spec:
  initContainers:
  - {name: init1, image: busybox, command: ["/bin/true"]}
  - {name: init2, image: busybox, command: ["/bin/true"]}
  containers:
  - {name: app, image: nginx}
`)
	k.ok("wait", "--for=condition=Ready", "pod/initialized", "--timeout=60s")
	assert.Equal(t, "true true 0 0", k.jsonpath("pod/initialized",
		"{.status.initContainerStatuses[0].ready} {.status.initContainerStatuses[1].ready} {.status.initContainerStatuses[0].state.terminated.exitCode} {.status.initContainerStatuses[1].state.terminated.exitCode}"))
}

// A ResourceQuota counts ephemeral storage and extended resources
// (requests.example.com/gpu) and gives count/* back when an object goes.
func TestKubectlQuotaCountsExtendedResourcesAndReleasesCounts(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir())
	k := newKubectl(t, s)
	k.ok("create", "namespace", "q")
	k.createFrom(`apiVersion: v1
kind: ResourceQuota
metadata: {name: q, namespace: q}
spec:
  hard: {requests.example.com/gpu: "1", requests.ephemeral-storage: 1Gi, count/configmaps: "2"}
`)
	k.eventually(func(out string) bool { return out == "1" }, "get", "quota", "q", "-n", "q", "-o", "jsonpath={.status.used.count/configmaps}")
	gpuPod := func(name string) (string, int) {
		_, errOut, code := k.runIn(`apiVersion: v1
kind: Pod
metadata: {name: `+name+`, namespace: q}
spec:
  containers:
  - name: app
    image: nginx
    resources:
      requests: {example.com/gpu: "1", ephemeral-storage: 512Mi}
      limits: {example.com/gpu: "1", ephemeral-storage: 512Mi}
`, "create", "-f", "-")
		return errOut, code
	}
	errOut, code := gpuPod("first")
	require.Zero(t, code, errOut)
	k.eventually(func(out string) bool { return out == "1 512Mi" }, "get", "quota", "q", "-n", "q",
		"-o", "jsonpath={.status.used.requests\\.example\\.com/gpu} {.status.used.requests\\.ephemeral-storage}")
	errOut, code = gpuPod("second")
	assert.NotZero(t, code)
	assert.Contains(t, errOut, `pods "second" is forbidden: exceeded quota: q, requested: requests.example.com/gpu=1, used: requests.example.com/gpu=1, limited: requests.example.com/gpu=1`)

	k.ok("create", "configmap", "one", "-n", "q")
	k.eventually(func(out string) bool { return out == "2" }, "get", "quota", "q", "-n", "q", "-o", "jsonpath={.status.used.count/configmaps}")
	assert.Contains(t, k.fail("create", "configmap", "two", "-n", "q"), "exceeded quota: q, requested: count/configmaps=1, used: count/configmaps=2, limited: count/configmaps=2")
	k.ok("delete", "configmap", "one", "-n", "q")
	k.eventually(func(out string) bool { return out == "1" }, "get", "quota", "q", "-n", "q", "-o", "jsonpath={.status.used.count/configmaps}")
	k.ok("create", "configmap", "two", "-n", "q")
}

// Two pods asking for one host port on one address do not share a node:
// the second waits with the scheduler's NodePorts reason; another protocol
// or another host IP fits beside it.
func kubeletHostPortConflict(t *testing.T, k *kubectl) {
	node := strings.Fields(k.eventually(func(out string) bool { return out != "" }, "get", "nodes", "-o", "jsonpath={.items[*].metadata.name}"))[0]
	hostPortPod := func(name, hostIP, protocol string) {
		t.Helper()
		k.createFrom(`apiVersion: v1
kind: Pod
metadata: {name: ` + name + `}
spec:
  nodeSelector: {kubernetes.io/hostname: ` + node + `}
  containers:
  - name: app
    image: nginx
    ports: [{containerPort: 80, hostPort: 54321, hostIP: "` + hostIP + `", protocol: ` + protocol + `}]
`)
	}
	hostPortPod("first", "127.0.0.1", "TCP")
	k.ok("wait", "--for=condition=Ready", "pod/first", "--timeout=60s")
	hostPortPod("udp", "127.0.0.1", "UDP")
	hostPortPod("elsewhere", "127.0.0.2", "TCP")
	k.ok("wait", "--for=condition=Ready", "pod/udp", "pod/elsewhere", "--timeout=60s")
	hostPortPod("clash", "0.0.0.0", "TCP")
	k.eventually(func(out string) bool {
		return strings.Contains(out, "didn't have free ports for the requested pod ports")
	},
		"events", "--for", "pod/clash")
	assert.Equal(t, "Pending", k.jsonpath("pod/clash", "{.status.phase}"))
}

// The kubelet's and the scheduler's behaviours the node conformance specs
// check, one after the other on one cluster.
func TestKubectlKubeletBehaviours(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir())
	k := newKubectl(t, s)
	for _, c := range []struct {
		name  string
		check func(*testing.T, *kubectl)
	}{
		{"ActiveDeadlineSecondsFailsThePod", kubeletActiveDeadlineSecondsFailsThePod},
		{"DownwardAPIDefaultLimitsAreNodeAllocatable", kubeletDownwardAPIDefaultLimitsAreNodeAllocatable},
		{"CompletedInitContainerIsReady", kubeletCompletedInitContainerIsReady},
		{"HostPortConflict", kubeletHostPortConflict},
	} {
		t.Run(c.name, func(t *testing.T) {
			sub := *k
			sub.t = t
			c.check(t, &sub)
		})
	}
}

// A Service without a selector and the Endpoints its user writes: the
// endpointslice-mirroring controller keeps a slice of them, follows an
// edit, and removes the slice with the Endpoints (the EndpointSliceMirroring
// conformance spec, through kubectl).
func TestKubectlMirrorsCustomEndpoints(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir())
	k := newKubectl(t, s)
	k.createFrom(`apiVersion: v1
kind: Service
metadata: {name: custom}
spec:
  ports: [{name: example, port: 80}]
---
apiVersion: v1
kind: Endpoints
metadata: {name: custom}
subsets:
- ports: [{name: example, port: 80}]
  addresses: [{ip: 10.1.2.3}]
`)
	slice := []string{"get", "endpointslices", "-l", "kubernetes.io/service-name=custom",
		"-o", `jsonpath={range .items[*]}{.metadata.labels.endpointslice\.kubernetes\.io/managed-by} {.ports[0].port} {.endpoints[*].addresses[0]}{"\n"}{end}`}
	k.eventually(func(out string) bool {
		return strings.TrimSpace(out) == "endpointslicemirroring-controller.k8s.io 80 10.1.2.3"
	}, slice...)
	k.ok("patch", "endpoints", "custom", "--type=json", "-p", `[{"op":"replace","path":"/subsets/0/addresses/0/ip","value":"10.2.3.4"}]`)
	k.eventually(func(out string) bool {
		return strings.TrimSpace(out) == "endpointslicemirroring-controller.k8s.io 80 10.2.3.4"
	}, slice...)
	k.ok("delete", "endpoints", "custom")
	k.eventually(func(out string) bool { return strings.TrimSpace(out) == "" }, slice...)
}

// The service account issuer discovery endpoints: every service account
// may read the OIDC discovery document and the key set (the bootstrap
// role system:service-account-issuer-discovery and its binding), a user
// without a role may not, and the document names the API server's
// issuer and the key set's address.
func TestKubectlServiceAccountIssuerDiscovery(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tokens := filepath.Join(t.TempDir(), "tokens.csv")
	require.NoError(t, os.WriteFile(tokens, []byte("bob-token,bob,bob-uid\n"), 0o600))
	s := startServer(t, dir, "--api-server-only", "--token-file", tokens)
	admin := newKubectl(t, s)
	admin.ok("create", "serviceaccount", "robot")
	robot := asUser(t, s, strings.TrimSpace(admin.ok("create", "token", "robot")))

	var doc map[string]any
	require.NoError(t, json.Unmarshal([]byte(robot.ok("get", "--raw", "/.well-known/openid-configuration")), &doc))
	assert.Equal(t, "https://kubernetes.default.svc.cluster.local", doc["issuer"])
	assert.Regexp(t, `^https://127\.0\.0\.1:\d+/openid/v1/jwks$`, doc["jwks_uri"])
	assert.Equal(t, []any{"ES256"}, doc["id_token_signing_alg_values_supported"])
	var set struct {
		Keys []map[string]string `json:"keys"`
	}
	require.NoError(t, json.Unmarshal([]byte(robot.ok("get", "--raw", "/openid/v1/jwks")), &set))
	require.Len(t, set.Keys, 1)
	assert.Equal(t, "EC", set.Keys[0]["kty"])

	assert.Contains(t, asUser(t, s, "bob-token").fail("get", "--raw", "/openid/v1/jwks"),
		`Error from server (Forbidden): forbidden: User "bob" cannot get path "/openid/v1/jwks"`)
}

// Server-side apply of a custom resource under fieldValidation=Strict
// refuses a field its schema does not declare with structured-merge-diff's
// words (the FieldValidation specs for CRs), where a create prunes it.
func TestKubectlServerSideApplyStrictCustomResource(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), "--api-server-only")
	k := newKubectl(t, s)
	k.createFrom(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
`)
	k.eventually(func(out string) bool { return strings.Contains(out, "widgets") }, "api-resources", "--api-group=example.com")
	body := `apiVersion: example.com/v1
kind: Widget
metadata: {name: w, namespace: default}
unknownField: unknown
spec: {size: 3}
`
	_, errOut, code := k.runIn(body, "apply", "--server-side", "--validate=strict", "-f", "-")
	assert.NotZero(t, code)
	assert.Contains(t, errOut, `.unknownField: field not declared in schema`)
	k.fail("get", "widget", "w")

	// Without Strict the field is pruned, as a create prunes it.
	_, errOut, code = k.runIn(body, "apply", "--server-side", "--validate=false", "-f", "-")
	require.Zero(t, code, errOut)
	assert.Equal(t, "3 ", k.ok("get", "widget", "w", "-o", "jsonpath={.spec.size} {.unknownField}"))
}

// A default added to a CRD's schema reaches the custom resources stored
// before it when they are read — a get and a list — as
// apiextensions-apiserver defaults what it reads from storage (the
// CustomResourceDefinition spec "custom resource defaulting for requests
// and from storage works").
func TestKubectlCustomResourceDefaultedOnRead(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), "--api-server-only")
	k := newKubectl(t, s)
	k.createFrom(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.com}
spec:
  group: example.com
  names: {kind: Gadget, plural: gadgets}
  scope: Cluster
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          a: {type: string}
          b: {type: string}
`)
	k.eventually(func(out string) bool { return strings.Contains(out, "gadgets") }, "api-resources", "--api-group=example.com")
	k.createFrom("apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g1}\n")
	assert.Equal(t, "", k.ok("get", "gadget", "g1", "-o", "jsonpath={.a}"))
	k.ok("patch", "crd", "gadgets.example.com", "--type=json", "-p",
		`[{"op":"add","path":"/spec/versions/0/schema/openAPIV3Schema/properties/a/default","value":"A"}]`)
	k.eventually(func(out string) bool { return out == "A" }, "get", "gadget", "g1", "-o", "jsonpath={.a}")
	assert.Equal(t, "g1=A", k.ok("get", "gadgets", "-o", `jsonpath={range .items[*]}{.metadata.name}={.a}{end}`), "a list reads it defaulted too")
}
