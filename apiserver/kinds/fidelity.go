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
		{Path: "spec.publishNotReadyAddresses", Why: "the endpoints controllers publish ready addresses as ready only"},
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
	var set []string
	v := reflect.ValueOf(obj)
	if prefix, ok := podSpecAt[gr]; ok {
		for _, f := range NotSimulatedPodSpec {
			if fieldSet(v, splitPath(prefix+"."+f.Path), f.Unless) {
				set = append(set, prefix+"."+f.Path)
			}
		}
	}
	for _, f := range notSimulatedFields[gr] {
		if fieldSet(v, splitPath(f.Path), f.Unless) {
			set = append(set, f.Path)
		}
	}
	if len(set) == 0 {
		return ""
	}
	return fmt.Sprintf("stored but not simulated by kubesim (nothing in it acts on them; see docs/fidelity.md): %s", strings.Join(set, ", "))
}

// notSimulatedWarnings sets each resource's warnings.
func notSimulatedWarnings(resources []*registry.Resource) {
	for _, r := range resources {
		gr := r.GroupResource()
		if _, ok := podSpecAt[gr]; !ok && notSimulatedFields[gr] == nil {
			continue
		}
		r.Warnings = func(obj api.Object) []string {
			if w := NotSimulatedWarning(gr, obj); w != "" {
				return []string{w}
			}
			return nil
		}
	}
}

func splitPath(p string) []string { return strings.Split(p, ".") }

// fieldSet reports whether the field at path (JSON names, a "[*]" suffix
// for every element of a list) is set in v to something other than its
// zero value and the values in unless.
func fieldSet(v reflect.Value, path []string, unless []string) bool {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return false
		}
		v = v.Elem()
	}
	if len(path) == 0 {
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
	name, all := strings.CutSuffix(path[0], "[*]")
	f, ok := jsonField(v, name)
	if !ok {
		return false
	}
	if !all {
		return fieldSet(f, path[1:], unless)
	}
	for i := range f.Len() {
		if fieldSet(f.Index(i), path[1:], unless) {
			return true
		}
	}
	return false
}

// jsonField is the field of struct v whose JSON name is name, looking
// into inlined structs.
func jsonField(v reflect.Value, name string) (reflect.Value, bool) {
	if v.Kind() != reflect.Struct {
		return reflect.Value{}, false
	}
	t := v.Type()
	for i := range t.NumField() {
		sf := t.Field(i)
		tag, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if tag == name && sf.IsExported() {
			return v.Field(i), true
		}
		if sf.Anonymous && tag == "" {
			if f, ok := jsonField(v.Field(i), name); ok {
				return f, true
			}
		}
	}
	return reflect.Value{}, false
}

// NotSimulatedFieldsOf lists the object fields of every kind in
// notSimulatedFields (for the test that holds docs/fidelity.md to them).
func NotSimulatedFieldsOf() []NotSimulated {
	var out []NotSimulated
	for _, fs := range notSimulatedFields {
		out = append(out, fs...)
	}
	return out
}
