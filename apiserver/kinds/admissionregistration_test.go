package kinds

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func validWebhook() admissionregistrationv1.ValidatingWebhook {
	none := admissionregistrationv1.SideEffectClassNone
	return admissionregistrationv1.ValidatingWebhook{
		Name:                    "deny.example.com",
		ClientConfig:            admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Namespace: "default", Name: "hook"}},
		Rules:                   []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{"CREATE"}, Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}}}},
		SideEffects:             &none,
		AdmissionReviewVersions: []string{"v1"},
	}
}

func TestWebhookConfigurationDefaults(t *testing.T) {
	m := &admissionregistrationv1.MutatingWebhookConfiguration{Webhooks: []admissionregistrationv1.MutatingWebhook{{Name: "a.example.com",
		ClientConfig: admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Namespace: "default", Name: "hook"}},
		Rules:        []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{"*"}}}}}}
	mutatingWebhookStrategy{}.Default(m)
	w := m.Webhooks[0]
	assert.Equal(t, admissionregistrationv1.Fail, *w.FailurePolicy)
	assert.Equal(t, admissionregistrationv1.Equivalent, *w.MatchPolicy)
	assert.Equal(t, &metav1.LabelSelector{}, w.NamespaceSelector)
	assert.Equal(t, &metav1.LabelSelector{}, w.ObjectSelector)
	assert.Equal(t, int32(10), *w.TimeoutSeconds)
	assert.Equal(t, admissionregistrationv1.NeverReinvocationPolicy, *w.ReinvocationPolicy)
	assert.Equal(t, int32(443), *w.ClientConfig.Service.Port)
	assert.Equal(t, admissionregistrationv1.AllScopes, *w.Rules[0].Scope)
	assert.Nil(t, w.SideEffects, "sideEffects has no default in v1")
}

func TestWebhookConfigurationValidation(t *testing.T) {
	thirty1 := int32(31)
	some := admissionregistrationv1.SideEffectClassSome
	url := "http://example.com/hook?x=1"
	cases := []struct {
		name   string
		change func(c *admissionregistrationv1.ValidatingWebhookConfiguration)
		want   []string
	}{
		{"valid", func(*admissionregistrationv1.ValidatingWebhookConfiguration) {}, nil},
		{"short name", func(c *admissionregistrationv1.ValidatingWebhookConfiguration) { c.Webhooks[0].Name = "deny" },
			[]string{`webhooks[0].name: Invalid value: "deny": should be a domain with at least three segments separated by dots`}},
		{"duplicate", func(c *admissionregistrationv1.ValidatingWebhookConfiguration) {
			c.Webhooks = append(c.Webhooks, c.Webhooks[0])
		},
			[]string{`webhooks[1].name: Duplicate value: "deny.example.com"`}},
		{"side effects required", func(c *admissionregistrationv1.ValidatingWebhookConfiguration) { c.Webhooks[0].SideEffects = nil },
			[]string{`webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun`}},
		{"side effects v1", func(c *admissionregistrationv1.ValidatingWebhookConfiguration) { c.Webhooks[0].SideEffects = &some },
			[]string{`webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"`}},
		{"versions required", func(c *admissionregistrationv1.ValidatingWebhookConfiguration) {
			c.Webhooks[0].AdmissionReviewVersions = nil
		},
			[]string{`webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1`}},
		{"timeout", func(c *admissionregistrationv1.ValidatingWebhookConfiguration) {
			c.Webhooks[0].TimeoutSeconds = &thirty1
		},
			[]string{`webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds`}},
		{"url", func(c *admissionregistrationv1.ValidatingWebhookConfiguration) {
			c.Webhooks[0].ClientConfig = admissionregistrationv1.WebhookClientConfig{URL: &url}
		}, []string{
			`webhooks[0].clientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme`,
			`webhooks[0].clientConfig.url: Invalid value: "x=1": query parameters are not permitted in the URL`,
		}},
		// The AdmissionWebhook spec "should not be able to mutate or
		// prevent deletion of webhook configuration objects" registers
		// a service path of "".
		{"an empty service path", func(c *admissionregistrationv1.ValidatingWebhookConfiguration) {
			empty := ""
			c.Webhooks[0].ClientConfig.Service.Path = &empty
		}, nil},
		{"a service path without its slash", func(c *admissionregistrationv1.ValidatingWebhookConfiguration) {
			p := "hook"
			c.Webhooks[0].ClientConfig.Service.Path = &p
		}, []string{`webhooks[0].clientConfig.service.path: Invalid value: "hook": must start with a '/'`}},
		{"both", func(c *admissionregistrationv1.ValidatingWebhookConfiguration) { c.Webhooks[0].ClientConfig.URL = &url },
			[]string{`webhooks[0].clientConfig: Required value: exactly one of url or service is required`}},
		{"operations", func(c *admissionregistrationv1.ValidatingWebhookConfiguration) {
			c.Webhooks[0].Rules[0].Operations = []admissionregistrationv1.OperationType{"*", "CREATE"}
		}, []string{`webhooks[0].rules[0].operations: Invalid value: []string{"*", "CREATE"}: if '*' is present, must not specify other operations`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "c"}, Webhooks: []admissionregistrationv1.ValidatingWebhook{validWebhook()}}
			tc.change(c)
			s := validatingWebhookStrategy{}
			s.Default(c)
			var got []string
			for _, e := range s.Validate(c) {
				got = append(got, e.Error())
			}
			require.Equal(t, tc.want, got)
		})
	}
}
