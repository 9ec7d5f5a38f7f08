package kinds

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/api"
)

func validWebhook() api.ValidatingWebhook {
	none := api.SideEffectClassNone
	return api.ValidatingWebhook{
		Name:                    "deny.example.com",
		ClientConfig:            api.AdmissionWebhookClientConfig{Service: &api.AdmissionServiceReference{Namespace: "default", Name: "hook"}},
		Rules:                   []api.RuleWithOperations{{Operations: []api.OperationType{"CREATE"}, Rule: api.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}}}},
		SideEffects:             &none,
		AdmissionReviewVersions: []string{"v1"},
	}
}

func TestWebhookConfigurationDefaults(t *testing.T) {
	m := &api.MutatingWebhookConfiguration{Webhooks: []api.MutatingWebhook{{Name: "a.example.com",
		ClientConfig: api.AdmissionWebhookClientConfig{Service: &api.AdmissionServiceReference{Namespace: "default", Name: "hook"}},
		Rules:        []api.RuleWithOperations{{Operations: []api.OperationType{"*"}}}}}}
	mutatingWebhookStrategy{}.Default(m)
	w := m.Webhooks[0]
	assert.Equal(t, api.Fail, *w.FailurePolicy)
	assert.Equal(t, api.Equivalent, *w.MatchPolicy)
	assert.Equal(t, &api.LabelSelector{}, w.NamespaceSelector)
	assert.Equal(t, &api.LabelSelector{}, w.ObjectSelector)
	assert.Equal(t, int32(10), *w.TimeoutSeconds)
	assert.Equal(t, api.NeverReinvocationPolicy, *w.ReinvocationPolicy)
	assert.Equal(t, int32(443), *w.ClientConfig.Service.Port)
	assert.Equal(t, api.AllScopes, *w.Rules[0].Scope)
	assert.Nil(t, w.SideEffects, "sideEffects has no default in v1")
}

func TestWebhookConfigurationValidation(t *testing.T) {
	thirty1 := int32(31)
	some := api.SideEffectClassSome
	url := "http://example.com/hook?x=1"
	cases := []struct {
		name   string
		change func(c *api.ValidatingWebhookConfiguration)
		want   []string
	}{
		{"valid", func(*api.ValidatingWebhookConfiguration) {}, nil},
		{"short name", func(c *api.ValidatingWebhookConfiguration) { c.Webhooks[0].Name = "deny" },
			[]string{`webhooks[0].name: Invalid value: "deny": should be a domain with at least three segments separated by dots`}},
		{"duplicate", func(c *api.ValidatingWebhookConfiguration) { c.Webhooks = append(c.Webhooks, c.Webhooks[0]) },
			[]string{`webhooks[1].name: Duplicate value: "deny.example.com"`}},
		{"side effects required", func(c *api.ValidatingWebhookConfiguration) { c.Webhooks[0].SideEffects = nil },
			[]string{`webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun`}},
		{"side effects v1", func(c *api.ValidatingWebhookConfiguration) { c.Webhooks[0].SideEffects = &some },
			[]string{`webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"`}},
		{"versions required", func(c *api.ValidatingWebhookConfiguration) { c.Webhooks[0].AdmissionReviewVersions = nil },
			[]string{`webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1`}},
		{"timeout", func(c *api.ValidatingWebhookConfiguration) { c.Webhooks[0].TimeoutSeconds = &thirty1 },
			[]string{`webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds`}},
		{"url", func(c *api.ValidatingWebhookConfiguration) {
			c.Webhooks[0].ClientConfig = api.AdmissionWebhookClientConfig{URL: &url}
		}, []string{
			`webhooks[0].clientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme`,
			`webhooks[0].clientConfig.url: Invalid value: "x=1": query parameters are not permitted in the URL`,
		}},
		{"both", func(c *api.ValidatingWebhookConfiguration) { c.Webhooks[0].ClientConfig.URL = &url },
			[]string{`webhooks[0].clientConfig: Required value: exactly one of url or service is required`}},
		{"operations", func(c *api.ValidatingWebhookConfiguration) {
			c.Webhooks[0].Rules[0].Operations = []api.OperationType{"*", "CREATE"}
		}, []string{`webhooks[0].rules[0].operations: Invalid value: []string{"*", "CREATE"}: if '*' is present, must not specify other operations`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := &api.ValidatingWebhookConfiguration{ObjectMeta: api.ObjectMeta{Name: "c"}, Webhooks: []api.ValidatingWebhook{validWebhook()}}
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
