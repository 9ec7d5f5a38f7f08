package nodeproxy

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
)

func TestValidateContainer(t *testing.T) {
	one := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "a"}}}}
	two := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Spec: corev1.PodSpec{InitContainers: []corev1.Container{{Name: "i"}},
		Containers: []corev1.Container{{Name: "a"}, {Name: "b"}}}}
	got, err := ValidateContainer("", one)
	require.NoError(t, err)
	assert.Equal(t, "a", got, "the only container")
	got, err = ValidateContainer("i", two)
	require.NoError(t, err)
	assert.Equal(t, "i", got, "an init container is valid")
	_, err = ValidateContainer("", two)
	assert.EqualError(t, err, "a container name must be specified for pod p, choose one of: [a b] or one of the init containers: [i]")
	assert.True(t, api.IsBadRequest(err))
	_, err = ValidateContainer("z", two)
	assert.EqualError(t, err, "container z is not valid for pod p")
}

func TestLogParams(t *testing.T) {
	q := url.Values{"follow": {"true"}, "tailLines": {"5"}, "container": {"c"}, "previous": {"false"}}
	out, err := logParams(q, "p")
	require.NoError(t, err)
	assert.Equal(t, url.Values{"follow": {"true"}, "tailLines": {"5"}}, out, "only what the kubelet reads")
	_, err = logParams(url.Values{"tailLines": {"-1"}}, "p")
	assert.True(t, api.IsInvalid(err))
	assert.Contains(t, err.Error(), "tailLines: Invalid value: -1: must be greater than or equal to 0")
	_, err = logParams(url.Values{"limitBytes": {"0"}}, "p")
	assert.Contains(t, err.Error(), "limitBytes: Invalid value: 0: must be greater than 0")
	_, err = logParams(url.Values{"sinceSeconds": {"5"}, "sinceTime": {"2026-01-01T00:00:00Z"}}, "p")
	assert.Contains(t, err.Error(), "at most one of `sinceTime` or `sinceSeconds` may be specified")
}

// upgradeWriter stands for the server's connection-owning writer.
type upgradeWriter struct{ *httptest.ResponseRecorder }

func TestForwardHandsTheOriginalWriterToTheKubelet(t *testing.T) {
	var gotWriter http.ResponseWriter
	var gotReq *http.Request
	kubelet := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { gotWriter, gotReq = w, r })
	w := upgradeWriter{httptest.NewRecorder()}
	r := httptest.NewRequest(http.MethodPost, "/api/v1/namespaces/ns/pods/p/exec", nil)
	r.Header.Set("Authorization", "Bearer secret")
	r.Header.Set("Upgrade", "websocket")
	require.NoError(t, Forward(w, r, Connection{Host: "10.244.0.1:10250", Handler: kubelet}, "/exec/ns/p/c", url.Values{"command": {"ls"}}))
	assert.Equal(t, w, gotWriter, "the same writer: an upgrade can hijack it")
	assert.Equal(t, "10.244.0.1:10250", gotReq.Host)
	assert.Equal(t, "/exec/ns/p/c?command=ls", gotReq.URL.RequestURI())
	assert.Equal(t, http.MethodPost, gotReq.Method)
	assert.Equal(t, "websocket", gotReq.Header.Get("Upgrade"))
	assert.Empty(t, gotReq.Header.Get("Authorization"), "the client's credentials stay with the API server")
	assert.Equal(t, "Bearer secret", r.Header.Get("Authorization"), "the client's request is not changed")

	err := Forward(w, r, Connection{Host: "10.244.0.1:10250"}, "/exec/ns/p/c", nil)
	assert.EqualError(t, err, `Post "https://10.244.0.1:10250/exec/ns/p/c": dial tcp 10.244.0.1:10250: connect: connection refused`)
}

func TestForwardStreamTurnsRefusalsIntoStatuses(t *testing.T) {
	refuse := func(code int, msg string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { http.Error(w, msg, code) })
	}
	r := httptest.NewRequest(http.MethodGet, "/api/v1/namespaces/ns/pods/p/log", nil)
	gr := schema.GroupResource{Resource: "pods"}
	err := ForwardStream(httptest.NewRecorder(), r, Connection{Host: "h:1", Handler: refuse(400, `container "c" in pod "p" is waiting to start: ContainerCreating`)}, "/x", nil, gr, "p")
	assert.True(t, api.IsBadRequest(err))
	assert.EqualError(t, err, `container "c" in pod "p" is waiting to start: ContainerCreating`)
	err = ForwardStream(httptest.NewRecorder(), r, Connection{Host: "h:1", Handler: refuse(404, `pod "p" does not exist`)}, "/x", nil, gr, "p")
	assert.True(t, api.IsNotFound(err))

	rec := httptest.NewRecorder()
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("line\n")) })
	require.NoError(t, ForwardStream(rec, r, Connection{Host: "h:1", Handler: ok}, "/x", nil, gr, "p"))
	assert.Equal(t, "line\n", rec.Body.String())
}
