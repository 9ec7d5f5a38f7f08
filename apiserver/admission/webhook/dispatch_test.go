package webhook_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/admission"
	"github.com/kubesim/kubesim/apiserver/admission/policy"
	"github.com/kubesim/kubesim/apiserver/admission/webhook"
	"github.com/kubesim/kubesim/apiserver/authn"
	"github.com/kubesim/kubesim/pki"
)

// env is a webhook plugin pair over configurations the test sets, with
// TLS webhook servers whose certificates name hook.default.svc.
type env struct {
	t          *testing.T
	bundle     *pki.Bundle
	mutating   []admissionregistrationv1.MutatingWebhookConfiguration
	validating []admissionregistrationv1.ValidatingWebhookConfiguration
	namespaces map[string]*corev1.Namespace
	// services maps "ns/name" to the address of a test server.
	services map[string]string
	uids     atomic.Int64
	chain    admission.Chain
}

func newEnv(t *testing.T) *env {
	b, err := pki.EnsureServing(t.TempDir(), []string{"hook.default.svc", "quiet.default.svc",
		"a.default.svc", "b.default.svc", "c.default.svc"}, time.Now(), rand.Reader)
	require.NoError(t, err)
	e := &env{t: t, bundle: b, namespaces: map[string]*corev1.Namespace{
		"default": {ObjectMeta: metav1.ObjectMeta{Name: "default", Labels: map[string]string{"env": "prod"}}},
		"dev":     {ObjectMeta: metav1.ObjectMeta{Name: "dev", Labels: map[string]string{"env": "dev"}}},
	}, services: map[string]string{}}
	conditions, err := policy.NewConditions()
	require.NoError(t, err)
	m, v := webhook.New(webhook.Config{
		Conditions: conditions,
		Mutating: func(context.Context) ([]admissionregistrationv1.MutatingWebhookConfiguration, error) {
			return e.mutating, nil
		},
		Validating: func(context.Context) ([]admissionregistrationv1.ValidatingWebhookConfiguration, error) {
			return e.validating, nil
		},
		Namespace: func(_ context.Context, name string) (*corev1.Namespace, error) {
			if ns, ok := e.namespaces[name]; ok {
				return ns, nil
			}
			return nil, api.NewNotFound(schema.GroupResource{Resource: "namespaces"}, name)
		},
		Resolve: func(_ context.Context, ns, name string, port int32) (string, error) {
			if addr, ok := e.services[ns+"/"+name]; ok && port == 443 {
				return addr, nil
			}
			return "", fmt.Errorf("service %q not found", name)
		},
		UID: func() types.UID { return types.UID(fmt.Sprintf("uid-%d", e.uids.Add(1))) },
	})
	e.chain = admission.Chain{m, v}
	return e
}

// server starts a TLS webhook answering with fn, as service default/hook
// when asService, and returns its client config.
func (e *env) server(name string, fn http.HandlerFunc) admissionregistrationv1.WebhookClientConfig {
	srv := httptest.NewUnstartedServer(fn)
	srv.TLS = e.bundle.ServerTLSConfig()
	srv.StartTLS()
	e.t.Cleanup(srv.Close)
	e.services["default/"+name] = srv.Listener.Addr().String()
	return admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Namespace: "default", Name: name}, CABundle: e.bundle.CAPEM}
}

// reviewer answers AdmissionReviews with fn's response, echoing the uid.
func reviewer(fn func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var review admissionv1.AdmissionReview
		if err := json.NewDecoder(r.Body).Decode(&review); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		resp := fn(review.Request)
		if resp.UID == "" {
			resp.UID = review.Request.UID
		}
		_ = json.NewEncoder(w).Encode(admissionv1.AdmissionReview{TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"}, Response: resp})
	}
}

func allow(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
	return &admissionv1.AdmissionResponse{Allowed: true}
}

func jsonPatch(patch string) *admissionv1.AdmissionResponse {
	pt := admissionv1.PatchTypeJSONPatch
	return &admissionv1.AdmissionResponse{Allowed: true, Patch: []byte(patch), PatchType: &pt}
}

var podRules = []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{"*"},
	Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}}}}

func none() *admissionregistrationv1.SideEffectClass {
	s := admissionregistrationv1.SideEffectClassNone
	return &s
}

func (e *env) addMutating(name string, cc admissionregistrationv1.WebhookClientConfig, change func(*admissionregistrationv1.MutatingWebhook)) {
	w := admissionregistrationv1.MutatingWebhook{Name: name, ClientConfig: cc, Rules: podRules, SideEffects: none(), AdmissionReviewVersions: []string{"v1"}}
	if change != nil {
		change(&w)
	}
	e.mutating = append(e.mutating, admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "m-" + name}, Webhooks: []admissionregistrationv1.MutatingWebhook{w}})
}

func (e *env) addValidating(name string, cc admissionregistrationv1.WebhookClientConfig, change func(*admissionregistrationv1.ValidatingWebhook)) {
	w := admissionregistrationv1.ValidatingWebhook{Name: name, ClientConfig: cc, Rules: podRules, SideEffects: none(), AdmissionReviewVersions: []string{"v1"}}
	if change != nil {
		change(&w)
	}
	e.validating = append(e.validating, admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "v-" + name}, Webhooks: []admissionregistrationv1.ValidatingWebhook{w}})
}

func pod(ns string, lbls map[string]string) *corev1.Pod {
	return &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns, Labels: lbls, UID: "pod-uid"},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
}

func createAttrs(p *corev1.Pod) *admission.Attributes {
	return &admission.Attributes{Operation: admission.Create, Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"},
		Kind: schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, Namespace: p.Namespace, Name: p.Name, Object: p,
		User: &authn.UserInfo{Name: "alice", Groups: []string{"dev"}}}
}

// admit runs the chain as the registry does: mutating, then validating.
func (e *env) admit(a *admission.Attributes) ([]admission.Step, []string, error) {
	ctx, rec := admission.WithRecord(context.Background())
	err := e.chain.Mutate(ctx, a)
	if err == nil {
		err = e.chain.Validate(ctx, a)
	}
	return rec.Steps(), rec.Warnings(), err
}

func TestMutatingWebhookPatchesAndSeesTheRequest(t *testing.T) {
	e := newEnv(t)
	var got *admissionv1.AdmissionRequest
	e.addMutating("label.example.com", e.server("hook", reviewer(func(r *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		got = r
		resp := jsonPatch(`[{"op":"add","path":"/metadata/labels/team","value":"a"}]`)
		resp.Warnings = []string{"label team added"}
		return resp
	})), nil)
	p := pod("default", map[string]string{"app": "web"})
	steps, warnings, err := e.admit(createAttrs(p))
	require.NoError(t, err)
	assert.Equal(t, "a", p.Labels["team"])
	assert.Equal(t, "pod-uid", string(p.UID), "server-owned metadata is kept")
	require.NotNil(t, got)
	assert.Equal(t, types.UID("uid-1"), got.UID)
	assert.Equal(t, metav1.GroupVersionKind{Version: "v1", Kind: "Pod"}, got.Kind)
	assert.Equal(t, metav1.GroupVersionResource{Version: "v1", Resource: "pods"}, got.Resource)
	assert.Equal(t, admissionv1.Create, got.Operation)
	assert.Equal(t, "web", got.Name)
	assert.Equal(t, "default", got.Namespace)
	assert.Equal(t, "alice", got.UserInfo.Username)
	assert.Equal(t, false, *got.DryRun)
	assert.JSONEq(t, `{"kind":"CreateOptions","apiVersion":"meta.k8s.io/v1"}`, string(got.Options.Raw))
	assert.Contains(t, string(got.Object.Raw), `"image":"nginx"`)
	assert.Empty(t, got.OldObject.Raw)
	assert.Equal(t, []string{"label team added"}, warnings)
	require.Len(t, steps, 1)
	assert.Equal(t, `admission mutating webhook "label.example.com" create pods default/web: patched [{"op":"add","path":"/metadata/labels/team","value":"a"}]`, steps[0].String())
}

func TestValidatingWebhookDenies(t *testing.T) {
	e := newEnv(t)
	e.addValidating("deny.example.com", e.server("hook", reviewer(func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		return &admissionv1.AdmissionResponse{Allowed: false, Result: &metav1.Status{Message: "pods named web are reserved"}}
	})), nil)
	steps, _, err := e.admit(createAttrs(pod("default", nil)))
	require.Error(t, err)
	se, ok := err.(*api.StatusError)
	require.True(t, ok)
	assert.Equal(t, int32(http.StatusBadRequest), se.ErrStatus.Code, "a refusal with no code is a 400")
	assert.Equal(t, `admission webhook "deny.example.com" denied the request: pods named web are reserved`, se.Error())
	require.Len(t, steps, 1)
	assert.Contains(t, steps[0].String(), `admission validating webhook "deny.example.com" create pods default/web: denied: admission webhook`)

	e.validating[0].Webhooks[0].ClientConfig = e.server("quiet", reviewer(func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		return &admissionv1.AdmissionResponse{Allowed: false}
	}))
	_, _, err = e.admit(createAttrs(pod("default", nil)))
	assert.EqualError(t, err, `admission webhook "deny.example.com" denied the request without explanation`)
}

// Every way a call can fail, under failurePolicy Fail and Ignore.
func TestWebhookFailures(t *testing.T) {
	cases := []struct {
		name    string
		handler http.HandlerFunc
		want    string
	}{
		{"500", func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "boom", http.StatusInternalServerError) },
			`Internal error occurred: failed calling webhook "x.example.com": failed to call webhook: an error on the server ("boom") has prevented the request from succeeding`},
		// A Service port answered by a server without the webhook's path:
		// client-go words a 404 by its code, without the body.
		{"404", http.NotFound,
			`Internal error occurred: failed calling webhook "x.example.com": failed to call webhook: the server could not find the requested resource`},
		{"503", func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "down", http.StatusServiceUnavailable) },
			`Internal error occurred: failed calling webhook "x.example.com": failed to call webhook: the server is currently unable to handle the request`},
		{"garbage", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("garbage")) },
			`Internal error occurred: failed calling webhook "x.example.com": failed to call webhook: invalid character 'g' looking for beginning of value`},
		{"different uid", reviewer(func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
			return &admissionv1.AdmissionResponse{UID: "someone-else", Allowed: true}
		}), `Internal error occurred: failed calling webhook "x.example.com": received invalid webhook response: expected response.uid="uid-1", got "someone-else"`},
		{"no response", func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`))
		}, `Internal error occurred: failed calling webhook "x.example.com": received invalid webhook response: webhook response was absent`},
		{"timeout", nil, // blocks until the test ends
			`Internal error occurred: failed calling webhook "x.example.com": failed to call webhook: Post "https://hook.default.svc:443/?timeout=1s": context deadline exceeded`},
	}
	one := int32(1)
	for _, tc := range cases {
		for _, policy := range []admissionregistrationv1.FailurePolicyType{admissionregistrationv1.Fail, admissionregistrationv1.Ignore} {
			t.Run(tc.name+"/"+string(policy), func(t *testing.T) {
				e := newEnv(t)
				handler := tc.handler
				if handler == nil {
					release := make(chan struct{})
					handler = func(http.ResponseWriter, *http.Request) { <-release }
					defer close(release) // before the server's Close, which waits for it
				}
				e.addMutating("x.example.com", e.server("hook", handler), func(w *admissionregistrationv1.MutatingWebhook) {
					w.FailurePolicy = &policy
					w.TimeoutSeconds = &one
				})
				p := pod("default", nil)
				steps, _, err := e.admit(createAttrs(p))
				require.Len(t, steps, 1)
				if policy == admissionregistrationv1.Ignore {
					require.NoError(t, err)
					assert.Contains(t, steps[0].String(), `admission mutating webhook "x.example.com" create pods default/web: failed, ignored: failed calling webhook`)
					return
				}
				require.Error(t, err)
				assert.Equal(t, tc.want, err.Error())
				assert.Equal(t, int32(http.StatusInternalServerError), err.(*api.StatusError).ErrStatus.Code)
			})
		}
	}
}

func TestWebhookUnreachable(t *testing.T) {
	e := newEnv(t)
	e.addValidating("x.example.com", admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Namespace: "default", Name: "missing"}}, nil)
	_, _, err := e.admit(createAttrs(pod("default", nil)))
	assert.EqualError(t, err, `Internal error occurred: failed calling webhook "x.example.com": failed to call webhook: Post "https://missing.default.svc:443/?timeout=10s": service "missing" not found`)
	ignore := admissionregistrationv1.Ignore
	e.validating[0].Webhooks[0].FailurePolicy = &ignore
	steps, _, err := e.admit(createAttrs(pod("default", nil)))
	assert.NoError(t, err)
	require.Len(t, steps, 1)
	assert.Contains(t, steps[0].String(), `admission validating webhook "x.example.com" create pods default/web: failed, ignored:`)
}

func TestWebhookTLSIsVerified(t *testing.T) {
	e := newEnv(t)
	other, err := pki.EnsureServing(t.TempDir(), []string{"hook.default.svc"}, time.Now(), rand.Reader)
	require.NoError(t, err)
	cc := e.server("hook", reviewer(allow))
	cc.CABundle = other.CAPEM // not the CA that signed the server
	e.addValidating("x.example.com", cc, nil)
	_, _, err = e.admit(createAttrs(pod("default", nil)))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "tls: failed to verify certificate: x509: certificate signed by unknown authority")

	// The right CA, but a service whose name the certificate lacks.
	e.validating[0].Webhooks[0].ClientConfig = e.server("other", reviewer(allow))
	_, _, err = e.admit(createAttrs(pod("default", nil)))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "x509: certificate is valid for")
}

func TestBadPatchFailsWhateverThePolicy(t *testing.T) {
	for _, policy := range []admissionregistrationv1.FailurePolicyType{admissionregistrationv1.Fail, admissionregistrationv1.Ignore} {
		e := newEnv(t)
		e.addMutating("x.example.com", e.server("hook", reviewer(func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
			return jsonPatch(`[{"op":"remove","path":"/spec/nothing"}]`)
		})), func(w *admissionregistrationv1.MutatingWebhook) { w.FailurePolicy = &policy })
		p := pod("default", nil)
		_, _, err := e.admit(createAttrs(p))
		require.Error(t, err, policy)
		assert.True(t, strings.HasPrefix(err.Error(), "Internal error occurred: "), err.Error())
		assert.Equal(t, "nginx", p.Spec.Containers[0].Image)
	}
	e := newEnv(t)
	e.addMutating("x.example.com", e.server("hook", reviewer(func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		return &admissionv1.AdmissionResponse{Allowed: true, Patch: []byte(`[]`)}
	})), nil)
	_, _, err := e.admit(createAttrs(pod("default", nil)))
	assert.EqualError(t, err, `Internal error occurred: failed calling webhook "x.example.com": received invalid webhook response: webhook returned response.patch but not response.patchType`)
}

// A webhook with reinvocationPolicy IfNeeded is called again when a later
// one changed the object; two that change it every time do not loop.
func TestReinvocation(t *testing.T) {
	e := newEnv(t)
	var calls sync.Map
	counter := func(name string) func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		return func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
			n, _ := calls.LoadOrStore(name, new(atomic.Int64))
			c := n.(*atomic.Int64).Add(1)
			return jsonPatch(fmt.Sprintf(`[{"op":"add","path":"/metadata/annotations","value":{"%s":"%d"}}]`, name, c))
		}
	}
	ifNeeded := admissionregistrationv1.IfNeededReinvocationPolicy
	e.addMutating("a.example.com", e.server("a", reviewer(counter("a"))), func(w *admissionregistrationv1.MutatingWebhook) { w.ReinvocationPolicy = &ifNeeded })
	e.addMutating("b.example.com", e.server("b", reviewer(counter("b"))), func(w *admissionregistrationv1.MutatingWebhook) { w.ReinvocationPolicy = &ifNeeded })
	e.addMutating("c.example.com", e.server("c", reviewer(counter("c"))), nil) // Never
	steps, _, err := e.admit(createAttrs(pod("default", nil)))
	require.NoError(t, err)
	count := func(name string) int64 {
		n, ok := calls.Load(name)
		if !ok {
			return 0
		}
		return n.(*atomic.Int64).Load()
	}
	assert.Equal(t, int64(2), count("a"))
	assert.Equal(t, int64(2), count("b"))
	assert.Equal(t, int64(1), count("c"), "reinvocationPolicy Never")
	assert.Len(t, steps, 5)
}

func TestSelectorsAndDryRun(t *testing.T) {
	e := newEnv(t)
	var calls atomic.Int64
	cc := e.server("hook", reviewer(func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse { calls.Add(1); return allow(nil) }))
	e.addValidating("x.example.com", cc, func(w *admissionregistrationv1.ValidatingWebhook) {
		w.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}
		w.ObjectSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "skip", Operator: metav1.LabelSelectorOpDoesNotExist}}}
	})
	_, _, err := e.admit(createAttrs(pod("default", nil)))
	require.NoError(t, err)
	assert.Equal(t, int64(1), calls.Load(), "namespace default has env=prod")
	_, _, _ = e.admit(createAttrs(pod("dev", nil)))
	assert.Equal(t, int64(1), calls.Load(), "namespace dev does not match")
	_, _, _ = e.admit(createAttrs(pod("default", map[string]string{"skip": "yes"})))
	assert.Equal(t, int64(1), calls.Load(), "objectSelector excludes it")

	// A Namespace is matched by its own labels.
	nsAttrs := &admission.Attributes{Operation: admission.Create, Resource: schema.GroupVersionResource{Version: "v1", Resource: "namespaces"},
		Kind: schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}, Name: "team",
		Object: &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team", Labels: map[string]string{"env": "prod"}}}}
	e.validating[0].Webhooks[0].Rules = []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{"*"}, Rule: admissionregistrationv1.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*"}}}}
	_, _, err = e.admit(nsAttrs)
	require.NoError(t, err)
	assert.Equal(t, int64(2), calls.Load())

	// Dry run: refused for a webhook that may have side effects, sent to
	// one with none.
	a := createAttrs(pod("default", nil))
	a.DryRun = true
	_, _, err = e.admit(a)
	require.NoError(t, err)
	assert.Equal(t, int64(3), calls.Load())
	unknown := admissionregistrationv1.SideEffectClassUnknown
	e.validating[0].Webhooks[0].SideEffects = &unknown
	_, _, err = e.admit(a)
	assert.EqualError(t, err, `admission webhook "x.example.com" does not support dry run`)
	assert.Equal(t, int64(400), int64(err.(*api.StatusError).ErrStatus.Code))
	assert.Equal(t, int64(3), calls.Load())
}

// Validating webhooks are called in parallel: each of these two answers
// only once the other has been called.
func TestValidatingWebhooksRunInParallel(t *testing.T) {
	e := newEnv(t)
	var both sync.WaitGroup
	both.Add(2)
	waiter := reviewer(func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		both.Done()
		both.Wait()
		return allow(nil)
	})
	e.addValidating("a.example.com", e.server("a", waiter), nil)
	e.addValidating("b.example.com", e.server("b", waiter), nil)
	_, _, err := e.admit(createAttrs(pod("default", nil)))
	require.NoError(t, err)
}

func TestWebhookConfigurationsAreExempt(t *testing.T) {
	e := newEnv(t)
	e.addValidating("x.example.com", admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Namespace: "default", Name: "missing"}}, func(w *admissionregistrationv1.ValidatingWebhook) {
		w.Rules = []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{"*"}, Rule: admissionregistrationv1.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*"}}}}
	})
	a := &admission.Attributes{Operation: admission.Delete, Resource: schema.GroupVersionResource{Group: api.AdmissionRegistrationGroupName, Version: "v1", Resource: "validatingwebhookconfigurations"},
		Name: "v-x.example.com", OldObject: &e.validating[0]}
	_, _, err := e.admit(a)
	assert.NoError(t, err, "a broken webhook can always be removed")
}

// matchConditions: false skips the webhook (even when another condition
// fails to evaluate); an evaluation error is a failed call, which
// failurePolicy Ignore lets through and Fail refuses.
func TestMatchConditions(t *testing.T) {
	e := newEnv(t)
	var calls atomic.Int64
	cc := e.server("hook", reviewer(func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		calls.Add(1)
		return &admissionv1.AdmissionResponse{Allowed: false, Result: &metav1.Status{Message: "no", Code: 403}}
	}))
	cond := func(conds ...admissionregistrationv1.MatchCondition) func(*admissionregistrationv1.ValidatingWebhook) {
		return func(w *admissionregistrationv1.ValidatingWebhook) { w.MatchConditions = conds }
	}
	e.addValidating("teams.example.com", cc, cond(
		admissionregistrationv1.MatchCondition{Name: "has-team", Expression: "has(object.metadata.labels) && 'team' in object.metadata.labels"},
		admissionregistrationv1.MatchCondition{Name: "not-admin", Expression: "request.userInfo.username != 'admin'"}))
	_, _, err := e.admit(createAttrs(pod("default", map[string]string{"app": "web"})))
	assert.NoError(t, err, "no team label: not called")
	assert.Zero(t, calls.Load())
	_, _, err = e.admit(createAttrs(pod("default", map[string]string{"team": "a"})))
	assert.ErrorContains(t, err, `admission webhook "teams.example.com" denied the request: no`)
	assert.Equal(t, int64(1), calls.Load())

	e.validating = nil
	e.addValidating("broken.example.com", cc, cond(
		admissionregistrationv1.MatchCondition{Name: "bad", Expression: "object.spec.nothing == 1"},
		admissionregistrationv1.MatchCondition{Name: "false", Expression: "object.metadata.name == 'other'"}))
	_, _, err = e.admit(createAttrs(pod("default", nil)))
	assert.NoError(t, err, "a false condition wins over an error")

	e.validating = nil
	e.addValidating("broken.example.com", cc, cond(admissionregistrationv1.MatchCondition{Name: "bad", Expression: "object.spec.nothing == 1"}))
	_, _, err = e.admit(createAttrs(pod("default", nil)))
	var se *api.StatusError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, int32(500), se.ErrStatus.Code)
	assert.Equal(t, `Internal error occurred: failed calling webhook "broken.example.com": failed to evaluate match conditions: failed to evaluate match condition "bad": no such key: nothing`, se.Error())
	ignore := admissionregistrationv1.Ignore
	e.validating[0].Webhooks[0].FailurePolicy = &ignore
	steps, _, err := e.admit(createAttrs(pod("default", nil)))
	assert.NoError(t, err, "failurePolicy Ignore")
	require.Len(t, steps, 1)
	assert.Contains(t, steps[0].Ignored, "failed to evaluate match conditions")
	assert.Equal(t, int64(1), calls.Load(), "never called")
}
