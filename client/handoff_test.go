package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/handoff"
	"github.com/kubesim/kubesim/api/jsoncodec"
	"github.com/kubesim/kubesim/api/unstructured"
	"github.com/kubesim/kubesim/apiserver/apiservertest"
	"github.com/kubesim/kubesim/client"
)

func next[T api.Object](t *testing.T, w *client.Watch[T]) client.Event[T] {
	t.Helper()
	select {
	case ev, ok := <-w.Events():
		require.True(t, ok, "the watch ended: %v", w.Err())
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no watch event")
	}
	panic("unreachable")
}

// In process, watchers share the watch cache's decoded object (package
// handoff); over HTTP the same watch decodes JSON into an equal object of
// its own. A dynamic client, whose type differs, gets JSON in process too.
func TestInProcessWatchesShareTheDecodedObject(t *testing.T) {
	env := apiservertest.New(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	httpSrv := httptest.NewServer(env.Server.Handler())
	defer httpSrv.Close()
	remote, err := client.New(client.Config{Server: httpSrv.URL})
	require.NoError(t, err)
	other := client.NewInProcess(env.Server.Handler(), "other")

	w1, err := env.Client.Pods().Watch(ctx, "default", client.ListOptions{ResourceVersion: "0"})
	require.NoError(t, err)
	defer w1.Stop()
	w2, err := other.Pods().Watch(ctx, "default", client.ListOptions{ResourceVersion: "0"})
	require.NoError(t, err)
	defer w2.Stop()
	w3, err := remote.Pods().Watch(ctx, "default", client.ListOptions{ResourceVersion: "0"})
	require.NoError(t, err)
	defer w3.Stop()
	dyn, err := client.Dynamic(other, env.Client.Pods().Info()).Watch(ctx, "default", client.ListOptions{ResourceVersion: "0"})
	require.NoError(t, err)
	defer dyn.Stop()

	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", Labels: map[string]string{"app": "web"},
		Annotations: map[string]string{"a": "b"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx", Args: []string{"-x"},
			Ports: []corev1.ContainerPort{{ContainerPort: 80}}}}}}
	_, err = env.Client.Pods().Create(ctx, pod)
	require.NoError(t, err)

	e1, e2, e3, ed := next(t, w1), next(t, w2), next(t, w3), next(t, dyn)
	assert.Equal(t, api.WatchEventAdded, e1.Type)
	assert.Same(t, e1.Object, e2.Object, "two in-process watchers get the one decoded object")
	assert.NotSame(t, e1.Object, e3.Object, "a remote watcher decodes its own")
	assert.Equal(t, e3.Object, e1.Object, "the object handed over is what the JSON decodes to")
	assert.Equal(t, "web", api.Meta(ed.Object).Name, "an unstructured watcher gets the JSON decoded")
	assert.Equal(t, e1.Object.ResourceVersion, api.Meta(ed.Object).ResourceVersion)

	require.NoError(t, env.Client.Pods().Delete(ctx, "default", "web", nil))
	e1 = next(t, w1)
	assert.Equal(t, api.WatchEventDeleted, e1.Type)
	assert.Equal(t, e3.Object.Name, next(t, w3).Object.Name)
}

// answers keeps the body of every write's answer, and can keep a write
// from being answered through api/handoff (the JSON is written then).
type answers struct {
	next   http.RoundTripper
	noHand bool
	bodies [][]byte
}

func (a *answers) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodGet {
		return a.next.RoundTrip(req)
	}
	if a.noHand {
		req = req.WithContext(handoff.WithoutAnswer(req.Context()))
	}
	resp, err := a.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	a.bodies = append(a.bodies, body)
	return resp, err
}

const gadgetCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"gadgets.lab.example.com"},
"spec":{"group":"lab.example.com","scope":"Namespaced",
 "names":{"plural":"gadgets","singular":"gadget","kind":"Gadget"},
 "versions":[{"name":"v1","served":true,"storage":true,"subresources":{"status":{}},
  "schema":{"openAPIV3Schema":{"type":"object","properties":{
   "spec":{"type":"object","properties":{"size":{"type":"integer","default":3},"ratio":{"type":"number"},
     "ports":{"type":"array","items":{"type":"object","properties":{"port":{"type":"integer"},"protocol":{"type":"string","default":"TCP"}}}}}},
   "status":{"type":"object","properties":{"ready":{"type":"boolean"}}}}}}}]}}`

// writeScript makes the same writes in a fresh server, through c: creates,
// updates, patches (merge, strategic, JSON) and status updates of built-in
// kinds and of a custom resource. It returns each write's answer object.
func writeScript(t *testing.T, env *apiservertest.Env, c *client.Client) []api.Object {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Watches run the watch cache, whose decoded objects an update may
	// start from (a copy of): the answers must not change for it.
	for _, r := range []client.ResourceInfo{c.Pods().Info(), c.Leases().Info()} {
		w, err := client.Dynamic(c, r).Watch(ctx, "", client.ListOptions{ResourceVersion: "0"})
		require.NoError(t, err)
		defer w.Stop()
	}
	var out []api.Object
	keep := func(obj api.Object, err error) {
		t.Helper()
		require.NoError(t, err)
		out = append(out, obj)
	}
	pod, err := c.Pods().Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx", Args: []string{"-x"},
			Ports:     []corev1.ContainerPort{{ContainerPort: 80}},
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{"cpu": resource.MustParse("250m")}}}}}})
	keep(pod, err)
	pod = pod.DeepCopy()
	pod.Labels["tier"] = "front"
	pod.Spec.Containers[0].Image = "nginx:1.27"
	keep(c.Pods().Update(ctx, pod))
	keep(c.Pods().Patch(ctx, "default", "web", client.MergePatch, []byte(`{"metadata":{"annotations":{"a":"b"}}}`)))
	keep(c.Pods().Patch(ctx, "default", "web", client.StrategicPatch, []byte(`{"spec":{"containers":[{"name":"c","image":"nginx:1.28"}]}}`)))
	cur := out[len(out)-1].(*corev1.Pod).DeepCopy()
	cur.Status.Phase = corev1.PodRunning
	cur.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	keep(c.Pods().UpdateStatus(ctx, cur))
	keep(c.Pods().Patch(ctx, "default", "web", client.MergePatch, []byte(`{"status":{"podIP":"10.0.0.7"}}`), "status"))
	keep(c.ConfigMaps().Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "default"}, Data: map[string]string{"k": "v"}}))
	holder, secs := "node-1", int32(40)
	renew := metav1.NewMicroTime(env.Clock.Now())
	lease, err := c.Leases().Create(ctx, &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "node-1", Namespace: "kube-node-lease"},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &secs, RenewTime: &renew}})
	keep(lease, err)
	lease = lease.DeepCopy()
	renew = metav1.NewMicroTime(env.Clock.Now().Add(10*time.Second + 123456*time.Microsecond))
	lease.Spec.RenewTime = &renew
	keep(c.Leases().Update(ctx, lease))

	crd := &apiextensionsv1.CustomResourceDefinition{}
	require.NoError(t, json.Unmarshal([]byte(gadgetCRD), crd))
	_, err = env.Client.CustomResourceDefinitions().Create(ctx, crd)
	require.NoError(t, err)
	gadgets := client.Dynamic(c, client.ResourceInfo{Group: "lab.example.com", Version: "v1", Resource: "gadgets", Namespaced: true})
	g := &unstructured.Unstructured{}
	require.NoError(t, json.Unmarshal([]byte(`{"apiVersion":"lab.example.com/v1","kind":"Gadget","metadata":{"name":"g","namespace":"default"},
		"spec":{"ratio":0.5,"ports":[{"port":80}]}}`), g))
	g, err = gadgets.Create(ctx, g)
	keep(g, err)
	g = g.DeepCopy()
	g.Content["spec"].(map[string]any)["ratio"] = 2.0
	keep(gadgets.Update(ctx, g))
	keep(gadgets.Patch(ctx, "default", "g", client.MergePatch, []byte(`{"status":{"ready":true}}`), "status"))
	keep(gadgets.Patch(ctx, "default", "g", client.JSONPatch, []byte(`[{"op":"add","path":"/spec/size","value":7}]`)))
	return out
}

// An in-process write's answer is handed over as the object the server
// decoded from the bytes it stored, and that object is exactly what the
// answer's JSON decodes to: the same writes in two identical servers (same
// clock, same seed), one answered through api/handoff and one in JSON.
func TestInProcessWriteAnswersAreHandedOverAsTheirJSONDecodes(t *testing.T) {
	envA, envB := apiservertest.New(t), apiservertest.New(t)
	handed := &answers{next: &client.InProcessTransport{Handler: envA.Server.Handler()}}
	a, err := client.New(client.Config{Server: "http://in-process", Transport: handed})
	require.NoError(t, err)
	inJSON := &answers{next: &client.InProcessTransport{Handler: envB.Server.Handler()}, noHand: true}
	b, err := client.New(client.Config{Server: "http://in-process", Transport: inJSON})
	require.NoError(t, err)

	gotA, gotB := writeScript(t, envA, a), writeScript(t, envB, b)
	require.Len(t, gotB, len(gotA))
	require.Len(t, handed.bodies, len(gotA))
	require.Len(t, inJSON.bodies, len(gotA))
	for i := range gotA {
		assert.Empty(t, handed.bodies[i], "write %d: handed over, no body", i)
		require.NotEmpty(t, inJSON.bodies[i], "write %d: answered in JSON", i)
		fromJSON := reflect.New(reflect.TypeOf(gotA[i]).Elem()).Interface()
		require.NoError(t, jsoncodec.Unmarshal(inJSON.bodies[i], fromJSON))
		assert.Equal(t, fromJSON, gotA[i], "write %d: the handed object is what the answer's JSON decodes to", i)
		assert.Equal(t, gotB[i], gotA[i], "write %d", i)
	}
	lease := gotA[8].(*coordinationv1.Lease)
	assert.Equal(t, 123456000, lease.Spec.RenewTime.Nanosecond(), "a MicroTime keeps its microseconds")
}

// The object handed over is the caller's own: changing it changes neither
// the server's object nor what in-process watchers (who share the watch
// cache's objects) see.
func TestInProcessWriteAnswerIsTheCallersOwn(t *testing.T) {
	env := apiservertest.New(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w, err := env.Client.Pods().Watch(ctx, "default", client.ListOptions{ResourceVersion: "0"})
	require.NoError(t, err)
	defer w.Stop()

	pod, err := env.Client.Pods().Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}})
	require.NoError(t, err)
	handed := pod.DeepCopy()
	pod.Labels["app"] = "changed by the caller"
	pod.Spec.Containers[0].Image = "changed"

	ev := next(t, w)
	added := ev.Object.DeepCopy()
	assert.Equal(t, handed, ev.Object, "the watchers' object is the answer's")
	assert.NotSame(t, pod, ev.Object)
	assert.Equal(t, "web", ev.Object.Labels["app"], "the watch cache's object is not the caller's")
	assert.Equal(t, "nginx", ev.Object.Spec.Containers[0].Image)
	got, err := env.Client.Pods().Get(ctx, "default", "web")
	require.NoError(t, err)
	assert.Equal(t, "web", got.Labels["app"])

	updated, err := env.Client.Pods().Patch(ctx, "default", "web", client.MergePatch, []byte(`{"metadata":{"labels":{"tier":"front"}}}`))
	require.NoError(t, err)
	updated.Labels["tier"] = "changed by the caller"
	ev2 := next(t, w)
	assert.Equal(t, api.WatchEventModified, ev2.Type)
	assert.NotSame(t, updated, ev2.Object)
	assert.Equal(t, "front", ev2.Object.Labels["tier"])

	// Updates start from (a copy of) the watch cache's object: a status
	// write, which takes everything else from the current object, and a
	// spec write change nothing a watcher holds.
	st := ev2.Object.DeepCopy()
	st.Status.Phase = corev1.PodRunning
	st.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	_, err = env.Client.Pods().UpdateStatus(ctx, st)
	require.NoError(t, err)
	ev3 := next(t, w)
	spec := ev3.Object.DeepCopy()
	spec.Spec.Containers[0].Image = "nginx:2"
	spec.Labels["tier"] = "back"
	_, err = env.Client.Pods().Update(ctx, spec)
	require.NoError(t, err)
	assert.Equal(t, "nginx:2", next(t, w).Object.Spec.Containers[0].Image)
	assert.Equal(t, added, ev.Object, "the first event's object is as it was")
	assert.Equal(t, corev1.PodRunning, ev3.Object.Status.Phase)
	assert.Equal(t, "front", ev3.Object.Labels["tier"])
	assert.Equal(t, "nginx", ev3.Object.Spec.Containers[0].Image)
}
