package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// aggregatorExamples holds the extension API server's Deployment, Service
// and APIService.
var aggregatorExamples = filepath.Join("..", "..", "examples", "aggregator")

// The seed's aggregator story through the real kubectl: an extension API
// server runs as a pod, the APIService routes its group to it, deleting
// the pod makes the API unavailable until the ReplicaSet replaces it.
func TestKubectlAggregatedAPIServer(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), "--nodes", "2", "--stage-delay", "1s")
	k := newKubectl(t, s)

	out := k.ok("get", "apiservices")
	assert.Regexp(t, `(?m)^NAME\s+SERVICE\s+AVAILABLE\s+AGE$`, out)
	assert.Regexp(t, `(?m)^v1\.apps\s+Local\s+True\s+\d+s$`, out)

	k.ok("apply", "-f", filepath.Join(aggregatorExamples, "wardle.yaml"))
	// The Service got a cluster IP from 10.96.0.0/12.
	assert.Regexp(t, `(?m)^api\s+ClusterIP\s+10\.(9[6-9]|10[0-9]|11[01])\.\d+\.\d+\s+<none>\s+443/TCP\s`, k.ok("get", "svc", "-n", "wardle", "api"))
	apiservice := []string{"get", "apiservice", "v1alpha1.wardle.example.com", "--no-headers"}
	available := func(out string) bool {
		return regexpMatch(`^v1alpha1\.wardle\.example\.com\s+wardle/api\s+True\s`, out)
	}
	k.eventually(available, apiservice...)

	out = k.ok("api-resources", "--api-group=wardle.example.com")
	assert.Regexp(t, `(?m)^flunders\s+wardle\.example\.com/v1alpha1\s+true\s+Flunder$`, out)

	out = k.ok("apply", "-f", filepath.Join(aggregatorExamples, "flunder.yaml"))
	assert.Equal(t, "flunder.wardle.example.com/my-first-flunder created\n", out)
	out = k.ok("get", "flunders")
	assert.Regexp(t, `(?m)^NAME\s+REFERENCE\s+AGE\nmy-first-flunder\s+other-flunder\s+\d+s$`, out)

	// Kill the server: the API is unavailable until the ReplicaSet's new
	// pod runs, then it is back (with a fresh, empty store: the pod's
	// storage was its own). The nodes are cordoned first, so that the new
	// pod waits, Pending, until the test has seen the API unavailable: on a
	// busy machine the seconds a new pod takes to start can pass between
	// two runs of kubectl.
	k.ok("cordon", "node-1")
	k.ok("cordon", "node-2")
	pods := k.ok("get", "pods", "-n", "wardle", "-o", "name")
	require.NotEmpty(t, strings.TrimSpace(pods))
	k.ok("delete", "-n", "wardle", strings.TrimSpace(pods), "--wait=false")
	errOut := k.eventuallyFails(func(errOut string) bool { return strings.Contains(errOut, "ServiceUnavailable") }, "get", "flunders")
	assert.Contains(t, errOut, "Error from server (ServiceUnavailable): the server is currently unable to handle the request")
	k.eventually(func(out string) bool {
		return regexpMatch(`\sFalse \((MissingEndpoints|FailedDiscoveryCheck|EndpointsNotFound)\)\s`, out)
	}, apiservice...)
	k.eventually(func(out string) bool { return regexpMatch(`(?m)^wardle-server-\S+\s+0/1\s+Pending\s`, out) },
		"get", "pods", "-n", "wardle", "--no-headers")
	k.ok("uncordon", "node-1")
	k.ok("uncordon", "node-2")
	k.eventually(available, apiservice...)
	out, errOut = k.run(false, "get", "flunders", "-A")
	assert.Empty(t, out)
	assert.Contains(t, errOut, "No resources found")
}

func regexpMatch(pattern, s string) bool { return regexp.MustCompile(pattern).MatchString(s) }

// `kubectl apply -f examples/aggregator/` applies every file of the folder:
// no object may be defined by two of them (outside/ defines the Service and
// APIService of wardle.yaml differently, so it has a folder of its own).
func TestAggregatorExamplesApplyAsOneFolder(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join(aggregatorExamples, "*.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	definedIn := map[string]string{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		dec := yaml.NewDecoder(bytes.NewReader(data))
		for {
			var obj struct {
				Kind     string `yaml:"kind"`
				Metadata struct {
					Name      string `yaml:"name"`
					Namespace string `yaml:"namespace"`
				} `yaml:"metadata"`
			}
			if err := dec.Decode(&obj); errors.Is(err, io.EOF) {
				break
			} else {
				require.NoError(t, err, f)
			}
			key := obj.Kind + " " + obj.Metadata.Namespace + "/" + obj.Metadata.Name
			if other, dup := definedIn[key]; dup {
				t.Errorf("%s is defined in %s and in %s", key, other, f)
			}
			definedIn[key] = f
		}
	}
	assert.Contains(t, definedIn, "APIService /v1alpha1.wardle.example.com")
}
