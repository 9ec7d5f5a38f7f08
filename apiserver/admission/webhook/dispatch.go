package webhook

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/labels"
	"github.com/kubesim/kubesim/apiserver/admission"
	"github.com/kubesim/kubesim/apiserver/admission/rules"
)

// Config is what the two plugins need from the API server.
type Config struct {
	// Mutating and Validating list the stored configurations.
	Mutating   func(ctx context.Context) ([]admissionregistrationv1.MutatingWebhookConfiguration, error)
	Validating func(ctx context.Context) ([]admissionregistrationv1.ValidatingWebhookConfiguration, error)
	// Namespace reads a namespace, for namespaceSelector.
	Namespace func(ctx context.Context, name string) (*corev1.Namespace, error)
	// Equivalents lists the other group-versions a resource is served
	// at, for matchPolicy Equivalent (nil: none).
	Equivalents func(gvr schema.GroupVersionResource) []schema.GroupVersionResource
	// Convert turns an object (JSON) of one version of a resource into
	// another's, for a webhook that registered for another version than
	// the request's (nil, or the JSON unchanged: the versions share one
	// shape, and only apiVersion is rewritten).
	Convert func(data []byte, from, to schema.GroupVersionResource) ([]byte, error)
	// Resolve finds host:port of a ready endpoint of a Service's port.
	Resolve ResolveFunc
	// Dial opens connections (the cluster's pod network; nil dials
	// directly).
	Dial DialFunc
	// UID returns a new AdmissionRequest uid.
	UID func() types.UID
	// Conditions evaluates matchConditions (CEL); nil calls a webhook
	// whatever its matchConditions say.
	Conditions ConditionMatcher
}

// ConditionMatcher evaluates a webhook's matchConditions against a
// request: false skips the webhook; an error is a failed call, judged by
// failurePolicy (package policy's Conditions implements it).
type ConditionMatcher interface {
	Match(ctx context.Context, conds []admissionregistrationv1.MatchCondition, a *admission.Attributes) (bool, error)
}

// New returns the mutating and the validating webhook plugins, sharing
// their HTTP clients.
func New(cfg Config) (*Mutating, *Validating) {
	c := NewClients(cfg.Resolve, cfg.Dial)
	d := &dispatcher{cfg: cfg, clients: c}
	return &Mutating{d: d}, &Validating{d: d}
}

type dispatcher struct {
	cfg     Config
	clients *Clients
}

// Mutating is the MutatingAdmissionWebhook plugin.
type Mutating struct{ d *dispatcher }

// Validating is the ValidatingAdmissionWebhook plugin.
type Validating struct{ d *dispatcher }

// PluginName implements admission.Named.
func (*Mutating) PluginName() string { return "MutatingAdmissionWebhook" }

// PluginName implements admission.Named.
func (*Validating) PluginName() string { return "ValidatingAdmissionWebhook" }

// ReportsSteps implements admission.StepReporter: one step per webhook.
func (*Mutating) ReportsSteps() {}

// ReportsSteps implements admission.StepReporter.
func (*Validating) ReportsSteps() {}

// Admit implements admission.MutationInterface: the matching webhooks in
// order, each seeing the object as the previous one left it.
func (m *Mutating) Admit(ctx context.Context, a *admission.Attributes) error {
	if exempt(a) {
		return nil
	}
	configs, err := m.d.cfg.Mutating(ctx)
	if err != nil || len(configs) == 0 {
		return err
	}
	for _, h := range mutatingHooks(configs) {
		if a.IsReinvoke() && !(h.reinvocationPolicy == admissionregistrationv1.IfNeededReinvocationPolicy && a.ShouldReinvoke(h.key)) {
			continue
		}
		inv, err := m.d.shouldCall(ctx, h, a)
		if err != nil {
			return err
		}
		if inv == nil {
			continue
		}
		start := observeStart(ctx)
		changed, err := m.d.callMutating(ctx, h, inv, a)
		observeWebhook(ctx, h, admission.StepAdmit, a, err, start)
		if err != nil {
			return err
		}
		if changed {
			a.ObjectChanged()
		}
		if h.reinvocationPolicy == admissionregistrationv1.IfNeededReinvocationPolicy {
			a.CalledReinvocable(h.key)
		}
	}
	return nil
}

// Validate implements admission.ValidationInterface: the matching
// webhooks in parallel; the first refusal, in the webhooks' order, is the
// answer.
func (v *Validating) Validate(ctx context.Context, a *admission.Attributes) error {
	if exempt(a) {
		return nil
	}
	configs, err := v.d.cfg.Validating(ctx)
	if err != nil || len(configs) == 0 {
		return err
	}
	type call struct {
		h   *hook
		inv *invocation
	}
	var calls []call
	for _, h := range validatingHooks(configs) {
		inv, err := v.d.shouldCall(ctx, h, a)
		if err != nil {
			return err
		}
		if inv != nil {
			calls = append(calls, call{h, inv})
		}
	}
	errs := make([]error, len(calls))
	var wg sync.WaitGroup
	for i, c := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := observeStart(ctx)
			errs[i] = v.d.callValidating(ctx, c.h, c.inv, a)
			observeWebhook(ctx, c.h, admission.StepValidate, a, errs[i], start)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// observeStart is when a webhook call begins, on the clock of the
// request's admission metrics (zero without them).
func observeStart(ctx context.Context) time.Time {
	if m := admission.MetricsFrom(ctx); m != nil {
		return m.Now()
	}
	return time.Time{}
}

// observeWebhook records one call of h in the request's admission metrics
// (apiserver_admission_webhook_admission_duration_seconds, by the
// webhook's name, as upstream labels it).
func observeWebhook(ctx context.Context, h *hook, step string, a *admission.Attributes, err error, start time.Time) {
	if m := admission.MetricsFrom(ctx); m != nil {
		m.ObserveWebhook(h.name, step, a.Operation, err != nil, start)
	}
}

// exempt: webhooks are never called for the webhook configurations
// themselves, so that a broken webhook can always be removed.
func exempt(a *admission.Attributes) bool {
	if a.Resource.Group != api.AdmissionRegistrationGroupName {
		return false
	}
	switch a.Resource.Resource {
	case "mutatingwebhookconfigurations", "validatingwebhookconfigurations",
		"validatingadmissionpolicies", "validatingadmissionpolicybindings":
		return true
	}
	return false
}

// invocation is a matched webhook's view of the request: the resource
// and kind it registered for (Equivalent may pick another version).
type invocation struct {
	resource schema.GroupVersionResource
	kind     schema.GroupVersionKind
}

// shouldCall decides whether h sees the request (rules, then
// namespaceSelector, then objectSelector, then matchConditions) and refuses a dry run a webhook
// with side effects would see.
func (d *dispatcher) shouldCall(ctx context.Context, h *hook, a *admission.Attributes) (*invocation, error) {
	inv := d.matchRules(h, a)
	if inv == nil {
		return nil, nil
	}
	ok, err := d.namespaceMatches(ctx, h, a)
	if err != nil || !ok {
		return nil, err
	}
	ok, err = objectMatches(h, a)
	if err != nil || !ok {
		return nil, err
	}
	if len(h.matchConditions) > 0 && d.cfg.Conditions != nil {
		ok, err := d.cfg.Conditions.Match(ctx, h.matchConditions, a)
		if err != nil {
			// failurePolicy decides: Ignore skips the webhook.
			return nil, d.failed(ctx, h, a, &callingError{name: h.name, reason: fmt.Errorf("failed to evaluate match conditions: %v", err)})
		}
		if !ok {
			return nil, nil
		}
	}
	if a.DryRun && h.sideEffects != admissionregistrationv1.SideEffectClassNone && h.sideEffects != admissionregistrationv1.SideEffectClassNoneOnDryRun {
		err := api.NewBadRequest(fmt.Sprintf("admission webhook %q does not support dry run", h.name))
		admission.RecordStep(ctx, admission.Step{Phase: phaseOf(h), Plugin: plugin(h), Attributes: a, Denied: err.Error()})
		return nil, err
	}
	return inv, nil
}

func (d *dispatcher) matchRules(h *hook, a *admission.Attributes) *invocation {
	for _, r := range h.rules {
		if (&rules.Matcher{Rule: r, Attr: a}).Matches() {
			return &invocation{resource: a.Resource, kind: a.Kind}
		}
	}
	if h.matchPolicy != admissionregistrationv1.Equivalent || d.cfg.Equivalents == nil {
		return nil
	}
	for _, eq := range d.cfg.Equivalents(a.Resource) {
		// The request as it would be at the equivalent resource.
		at := *a
		at.Resource = eq
		for _, r := range h.rules {
			if (&rules.Matcher{Rule: r, Attr: &at}).Matches() {
				return &invocation{resource: eq, kind: schema.GroupVersionKind{Group: eq.Group, Version: eq.Version, Kind: a.Kind.Kind}}
			}
		}
	}
	return nil
}

// namespaceMatches: a namespaced object is matched by its namespace's
// labels, a Namespace by its own, any other cluster-scoped object always.
func (d *dispatcher) namespaceMatches(ctx context.Context, h *hook, a *admission.Attributes) (bool, error) {
	sel, err := selector(h.namespaceSelector)
	if err != nil || sel.Empty() {
		return err == nil, err
	}
	if a.Resource.Group == "" && a.Resource.Resource == "namespaces" {
		obj := a.Object
		if obj == nil {
			obj = a.OldObject
		}
		return obj != nil && sel.Matches(labels.Set(api.Meta(obj).Labels)), nil
	}
	if a.Namespace == "" {
		return true, nil
	}
	ns, err := d.cfg.Namespace(ctx, a.Namespace)
	if api.IsNotFound(err) {
		// NamespaceLifecycle refuses the write later; a missing
		// namespace has no labels.
		return sel.Matches(labels.Set{}), nil
	}
	if err != nil {
		return false, api.NewInternalError(err)
	}
	return sel.Matches(labels.Set(ns.Labels)), nil
}

// objectMatches: the new or the old object's labels match.
func objectMatches(h *hook, a *admission.Attributes) (bool, error) {
	sel, err := selector(h.objectSelector)
	if err != nil || sel.Empty() {
		return err == nil, err
	}
	for _, o := range []api.Object{a.Object, a.OldObject} {
		if o != nil && sel.Matches(labels.Set(api.Meta(o).Labels)) {
			return true, nil
		}
	}
	return false, nil
}

func selector(ls *metav1.LabelSelector) (labels.Selector, error) {
	if ls == nil {
		return labels.Everything(), nil
	}
	s, err := api.LabelSelectorAsSelector(ls)
	if err != nil {
		return nil, api.NewInternalError(err)
	}
	return s, nil
}

// callingError is ErrCallingWebhook: the call failed, and failurePolicy
// decides.
type callingError struct {
	name   string
	reason error
}

func (e *callingError) Error() string {
	return fmt.Sprintf("failed calling webhook %q: %v", e.name, e.reason)
}

// denied is the webhook's refusal as the client sees it
// (webhookerrors.ToStatusErr).
func denied(name string, result *metav1.Status) *api.StatusError {
	st := metav1.Status{Status: metav1.StatusFailure}
	if result != nil {
		st = *result
		st.Status = metav1.StatusFailure
	}
	deniedBy := fmt.Sprintf("admission webhook %q denied the request", name)
	switch {
	case st.Message != "":
		st.Message = deniedBy + ": " + st.Message
	case st.Reason != "":
		st.Message = deniedBy + ": " + string(st.Reason)
	default:
		st.Message = deniedBy + " without explanation"
	}
	if st.Code < http.StatusBadRequest {
		// A refusal is never answered below 400.
		st.Code = http.StatusBadRequest
	}
	st.TypeMeta = metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}
	return &api.StatusError{ErrStatus: st}
}

// failed applies failurePolicy to a call that did not produce an answer.
func (d *dispatcher) failed(ctx context.Context, h *hook, a *admission.Attributes, err error) error {
	var ce *callingError
	if !errors.As(err, &ce) {
		admission.RecordStep(ctx, admission.Step{Phase: phaseOf(h), Plugin: plugin(h), Attributes: a, Denied: err.Error()})
		return err
	}
	if h.failurePolicy == admissionregistrationv1.Ignore {
		admission.RecordStep(ctx, admission.Step{Phase: phaseOf(h), Plugin: plugin(h), Attributes: a, Ignored: err.Error()})
		return nil
	}
	se := api.NewInternalError(err)
	admission.RecordStep(ctx, admission.Step{Phase: phaseOf(h), Plugin: plugin(h), Attributes: a, Denied: se.Error()})
	return se
}

func plugin(h *hook) string { return fmt.Sprintf("webhook %q", h.name) }

func phaseOf(h *hook) string {
	if h.mutating {
		return admission.PhaseMutating
	}
	return admission.PhaseValidating
}
