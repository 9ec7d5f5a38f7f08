package policy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/interpreter"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/labels"
	"github.com/kubesim/kubesim/apiserver/admission"
	kcel "github.com/kubesim/kubesim/apiserver/cel"
)

// Source is where the plugin reads policies, bindings, namespaces and
// params (the informers of the real plugin).
type Source interface {
	Policies(ctx context.Context) ([]*admissionregistrationv1.ValidatingAdmissionPolicy, error)
	Bindings(ctx context.Context) ([]*admissionregistrationv1.ValidatingAdmissionPolicyBinding, error)
	// Namespace returns the namespace (an API NotFound error if missing).
	Namespace(ctx context.Context, name string) (*corev1.Namespace, error)
	// Params lists the objects of kind k in namespace ns ("" for a
	// cluster-scoped kind); namespaced tells the kind's scope. An error
	// means the kind is not served.
	Params(ctx context.Context, k admissionregistrationv1.ParamKind, ns string) (objs []api.Object, namespaced bool, err error)
}

// Plugin is the ValidatingAdmissionPolicy plugin, a validating admission
// plugin: Validate(ctx, attributes) refuses or lets through; warnings go to
// Warn.
type Plugin struct {
	Source Source
	// Warn sends a warning to the client (the Warn action); nil drops it.
	Warn     func(ctx context.Context, msg string)
	compiler *Compiler

	mu    sync.Mutex
	cache map[string]*compiledPolicy // by policy name
}

// NewPlugin builds the plugin over src.
func NewPlugin(src Source, warn func(ctx context.Context, msg string)) (*Plugin, error) {
	c, err := NewCompiler()
	if err != nil {
		return nil, err
	}
	return &Plugin{Source: src, Warn: warn, compiler: c, cache: map[string]*compiledPolicy{}}, nil
}

// Compiler is the plugin's expression compiler, for the API strategy.
func (p *Plugin) Compiler() *Compiler { return p.compiler }

// PluginName names the plugin in the admission chain.
func (p *Plugin) PluginName() string { return "ValidatingAdmissionPolicy" }

// compiledPolicy is a policy with its expressions compiled once.
type compiledPolicy struct {
	resourceVersion string
	policy          *admissionregistrationv1.ValidatingAdmissionPolicy
	err             error // the first expression that did not compile
	conditions      []cel.Program
	variables       []cel.Program
	validations     []cel.Program
	messages        []cel.Program // nil where there is no messageExpression
}

func (p *Plugin) compiled(pol *admissionregistrationv1.ValidatingAdmissionPolicy) *compiledPolicy {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c, ok := p.cache[pol.Name]; ok && c.resourceVersion == pol.ResourceVersion && pol.ResourceVersion != "" {
		return c
	}
	c := &compiledPolicy{resourceVersion: pol.ResourceVersion, policy: pol}
	compile := func(expr string, want resultKind) cel.Program {
		prg, err := p.compiler.Compile(expr, want)
		if err != nil && c.err == nil {
			c.err = err
		}
		return prg
	}
	for _, mc := range pol.Spec.MatchConditions {
		c.conditions = append(c.conditions, compile(mc.Expression, wantBool))
	}
	for _, v := range pol.Spec.Variables {
		c.variables = append(c.variables, compile(v.Expression, wantAny))
	}
	for _, v := range pol.Spec.Validations {
		c.validations = append(c.validations, compile(v.Expression, wantBool))
		var m cel.Program
		if v.MessageExpression != "" {
			m = compile(v.MessageExpression, wantString)
		}
		c.messages = append(c.messages, m)
	}
	p.cache[pol.Name] = c
	return c
}

// decision is the outcome of one validation that did not pass.
type decision struct {
	policy, binding string
	message         string
	reason          metav1.StatusReason
	actions         []admissionregistrationv1.ValidationAction
	// index is the failed validation's index (audit annotations).
	index int
}

// Validate implements admission's validating plugin interface.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) error {
	// Policies never apply to themselves, so that a bad policy can always
	// be removed.
	if a.Resource.Group == api.AdmissionRegistrationGroupName &&
		(a.Resource.Resource == "validatingadmissionpolicies" || a.Resource.Resource == "validatingadmissionpolicybindings") {
		return nil
	}
	policies, err := p.Source.Policies(ctx)
	if err != nil || len(policies) == 0 {
		return err
	}
	bindings, err := p.Source.Bindings(ctx)
	if err != nil || len(bindings) == 0 {
		return err
	}
	slices.SortFunc(policies, func(x, y *admissionregistrationv1.ValidatingAdmissionPolicy) int {
		return strings.Compare(x.Name, y.Name)
	})
	slices.SortFunc(bindings, func(x, y *admissionregistrationv1.ValidatingAdmissionPolicyBinding) int {
		return strings.Compare(x.Name, y.Name)
	})

	r, nsObj, err := p.request(ctx, a)
	if err != nil {
		return err
	}
	var vars *activation
	var denied, audited []decision
	for _, pol := range policies {
		ok, err := matches(pol.Spec.MatchConstraints, r)
		if err != nil || !ok || pol.Spec.MatchConstraints == nil || len(pol.Spec.MatchConstraints.ResourceRules) == 0 {
			continue
		}
		for _, b := range bindings {
			if b.Spec.PolicyName != pol.Name {
				continue
			}
			if ok, err := matches(b.Spec.MatchResources, r); err != nil || !ok {
				continue
			}
			if vars == nil {
				if vars, err = newActivation(a, nsObj); err != nil {
					return api.NewInternalError(err)
				}
			}
			for _, d := range p.evaluate(ctx, p.compiled(pol), b, a, vars) {
				if slices.Contains(d.actions, admissionregistrationv1.Warn) && p.Warn != nil {
					p.Warn(ctx, fmt.Sprintf("Validation failed for ValidatingAdmissionPolicy '%s' with binding '%s': %s", d.policy, d.binding, d.message))
				}
				if slices.Contains(d.actions, admissionregistrationv1.Audit) {
					audited = append(audited, d)
				}
				if slices.Contains(d.actions, admissionregistrationv1.Deny) {
					denied = append(denied, d)
				}
			}
		}
	}
	auditFailures(ctx, audited)
	if len(denied) == 0 {
		return nil
	}
	return denyError(a, denied[0])
}

// auditFailures records the Audit action's failures as the one audit
// annotation kube-apiserver writes for them: a JSON list under
// validation.policy.admission.k8s.io/validation_failure.
func auditFailures(ctx context.Context, ds []decision) {
	if len(ds) == 0 {
		return
	}
	type failure struct {
		Message           string                                     `json:"message"`
		Policy            string                                     `json:"policy"`
		Binding           string                                     `json:"binding"`
		ExpressionIndex   int                                        `json:"expressionIndex"`
		ValidationActions []admissionregistrationv1.ValidationAction `json:"validationActions"`
	}
	out := make([]failure, 0, len(ds))
	for _, d := range ds {
		out = append(out, failure{Message: d.message, Policy: d.policy, Binding: d.binding, ExpressionIndex: d.index, ValidationActions: d.actions})
	}
	data, err := json.Marshal(out)
	if err != nil {
		return
	}
	admission.AddAuditAnnotation(ctx, "validation.policy.admission.k8s.io/validation_failure", string(data))
}

// denyError is the refusal: admission.NewForbidden's message with the
// validation's reason and code, and the message as the only cause.
func denyError(a *admission.Attributes, d decision) error {
	msg := fmt.Sprintf("ValidatingAdmissionPolicy '%s' with binding '%s' denied request: %s", d.policy, d.binding, d.message)
	err := api.NewForbidden(a.Resource.GroupResource(), a.Name, errors.New(msg))
	reason := d.reason
	if reason == "" {
		reason = metav1.StatusReasonInvalid
	}
	err.ErrStatus.Reason = reason
	err.ErrStatus.Code = reasonToCode(reason)
	err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, metav1.StatusCause{Message: msg})
	return err
}

func reasonToCode(r metav1.StatusReason) int32 {
	switch r {
	case metav1.StatusReasonForbidden:
		return http.StatusForbidden
	case metav1.StatusReasonUnauthorized:
		return http.StatusUnauthorized
	case metav1.StatusReasonRequestEntityTooLarge:
		return http.StatusRequestEntityTooLarge
	}
	return http.StatusUnprocessableEntity
}

// request gathers what matching needs: the namespace's labels.
func (p *Plugin) request(ctx context.Context, a *admission.Attributes) (request, *corev1.Namespace, error) {
	r := request{a: a}
	if a.Resource.Group == "" && a.Resource.Resource == "namespaces" && a.Subresource == "" {
		r.isNS = true
		if a.Object != nil {
			r.nsLabels = api.Meta(a.Object).Labels
		} else if a.OldObject != nil {
			r.nsLabels = api.Meta(a.OldObject).Labels
		}
		return r, nil, nil
	}
	if a.Namespace == "" {
		return r, nil, nil
	}
	ns, err := p.Source.Namespace(ctx, a.Namespace)
	if err != nil {
		if api.IsNotFound(err) {
			return r, nil, nil
		}
		return r, nil, err
	}
	r.nsLabels = ns.Labels
	return r, ns, nil
}

// evaluate runs one policy through one binding: once without params, or
// once per param found. It returns the validations that failed, and the
// errors the failure policy turns into failures.
func (p *Plugin) evaluate(ctx context.Context, c *compiledPolicy, b *admissionregistrationv1.ValidatingAdmissionPolicyBinding, a *admission.Attributes, vars *activation) []decision {
	pol := c.policy
	fail := pol.Spec.FailurePolicy == nil || *pol.Spec.FailurePolicy == admissionregistrationv1.Fail
	failure := func(msg string) []decision {
		if !fail {
			return nil
		}
		return []decision{{policy: pol.Name, binding: b.Name, message: msg, actions: b.Spec.ValidationActions}}
	}
	if c.err != nil {
		return failure(fmt.Sprintf("compilation error: %v", c.err))
	}
	params := []any{nil}
	if pk := pol.Spec.ParamKind; pk != nil && b.Spec.ParamRef != nil {
		found, err := p.params(ctx, *pk, b.Spec.ParamRef, a.Namespace)
		if err != nil {
			return failure(err.Error())
		}
		if len(found) == 0 {
			if a := b.Spec.ParamRef.ParameterNotFoundAction; a != nil && *a == admissionregistrationv1.AllowAction {
				return nil
			}
			return failure("failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction")
		}
		params = found
	}
	var out []decision
	for _, param := range params {
		act := vars.withParams(param)
		// Match conditions: any false skips; an error fails by policy.
		skip := false
		var condErr error
		for i, prg := range c.conditions {
			v, _, err := prg.ContextEval(ctx, act)
			if err != nil {
				condErr = fmt.Errorf("failed to evaluate match condition %q: %v", pol.Spec.MatchConditions[i].Name, err)
				continue
			}
			if v == types.False {
				skip = true
				break
			}
		}
		if skip {
			continue
		}
		if condErr != nil {
			out = append(out, failure(condErr.Error())...)
			continue
		}
		// Variables, in order; each sees the ones before it. A variable
		// that fails is an error only when an expression reads it.
		act.variables = map[string]any{}
		for i, prg := range c.variables {
			v, _, err := prg.ContextEval(ctx, act)
			if err != nil {
				v = types.NewErr("%s", err.Error())
			}
			act.variables[pol.Spec.Variables[i].Name] = v
		}
		for i, prg := range c.validations {
			val := pol.Spec.Validations[i]
			v, _, err := prg.ContextEval(ctx, act)
			if err != nil {
				out = append(out, failure(fmt.Sprintf("expression '%s' resulted in error: %v", val.Expression, err))...)
				continue
			}
			if v == types.True {
				continue
			}
			d := decision{policy: pol.Name, binding: b.Name, actions: b.Spec.ValidationActions, index: i, message: validationMessage(ctx, val, c.messages[i], act)}
			if val.Reason != nil {
				d.reason = *val.Reason
			}
			out = append(out, d)
		}
	}
	return out
}

// validationMessage is the failure's text: messageExpression's value if
// it is a usable string, else message, else "failed expression: <expr>".
func validationMessage(ctx context.Context, v admissionregistrationv1.Validation, msg cel.Program, act *activation) string {
	if msg != nil {
		if r, _, err := msg.ContextEval(ctx, act); err == nil {
			if s, ok := r.Value().(string); ok {
				s = strings.TrimSpace(s)
				if s != "" && len(s) <= kcel.MaxEvaluatedMessageExpressionSizeBytes && !strings.ContainsAny(s, "\n\r") {
					return s
				}
			}
		}
	}
	if v.Message != "" {
		return v.Message
	}
	return "failed expression: " + strings.TrimSpace(v.Expression)
}

// params finds the binding's param objects.
func (p *Plugin) params(ctx context.Context, k admissionregistrationv1.ParamKind, ref *admissionregistrationv1.ParamRef, requestNS string) ([]any, error) {
	objs, namespaced, err := p.Source.Params(ctx, k, "")
	if err != nil {
		return nil, fmt.Errorf("failed to configure policy: failed to find resource referenced by paramKind: '%s, Kind=%s'", k.APIVersion, k.Kind)
	}
	ns := ref.Namespace
	if namespaced && ns == "" {
		ns = requestNS
	}
	var sel labels.Selector
	if ref.Selector != nil {
		if sel, err = api.LabelSelectorAsSelector(ref.Selector); err != nil {
			return nil, err
		}
	}
	var out []any
	for _, o := range objs {
		m := api.Meta(o)
		if namespaced && m.Namespace != ns {
			continue
		}
		if ref.Name != "" && m.Name != ref.Name {
			continue
		}
		if sel != nil && !sel.Matches(labels.Set(m.Labels)) {
			continue
		}
		v, err := toJSON(o)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// activation binds the variables of one evaluation.
type activation struct {
	base      map[string]any
	params    any
	variables map[string]any
}

func newActivation(a *admission.Attributes, ns *corev1.Namespace) (*activation, error) {
	obj, err := toJSON(a.Object)
	if err != nil {
		return nil, err
	}
	old, err := toJSON(a.OldObject)
	if err != nil {
		return nil, err
	}
	var nsObj any
	if ns != nil {
		if nsObj, err = toJSON(ns); err != nil {
			return nil, err
		}
	}
	return &activation{base: map[string]any{
		varObject:          kcel.ToVal(obj),
		varOldObject:       kcel.ToVal(old),
		varRequest:         kcel.ToVal(requestValue(a)),
		varNamespaceObject: kcel.ToVal(nsObj),
	}}, nil
}

func (v *activation) withParams(params any) *activation {
	return &activation{base: v.base, params: params}
}

// ResolveName implements cel's interpreter.Activation.
func (v *activation) ResolveName(name string) (any, bool) {
	switch name {
	case varParams:
		return kcel.ToVal(v.params), true
	case varVariables:
		return types.NewStringInterfaceMap(types.DefaultTypeAdapter, v.variables), true
	}
	val, ok := v.base[name]
	return val, ok
}

// Parent implements cel's interpreter.Activation.
func (v *activation) Parent() interpreter.Activation { return nil }

// requestValue is the request variable: the AdmissionRequest's fields.
func requestValue(a *admission.Attributes) map[string]any {
	gvr := map[string]any{"group": a.Resource.Group, "version": a.Resource.Version, "resource": a.Resource.Resource}
	gvk := map[string]any{"group": a.Kind.Group, "version": a.Kind.Version, "kind": a.Kind.Kind}
	user := map[string]any{}
	if u := a.User; u != nil {
		groups := make([]any, len(u.Groups))
		for i, g := range u.Groups {
			groups[i] = g
		}
		user = map[string]any{"username": u.Name, "uid": u.UID, "groups": groups}
	}
	return map[string]any{
		"kind": gvk, "resource": gvr, "subResource": a.Subresource,
		"requestKind": gvk, "requestResource": gvr, "requestSubResource": a.Subresource,
		"name": a.Name, "namespace": a.Namespace, "operation": string(a.Operation),
		"userInfo": user, "dryRun": a.DryRun,
	}
}

// toJSON turns an object into the decoded JSON CEL reads (nil stays nil).
func toJSON(o api.Object) (any, error) {
	if o == nil {
		return nil, nil
	}
	b, err := json.Marshal(o)
	if err != nil {
		return nil, err
	}
	var v any
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}
