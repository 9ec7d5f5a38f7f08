package cluster

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/stepper"
)

// The metrics server reaches a node's kubelet at its InternalIP:10250, in
// process; a stopped node refuses the connection, as a dead node does.
func TestKubeletTransportReachesTheNodeAtItsAddress(t *testing.T) {
	c := stepCluster(t)
	_, err := c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	kl, ok := c.Kubelet("node-2")
	require.True(t, ok)
	url := "https://" + kl.InternalIP() + ":10250/stats/summary"
	scrape := func() (*http.Response, error) {
		req, err := http.NewRequestWithContext(bg, http.MethodGet, url, nil)
		require.NoError(t, err)
		return kubeletTransport{c}.RoundTrip(req)
	}
	resp, err := scrape()
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, string(body), `"nodeName":"node-2"`)

	kl.Stop()
	_, err = scrape()
	require.Error(t, err)
	assert.True(t, strings.Contains(err.Error(), "connection refused"), err.Error())
}
