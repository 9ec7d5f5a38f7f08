package cluster

import (
	"context"
	"fmt"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/kubesim/kubesim/apiserver"
	availability "github.com/kubesim/kubesim/controllers/apiserviceavailability"
	"github.com/kubesim/kubesim/controllers/endpoints"
	"github.com/kubesim/kubesim/kubelet"
	"github.com/kubesim/kubesim/kubelet/podnet"
	"github.com/kubesim/kubesim/metricsserver"
	"github.com/kubesim/kubesim/runmode"
	"github.com/kubesim/kubesim/sampleapiserver"
	"github.com/kubesim/kubesim/userwebhook"
)

// aggregationLoops are the endpoints controller and the APIService
// availability controller.
func (c *Cluster) aggregationLoops() []wiring {
	return []wiring{
		{endpoints.ControllerName, "endpoint-controller", func(x ControllerContext) (Component, error) {
			return endpoints.New(endpoints.Config{Client: x.Client, Clock: x.Clock, Mode: x.Mode, Logger: x.Logger})
		}},
		{availability.ControllerName, "apiservice-availability-controller", func(x ControllerContext) (Component, error) {
			// The check is the aggregator's own (it shares the proxy's
			// resolver); the controller gets it as a function, as it
			// imports no server code.
			check := func(ctx context.Context, s *apiregistrationv1.APIService) availability.Availability {
				return availability.Availability(c.server.Aggregator().CheckAvailability(ctx, s))
			}
			return availability.New(availability.Config{Client: x.Client, Clock: x.Clock, Mode: x.Mode, Logger: x.Logger, Check: check})
		}},
	}
}

// ControllerImagePrefix starts the image names of controllers run as pods
// ("kubesim/controller:foo").
const ControllerImagePrefix = "kubesim/controller:"

// ControllerImage is the image that runs the controller name as a pod.
func ControllerImage(name string) string { return ControllerImagePrefix + name }

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
func (c *Cluster) runControllerImage(name string, build InitFunc) kubelet.ImageRunner {
	return func(_ context.Context, pod *corev1.Pod, _ corev1.Container) (kubelet.Process, error) {
		// The controller acts as the pod's service account: the
		// identity the token the kubelet projects into the pod proves.
		sa := pod.Spec.ServiceAccountName
		if sa == "" {
			sa = "default"
		}
		cl, _ := c.client(name+"/"+pod.Namespace+"/"+pod.Name, apiserver.FixedIdentity(ServiceAccountUser(pod.Namespace, sa)))
		logger := c.logger.With("pod", pod.Namespace+"/"+pod.Name, "image", ControllerImage(name))
		comp, err := build(ControllerContext{Client: cl, Clock: c.clock, Mode: runmode.Live, Logger: logger})
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
		sampleapiserver.ImageName: func(_ context.Context, pod *corev1.Pod, _ corev1.Container) (kubelet.Process, error) {
			opts := sampleapiserver.Options{RequestHeaderClientCA: c.frontProxy.CAPool(), Logger: c.logger.With("pod", pod.Namespace+"/"+pod.Name)}
			if dir := c.podsDir(); dir != "" {
				opts.DataDir, opts.EphemeralDataDir = filepath.Join(dir, string(pod.UID)), true
			}
			s, err := sampleapiserver.Start(opts)
			if err != nil {
				return nil, fmt.Errorf("starting %s: %w", sampleapiserver.ImageName, err)
			}
			return s, nil
		},
		metricsserver.ImageName: c.runMetricsServer, // the metrics the HorizontalPodAutoscaler reads
		userwebhook.ImageName:   c.runUserWebhook,   // the User CRD's admission webhook
	}
	if c.cfg.Mode == runmode.Live {
		for name, build := range c.cfg.ControllerImages {
			images[ControllerImage(name)] = c.runControllerImage(name, build)
		}
	}
	return images
}

// localImages are the binaries the kubelets run as processes (live mode
// only), their directories under the cluster's pods directory.
func (c *Cluster) localImages() *kubelet.LocalImages {
	if c.cfg.LocalImages == nil || c.cfg.Mode != runmode.Live {
		return nil
	}
	li := *c.cfg.LocalImages
	if li.Dir == "" {
		li.Dir = c.podsDir()
	}
	return &li
}

// Network is the pod network: which simulated pod addresses are served
// for real, and where.
func (c *Cluster) Network() *podnet.Network { return c.network }

// podsDir holds the scratch directories (emptyDirs) of the pods whose
// images run for real, under the cluster's data directory: the kubelet's
// /var/lib/kubelet/pods. What a crash left there is removed at start, as
// the kubelet removes orphaned pod directories.
// With a store given by the caller there is no data directory, and the
// image uses a temporary one.
func (c *Cluster) podsDir() string {
	if c.dataDir == "" {
		return ""
	}
	return filepath.Join(c.dataDir, "pods")
}
