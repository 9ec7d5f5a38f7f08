package cluster

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/kubelet"
	"github.com/kubesim/kubesim/stepper"
)

// get sends a GET through the API server (as the loopback user) and
// returns the code and body.
func get(c *Cluster, path string) (int, string) {
	rec := httptest.NewRecorder()
	c.Server().LoopbackHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec.Code, rec.Body.String()
}

func status(t *testing.T, body string) metav1.Status {
	t.Helper()
	var st metav1.Status
	require.NoError(t, json.Unmarshal([]byte(body), &st), body)
	return st
}

// pods/log goes from the API server to the pod's node's kubelet API, and
// the refusals on the way are the real ones.
func TestPodLogIsForwardedToTheNodesKubelet(t *testing.T) {
	c := stepCluster(t)
	cl := c.Client("test")
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
	_, err := cl.Pods().Create(bg, pod)
	require.NoError(t, err)

	code, body := get(c, "/api/v1/namespaces/default/pods/p/log")
	assert.Equal(t, http.StatusOK, code, "an unscheduled pod's log is empty")
	assert.Empty(t, body)

	code, body = get(c, "/api/v1/namespaces/default/pods/p/log?container=nope")
	assert.Equal(t, http.StatusBadRequest, code)
	assert.Equal(t, "container nope is not valid for pod p", status(t, body).Message)

	code, body = get(c, "/api/v1/namespaces/default/pods/missing/log")
	assert.Equal(t, http.StatusNotFound, code)
	assert.Equal(t, `pods "missing" not found`, status(t, body).Message)

	code, body = get(c, "/api/v1/namespaces/default/pods/p/log?tailLines=-1")
	assert.Equal(t, http.StatusUnprocessableEntity, code, body)

	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	p, err := cl.Pods().Get(bg, "default", "p")
	require.NoError(t, err)
	require.Equal(t, corev1.PodRunning, p.Status.Phase)
	code, body = get(c, "/api/v1/namespaces/default/pods/p/log")
	assert.Equal(t, http.StatusOK, code, body)

	code, body = get(c, "/api/v1/namespaces/default/pods/p/log?previous=true")
	assert.Equal(t, http.StatusBadRequest, code)
	st := status(t, body)
	assert.Equal(t, metav1.StatusReasonBadRequest, st.Reason)
	assert.Equal(t, `previous terminated container "c" in pod "p" not found`, st.Message)

	k, _ := c.Kubelet(p.Spec.NodeName)
	k.Stop()
	code, body = get(c, "/api/v1/namespaces/default/pods/p/log")
	assert.Equal(t, http.StatusInternalServerError, code)
	assert.Equal(t, `Get "https://`+k.InternalIP()+`:10250/containerLogs/default/p/c": dial tcp `+k.InternalIP()+`:10250: connect: connection refused`,
		status(t, body).Message)
}

// A busybox pod whose shell script prints, sleeps and fails: its log, the
// previous instance's after the restart, and the real refusals, all on
// the step clock.
func TestContainerLogsInStepMode(t *testing.T) {
	c := stepCluster(t)
	cl := c.Client("test")
	_, err := c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "sh", Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "sh", Image: "busybox:1.36",
			Args: []string{"sh", "-c", "echo hello; sleep 5; echo failing now; exit 3"}}}}}
	_, err = cl.Pods().Create(bg, pod)
	require.NoError(t, err)

	// Scheduled, not yet running: the kubelet says why there is no log.
	for i := 0; ; i++ {
		require.Less(t, i, 200, "the pod never waited in ContainerCreating")
		p, err := cl.Pods().Get(bg, "default", "sh")
		require.NoError(t, err)
		if len(p.Status.ContainerStatuses) > 0 && p.Status.ContainerStatuses[0].State.Waiting != nil {
			break
		}
		_, _, err = c.Step(bg)
		require.NoError(t, err)
	}
	code, body := get(c, "/api/v1/namespaces/default/pods/sh/log")
	assert.Equal(t, http.StatusBadRequest, code)
	assert.Equal(t, `container "sh" in pod "sh" is waiting to start: ContainerCreating`, status(t, body).Message)

	_, err = c.RunUntilStable(bg, stepper.Limits{Horizon: time.Second})
	require.NoError(t, err)
	code, body = get(c, "/api/v1/namespaces/default/pods/sh/log")
	require.Equal(t, http.StatusOK, code, body)
	assert.Equal(t, "hello\n", body)

	_, err = c.Advance(bg, 6*time.Second, stepper.Limits{})
	require.NoError(t, err)
	p, err := cl.Pods().Get(bg, "default", "sh")
	require.NoError(t, err)
	cs := p.Status.ContainerStatuses[0]
	assert.Equal(t, int32(1), cs.RestartCount)
	require.NotNil(t, cs.State.Running, "the first restart is at once")
	require.NotNil(t, cs.LastTerminationState.Terminated)
	assert.Equal(t, int32(3), cs.LastTerminationState.Terminated.ExitCode)
	assert.Equal(t, "Error", cs.LastTerminationState.Terminated.Reason)
	_, body = get(c, "/api/v1/namespaces/default/pods/sh/log?previous=true")
	assert.Equal(t, "hello\nfailing now\n", body)
	_, body = get(c, "/api/v1/namespaces/default/pods/sh/log?previous=true&tailLines=1&timestamps=true")
	// The status keeps whole seconds; the log, the runtime's own time
	// (the container started when its image was pulled, 341 ms in).
	stamp, line, _ := strings.Cut(body, " ")
	assert.Equal(t, "failing now\n", line)
	at, err := time.Parse(time.RFC3339Nano, stamp)
	require.NoError(t, err)
	assert.Equal(t, cs.LastTerminationState.Terminated.FinishedAt.Time.UTC(), at.Truncate(time.Second))
	_, body = get(c, "/api/v1/namespaces/default/pods/sh/log?previous=true&limitBytes=3")
	assert.Equal(t, "hel", body)

	_, body = get(c, "/api/v1/namespaces/default/pods/sh/log")
	assert.Equal(t, "hello\n", body, "the new run's log starts afresh")

	// It fails again 5 seconds later: now the back-off.
	_, err = c.Advance(bg, 5*time.Second, stepper.Limits{})
	require.NoError(t, err)
	p, err = cl.Pods().Get(bg, "default", "sh")
	require.NoError(t, err)
	cs = p.Status.ContainerStatuses[0]
	assert.Equal(t, int32(2), cs.RestartCount)
	require.NotNil(t, cs.State.Waiting)
	assert.Equal(t, "CrashLoopBackOff", cs.State.Waiting.Reason)

	// Back-off over, it runs again: the current log starts afresh.
	_, err = c.Advance(bg, 11*time.Second, stepper.Limits{})
	require.NoError(t, err)
	p, err = cl.Pods().Get(bg, "default", "sh")
	require.NoError(t, err)
	require.NotNil(t, p.Status.ContainerStatuses[0].State.Running, "restarted after 10s of back-off")
	_, body = get(c, "/api/v1/namespaces/default/pods/sh/log")
	assert.Equal(t, "hello\n", body)
}

// /stats/summary reports each running pod's simulated usage, which the
// usage annotation changes at run time.
func TestStatsSummaryFollowsTheUsageAnnotation(t *testing.T) {
	c := stepCluster(t)
	cl := c.Client("test")
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "busy", Namespace: "default",
		Annotations: map[string]string{kubelet.UsageAnnotation: "cpu=250m,memory=64Mi"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
	_, err := cl.Pods().Create(bg, pod)
	require.NoError(t, err)
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	p, err := cl.Pods().Get(bg, "default", "busy")
	require.NoError(t, err)
	k, _ := c.Kubelet(p.Spec.NodeName)

	summary := func() kubelet.Summary {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, "https://"+k.InternalIP()+":10250/stats/summary", nil)
		c.KubeletAPI().ServeHTTP(rec, req)
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		var s kubelet.Summary
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &s))
		return s
	}
	s := summary()
	assert.Equal(t, p.Spec.NodeName, s.Node.NodeName)
	require.Len(t, s.Pods, 1)
	assert.Equal(t, "busy", s.Pods[0].PodRef.Name)
	assert.Equal(t, uint64(250_000_000), *s.Pods[0].CPU.UsageNanoCores)
	assert.Equal(t, uint64(64<<20), *s.Pods[0].Memory.WorkingSetBytes)
	assert.Equal(t, uint64(250_000_000), *s.Pods[0].Containers[0].CPU.UsageNanoCores)
	assert.Greater(t, *s.Node.CPU.UsageNanoCores, uint64(250_000_000), "the node adds its own use")

	p.Annotations[kubelet.UsageAnnotation] = "cpu=1,memory=1Gi"
	_, err = cl.Pods().Update(bg, p)
	require.NoError(t, err)
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	s = summary()
	assert.Equal(t, uint64(1_000_000_000), *s.Pods[0].CPU.UsageNanoCores)
	assert.Equal(t, uint64(1<<30), *s.Pods[0].Memory.WorkingSetBytes)

	rec := httptest.NewRecorder()
	c.KubeletAPI().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "https://10.99.99.99:10250/stats/summary", nil))
	assert.Equal(t, http.StatusNotFound, rec.Code, "no node there")
}

// Discovery lists pods/log, as kube-apiserver does.
func TestDiscoveryListsPodsLog(t *testing.T) {
	c := stepCluster(t)
	code, body := get(c, "/api/v1")
	require.Equal(t, http.StatusOK, code)
	var list metav1.APIResourceList
	require.NoError(t, json.Unmarshal([]byte(body), &list))
	var found *metav1.APIResource
	for i := range list.APIResources {
		if list.APIResources[i].Name == "pods/log" {
			found = &list.APIResources[i]
		}
	}
	require.NotNil(t, found, "pods/log in /api/v1")
	assert.Equal(t, "Pod", found.Kind)
	assert.Equal(t, metav1.Verbs{"get"}, found.Verbs)
	assert.True(t, found.Namespaced)
}

// Containers that live by their command keep step mode deterministic: the
// same pods give the same trace, line for line.
func TestBehavingContainersGiveTheSameTraceEveryRun(t *testing.T) {
	run := func() []string {
		c := stepCluster(t)
		cl := c.Client("test")
		always := corev1.ContainerRestartPolicyAlways
		for _, p := range []*corev1.Pod{
			{ObjectMeta: metav1.ObjectMeta{Name: "crash", Namespace: "default"}, Spec: corev1.PodSpec{Containers: []corev1.Container{
				{Name: "c", Image: "busybox", Args: []string{"sh", "-c", "echo hi; sleep 3; exit 1"}}}}},
			{ObjectMeta: metav1.ObjectMeta{Name: "init", Namespace: "default"}, Spec: corev1.PodSpec{
				InitContainers: []corev1.Container{{Name: "i", Image: "busybox", Command: []string{"sleep", "2"}},
					{Name: "s", Image: "envoyproxy/envoy:v1.31-latest", RestartPolicy: &always}},
				Containers: []corev1.Container{{Name: "c", Image: "kubesim/sleep", Args: []string{"20s"}}}}},
		} {
			_, err := cl.Pods().Create(bg, p)
			require.NoError(t, err)
		}
		_, err := c.Advance(bg, 3*time.Minute, stepper.Limits{})
		require.NoError(t, err)
		var out []string
		for _, e := range c.Trace() {
			out = append(out, e.String())
		}
		return out
	}
	first := run()
	assert.Equal(t, first, run())
	assert.Greater(t, len(first), 50)
}
