package main

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKubectlSubresourceAdmission: pods/binding and pods/eviction creates
// and pods/exec, pods/attach and pods/portforward CONNECTs pass the
// admission chain. A validating webhook registered for CONNECT on
// pods/exec sees the PodExecOptions as the request's object and refuses
// `kubectl exec` with its message; a ValidatingAdmissionPolicy does too; the
// scheduler's binding and an eviction reach a webhook as CREATEs of the
// pod's subresource with the posted Binding and Eviction.
func TestKubectlSubresourceAdmission(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir())
	k := newKubectl(t, s)

	var mu sync.Mutex
	seen := map[string][]map[string]any{} // subresource → requests
	hook := startWebhook(t, reviewHandler(func(_ string, req map[string]any) map[string]any {
		sub, _ := req["subResource"].(string)
		mu.Lock()
		seen[sub] = append(seen[sub], req)
		mu.Unlock()
		resp := map[string]any{"uid": req["uid"], "allowed": true}
		obj, _ := req["object"].(map[string]any)
		switch {
		case sub == "exec" && fmt.Sprint(obj["command"]) == "[date]":
			resp["allowed"] = false
			resp["status"] = map[string]any{"code": 403, "message": "date is not allowed in this pod"}
		case sub == "eviction" && req["name"] == "keep":
			resp["allowed"] = false
			resp["status"] = map[string]any{"code": 429, "message": "keep stays"}
		}
		return resp
	}))

	manifest := fmt.Sprintf(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: subresources
webhooks:
- name: subresources.example.com
  clientConfig:
    url: %s
    caBundle: %s
  rules:
  - operations: ["CONNECT"]
    apiGroups: [""]
    apiVersions: ["v1"]
    resources: ["pods/exec", "pods/attach", "pods/portforward"]
  - operations: ["CREATE"]
    apiGroups: [""]
    apiVersions: ["v1"]
    resources: ["pods/binding", "pods/eviction"]
  sideEffects: None
  admissionReviewVersions: ["v1"]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: no-rm.example.com
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CONNECT"]
      resources: ["pods/exec"]
  validations:
  - expression: "object.command[0] != 'rm'"
    message: "rm is not allowed"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: no-rm-binding
spec:
  policyName: no-rm.example.com
  validationActions: [Deny]
`, hook.URL, hook.CABundle)
	k.ok("apply", "-f", writeManifest(t, "hooks.yaml", manifest))
	k.ok("apply", "-f", "testdata/exec-pod.yaml")
	k.ok("wait", "--for=condition=Ready", "pod/shell", "--timeout=60s")
	node := strings.TrimSpace(k.ok("get", "pod", "shell", "-o", "jsonpath={.spec.nodeName}"))
	requests := func(sub string) []map[string]any {
		mu.Lock()
		defer mu.Unlock()
		return append([]map[string]any(nil), seen[sub]...)
	}

	t.Run("binding", func(t *testing.T) {
		var found map[string]any
		for _, r := range requests("binding") {
			if r["name"] == "shell" {
				found = r
			}
		}
		require.NotNil(t, found, "the scheduler's binding of shell reached the webhook")
		assert.Equal(t, "CREATE", found["operation"])
		assert.Equal(t, map[string]any{"group": "", "version": "v1", "kind": "Binding"}, found["kind"])
		assert.Equal(t, map[string]any{"group": "", "version": "v1", "resource": "pods"}, found["resource"])
		assert.Equal(t, "binding", found["requestSubResource"])
		assert.Equal(t, "system:kube-scheduler", found["userInfo"].(map[string]any)["username"])
		obj := found["object"].(map[string]any)
		assert.Equal(t, "Binding", obj["kind"])
		assert.Equal(t, node, obj["target"].(map[string]any)["name"])
		assert.Nil(t, found["oldObject"])
		assert.Equal(t, "CreateOptions", found["options"].(map[string]any)["kind"])
	})

	t.Run("exec allowed", func(t *testing.T) {
		assert.Equal(t, "shell\n", k.ok("exec", "shell", "-c", "app", "--", "hostname"))
		reqs := requests("exec")
		require.NotEmpty(t, reqs)
		r := reqs[len(reqs)-1]
		assert.Equal(t, "CONNECT", r["operation"])
		assert.Equal(t, map[string]any{"group": "", "version": "v1", "kind": "PodExecOptions"}, r["kind"])
		assert.Equal(t, map[string]any{"group": "", "version": "v1", "resource": "pods"}, r["resource"])
		assert.Equal(t, "exec", r["subResource"])
		assert.Equal(t, "exec", r["requestSubResource"])
		assert.Equal(t, "shell", r["name"])
		assert.Equal(t, "default", r["namespace"])
		assert.Equal(t, map[string]any{"kind": "PodExecOptions", "apiVersion": "v1", "stdout": true, "stderr": true,
			"container": "app", "command": []any{"hostname"}}, r["object"])
		assert.Nil(t, r["oldObject"])
		assert.Nil(t, r["options"], "a CONNECT has no options")
		assert.Equal(t, false, r["dryRun"])
	})

	t.Run("exec denied by the webhook", func(t *testing.T) {
		_, errOut, code := k.runIn("", "exec", "shell", "--", "date")
		assert.NotZero(t, code)
		// The webhook's status has a code but no reason, so kubectl names
		// none (ToStatusErr adds none).
		assert.Equal(t, `Error from server: admission webhook "subresources.example.com" denied the request: date is not allowed in this pod`+"\n", errOut)
	})

	t.Run("exec denied by a policy", func(t *testing.T) {
		_, errOut, code := k.runIn("", "exec", "shell", "--", "rm", "-rf", "/tmp")
		assert.NotZero(t, code)
		// A policy's denial is Invalid, worded as for any other request.
		assert.Equal(t, `The pods "shell" is invalid: : ValidatingAdmissionPolicy 'no-rm.example.com' with binding 'no-rm-binding' denied request: rm is not allowed`+"\n", errOut)
	})

	t.Run("attach and portforward", func(t *testing.T) {
		// Plain GETs, not upgrades: the kubelet refuses them, but admission
		// has seen them first.
		k.runIn("", "get", "--raw", "/api/v1/namespaces/default/pods/shell/attach?stdout=true&container=app")
		k.runIn("", "get", "--raw", "/api/v1/namespaces/default/pods/shell/portforward?ports=8080,9090")
		attach, pf := requests("attach"), requests("portforward")
		require.NotEmpty(t, attach)
		require.NotEmpty(t, pf)
		assert.Equal(t, map[string]any{"group": "", "version": "v1", "kind": "PodAttachOptions"}, attach[0]["kind"])
		assert.Equal(t, map[string]any{"kind": "PodAttachOptions", "apiVersion": "v1", "stdout": true, "container": "app"}, attach[0]["object"])
		assert.Equal(t, "CONNECT", pf[0]["operation"])
		assert.Equal(t, map[string]any{"kind": "PodPortForwardOptions", "apiVersion": "v1", "ports": []any{8080.0, 9090.0}}, pf[0]["object"])
	})

	t.Run("policy type checking", func(t *testing.T) {
		// The docs' example: the field is spec.replicas. The policy is
		// stored; the status controller warns.
		typo := `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: typo.example.com
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["deployments"]}
  validations:
  - expression: "object.replicas > 1"
`
		assert.Equal(t, "validatingadmissionpolicy.admissionregistration.k8s.io/typo.example.com created\n",
			k.ok("apply", "-f", writeManifest(t, "typo.yaml", typo)))
		k.eventually(func(out string) bool { return out == "1" },
			"get", "validatingadmissionpolicy", "typo.example.com", "-o", "jsonpath={.status.observedGeneration}")
		assert.Equal(t, "spec.validations[0].expression|apps/v1, Kind=Deployment: ERROR: <input>:1:7: undefined field 'replicas'\n | object.replicas > 1\n | ......^\n",
			k.ok("get", "validatingadmissionpolicy", "typo.example.com", "-o", "jsonpath={.status.typeChecking.expressionWarnings[0].fieldRef}|{.status.typeChecking.expressionWarnings[0].warning}"))
		k.eventually(func(out string) bool { return out == `1 {}` },
			"get", "validatingadmissionpolicy", "no-rm.example.com", "-o", "jsonpath={.status.observedGeneration} {.status.typeChecking}")
	})

	t.Run("eviction", func(t *testing.T) {
		k.ok("run", "keep", "--image=busybox:1.36", "--", "sleep", "3600")
		k.ok("run", "go", "--image=busybox:1.36", "--", "sleep", "3600")
		eviction := func(name string) string {
			return writeManifest(t, name+"-eviction.json", fmt.Sprintf(`{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":%q,"namespace":"default"}}`, name))
		}
		_, errOut, code := k.runIn("", "create", "--raw", "/api/v1/namespaces/default/pods/keep/eviction", "-f", eviction("keep"))
		assert.NotZero(t, code)
		assert.Equal(t, `Error from server: admission webhook "subresources.example.com" denied the request: keep stays`+"\n", errOut)
		k.ok("get", "pod", "keep")

		k.ok("create", "--raw", "/api/v1/namespaces/default/pods/go/eviction", "-f", eviction("go"))
		var found map[string]any
		for _, r := range requests("eviction") {
			if r["name"] == "go" {
				found = r
			}
		}
		require.NotNil(t, found)
		assert.Equal(t, map[string]any{"group": "policy", "version": "v1", "kind": "Eviction"}, found["kind"])
		assert.Equal(t, map[string]any{"group": "", "version": "v1", "resource": "pods"}, found["resource"])
		assert.Equal(t, "Eviction", found["object"].(map[string]any)["kind"])
	})
}
