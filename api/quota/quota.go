package quota

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
)

// ObjectCountName is the generic count of a resource: count/pods,
// count/deployments.apps.
func ObjectCountName(gr schema.GroupResource) corev1.ResourceName {
	if gr.Group == "" {
		return corev1.ResourceName("count/" + gr.Resource)
	}
	return corev1.ResourceName("count/" + gr.Resource + "." + gr.Group)
}

// legacyCounts are the core resources with a count name of their own.
var legacyCounts = map[string]corev1.ResourceName{
	"pods": corev1.ResourcePods, "services": corev1.ResourceServices, "configmaps": corev1.ResourceConfigMaps,
	"secrets": corev1.ResourceSecrets, "persistentvolumeclaims": corev1.ResourcePersistentVolumeClaims,
	"resourcequotas": corev1.ResourceQuotas, "replicationcontrollers": corev1.ResourceReplicationControllers,
}

// Usage is what one object of resource gr uses of a quota: one of its
// count, and for a pod its compute requests and limits, for a service its
// node ports and load balancers. A pod that has finished uses nothing.
func Usage(gr schema.GroupResource, obj api.Object) corev1.ResourceList {
	if p, ok := obj.(*corev1.Pod); ok && gr.Group == "" && gr.Resource == "pods" {
		return PodUsage(p)
	}
	one := resource.MustParse("1")
	out := corev1.ResourceList{ObjectCountName(gr): one}
	if gr.Group == "" {
		if name, ok := legacyCounts[gr.Resource]; ok {
			out[name] = one
		}
	}
	if s, ok := obj.(*corev1.Service); ok {
		var nodePorts int64
		for _, p := range s.Spec.Ports {
			if p.NodePort != 0 || s.Spec.Type == corev1.ServiceTypeNodePort || s.Spec.Type == corev1.ServiceTypeLoadBalancer {
				nodePorts++
			}
		}
		out[corev1.ResourceServicesNodePorts] = *resource.NewQuantity(nodePorts, resource.DecimalSI)
		lb := int64(0)
		if s.Spec.Type == corev1.ServiceTypeLoadBalancer {
			lb = 1
		}
		out[corev1.ResourceServicesLoadBalancers] = *resource.NewQuantity(lb, resource.DecimalSI)
	}
	return out
}

// PodUsage is the pod evaluator's usage (podComputeUsageHelper): pods and
// count/pods 1, and the pod's requests (cpu, memory and ephemeral-storage
// also under their bare names) and limits, the larger of the containers'
// sum and any init container; hugepages requested as themselves and as
// requests.hugepages-*, extended resources only as requests.<name>
// (requests.example.com/gpu: their limits equal their requests).
func PodUsage(p *corev1.Pod) corev1.ResourceList {
	if !IsPodCounted(p) {
		return corev1.ResourceList{}
	}
	one := resource.MustParse("1")
	out := corev1.ResourceList{corev1.ResourcePods: one, ObjectCountName(schema.GroupResource{Resource: "pods"}): one}
	requests, limits := podRequestsAndLimits(p)
	for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage} {
		if q, ok := requests[r]; ok {
			out[r] = q
			out[corev1.DefaultResourceRequestsPrefix+r] = q
		}
		if q, ok := limits[r]; ok {
			out["limits."+r] = q
		}
	}
	for r, q := range requests {
		switch {
		case strings.HasPrefix(string(r), corev1.ResourceHugePagesPrefix):
			out[r] = q
			out[corev1.DefaultResourceRequestsPrefix+r] = q
		case api.IsExtendedResourceName(r):
			out[corev1.DefaultResourceRequestsPrefix+r] = q
		}
	}
	return out
}

// IsPodCounted: a pod in a terminal phase is no longer charged.
func IsPodCounted(p *corev1.Pod) bool {
	return p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed
}

func podRequestsAndLimits(p *corev1.Pod) (requests, limits corev1.ResourceList) {
	requests, limits = corev1.ResourceList{}, corev1.ResourceList{}
	for _, c := range p.Spec.Containers {
		addTo(requests, c.Resources.Requests)
		addTo(limits, c.Resources.Limits)
	}
	for _, c := range p.Spec.InitContainers {
		maxInto(requests, c.Resources.Requests)
		maxInto(limits, c.Resources.Limits)
	}
	// The RuntimeClass's overhead is charged too (PodRequests and
	// PodLimits add it), to limits only where the pod sets limits.
	if len(p.Spec.Overhead) > 0 {
		addTo(requests, p.Spec.Overhead)
		if len(limits) > 0 {
			for name, q := range p.Spec.Overhead {
				if l, ok := limits[name]; ok {
					l.Add(q)
					limits[name] = l
				}
			}
		}
	}
	return requests, limits
}

func addTo(sum, rl corev1.ResourceList) {
	for k, v := range rl {
		q := sum[k]
		q.Add(v)
		sum[k] = q
	}
}

func maxInto(out, rl corev1.ResourceList) {
	for k, v := range rl {
		if cur, ok := out[k]; !ok || v.Cmp(cur) > 0 {
			out[k] = v
		}
	}
}

// Add returns a + b.
func Add(a, b corev1.ResourceList) corev1.ResourceList {
	out := corev1.ResourceList{}
	addTo(out, a)
	addTo(out, b)
	return out
}

// Mask keeps the resources of rl that are in names.
func Mask(rl corev1.ResourceList, names []corev1.ResourceName) corev1.ResourceList {
	out := corev1.ResourceList{}
	for _, n := range names {
		if q, ok := rl[n]; ok {
			out[n] = q
		}
	}
	return out
}

// Names returns the resource names of rl, sorted.
func Names(rl corev1.ResourceList) []corev1.ResourceName {
	out := make([]corev1.ResourceName, 0, len(rl))
	for k := range rl {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// LessThanOrEqual reports whether every resource of a that b caps is at
// most b's, and the ones that are not.
func LessThanOrEqual(a, b corev1.ResourceList) (bool, []corev1.ResourceName) {
	var exceeded []corev1.ResourceName
	for _, k := range Names(a) {
		used := a[k]
		if hard, ok := b[k]; ok && used.Cmp(hard) > 0 {
			exceeded = append(exceeded, k)
		}
	}
	return len(exceeded) == 0, exceeded
}

// PrettyPrint is "name=quantity" pairs by name, comma separated, as the
// quota plugin's messages print them.
func PrettyPrint(rl corev1.ResourceList) string {
	var parts []string
	for _, k := range Names(rl) {
		q := rl[k]
		parts = append(parts, fmt.Sprintf("%s=%s", k, q.String()))
	}
	return strings.Join(parts, ",")
}

// validationSet are the quota resources that oblige every container to
// state the request or limit (a rule kept for backward compatibility).
var validationSet = []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceRequestsCPU,
	corev1.ResourceRequestsMemory, corev1.ResourceLimitsCPU, corev1.ResourceLimitsMemory}

// PodConstraints is the pod evaluator's Constraints: with a quota on cpu
// or memory requests or limits, every container must set them. The error
// is "must specify limits.cpu for: web; requests.memory for: web,side".
func PodConstraints(required []corev1.ResourceName, p *corev1.Pod) error {
	missing := map[corev1.ResourceName][]string{}
	check := func(c *corev1.Container) {
		for _, r := range required {
			if !slices.Contains(validationSet, r) {
				continue
			}
			list, base := c.Resources.Requests, r
			if name, ok := strings.CutPrefix(string(r), "limits."); ok {
				list, base = c.Resources.Limits, corev1.ResourceName(name)
			} else if name, ok := strings.CutPrefix(string(r), "requests."); ok {
				base = corev1.ResourceName(name)
			}
			if _, ok := list[base]; !ok && !slices.Contains(missing[r], c.Name) {
				missing[r] = append(missing[r], c.Name)
			}
		}
	}
	for i := range p.Spec.Containers {
		check(&p.Spec.Containers[i])
	}
	for i := range p.Spec.InitContainers {
		check(&p.Spec.InitContainers[i])
	}
	if len(missing) == 0 {
		return nil
	}
	var msgs []string
	for _, r := range slices.Sorted(func(yield func(corev1.ResourceName) bool) {
		for k := range missing {
			if !yield(k) {
				return
			}
		}
	}) {
		names := slices.Clone(missing[r])
		slices.Sort(names)
		msgs = append(msgs, fmt.Sprintf("%s for: %s", r, strings.Join(names, ",")))
	}
	return fmt.Errorf("must specify %s", strings.Join(msgs, "; "))
}

// Matches reports whether the quota's scopes cover the object: a quota
// without scopes covers every object; the scopes (BestEffort,
// NotBestEffort, Terminating, NotTerminating, PriorityClass) cover pods
// only.
func Matches(q *corev1.ResourceQuota, obj api.Object) bool {
	scopes := slices.Clone(q.Spec.Scopes)
	var exprs []corev1.ScopedResourceSelectorRequirement
	if q.Spec.ScopeSelector != nil {
		exprs = q.Spec.ScopeSelector.MatchExpressions
	}
	if len(scopes) == 0 && len(exprs) == 0 {
		return true
	}
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return false
	}
	for _, s := range scopes {
		if !podMatchesScope(p, corev1.ScopedResourceSelectorRequirement{ScopeName: s, Operator: "Exists"}) {
			return false
		}
	}
	for _, e := range exprs {
		if !podMatchesScope(p, e) {
			return false
		}
	}
	return true
}

func podMatchesScope(p *corev1.Pod, req corev1.ScopedResourceSelectorRequirement) bool {
	switch req.ScopeName {
	case corev1.ResourceQuotaScopeTerminating:
		return p.Spec.ActiveDeadlineSeconds != nil && *p.Spec.ActiveDeadlineSeconds >= 0
	case corev1.ResourceQuotaScopeNotTerminating:
		return p.Spec.ActiveDeadlineSeconds == nil || *p.Spec.ActiveDeadlineSeconds < 0
	case corev1.ResourceQuotaScopeBestEffort:
		return isBestEffort(p)
	case corev1.ResourceQuotaScopeNotBestEffort:
		return !isBestEffort(p)
	case corev1.ResourceQuotaScopePriorityClass:
		switch req.Operator {
		case "Exists":
			return p.Spec.PriorityClassName != ""
		case "DoesNotExist":
			return p.Spec.PriorityClassName == ""
		case "In":
			return slices.Contains(req.Values, p.Spec.PriorityClassName)
		case "NotIn":
			return !slices.Contains(req.Values, p.Spec.PriorityClassName)
		}
	}
	return false
}

func isBestEffort(p *corev1.Pod) bool {
	for _, cs := range [][]corev1.Container{p.Spec.Containers, p.Spec.InitContainers} {
		for _, c := range cs {
			if len(c.Resources.Requests) > 0 || len(c.Resources.Limits) > 0 {
				return false
			}
		}
	}
	return true
}
