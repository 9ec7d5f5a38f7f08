package protobufclient

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubesim/kubesim/apiserver/apiservertest"
)

// recorder remembers the media types of every request and response.
type recorder struct {
	h  http.Handler
	mu sync.Mutex
	// seen maps "request Content-Type -> response Content-Type" to a count.
	seen map[string]int
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.h.ServeHTTP(w, req)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen[req.Method+" "+req.Header.Get("Content-Type")+" -> "+w.Header().Get("Content-Type")]++
}

func (r *recorder) count(key string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seen[key]
}

func newClient(t *testing.T) (*kubernetes.Clientset, *recorder) {
	env := apiservertest.New(t)
	rec := &recorder{h: env.Server.LoopbackHandler(), seen: map[string]int{}}
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL, ContentConfig: rest.ContentConfig{
		ContentType: "application/vnd.kubernetes.protobuf", AcceptContentTypes: "application/vnd.kubernetes.protobuf,application/json",
	}})
	require.NoError(t, err)
	return cs, rec
}

const pb = "application/vnd.kubernetes.protobuf"

func TestClientGoProtobuf(t *testing.T) {
	cs, rec := newClient(t)
	ctx := context.Background()
	cms := cs.CoreV1().ConfigMaps("default")

	created, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", Labels: map[string]string{"app": "x"}},
		Data: map[string]string{"k": "v"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	assert.NotEmpty(t, created.UID)
	assert.Equal(t, "v", created.Data["k"])
	assert.Equal(t, 1, rec.count("POST "+pb+" -> "+pb), "%v", rec.seen)

	got, err := cms.Get(ctx, "c", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, created.UID, got.UID)
	assert.Equal(t, created.CreationTimestamp.Unix(), got.CreationTimestamp.Unix())

	list, err := cms.List(ctx, metav1.ListOptions{LabelSelector: "app=x"})
	require.NoError(t, err)
	require.Len(t, list.Items, 1)
	assert.NotEmpty(t, list.ResourceVersion)
	assert.GreaterOrEqual(t, rec.count("GET  -> "+pb), 2)

	w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	require.NoError(t, err)
	defer w.Stop()

	got.Data["k"] = "v2"
	updated, err := cms.Update(ctx, got, metav1.UpdateOptions{})
	require.NoError(t, err)
	assert.Equal(t, "v2", updated.Data["k"])

	select {
	case ev := <-w.ResultChan():
		require.Equal(t, watch.Modified, ev.Type, "%+v", ev.Object)
		assert.Equal(t, "v2", ev.Object.(*corev1.ConfigMap).Data["k"])
	case <-time.After(30 * time.Second):
		t.Fatal("no watch event")
	}

	// A strict create with a field the kind does not have is impossible in
	// protobuf; a not-found error still reaches client-go as a Status.
	_, err = cms.Get(ctx, "missing", metav1.GetOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `configmaps "missing" not found`)

	// DeleteOptions travel in protobuf too: a failing precondition proves
	// they were read.
	wrong := metav1.NewUIDPreconditions("nope")
	err = cms.Delete(ctx, "c", metav1.DeleteOptions{Preconditions: wrong})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Precondition failed")
	require.NoError(t, cms.Delete(ctx, "c", metav1.DeleteOptions{}))
	assert.GreaterOrEqual(t, rec.count("DELETE "+pb+" -> application/json"), 1, "%v", rec.seen)
}

func TestClientGoProtobufSubresources(t *testing.T) {
	cs, _ := newClient(t)
	ctx := context.Background()

	replicas := int32(1)
	dep, err := cs.AppsV1().Deployments("default").Create(ctx, &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv1.DeploymentSpec{Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	assert.Equal(t, "nginx", dep.Spec.Template.Spec.Containers[0].Image)

	sc, err := cs.AppsV1().Deployments("default").GetScale(ctx, "web", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, int32(1), sc.Spec.Replicas)
	sc.Spec.Replicas = 3
	sc, err = cs.AppsV1().Deployments("default").UpdateScale(ctx, "web", sc, metav1.UpdateOptions{})
	require.NoError(t, err)
	assert.Equal(t, int32(3), sc.Spec.Replicas)
	dep, err = cs.AppsV1().Deployments("default").Get(ctx, "web", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, int32(3), *dep.Spec.Replicas)

	pods := cs.CoreV1().Pods("default")
	_, err = pods.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}, metav1.CreateOptions{})
	require.NoError(t, err)
	require.NoError(t, pods.Bind(ctx, &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "p"},
		Target: corev1.ObjectReference{Kind: "Node", Name: "node-1"}}, metav1.CreateOptions{}))
	pod, err := pods.Get(ctx, "p", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, "node-1", pod.Spec.NodeName)

	pod.Status.Phase = corev1.PodRunning
	pod, err = pods.UpdateStatus(ctx, pod, metav1.UpdateOptions{})
	require.NoError(t, err)
	assert.Equal(t, corev1.PodRunning, pod.Status.Phase)
}
