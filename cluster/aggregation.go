package cluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/clock"
	availability "github.com/kubesim/kubesim/controllers/apiserviceavailability"
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
	// The check is the aggregator's own (it shares the proxy's resolver);
	// the controller gets it as a function, as it imports no server code.
	check := func(ctx context.Context, s *api.APIService) availability.Availability {
		return availability.Availability(c.server.Aggregator().CheckAvailability(ctx, s))
	}
	av, err := availability.New(availability.Config{Client: cl, Clock: c.clock, Logger: c.logger, Check: check})
	return add(availability.ControllerName, av, err, rec, nil)
}

// ControllerImagePrefix starts the image names of controllers run as pods
// ("kubesim/controller:foo").
const ControllerImagePrefix = "kubesim/controller:"

// ControllerImage is the image that runs the controller name as a pod.
func ControllerImage(name string) string { return ControllerImagePrefix + name }

// ControllerFactory builds a controller over an API client; namespace ""
// means all namespaces.
type ControllerFactory func(cl *client.Client, clk clock.Clock, namespace string, logger *slog.Logger) (Component, error)

// controllerProcess is a controller running as a pod's container.
type controllerProcess struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// Addr is empty: a controller serves nothing; it only calls the API server.
func (p *controllerProcess) Addr() string { return "" }

// Stop ends the controller's loops and waits for them.
func (p *controllerProcess) Stop() {
	p.cancel()
	<-p.done
}

// runControllerImage starts the controller of a pod's container: its own
// loopback client (user agent "<controller>/<pod>"), its own informers.
func (c *Cluster) runControllerImage(name string, factory ControllerFactory) kubelet.ImageRunner {
	return func(_ context.Context, pod *api.Pod, _ api.Container) (kubelet.Process, error) {
		cl, _ := c.client(name + "/" + pod.Namespace + "/" + pod.Name)
		logger := c.logger.With("pod", pod.Namespace+"/"+pod.Name, "image", ControllerImage(name))
		comp, err := factory(cl, c.clock, "", logger)
		if err != nil {
			return nil, fmt.Errorf("starting %s: %w", ControllerImage(name), err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		p := &controllerProcess{cancel: cancel, done: make(chan struct{})}
		go func() {
			defer close(p.done)
			comp.Run(ctx)
		}()
		return p, nil
	}
}

// realImages are the images the kubelets run for real: the sample
// extension API server, trusting this cluster's aggregator, and the
// controller images of Config.ControllerImages (live mode only).
func (c *Cluster) realImages() map[string]kubelet.ImageRunner {
	images := map[string]kubelet.ImageRunner{
		sampleapiserver.ImageName: func(_ context.Context, pod *api.Pod, _ api.Container) (kubelet.Process, error) {
			s, err := sampleapiserver.Start(sampleapiserver.Options{ProxyClientToken: c.proxyToken,
				Logger: c.logger.With("pod", pod.Namespace+"/"+pod.Name)})
			if err != nil {
				return nil, fmt.Errorf("starting %s: %w", sampleapiserver.ImageName, err)
			}
			return s, nil
		},
	}
	if !c.cfg.StepMode {
		for name, factory := range c.cfg.ControllerImages {
			images[ControllerImage(name)] = c.runControllerImage(name, factory)
		}
	}
	return images
}

// Network is the pod network: which simulated pod addresses are served
// for real, and where.
func (c *Cluster) Network() *podnet.Network { return c.network }
