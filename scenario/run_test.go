package scenario

import (
	"bytes"
	"context"
	"github.com/kubesim/kubesim/client"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/stepper"
)

func runSource(t *testing.T, src string) (*Runner, *Reporter, *bytes.Buffer) {
	t.Helper()
	s, err := Parse("t.yaml", []byte(src), readMap(map[string]string{"pod.yaml": podYAML}))
	require.NoError(t, err)
	var out bytes.Buffer
	rep := &Reporter{W: &out, Style: StyleSummary}
	r, err := New(s, rep)
	require.NoError(t, err)
	t.Cleanup(func() { r.Close() })
	return r, rep, &out
}

func TestApplyCreatesUpdatesAndFailsAsExpected(t *testing.T) {
	r, _, out := runSource(t, `cluster: {nodeCount: 1}
steps:
- apply: pod.yaml
- apply: pod.yaml
- apply:
    manifest: |
      apiVersion: apps/v1
      kind: ReplicaSet
      metadata: {name: bad}
      spec:
        replicas: -1
        selector: {matchLabels: {a: b}}
        template:
          metadata: {labels: {a: b}}
          spec: {containers: [{name: c, image: i}]}
    fails: {reason: Invalid, message: "spec.replicas"}
- apply:
    file: pod.yaml
    fails: {reason: Invalid, message: "x"}
`)
	ok, err := r.RunAll(context.Background())
	require.NoError(t, err)
	assert.False(t, ok)
	res := r.Results()
	require.Len(t, res, 4)
	assert.Equal(t, "pod/web created", res[0].Message)
	assert.Regexp(t, `^pod/web (unchanged|configured)$`, res[1].Message)
	assert.True(t, res[2].OK, res[2].Message)
	assert.Contains(t, res[2].Message, `failed as expected: Error from server (Invalid): ReplicaSet.apps "bad" is invalid: spec.replicas`)
	assert.False(t, res[3].OK, "an apply that must fail but succeeds fails the step")
	assert.Contains(t, res[3].Actual, "it succeeded")
	assert.Contains(t, out.String(), "FAIL   4  apply pod.yaml (must fail: Invalid)")
}

func TestExpectFailuresSayWhatWasFound(t *testing.T) {
	r, rep, out := runSource(t, `cluster: {nodeCount: 1}
steps:
- apply: pod.yaml
- runUntilStable
- expect:
  - {kind: Pod, name: web, field: .spec.nodeName, equals: node-1}
  - {kind: Pod, name: web, field: .spec.nodeName, equals: node-9}
- note: never
`)
	ok, err := r.RunAll(context.Background())
	require.NoError(t, err)
	assert.False(t, ok)
	assert.False(t, rep.Footer(r.Scenario()))
	res := r.Results()
	require.Len(t, res, 3, "the failure stops the scenario")
	assert.Equal(t, "Pod web .spec.nodeName == node-9", res[2].Expected)
	assert.Equal(t, "node-1", res[2].Actual)
	assert.Contains(t, out.String(), "the trace before it (last ")
	assert.Contains(t, out.String(), "--- FAIL: 2 of 4 steps passed")
	assert.NotContains(t, out.String(), "never")
}

func TestExplainFollowsTheChainToTheUser(t *testing.T) {
	r, _, _ := runSource(t, `cluster: {nodeCount: 1}
steps:
- note: the node registers first
- runUntilStable
- apply: pod.yaml
- runUntilStable
`)
	assert.Contains(t, r.Explain(), "No control loop has written anything yet")
	ctx := context.Background()
	for r.Current() < 3 { // the note, the first run, the apply
		_, err := r.Next(ctx)
		require.NoError(t, err)
	}
	// Run units until the scheduler binds the pod.
	for i := 0; i < 50 && !strings.Contains(r.Explain(), "binding"); i++ {
		_, err := r.Next(ctx)
		require.NoError(t, err)
	}
	why := r.Explain()
	assert.Contains(t, why, "The last write: create /api/v1/namespaces/default/pods/web/binding 201")
	assert.Contains(t, why, "made by scheduler")
	assert.Regexp(t, `because scheduler saw the ADDED event of Pod default/web at resourceVersion \d+`, why)
	assert.Regexp(t, `resourceVersion \d+ was written by you: step 3 \(apply pod.yaml\): create /api/v1/namespaces/default/pods 201`, why)
}

func TestUnknownKindFailsBeforeAnythingRuns(t *testing.T) {
	s, err := Parse("t.yaml", []byte("steps:\n- apply:\n    manifest: {apiVersion: v1, kind: Frobnicator, metadata: {name: a}}\n- expect: {kind: Widget, count: 1}\n"), nil)
	require.NoError(t, err)
	_, err = New(s, nil)
	require.Error(t, err)
	assert.Equal(t, `t.yaml:3: no matches for kind "Frobnicator" in version "v1"`, err.Error())
	s, err = Parse("t.yaml", []byte("steps:\n- note: a\n- expect: {kind: Widget, count: 1}\n"), nil)
	require.NoError(t, err)
	_, err = New(s, nil)
	assert.EqualError(t, err, `t.yaml:3: the server doesn't have a resource type "Widget"`)
}

func TestExplainObjectFollowsAPodBackToTheUser(t *testing.T) {
	r, _, _ := runSource(t, `cluster: {nodeCount: 1}
steps:
- runUntilStable
- apply: pod.yaml
- runUntilStable
`)
	ctx := context.Background()
	ok, err := r.RunAll(ctx)
	require.NoError(t, err)
	require.True(t, ok)
	why := r.ExplainObject("/api/v1/namespaces/default/pods", "web")
	assert.Regexp(t, `^You created it: step 2 \(apply pod.yaml\): create /api/v1/namespaces/default/pods 201 rv=\d+\n( +admission mutating .*\n)*$`, why) // the write, then what admission changed in it
	assert.Contains(t, r.ExplainObject("/api/v1/namespaces/default/pods", "ghost"), "No traced write created ghost")

	// A write made outside the steps (the web page's) ends a chain too.
	cm, err := r.cl.ConfigMaps().Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "page", Namespace: "default"}})
	require.NoError(t, err)
	r.RecordUserWrite("the web page", stepper.Write{Verb: "create", Path: "/api/v1/namespaces/default/configmaps", Code: 201,
		ResourceVersion: cm.ResourceVersion, Name: "page"})
	assert.Equal(t, "You created it: the web page: create /api/v1/namespaces/default/configmaps 201 rv="+cm.ResourceVersion+"\n",
		r.ExplainObject("/api/v1/namespaces/default/configmaps", "page"))
}

// A scenario carries a KubeSchedulerConfiguration: a pod naming its second
// profile is bound by it (the event's source is that profile's name), and
// a pod naming a scheduler no profile has stays Pending, without events.
func TestSchedulerConfigProfiles(t *testing.T) {
	r, _, out := runSource(t, `cluster:
  nodeCount: 2
  schedulerConfig:
    apiVersion: kubescheduler.config.k8s.io/v1
    kind: KubeSchedulerConfiguration
    profiles:
    - schedulerName: default-scheduler
    - schedulerName: my-scheduler
      plugins:
        score:
          disabled: [{name: '*'}]
steps:
- runUntilStable
- apply:
    manifest: {apiVersion: v1, kind: Pod, metadata: {name: mine}, spec: {schedulerName: my-scheduler, containers: [{name: c, image: nginx}]}}
- apply:
    manifest: {apiVersion: v1, kind: Pod, metadata: {name: orphan}, spec: {schedulerName: nobody, containers: [{name: c, image: nginx}]}}
- runUntilStable
- expect: {kind: Pod, name: mine, field: .status.phase, equals: Running}
- expect: {event: {reason: Scheduled, message: "Successfully assigned default/mine to node-"}, kind: Pod, name: mine, count: 1}
- expect: {kind: Pod, name: orphan, field: .status.phase, equals: Pending}
`)
	ok, err := r.RunAll(context.Background())
	require.NoError(t, err)
	assert.True(t, ok, out.String())
	evs, err := r.cl.Events().List(context.Background(), "default", client.ListOptions{})
	require.NoError(t, err)
	var got []string
	for _, ev := range evs.Items {
		if ev.InvolvedObject.Kind == "Pod" && (ev.InvolvedObject.Name == "mine" || ev.InvolvedObject.Name == "orphan") &&
			(ev.Reason == "Scheduled" || ev.Reason == "FailedScheduling") {
			got = append(got, ev.InvolvedObject.Name+" "+ev.Reason+" by "+ev.Source.Component)
		}
	}
	assert.Equal(t, []string{"mine Scheduled by my-scheduler"}, got)
}
