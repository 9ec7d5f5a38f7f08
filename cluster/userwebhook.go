package cluster

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/kubelet"
	"github.com/kubesim/kubesim/userwebhook"
)

// runUserWebhook starts the image kubesim/webhook for a pod: the User
// CRD's admission webhook (package userwebhook). Its container's args name
// the Service in front of it (--service NAME); the server's certificate
// is for NAME.<pod namespace>.svc, from a CA of its own, which it then
// writes into the caBundle of the webhook configurations calling that
// Service, as a certgen job would.
func (c *Cluster) runUserWebhook(ctx context.Context, pod *api.Pod, ctr api.Container) (kubelet.Process, error) {
	fs := flag.NewFlagSet(userwebhook.ImageName, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	service := fs.String("service", "", "the Service in front of the webhook")
	if err := fs.Parse(ctr.Args); err != nil {
		return nil, fmt.Errorf("starting %s: %w", userwebhook.ImageName, err)
	}
	opts := userwebhook.Options{Logger: c.logger.With("pod", pod.Namespace+"/"+pod.Name)}
	if *service != "" {
		opts.Hosts = []string{*service + "." + pod.Namespace + ".svc"}
	}
	if dir := c.podsDir(); dir != "" {
		opts.CertDir = filepath.Join(dir, string(pod.UID), "pki")
	}
	s, err := userwebhook.Start(opts)
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", userwebhook.ImageName, err)
	}
	if *service != "" {
		cl, _ := c.client("kubesim-webhook/" + pod.Namespace + "/" + pod.Name)
		if _, err := userwebhook.InjectCABundle(ctx, cl, pod.Namespace, *service, s.CABundle()); err != nil {
			s.Stop()
			return nil, fmt.Errorf("starting %s: injecting the caBundle: %w", userwebhook.ImageName, err)
		}
	}
	return s, nil
}
