package sample

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
)

// nodes are three nodes: fast (labelled tier=fast), drained (annotated
// example.com/drain) and plain.
func nodes() *corev1.NodeList {
	return &corev1.NodeList{Items: []corev1.Node{
		{ObjectMeta: metav1.ObjectMeta{Name: "fast", Labels: map[string]string{"tier": "fast"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "drained", Annotations: map[string]string{"example.com/drain": ""}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "plain", Labels: map[string]string{"tier": "slow"}}},
	}}
}

func newSample(t *testing.T, cfg Config) *Extender {
	t.Helper()
	e, err := New(cfg)
	require.NoError(t, err)
	return e
}

// --prefer-label must be KEY=VALUE; either flag may be left out.
func TestNewChecksTheFlags(t *testing.T) {
	for _, tc := range []struct {
		cfg     Config
		wantErr string
	}{
		{Config{}, ""},
		{Config{PreferLabel: "tier=fast", RefuseAnnotation: "example.com/drain"}, ""},
		{Config{PreferLabel: "tier="}, ""}, // an empty value is a value
		{Config{PreferLabel: "tier"}, `prefer-label "tier": want KEY=VALUE`},
		{Config{PreferLabel: "=fast"}, `prefer-label "=fast": want KEY=VALUE`},
	} {
		_, err := New(tc.cfg)
		if tc.wantErr == "" {
			assert.NoError(t, err, "%+v", tc.cfg)
		} else {
			assert.EqualError(t, err, tc.wantErr)
		}
	}
}

// Filter refuses the annotated nodes, saying why, and passes the others
// whole; without --refuse-annotation it refuses none.
func TestFilter(t *testing.T) {
	res := newSample(t, Config{RefuseAnnotation: "example.com/drain"}).Filter(&extenderv1.ExtenderArgs{Nodes: nodes()})
	var names []string
	for _, n := range res.Nodes.Items {
		names = append(names, n.Name)
	}
	assert.Equal(t, []string{"fast", "plain"}, names)
	assert.Equal(t, extenderv1.FailedNodesMap{"drained": "node(s) had annotation example.com/drain"}, res.FailedNodes)
	assert.Equal(t, "fast", res.Nodes.Items[0].Labels["tier"], "the nodes are passed whole")

	res = newSample(t, Config{}).Filter(&extenderv1.ExtenderArgs{Nodes: nodes()})
	assert.Len(t, res.Nodes.Items, 3)
	assert.Empty(t, res.FailedNodes)
}

// Prioritize gives MaxExtenderPriority to the nodes with the label (key
// and value), 0 to the others, one entry per node in order.
func TestPrioritize(t *testing.T) {
	got := newSample(t, Config{PreferLabel: "tier=fast"}).Prioritize(&extenderv1.ExtenderArgs{Nodes: nodes()})
	assert.Equal(t, extenderv1.HostPriorityList{{Host: "fast", Score: extenderv1.MaxExtenderPriority}, {Host: "drained"}, {Host: "plain"}}, got)
	got = newSample(t, Config{}).Prioritize(&extenderv1.ExtenderArgs{Nodes: nodes()})
	assert.Equal(t, extenderv1.HostPriorityList{{Host: "fast"}, {Host: "drained"}, {Host: "plain"}}, got)
}

// Over HTTP: the verbs answer JSON; a body that is not ExtenderArgs, or
// args with node names only (nodeCacheCapable), is a 400 saying so; other
// methods and paths are not served.
func TestHandler(t *testing.T) {
	h := newSample(t, Config{PreferLabel: "tier=fast", RefuseAnnotation: "example.com/drain"}).Handler()
	post := func(path, body string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, path, strings.NewReader(body)))
		return rec
	}
	args, err := json.Marshal(extenderv1.ExtenderArgs{Pod: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}}, Nodes: nodes()})
	require.NoError(t, err)

	rec := post("/filter", string(args))
	require.Equal(t, http.StatusOK, rec.Code)
	assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
	var fr extenderv1.ExtenderFilterResult
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &fr))
	assert.Len(t, fr.Nodes.Items, 2)
	assert.Contains(t, fr.FailedNodes, "drained")

	rec = post("/prioritize", string(args))
	require.Equal(t, http.StatusOK, rec.Code)
	var hp extenderv1.HostPriorityList
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &hp))
	assert.Equal(t, extenderv1.HostPriority{Host: "fast", Score: 10}, hp[0])

	for _, path := range []string{"/filter", "/prioritize"} {
		rec = post(path, "{not json")
		assert.Equal(t, http.StatusBadRequest, rec.Code, path)
		assert.Contains(t, rec.Body.String(), "decoding ExtenderArgs: ")

		rec = post(path, `{"pod": {}, "nodenames": ["fast"]}`)
		assert.Equal(t, http.StatusBadRequest, rec.Code, path)
		assert.Contains(t, rec.Body.String(), "configure it without nodeCacheCapable")
	}

	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/filter", nil))
	assert.Equal(t, http.StatusMethodNotAllowed, rec.Code)
	assert.Equal(t, http.StatusNotFound, post("/bind", string(args)).Code)
}
