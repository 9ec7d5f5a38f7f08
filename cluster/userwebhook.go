package cluster

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/kubelet"
	"github.com/kubesim/kubesim/userwebhook"
)

// runUserWebhook starts the image kubesim/webhook for a pod: the User
// CRD's admission webhook (package userwebhook). Its container's args name
// the Service in front of it (--service NAME); the server's certificate
// is for NAME.<pod namespace>.svc, from a CA of its own, which it then
// writes into the caBundle of the webhook configurations calling that
// Service, as a certgen job would.
func (c *Cluster) runUserWebhook(ctx context.Context, pod *corev1.Pod, ctr corev1.Container) (kubelet.Process, error) {
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
		// Like cert-manager's cainjector, the injection is trusted set-up
		// work: it runs on the privileged loopback, not as the pod's account.
		cl, _ := c.client("kubesim-webhook/"+pod.Namespace+"/"+pod.Name, apiserver.FixedIdentity(nil))
		if _, err := injectCABundle(ctx, cl, pod.Namespace, *service, s.CABundle()); err != nil {
			s.Stop()
			return nil, fmt.Errorf("starting %s: injecting the caBundle: %w", userwebhook.ImageName, err)
		}
	}
	return s, nil
}

// The webhook configurations' resources, for the typed client.
var (
	mutatingResource   = client.ResourceInfo{Group: api.AdmissionRegistrationGroupName, Version: "v1", Resource: "mutatingwebhookconfigurations"}
	validatingResource = client.ResourceInfo{Group: api.AdmissionRegistrationGroupName, Version: "v1", Resource: "validatingwebhookconfigurations"}
)

// injectCABundle writes caPEM into clientConfig.caBundle of every webhook
// that calls Service namespace/name, in the Mutating and Validating
// WebhookConfigurations and the CRDs' conversion webhooks that exist now, and returns how many webhooks it
// changed. It is what cert-manager's CA injector or ingress-nginx's
// kube-webhook-certgen "patch" job do: the API server trusts the
// webhook's own CA only once the configuration names it.
func injectCABundle(ctx context.Context, cl *client.Client, namespace, name string, caPEM []byte) (int, error) {
	// calls sets the CA bundle of a clientConfig (an admission webhook's or
	// a conversion webhook's: two types of one shape) that calls the
	// Service, and reports whether it changed.
	calls := func(svcNamespace, svcName string, bundle *[]byte) bool {
		if svcNamespace != namespace || svcName != name || bytes.Equal(*bundle, caPEM) {
			return false
		}
		*bundle = caPEM
		return true
	}
	names := func(cc *admissionregistrationv1.WebhookClientConfig) bool {
		return cc.Service != nil && calls(cc.Service.Namespace, cc.Service.Name, &cc.CABundle)
	}
	changed := 0
	mutating := client.For(cl, mutatingResource, func() *admissionregistrationv1.MutatingWebhookConfiguration {
		return &admissionregistrationv1.MutatingWebhookConfiguration{}
	})
	ml, err := mutating.List(ctx, "", client.ListOptions{})
	if err != nil {
		return changed, err
	}
	for _, c := range ml.Items {
		n := 0
		for i := range c.Webhooks {
			if names(&c.Webhooks[i].ClientConfig) {
				n++
			}
		}
		if n > 0 {
			if _, err := mutating.Update(ctx, c); err != nil {
				return changed, err
			}
			changed += n
		}
	}
	validating := client.For(cl, validatingResource, func() *admissionregistrationv1.ValidatingWebhookConfiguration {
		return &admissionregistrationv1.ValidatingWebhookConfiguration{}
	})
	vl, err := validating.List(ctx, "", client.ListOptions{})
	if err != nil {
		return changed, err
	}
	for _, c := range vl.Items {
		n := 0
		for i := range c.Webhooks {
			if names(&c.Webhooks[i].ClientConfig) {
				n++
			}
		}
		if n > 0 {
			if _, err := validating.Update(ctx, c); err != nil {
				return changed, err
			}
			changed += n
		}
	}
	// The CRDs whose conversion webhook is this Service.
	crds := cl.CustomResourceDefinitions()
	cl2, err := crds.List(ctx, "", client.ListOptions{})
	if err != nil {
		return changed, err
	}
	for _, c := range cl2.Items {
		cv := c.Spec.Conversion
		if cv == nil || cv.Strategy != apiextensionsv1.WebhookConverter || cv.Webhook == nil || cv.Webhook.ClientConfig == nil {
			continue
		}
		if cc := cv.Webhook.ClientConfig; cc.Service != nil && calls(cc.Service.Namespace, cc.Service.Name, &cc.CABundle) {
			if _, err := crds.Update(ctx, c); err != nil {
				return changed, err
			}
			changed++
		}
	}
	return changed, nil
}
