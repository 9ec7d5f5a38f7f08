package userwebhook

import (
	"bytes"
	"context"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
)

// The webhook configurations' resources, for the typed client.
var (
	mutatingResource   = client.ResourceInfo{Group: api.AdmissionRegistrationGroupName, Version: "v1", Resource: "mutatingwebhookconfigurations"}
	validatingResource = client.ResourceInfo{Group: api.AdmissionRegistrationGroupName, Version: "v1", Resource: "validatingwebhookconfigurations"}
)

// InjectCABundle writes caPEM into clientConfig.caBundle of every webhook
// that calls Service namespace/name, in the Mutating and Validating
// WebhookConfigurations that exist now, and returns how many webhooks it
// changed. It is what cert-manager's CA injector or ingress-nginx's
// kube-webhook-certgen "patch" job do: the API server trusts the
// webhook's own CA only once the configuration names it.
func InjectCABundle(ctx context.Context, cl *client.Client, namespace, name string, caPEM []byte) (int, error) {
	names := func(cc *api.WebhookClientConfig) bool {
		s := cc.Service
		if s == nil || s.Namespace != namespace || s.Name != name || bytes.Equal(cc.CABundle, caPEM) {
			return false
		}
		cc.CABundle = caPEM
		return true
	}
	changed := 0
	mutating := client.For(cl, mutatingResource, func() *api.MutatingWebhookConfiguration { return &api.MutatingWebhookConfiguration{} })
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
	validating := client.For(cl, validatingResource, func() *api.ValidatingWebhookConfiguration { return &api.ValidatingWebhookConfiguration{} })
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
	return changed, nil
}
