package kinds

import (
	"fmt"
	"reflect"
	"strings"

	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// NotSimulated is a field kubesim stores and serves back as sent, but that
// nothing in kubesim acts on: no container runtime enforces a seccomp
// profile, no resolver reads a pod's dnsConfig. A write that sets one is
// answered with a warning naming it, so that a student does not take its
// silence for an effect. docs/fidelity.md mirrors this table.
type NotSimulated struct {
	// Path is the field's JSON path from the object (for PodSpecFields,
	// from the pod spec), [*] standing for every element of a list.
	Path string
	// Unless are the values that do not warn: the default the API server
	// fills in, or the values kubesim does act on (a Service's
	// sessionAffinity None). Compared with the field's value as text.
	Unless []string
	// Why says what the real component would do with it.
	Why string
}

// NotSimulatedPodSpec are the fields of a pod spec, in a pod or in any
// pod template, that kubesim stores without simulating. What the kubelet,
// the scheduler and the controllers do act on is in docs/fidelity.md.
var NotSimulatedPodSpec = []NotSimulated{
	{Path: "securityContext.seccompProfile", Why: "no container runtime filters system calls"},
	{Path: "securityContext.appArmorProfile", Why: "no container runtime confines processes"},
	{Path: "securityContext.seLinuxOptions", Why: "no container runtime labels processes"},
	{Path: "securityContext.windowsOptions", Why: "no Windows nodes"},
	{Path: "securityContext.runAsUser", Why: "simulated containers run as no user"},
	{Path: "securityContext.runAsGroup", Why: "simulated containers run as no group"},
	{Path: "securityContext.runAsNonRoot", Why: "simulated containers run as no user"},
	{Path: "securityContext.supplementalGroups", Why: "simulated containers run as no group"},
	{Path: "securityContext.fsGroup", Why: "volumes hold no files to own"},
	{Path: "securityContext.sysctls", Why: "no kernel to tune"},
	{Path: "dnsConfig", Why: "the simulated resolver reads dnsPolicy only"},
	{Path: "hostAliases", Why: "no /etc/hosts gets the entries"},
	{Path: "os", Why: "every simulated node is one of linux"},
	{Path: "overhead", Why: "the scheduler and the quota count container requests only"},
	{Path: "hostUsers", Why: "no user namespaces"},
	{Path: "hostPID", Why: "no process namespaces"},
	{Path: "hostIPC", Why: "no IPC namespaces"},
	{Path: "shareProcessNamespace", Why: "no process namespaces"},
	{Path: "setHostnameAsFQDN", Why: "the simulated hostname is the pod's name"},
	{Path: "resourceClaims", Why: "no dynamic resource allocation"},
	{Path: "resources", Why: "pod-level resources: the scheduler counts container requests"},
	{Path: "containers[*].securityContext", Why: "no container runtime enforces it"},
	{Path: "initContainers[*].securityContext", Why: "no container runtime enforces it"},
	{Path: "containers[*].startupProbe", Why: "the simulated kubelet runs liveness and readiness probes only"},
	{Path: "initContainers[*].startupProbe", Why: "the simulated kubelet runs liveness and readiness probes only"},
	{Path: "containers[*].lifecycle", Why: "no postStart or preStop hook runs"},
	{Path: "initContainers[*].lifecycle", Why: "no postStart or preStop hook runs"},
	{Path: "containers[*].resizePolicy", Why: "no in-place resize"},
	{Path: "containers[*].volumeDevices", Why: "no block devices"},
	{Path: "containers[*].volumeMounts[*].mountPropagation", Why: "no mount namespaces"},
}

// notSimulatedFields are, per group/resource, the fields of the object
// itself (beyond its pod spec) that kubesim stores without simulating.
var notSimulatedFields = map[k8sschema.GroupResource][]NotSimulated{
	{Resource: "services"}: {
		{Path: "spec.sessionAffinity", Unless: []string{"None"}, Why: "the simulated proxy picks any ready endpoint"},
		{Path: "spec.sessionAffinityConfig", Why: "the simulated proxy keeps no affinity"},
		{Path: "spec.externalIPs", Why: "no node answers on external addresses"},
		{Path: "spec.loadBalancerSourceRanges", Why: "no load balancer to restrict"},
		{Path: "spec.loadBalancerClass", Why: "no load balancer controller"},
		{Path: "spec.externalTrafficPolicy", Unless: []string{"Cluster"}, Why: "the simulated proxy routes to every endpoint"},
		{Path: "spec.internalTrafficPolicy", Unless: []string{"Cluster"}, Why: "the simulated proxy routes to every endpoint"},
		{Path: "spec.trafficDistribution", Why: "the simulated proxy routes to every endpoint"},
	},
}

// podSpecAt is where each kind that holds a pod spec holds it.
var podSpecAt = map[k8sschema.GroupResource]string{
	{Resource: "pods"}:                        "spec",
	{Resource: "podtemplates"}:                "template.spec",
	{Resource: "replicationcontrollers"}:      "spec.template.spec",
	{Group: "apps", Resource: "replicasets"}:  "spec.template.spec",
	{Group: "apps", Resource: "deployments"}:  "spec.template.spec",
	{Group: "apps", Resource: "statefulsets"}: "spec.template.spec",
	{Group: "apps", Resource: "daemonsets"}:   "spec.template.spec",
	{Group: "batch", Resource: "jobs"}:        "spec.template.spec",
	{Group: "batch", Resource: "cronjobs"}:    "spec.jobTemplate.spec.template.spec",
}

// NotSimulatedWarning returns the warning for the fields of obj, a
// gr, that kubesim stores without simulating, or "" when it sets none.
func NotSimulatedWarning(gr k8sschema.GroupResource, obj api.Object) string {
	return compileNotSimulated(gr, reflect.TypeOf(obj)).warning(obj)
}

// notSimulatedWarnings gives each resource its warnings, the table's paths
// compiled once for its Go type.
func notSimulatedWarnings(resources []*registry.Resource) {
	for _, r := range resources {
		c := compileNotSimulated(r.GroupResource(), reflect.TypeOf(r.New()))
		if len(c) == 0 {
			continue
		}
		r.Warnings = func(obj api.Object) []string {
			if w := c.warning(obj); w != "" {
				return []string{w}
			}
			return nil
		}
	}
}

// notSimulatedFieldsOf are a kind's table entries, each compiled to the
// indexes of its fields in the kind's Go type.
type notSimulatedFieldsOf []compiledField

type compiledField struct {
	path   string
	steps  []fieldStep
	unless []string
}

// fieldStep is one field of a path: its index (reflect.Value.FieldByIndex)
// and, for a list, whether every element is looked into.
type fieldStep struct {
	index []int
	all   bool
}

// compileNotSimulated compiles gr's entries for the Go type t; an entry
// whose path t does not have is left out.
func compileNotSimulated(gr k8sschema.GroupResource, t reflect.Type) notSimulatedFieldsOf {
	var out notSimulatedFieldsOf
	add := func(path string, unless []string) {
		if steps, ok := compilePath(t, strings.Split(path, ".")); ok {
			out = append(out, compiledField{path: path, steps: steps, unless: unless})
		}
	}
	if prefix, ok := podSpecAt[gr]; ok {
		for _, f := range NotSimulatedPodSpec {
			add(prefix+"."+f.Path, f.Unless)
		}
	}
	for _, f := range notSimulatedFields[gr] {
		add(f.Path, f.Unless)
	}
	return out
}

// warning names the fields of obj that are set.
func (c notSimulatedFieldsOf) warning(obj api.Object) string {
	var set []string
	v := reflect.ValueOf(obj)
	for _, f := range c {
		if fieldSet(v, f.steps, f.unless) {
			set = append(set, f.path)
		}
	}
	if len(set) == 0 {
		return ""
	}
	return fmt.Sprintf("stored but not simulated by kubesim (nothing in it acts on them; see docs/fidelity.md): %s", strings.Join(set, ", "))
}

// compilePath finds path's fields (JSON names, a "[*]" suffix for every
// element of a list) in t.
func compilePath(t reflect.Type, path []string) ([]fieldStep, bool) {
	var steps []fieldStep
	for _, p := range path {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		name, all := strings.CutSuffix(p, "[*]")
		sf, ok := jsonField(t, name)
		if !ok {
			return nil, false
		}
		steps = append(steps, fieldStep{index: sf.Index, all: all})
		t = sf.Type
		if all {
			if t.Kind() != reflect.Slice {
				return nil, false
			}
			t = t.Elem()
		}
	}
	return steps, true
}

// fieldSet reports whether the field at steps is set in v to something
// other than its zero value and the values in unless.
func fieldSet(v reflect.Value, steps []fieldStep, unless []string) bool {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return false
		}
		v = v.Elem()
	}
	if len(steps) == 0 {
		if v.IsZero() {
			return false
		}
		for _, u := range unless {
			if fmt.Sprint(v.Interface()) == u {
				return false
			}
		}
		return true
	}
	f, err := v.FieldByIndexErr(steps[0].index)
	if err != nil {
		return false
	}
	if !steps[0].all {
		return fieldSet(f, steps[1:], unless)
	}
	for i := range f.Len() {
		if fieldSet(f.Index(i), steps[1:], unless) {
			return true
		}
	}
	return false
}

// jsonField is the field of struct type t whose JSON name is name,
// looking into inlined structs.
func jsonField(t reflect.Type, name string) (reflect.StructField, bool) {
	if t.Kind() != reflect.Struct {
		return reflect.StructField{}, false
	}
	for i := range t.NumField() {
		sf := t.Field(i)
		tag, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if tag == name && sf.IsExported() {
			return sf, true
		}
		if sf.Anonymous && tag == "" {
			if f, ok := jsonField(sf.Type, name); ok {
				f.Index = append([]int{i}, f.Index...)
				return f, true
			}
		}
	}
	return reflect.StructField{}, false
}

// NotSimulatedObjectFields lists the object fields of every kind in
// notSimulatedFields (for the test that holds docs/fidelity.md to them).
func NotSimulatedObjectFields() []NotSimulated {
	var out []NotSimulated
	for _, fs := range notSimulatedFields {
		out = append(out, fs...)
	}
	return out
}
