package quota

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kubesim/kubesim/api"
	"k8s.io/apimachinery/pkg/api/resource"
)

// ObjectCountName is the generic count of a resource: count/pods,
// count/deployments.apps.
func ObjectCountName(gr api.GroupResource) api.ResourceName {
	if gr.Group == "" {
		return api.ResourceName("count/" + gr.Resource)
	}
	return api.ResourceName("count/" + gr.Resource + "." + gr.Group)
}

// legacyCounts are the core resources with a count name of their own.
var legacyCounts = map[string]api.ResourceName{
	"pods": api.ResourcePods, "services": api.ResourceServices, "configmaps": api.ResourceConfigMaps,
	"secrets": api.ResourceSecrets, "persistentvolumeclaims": api.ResourcePersistentVolumeClaims,
	"resourcequotas": api.ResourceQuotas, "replicationcontrollers": api.ResourceReplicationControllers,
}

// Usage is what one object of resource gr uses of a quota: one of its
// count, and for a pod its compute requests and limits, for a service its
// node ports and load balancers. A pod that has finished uses nothing.
func Usage(gr api.GroupResource, obj api.Object) api.ResourceList {
	if p, ok := obj.(*api.Pod); ok && gr.Group == "" && gr.Resource == "pods" {
		return PodUsage(p)
	}
	one := resource.MustParse("1")
	out := api.ResourceList{ObjectCountName(gr): one}
	if gr.Group == "" {
		if name, ok := legacyCounts[gr.Resource]; ok {
			out[name] = one
		}
	}
	if s, ok := obj.(*api.Service); ok {
		var nodePorts int64
		for _, p := range s.Spec.Ports {
			if p.NodePort != 0 || s.Spec.Type == api.ServiceTypeNodePort || s.Spec.Type == api.ServiceTypeLoadBalancer {
				nodePorts++
			}
		}
		out[api.ResourceServicesNodePorts] = *resource.NewQuantity(nodePorts, resource.DecimalSI)
		lb := int64(0)
		if s.Spec.Type == api.ServiceTypeLoadBalancer {
			lb = 1
		}
		out[api.ResourceServicesLoadBalancers] = *resource.NewQuantity(lb, resource.DecimalSI)
	}
	return out
}

// PodUsage is the pod evaluator's usage: pods and count/pods 1, and the
// pod's requests (also as cpu and memory) and limits, the larger of the
// containers' sum and any init container.
func PodUsage(p *api.Pod) api.ResourceList {
	if !IsPodCounted(p) {
		return api.ResourceList{}
	}
	one := resource.MustParse("1")
	out := api.ResourceList{api.ResourcePods: one, ObjectCountName(api.GroupResource{Resource: "pods"}): one}
	requests, limits := podRequestsAndLimits(p)
	for _, r := range []api.ResourceName{api.ResourceCPU, api.ResourceMemory} {
		if q, ok := requests[r]; ok {
			out[r] = q
			out["requests."+r] = q
		}
		if q, ok := limits[r]; ok {
			out["limits."+r] = q
		}
	}
	return out
}

// IsPodCounted: a pod in a terminal phase is no longer charged.
func IsPodCounted(p *api.Pod) bool {
	return p.Status.Phase != api.PodSucceeded && p.Status.Phase != api.PodFailed
}

func podRequestsAndLimits(p *api.Pod) (requests, limits api.ResourceList) {
	requests, limits = api.ResourceList{}, api.ResourceList{}
	for _, c := range p.Spec.Containers {
		addTo(requests, c.Resources.Requests)
		addTo(limits, c.Resources.Limits)
	}
	for _, c := range p.Spec.InitContainers {
		maxInto(requests, c.Resources.Requests)
		maxInto(limits, c.Resources.Limits)
	}
	return requests, limits
}

func addTo(sum, rl api.ResourceList) {
	for k, v := range rl {
		q := sum[k]
		q.Add(v)
		sum[k] = q
	}
}

func maxInto(out, rl api.ResourceList) {
	for k, v := range rl {
		if cur, ok := out[k]; !ok || v.Cmp(cur) > 0 {
			out[k] = v
		}
	}
}

// Add returns a + b.
func Add(a, b api.ResourceList) api.ResourceList {
	out := api.ResourceList{}
	addTo(out, a)
	addTo(out, b)
	return out
}

// Mask keeps the resources of rl that are in names.
func Mask(rl api.ResourceList, names []api.ResourceName) api.ResourceList {
	out := api.ResourceList{}
	for _, n := range names {
		if q, ok := rl[n]; ok {
			out[n] = q
		}
	}
	return out
}

// Names returns the resource names of rl, sorted.
func Names(rl api.ResourceList) []api.ResourceName {
	out := make([]api.ResourceName, 0, len(rl))
	for k := range rl {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// LessThanOrEqual reports whether every resource of a that b caps is at
// most b's, and the ones that are not.
func LessThanOrEqual(a, b api.ResourceList) (bool, []api.ResourceName) {
	var exceeded []api.ResourceName
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
func PrettyPrint(rl api.ResourceList) string {
	var parts []string
	for _, k := range Names(rl) {
		q := rl[k]
		parts = append(parts, fmt.Sprintf("%s=%s", k, q.String()))
	}
	return strings.Join(parts, ",")
}

// validationSet are the quota resources that oblige every container to
// state the request or limit (a rule kept for backward compatibility).
var validationSet = []api.ResourceName{api.ResourceCPU, api.ResourceMemory, api.ResourceRequestsCPU,
	api.ResourceRequestsMemory, api.ResourceLimitsCPU, api.ResourceLimitsMemory}

// PodConstraints is the pod evaluator's Constraints: with a quota on cpu
// or memory requests or limits, every container must set them. The error
// is "must specify limits.cpu for: web; requests.memory for: web,side".
func PodConstraints(required []api.ResourceName, p *api.Pod) error {
	missing := map[api.ResourceName][]string{}
	check := func(c *api.Container) {
		for _, r := range required {
			if !slices.Contains(validationSet, r) {
				continue
			}
			list, base := c.Resources.Requests, r
			if name, ok := strings.CutPrefix(string(r), "limits."); ok {
				list, base = c.Resources.Limits, api.ResourceName(name)
			} else if name, ok := strings.CutPrefix(string(r), "requests."); ok {
				base = api.ResourceName(name)
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
	for _, r := range slices.Sorted(func(yield func(api.ResourceName) bool) {
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
func Matches(q *api.ResourceQuota, obj api.Object) bool {
	scopes := slices.Clone(q.Spec.Scopes)
	var exprs []api.ScopedResourceSelectorRequirement
	if q.Spec.ScopeSelector != nil {
		exprs = q.Spec.ScopeSelector.MatchExpressions
	}
	if len(scopes) == 0 && len(exprs) == 0 {
		return true
	}
	p, ok := obj.(*api.Pod)
	if !ok {
		return false
	}
	for _, s := range scopes {
		if !podMatchesScope(p, api.ScopedResourceSelectorRequirement{ScopeName: s, Operator: "Exists"}) {
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

func podMatchesScope(p *api.Pod, req api.ScopedResourceSelectorRequirement) bool {
	switch req.ScopeName {
	case api.ResourceQuotaScopeTerminating:
		return p.Spec.ActiveDeadlineSeconds != nil && *p.Spec.ActiveDeadlineSeconds >= 0
	case api.ResourceQuotaScopeNotTerminating:
		return p.Spec.ActiveDeadlineSeconds == nil || *p.Spec.ActiveDeadlineSeconds < 0
	case api.ResourceQuotaScopeBestEffort:
		return isBestEffort(p)
	case api.ResourceQuotaScopeNotBestEffort:
		return !isBestEffort(p)
	case api.ResourceQuotaScopePriorityClass:
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

func isBestEffort(p *api.Pod) bool {
	for _, cs := range [][]api.Container{p.Spec.Containers, p.Spec.InitContainers} {
		for _, c := range cs {
			if len(c.Resources.Requests) > 0 || len(c.Resources.Limits) > 0 {
				return false
			}
		}
	}
	return true
}
