package cluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"

	"github.com/kubesim/kubesim/aggregator/availability"
	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/controllers/endpoints"
	"github.com/kubesim/kubesim/kubelet"
	"github.com/kubesim/kubesim/kubelet/podnet"
	"github.com/kubesim/kubesim/sampleapiserver"
)

// newProxyToken is the aggregator's front-proxy credential, shared with
// the extension API servers the kubelets run. It comes from crypto/rand
// even in step mode: it never shows in a trace.
func newProxyToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// buildAggregationLoops adds the endpoints controller and the APIService
// availability controller.
func (c *Cluster) buildAggregationLoops(add func(string, Component, error, *recorder, *kubelet.Kubelet) error) error {
	cl, rec := c.client("endpoint-controller")
	ep, err := endpoints.New(endpoints.Config{Client: cl, Clock: c.clock, Logger: c.logger})
	if err := add(endpoints.ControllerName, ep, err, rec, nil); err != nil {
		return err
	}
	cl, rec = c.client("apiservice-availability-controller")
	av, err := availability.New(availability.Config{Client: cl, Clock: c.clock, Logger: c.logger,
		Check: c.server.Aggregator().CheckAvailability})
	return add(availability.ControllerName, av, err, rec, nil)
}

// realImages are the images the kubelets run for real: the sample
// extension API server, trusting this cluster's aggregator.
func (c *Cluster) realImages() map[string]kubelet.ImageRunner {
	return map[string]kubelet.ImageRunner{
		sampleapiserver.ImageName: func(_ context.Context, pod *api.Pod, _ api.Container) (kubelet.Process, error) {
			s, err := sampleapiserver.Start(sampleapiserver.Options{ProxyClientToken: c.proxyToken,
				Logger: c.logger.With("pod", pod.Namespace+"/"+pod.Name)})
			if err != nil {
				return nil, fmt.Errorf("starting %s: %w", sampleapiserver.ImageName, err)
			}
			return s, nil
		},
	}
}

// Network is the pod network: which simulated pod addresses are served
// for real, and where.
func (c *Cluster) Network() *podnet.Network { return c.network }
