package scheduler

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	configv1 "k8s.io/kube-scheduler/config/v1"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/clock"
)

// Scheduler extenders: web services the scheduler calls over HTTP(S) in
// each cycle, configured by KubeSchedulerConfiguration's extenders
// (k8s.io/kube-scheduler/config/v1 Extender) and spoken to in the types of
// k8s.io/kube-scheduler/extender/v1, as kube-scheduler's HTTPExtender in
// pkg/scheduler/extender.go. Each verb is a POST of JSON to
// urlPrefix/verb:
//
//   - filter: ExtenderArgs (the pod and the nodes that passed the plugins'
//     filters: whole Nodes, or only NodeNames when nodeCacheCapable) in,
//     ExtenderFilterResult out (the nodes that pass, FailedNodes and
//     FailedAndUnresolvableNodes with a reason each, or Error);
//   - prioritize: ExtenderArgs in, HostPriorityList out (0 to
//     MaxExtenderPriority, 10, per node), which the scheduler multiplies
//     by the extender's weight and by MaxNodeScore/MaxExtenderPriority and
//     adds to the plugins' sum;
//   - bind: ExtenderBindingArgs in, ExtenderBindingResult out: the
//     extender binds the pod instead of the scheduler.
//
// An extender configured with managedResources is asked only about pods
// that request or limit one of them (IsInterested).

// DefaultExtenderTimeout is how long a call to an extender may take when
// its httpTimeout is not set: kube-scheduler's DefaultExtenderTimeout.
const DefaultExtenderTimeout = 5 * time.Second

// ExtenderName is the plugin name kube-scheduler gives to the nodes its
// extenders refuse (framework.ExtenderName): NodeResult.Filter of such a
// node.
const ExtenderName = "Extender"

// Extender is one scheduler extender, as kube-scheduler's framework
// Extender interface.
type Extender interface {
	// Name identifies the extender: its urlPrefix.
	Name() string
	// IsInterested reports whether the extender is to be asked about pod.
	IsInterested(pod *corev1.Pod) bool
	// IsIgnorable reports whether a failing call is skipped rather than
	// failing the cycle.
	IsIgnorable() bool
	// IsFilter, IsPrioritizer and IsBinder report which verbs it has.
	IsFilter() bool
	IsPrioritizer() bool
	IsBinder() bool
	// Filter returns the names of the nodes that pass, in the extender's
	// order, and the reasons of those that do not.
	Filter(ctx context.Context, pod *corev1.Pod, nodes []*corev1.Node) (passed []string, failed, failedAndUnresolvable extenderv1.FailedNodesMap, err error)
	// Prioritize returns the extender's scores and its weight.
	Prioritize(ctx context.Context, pod *corev1.Pod, nodes []*corev1.Node) (extenderv1.HostPriorityList, int64, error)
	// Bind binds the pod to the node.
	Bind(ctx context.Context, b *corev1.Binding) error
	// SupportsPreemption reports whether it has a preempt verb.
	SupportsPreemption() bool
	// ProcessPreemption is given preemption's candidate nodes with their
	// victims and returns those it agrees to, by pod UID.
	ProcessPreemption(ctx context.Context, pod *corev1.Pod, victims map[string]*extenderv1.Victims) (map[string]*extenderv1.MetaVictims, error)
}

// ExtenderOptions are what NewExtenders needs besides the configuration.
type ExtenderOptions struct {
	// Clock measures each call's httpTimeout (required): the scheduler's
	// clock, so that a test or step mode decides when a call times out.
	Clock clock.Clock
	// Client, if set, sends every extender's requests instead of a client
	// built from its TLS settings (tests).
	Client *http.Client
}

// HTTPExtender calls an extender over HTTP(S) (kube-scheduler's
// HTTPExtender).
type HTTPExtender struct {
	urlPrefix                            string
	filterVerb, prioritizeVerb, bindVerb string
	preemptVerb                          string
	weight                               int64
	timeout                              time.Duration
	nodeCacheCapable, ignorable          bool
	managed                              map[corev1.ResourceName]bool
	ignored                              []corev1.ResourceName
	client                               *http.Client
	clock                                clock.Clock
}

var _ Extender = (*HTTPExtender)(nil)

// ValidateExtenders makes kube-scheduler's checks of the configuration's
// extenders (validateExtenders in pkg/scheduler/apis/config/validation):
// a prioritizer's weight is positive, at most one extender binds, and
// managedResources are distinct extended resource names. The errors are
// kube-scheduler's field errors; the configuration's validation
// (scheduler/config) reports them with the rest of the file's.
func ValidateExtenders(extenders []configv1.Extender) field.ErrorList {
	fldPath := field.NewPath("extenders")
	var errs field.ErrorList
	binders := 0
	managed := map[string]bool{}
	for i, e := range extenders {
		path := fldPath.Index(i)
		if e.PrioritizeVerb != "" && e.Weight <= 0 {
			errs = append(errs, field.Invalid(path.Child("weight"), e.Weight, "must have a positive weight applied to it"))
		}
		if e.BindVerb != "" {
			binders++
		}
		for j, r := range e.ManagedResources {
			rpath := path.Child("managedResources").Index(j).Child("name")
			errs = append(errs, validateExtendedResourceName(rpath, r.Name)...)
			if managed[r.Name] {
				errs = append(errs, field.Invalid(rpath, r.Name, "duplicate extender managed resource name"))
			}
			managed[r.Name] = true
		}
	}
	if binders > 1 {
		errs = append(errs, field.Invalid(fldPath, fmt.Sprintf("found %d extenders implementing bind", binders), "only one extender can implement bind"))
	}
	return errs
}

// validateExtendedResourceName is kube-scheduler's check of a managed
// resource: a qualified name, and an extended resource's.
func validateExtendedResourceName(path *field.Path, name string) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsQualifiedName(name) {
		errs = append(errs, field.Invalid(path, name, msg))
	}
	if len(errs) > 0 {
		return errs
	}
	if !api.IsExtendedResourceName(corev1.ResourceName(name)) {
		errs = append(errs, field.Invalid(path, name, "is an invalid extended resource name"))
	}
	return errs
}

// NewExtenders validates the configuration's extenders (ValidateExtenders)
// and builds one HTTPExtender for each, in the configuration's order,
// which is the order the cycle calls them in.
func NewExtenders(cfgs []configv1.Extender, opts ExtenderOptions) ([]Extender, error) {
	if opts.Clock == nil {
		return nil, errors.New("extenders: a Clock is required")
	}
	if errs := ValidateExtenders(cfgs); len(errs) > 0 {
		// "[a, b]" for several, as kube-scheduler's aggregate prints them.
		return nil, errs.ToAggregate()
	}
	out := make([]Extender, 0, len(cfgs))
	for i := range cfgs {
		e, err := NewHTTPExtender(&cfgs[i], opts)
		if err != nil {
			return nil, fmt.Errorf("extenders[%d]: %w", i, err)
		}
		out = append(out, e)
	}
	return out, nil
}

// NewHTTPExtender builds the extender cfg describes; it does not validate
// cfg against the others (NewExtenders does).
func NewHTTPExtender(cfg *configv1.Extender, opts ExtenderOptions) (*HTTPExtender, error) {
	e := &HTTPExtender{
		urlPrefix: cfg.URLPrefix, filterVerb: cfg.FilterVerb, prioritizeVerb: cfg.PrioritizeVerb,
		bindVerb: cfg.BindVerb, preemptVerb: cfg.PreemptVerb, weight: cfg.Weight,
		timeout: cfg.HTTPTimeout.Duration, nodeCacheCapable: cfg.NodeCacheCapable, ignorable: cfg.Ignorable,
		client: opts.Client, clock: opts.Clock,
	}
	if e.clock == nil {
		e.clock = clock.Real{}
	}
	if e.timeout <= 0 {
		e.timeout = DefaultExtenderTimeout
	}
	if len(cfg.ManagedResources) > 0 {
		e.managed = make(map[corev1.ResourceName]bool, len(cfg.ManagedResources))
		for _, r := range cfg.ManagedResources {
			e.managed[corev1.ResourceName(r.Name)] = true
			if r.IgnoredByScheduler {
				e.ignored = append(e.ignored, corev1.ResourceName(r.Name))
			}
		}
	}
	if e.client == nil {
		tlsCfg, err := extenderTLSConfig(cfg)
		if err != nil {
			return nil, err
		}
		// No http.Client Timeout: the call's deadline is httpTimeout on
		// the injected clock (send).
		e.client = &http.Client{Transport: &http.Transport{
			Proxy: http.ProxyFromEnvironment, TLSClientConfig: tlsCfg,
			MaxIdleConnsPerHost: 16, IdleConnTimeout: 90 * time.Second,
		}}
	}
	return e, nil
}

// extenderTLSConfig is the TLS side of kube-scheduler's makeTransport:
// tlsConfig's CA, client certificate and server name, and, as there, an
// extender with enableHTTPS but no CA is not verified at all (insecure).
func extenderTLSConfig(cfg *configv1.Extender) (*tls.Config, error) {
	t := cfg.TLSConfig
	if t == nil {
		t = &configv1.ExtenderTLSConfig{}
	}
	caData, certData, keyData := t.CAData, t.CertData, t.KeyData
	var err error
	for _, f := range []struct {
		file string
		data *[]byte
	}{{t.CAFile, &caData}, {t.CertFile, &certData}, {t.KeyFile, &keyData}} {
		if f.file != "" && len(*f.data) == 0 {
			if *f.data, err = os.ReadFile(f.file); err != nil {
				return nil, err
			}
		}
	}
	hasCA := len(caData) > 0
	insecure := t.Insecure || (cfg.EnableHTTPS && !hasCA)
	if !cfg.EnableHTTPS && cfg.TLSConfig == nil {
		return nil, nil
	}
	c := &tls.Config{ServerName: t.ServerName, InsecureSkipVerify: insecure, MinVersion: tls.VersionTLS12} //nolint:gosec // kube-scheduler's rule: enableHTTPS without a CA is insecure
	if hasCA && !t.Insecure {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(caData) {
			return nil, errors.New("unable to load root certificates: no certificates in the CA data")
		}
		c.RootCAs = pool
	}
	if len(certData) > 0 || len(keyData) > 0 {
		pair, err := tls.X509KeyPair(certData, keyData)
		if err != nil {
			return nil, err
		}
		c.Certificates = []tls.Certificate{pair}
	}
	return c, nil
}

// Name is the extender's urlPrefix, as kube-scheduler names it.
func (h *HTTPExtender) Name() string { return h.urlPrefix }

// IsIgnorable reports the extender's ignorable.
func (h *HTTPExtender) IsIgnorable() bool { return h.ignorable }

// IsFilter reports whether the extender has a filter verb.
func (h *HTTPExtender) IsFilter() bool { return h.filterVerb != "" }

// IsPrioritizer reports whether the extender has a prioritize verb.
func (h *HTTPExtender) IsPrioritizer() bool { return h.prioritizeVerb != "" }

// IsBinder reports whether the extender has a bind verb.
func (h *HTTPExtender) IsBinder() bool { return h.bindVerb != "" }

// IsInterested reports whether pod requests or limits one of the
// extender's managedResources, in a container or an init container;
// an extender without managedResources is interested in every pod.
func (h *HTTPExtender) IsInterested(pod *corev1.Pod) bool {
	if len(h.managed) == 0 {
		return true
	}
	for _, cs := range [][]corev1.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
		for i := range cs {
			for name := range cs[i].Resources.Requests {
				if h.managed[name] {
					return true
				}
			}
			for name := range cs[i].Resources.Limits {
				if h.managed[name] {
					return true
				}
			}
		}
	}
	return false
}

// args is the ExtenderArgs of a filter or prioritize call: the nodes
// whole, or only their names to an extender that caches nodes itself.
func (h *HTTPExtender) args(pod *corev1.Pod, nodes []*corev1.Node) *extenderv1.ExtenderArgs {
	a := &extenderv1.ExtenderArgs{Pod: pod}
	if h.nodeCacheCapable {
		names := make([]string, len(nodes))
		for i, n := range nodes {
			names[i] = n.Name
		}
		a.NodeNames = &names
		return a
	}
	a.Nodes = &corev1.NodeList{Items: make([]corev1.Node, len(nodes))}
	for i, n := range nodes {
		a.Nodes.Items[i] = *n
	}
	return a
}

// Filter asks the extender which of nodes the pod may go to. A node the
// answer passes that was not asked about is an error, with
// kube-scheduler's message, whether the answer names it (NodeNames) or
// gives it whole (Nodes: kube-scheduler would take such a node as it is;
// kubesim refuses to schedule onto a node it does not know).
func (h *HTTPExtender) Filter(ctx context.Context, pod *corev1.Pod, nodes []*corev1.Node) ([]string, extenderv1.FailedNodesMap, extenderv1.FailedNodesMap, error) {
	if h.filterVerb == "" {
		names := make([]string, len(nodes))
		for i, n := range nodes {
			names[i] = n.Name
		}
		return names, extenderv1.FailedNodesMap{}, extenderv1.FailedNodesMap{}, nil
	}
	var result extenderv1.ExtenderFilterResult
	if err := h.send(ctx, h.filterVerb, h.args(pod, nodes), &result); err != nil {
		return nil, nil, nil, err
	}
	if result.Error != "" {
		return nil, nil, nil, errors.New(result.Error)
	}
	asked := make(map[string]bool, len(nodes))
	for _, n := range nodes {
		asked[n.Name] = true
	}
	var passed []string
	switch {
	case h.nodeCacheCapable && result.NodeNames != nil:
		passed = *result.NodeNames
	case result.Nodes != nil:
		passed = make([]string, len(result.Nodes.Items))
		for i := range result.Nodes.Items {
			passed[i] = result.Nodes.Items[i].Name
		}
	}
	for _, name := range passed {
		if !asked[name] {
			return nil, nil, nil, fmt.Errorf("extender %q claims a filtered node %q which is not found in the input node list", h.urlPrefix, name)
		}
	}
	return passed, result.FailedNodes, result.FailedAndUnresolvableNodes, nil
}

// Prioritize asks the extender to score nodes; without a prioritize verb
// every node gets 0 and the weight is 0.
func (h *HTTPExtender) Prioritize(ctx context.Context, pod *corev1.Pod, nodes []*corev1.Node) (extenderv1.HostPriorityList, int64, error) {
	if h.prioritizeVerb == "" {
		list := make(extenderv1.HostPriorityList, len(nodes))
		for i, n := range nodes {
			list[i] = extenderv1.HostPriority{Host: n.Name}
		}
		return list, 0, nil
	}
	var result extenderv1.HostPriorityList
	if err := h.send(ctx, h.prioritizeVerb, h.args(pod, nodes), &result); err != nil {
		return nil, 0, err
	}
	return result, h.weight, nil
}

// Bind asks the extender to bind the pod (ExtenderBindingArgs).
func (h *HTTPExtender) Bind(ctx context.Context, b *corev1.Binding) error {
	if h.bindVerb == "" {
		return errors.New("unexpected empty bindVerb in extender")
	}
	var result extenderv1.ExtenderBindingResult
	args := &extenderv1.ExtenderBindingArgs{PodName: b.Name, PodNamespace: b.Namespace, PodUID: b.UID, Node: b.Target.Name}
	if err := h.send(ctx, h.bindVerb, args, &result); err != nil {
		return err
	}
	if result.Error != "" {
		return errors.New(result.Error)
	}
	return nil
}

// SupportsPreemption reports whether the extender has a preempt verb.
func (h *HTTPExtender) SupportsPreemption() bool { return h.preemptVerb != "" }

// ProcessPreemption sends preemption's candidates (ExtenderPreemptionArgs:
// the victims whole, or only their UIDs to a nodeCacheCapable extender)
// and returns the extender's NodeNameToMetaVictims.
func (h *HTTPExtender) ProcessPreemption(ctx context.Context, pod *corev1.Pod, victims map[string]*extenderv1.Victims) (map[string]*extenderv1.MetaVictims, error) {
	if h.preemptVerb == "" {
		return nil, fmt.Errorf("preempt verb is not defined for extender %v but run into ProcessPreemption", h.urlPrefix)
	}
	args := &extenderv1.ExtenderPreemptionArgs{Pod: pod}
	if h.nodeCacheCapable {
		args.NodeNameToMetaVictims = make(map[string]*extenderv1.MetaVictims, len(victims))
		for node, v := range victims {
			mv := &extenderv1.MetaVictims{Pods: make([]*extenderv1.MetaPod, len(v.Pods)), NumPDBViolations: v.NumPDBViolations}
			for i, p := range v.Pods {
				mv.Pods[i] = &extenderv1.MetaPod{UID: string(p.UID)}
			}
			args.NodeNameToMetaVictims[node] = mv
		}
	} else {
		args.NodeNameToVictims = victims
	}
	var result extenderv1.ExtenderPreemptionResult
	if err := h.send(ctx, h.preemptVerb, args, &result); err != nil {
		return nil, err
	}
	return result.NodeNameToMetaVictims, nil
}

// errExtenderTimeout ends a call that ran past httpTimeout.
var errExtenderTimeout = errors.New("extender call timed out")

// send POSTs args as JSON to urlPrefix/verb and decodes the answer into
// result; an answer other than 200 is an error, with kube-scheduler's
// message. The call ends after httpTimeout on the injected clock, with the
// error an http.Client's Timeout gives ("Post \"URL\": context deadline
// exceeded (Client.Timeout exceeded while awaiting headers)").
func (h *HTTPExtender) send(ctx context.Context, verb string, args, result any) error {
	body, err := json.Marshal(args)
	if err != nil {
		return err
	}
	u := strings.TrimRight(h.urlPrefix, "/") + "/" + verb
	ctx, cancel := clock.WithTimeout(ctx, h.clock, h.timeout, errExtenderTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := h.client.Do(req)
	if err != nil {
		if errors.Is(context.Cause(ctx), errExtenderTimeout) {
			return &url.Error{Op: "Post", URL: u, Err: errors.New("context deadline exceeded (Client.Timeout exceeded while awaiting headers)")}
		}
		return err
	}
	defer func() {
		// Read to the end so that the connection is reused: a decoder
		// stops before the encoder's trailing newline.
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("failed %v with extender at URL %v, code %v", verb, u, resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(result); err != nil {
		if errors.Is(context.Cause(ctx), errExtenderTimeout) {
			return &url.Error{Op: "Post", URL: u, Err: errors.New("context deadline exceeded (Client.Timeout exceeded while reading body)")}
		}
		return err
	}
	return nil
}

// bindingFor is the Binding an extender binds, as the scheduler's own.
func bindingFor(pod *corev1.Pod, node string) *corev1.Binding {
	return &corev1.Binding{
		ObjectMeta: metav1.ObjectMeta{Name: pod.Name, Namespace: pod.Namespace, UID: pod.UID},
		Target:     corev1.ObjectReference{Kind: "Node", Name: node},
	}
}

// ignoredResources are the extenders' managed resources marked
// ignoredByScheduler: NodeResourcesFit does not check that a node has
// them (kube-scheduler passes them to the plugin as its
// ignoredResources); the extender answers for them.
func ignoredResources(exts []Extender) map[corev1.ResourceName]bool {
	var out map[corev1.ResourceName]bool
	for _, e := range exts {
		h, ok := e.(*HTTPExtender)
		if !ok {
			continue
		}
		for _, name := range h.ignored {
			if out == nil {
				out = map[corev1.ResourceName]bool{}
			}
			out[name] = true
		}
	}
	return out
}
