package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/apiserver/audit"
)

// readAudit returns the events in the audit log so far.
func readAudit(t *testing.T, path string) []audit.Event {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var evs []audit.Event
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		var ev audit.Event
		require.NoError(t, json.Unmarshal(sc.Bytes(), &ev), sc.Text())
		evs = append(evs, ev)
	}
	return evs
}

// TestAuditLog: serve --audit-log-path with a policy; kubectl's requests,
// an impersonated one refused among them, appear as audit.k8s.io/v1
// events at the policy's levels.
func TestAuditLog(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	logPath := filepath.Join(t.TempDir(), "audit.log")
	policy := filepath.Join(t.TempDir(), "policy.yaml")
	require.NoError(t, os.WriteFile(policy, []byte(`apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: RequestResponse
  resources:
  - group: ""
    resources: ["configmaps"]
- level: None
  verbs: ["get"]
  resources:
  - group: apps
- level: Metadata
`), 0o600))
	s := startServer(t, dir, "--api-server-only", "--audit-log-path", logPath, "--audit-policy-file", policy)
	admin := newKubectl(t, s)
	admin.ok("create", "configmap", "settings", "--from-literal=color=blue", "-n", "default")
	errOut := admin.fail("get", "pods", "-n", "default", "--as=alice")
	assert.Contains(t, errOut, `User "alice" cannot list resource "pods"`)
	admin.fail("get", "deployments.apps", "nothere", "-n", "default")

	find := func(evs []audit.Event, verb, resource string) *audit.Event {
		for i := range evs {
			if evs[i].Verb == verb && evs[i].ObjectRef != nil && evs[i].ObjectRef.Resource == resource {
				return &evs[i]
			}
		}
		return nil
	}
	var evs []audit.Event
	// An event is written when its handler returns, which may be just
	// after kubectl has its answer.
	require.Eventually(t, func() bool {
		evs = readAudit(t, logPath)
		return find(evs, "create", "configmaps") != nil && find(evs, "list", "pods") != nil
	}, 10*time.Second, 10*time.Millisecond)

	cm := find(evs, "create", "configmaps")
	assert.Equal(t, audit.LevelRequestResponse, cm.Level)
	assert.Equal(t, "admin", cm.User.Username)
	assert.Equal(t, "/api/v1/namespaces/default/configmaps?fieldManager=kubectl-create&fieldValidation=Strict", cm.RequestURI)
	assert.Equal(t, "default", cm.ObjectRef.Namespace)
	assert.Equal(t, 201, cm.ResponseStatus.Code)
	assert.Contains(t, string(cm.RequestObject), `"color":"blue"`)
	assert.Contains(t, string(cm.ResponseObject), `"uid":`, "the response is the stored object")
	assert.Contains(t, cm.UserAgent, "kubectl")
	assert.Equal(t, []string{"127.0.0.1"}, cm.SourceIPs)
	assert.NotEmpty(t, cm.AuditID)
	assert.False(t, time.Time(cm.StageTimestamp).Before(time.Time(cm.RequestReceivedTimestamp)))

	pods := find(evs, "list", "pods")
	assert.Equal(t, audit.LevelMetadata, pods.Level)
	assert.Equal(t, "admin", pods.User.Username, "the user is the one who authenticated")
	require.NotNil(t, pods.ImpersonatedUser)
	assert.Equal(t, "alice", pods.ImpersonatedUser.Username)
	assert.Equal(t, []string{"system:authenticated"}, pods.ImpersonatedUser.Groups)
	assert.Equal(t, 403, pods.ResponseStatus.Code)
	assert.Equal(t, "Forbidden", pods.ResponseStatus.Reason)
	assert.Equal(t, `pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "default"`, pods.ResponseStatus.Message)
	assert.Nil(t, pods.RequestObject)

	// The None rule: the get of a deployment is not logged, though
	// kubectl's discovery before it is.
	assert.Nil(t, find(evs, "get", "deployments"))
	discovery := false
	for _, ev := range evs {
		discovery = discovery || ev.ObjectRef == nil && strings.HasPrefix(ev.RequestURI, "/api")
	}
	assert.True(t, discovery, "non-resource requests are logged at Metadata")
}

// TestAuditLogExec: with --audit-log-path set, kubectl exec still
// upgrades its connection — over the WebSocket (a GET, verb get) and over
// SPDY (a POST, verb create) — and each exec is in the log with the code
// 101 Switching Protocols, written when its stream ends.
func TestAuditLogExec(t *testing.T) {
	t.Parallel()
	logPath := filepath.Join(t.TempDir(), "audit.log")
	s := startServer(t, t.TempDir(), "--audit-log-path", logPath)
	k := newKubectl(t, s)
	k.ok("apply", "-f", "testdata/exec-pod.yaml")
	k.ok("wait", "--for=condition=Ready", "pod/shell", "--timeout=60s")

	assert.Equal(t, "shell\n", k.ok("exec", "shell", "--", "hostname"), "over the WebSocket")
	out, _ := k.okWithEnv([]string{"KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false"}, "exec", "shell", "--", "hostname")
	assert.Equal(t, "shell\n", out, "over SPDY")

	execs := func() map[string]audit.Event {
		byVerb := map[string]audit.Event{}
		for _, ev := range readAudit(t, logPath) {
			if ev.ObjectRef != nil && ev.ObjectRef.Resource == "pods" && ev.ObjectRef.Subresource == "exec" {
				byVerb[ev.Verb] = ev
			}
		}
		return byVerb
	}
	require.Eventually(t, func() bool { return len(execs()) == 2 }, 10*time.Second, 10*time.Millisecond,
		"an exec's event is written when its stream ends")
	for verb, ev := range execs() {
		assert.Equal(t, audit.LevelMetadata, ev.Level, verb)
		assert.Equal(t, "admin", ev.User.Username, verb)
		assert.Equal(t, "shell", ev.ObjectRef.Name, verb)
		require.NotNil(t, ev.ResponseStatus, verb)
		assert.Equal(t, 101, ev.ResponseStatus.Code, verb)
	}
	assert.Contains(t, execs(), "get", "the WebSocket's GET")
	assert.Contains(t, execs(), "create", "SPDY's POST")
}
