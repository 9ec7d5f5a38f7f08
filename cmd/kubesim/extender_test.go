package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
)

// `kubesim extender` serves the sample extender: its filter refuses the
// annotated node with a reason, its prioritize prefers the labelled one.
func TestExtenderCommand(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr lockedBuffer
	done := make(chan int)
	go func() {
		done <- run(ctx, []string{"extender", "--listen", "127.0.0.1:0", "--refuse-annotation", "example.com/drain", "--prefer-label", "tier=fast"}, &stdout, &stderr)
	}()
	t.Cleanup(func() {
		cancel()
		assert.Equal(t, 0, <-done, stderr.String())
	})
	addr := regexp.MustCompile(`listening on (http://\S+) `)
	require.Eventually(t, func() bool { return addr.MatchString(stdout.String()) }, 30*time.Second, 10*time.Millisecond, stderr.String())
	url := addr.FindStringSubmatch(stdout.String())[1]

	args := extenderv1.ExtenderArgs{Pod: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"}}, Nodes: &corev1.NodeList{Items: []corev1.Node{
		{ObjectMeta: metav1.ObjectMeta{Name: "node-1", Labels: map[string]string{"tier": "fast"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "node-2", Annotations: map[string]string{"example.com/drain": ""}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "node-3"}},
	}}}
	post := func(verb string, out any) {
		body, err := json.Marshal(args)
		require.NoError(t, err)
		resp, err := http.Post(url+"/"+verb, "application/json", bytes.NewReader(body))
		require.NoError(t, err)
		defer resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
		require.NoError(t, json.NewDecoder(resp.Body).Decode(out))
	}
	var filtered extenderv1.ExtenderFilterResult
	post("filter", &filtered)
	require.NotNil(t, filtered.Nodes)
	var names []string
	for _, n := range filtered.Nodes.Items {
		names = append(names, n.Name)
	}
	assert.Equal(t, []string{"node-1", "node-3"}, names)
	assert.Equal(t, extenderv1.FailedNodesMap{"node-2": "node(s) had annotation example.com/drain"}, filtered.FailedNodes)

	var scores extenderv1.HostPriorityList
	post("prioritize", &scores)
	assert.Equal(t, extenderv1.HostPriorityList{{Host: "node-1", Score: 10}, {Host: "node-2"}, {Host: "node-3"}}, scores)

	resp, err := http.Post(url+"/filter", "application/json", bytes.NewReader([]byte("{nonsense")))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
}

// A bad --prefer-label is a usage error.
func TestExtenderCommandBadLabel(t *testing.T) {
	t.Parallel()
	code, _, errOut := kubesim("extender", "--prefer-label", "nolabel")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `prefer-label "nolabel": want KEY=VALUE`)
}
