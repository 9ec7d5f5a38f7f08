package api

import (
	"reflect"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/kubesim/kubesim/api/labels"
)

// LabelSelectorAsSelector converts a LabelSelector to a labels.Selector
// (metav1.LabelSelectorAsSelector): nil selects nothing, an empty selector
// everything.
func LabelSelectorAsSelector(ls *metav1.LabelSelector) (labels.Selector, error) {
	if ls == nil {
		return labels.Nothing(), nil
	}
	exprs := make([]labels.MatchExpression, len(ls.MatchExpressions))
	for i, e := range ls.MatchExpressions {
		exprs[i] = labels.MatchExpression{Key: e.Key, Operator: string(e.Operator), Values: e.Values}
	}
	return labels.SelectorFromMatch(ls.MatchLabels, exprs)
}

// EndpointAddress is one ready endpoint of a Service port: a pod's
// address and the port number there.
type EndpointAddress struct {
	IP   string
	Port int32
}

// EndpointsOfPort lists ep's ready addresses for the Service port named
// portName, each with that port's number in its subset: how kube-proxy,
// the API server's service proxy and an ingress controller go from a
// Service port to the pods behind it.
func EndpointsOfPort(ep *corev1.Endpoints, portName string) []EndpointAddress {
	var out []EndpointAddress
	for _, s := range ep.Subsets {
		for _, p := range s.Ports {
			if p.Name != portName {
				continue
			}
			for _, a := range s.Addresses {
				out = append(out, EndpointAddress{IP: a.IP, Port: p.Port})
			}
		}
	}
	return out
}

// GetPodReadyCondition returns the pod's Ready condition, or nil.
func GetPodReadyCondition(p *corev1.Pod) *corev1.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == corev1.PodReady {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

// IsPodReady reports whether the pod's Ready condition is True.
func IsPodReady(p *corev1.Pod) bool {
	c := GetPodReadyCondition(p)
	return c != nil && c.Status == corev1.ConditionTrue
}

// IsPodAvailable reports whether the pod has been ready for at least
// minReadySeconds at now (podutil.IsPodAvailable).
func IsPodAvailable(p *corev1.Pod, minReadySeconds int32, now time.Time) bool {
	c := GetPodReadyCondition(p)
	if c == nil || c.Status != corev1.ConditionTrue {
		return false
	}
	if minReadySeconds == 0 {
		return true
	}
	d := time.Duration(minReadySeconds) * time.Second
	return !c.LastTransitionTime.IsZero() && c.LastTransitionTime.Add(d).Before(now)
}

// FindCRDCondition returns the CRD's condition of type t, or nil.
func FindCRDCondition(c *apiextensionsv1.CustomResourceDefinition, t apiextensionsv1.CustomResourceDefinitionConditionType) *apiextensionsv1.CustomResourceDefinitionCondition {
	for i := range c.Status.Conditions {
		if c.Status.Conditions[i].Type == t {
			return &c.Status.Conditions[i]
		}
	}
	return nil
}

// IsCRDConditionTrue reports whether the CRD's condition t is True.
func IsCRDConditionTrue(c *apiextensionsv1.CustomResourceDefinition, t apiextensionsv1.CustomResourceDefinitionConditionType) bool {
	cond := FindCRDCondition(c, t)
	return cond != nil && cond.Status == apiextensionsv1.ConditionTrue
}

// SetCRDCondition sets a condition, keeping its lastTransitionTime when the
// status does not change (the transition time is when it last changed).
func SetCRDCondition(c *apiextensionsv1.CustomResourceDefinition, cond apiextensionsv1.CustomResourceDefinitionCondition) {
	if old := FindCRDCondition(c, cond.Type); old != nil {
		if old.Status == cond.Status {
			cond.LastTransitionTime = old.LastTransitionTime
		}
		*old = cond
		return
	}
	c.Status.Conditions = append(c.Status.Conditions, cond)
}

// GetAPIServiceConditionByType returns the APIService's condition of type
// t, or nil.
func GetAPIServiceConditionByType(s *apiregistrationv1.APIService, t apiregistrationv1.APIServiceConditionType) *apiregistrationv1.APIServiceCondition {
	for i := range s.Status.Conditions {
		if s.Status.Conditions[i].Type == t {
			return &s.Status.Conditions[i]
		}
	}
	return nil
}

// SetAPIServiceCondition replaces (or adds) the condition of cond's type.
func SetAPIServiceCondition(s *apiregistrationv1.APIService, cond apiregistrationv1.APIServiceCondition) {
	if old := GetAPIServiceConditionByType(s, cond.Type); old != nil {
		*old = cond
		return
	}
	s.Status.Conditions = append(s.Status.Conditions, cond)
}

// AggregateClusterRoleRules returns the rules of an aggregated ClusterRole
// (the clusterrole-aggregation controller's union): for each of its
// selectors in turn, the rules of the other ClusterRoles that match it,
// taken in name order, each rule once. A selector that does not parse
// selects nothing. The API server's bootstrap and the controller share it.
func AggregateClusterRoleRules(role *rbacv1.ClusterRole, all []*rbacv1.ClusterRole) []rbacv1.PolicyRule {
	if role.AggregationRule == nil {
		return nil
	}
	sorted := slices.Clone(all)
	slices.SortFunc(sorted, func(a, b *rbacv1.ClusterRole) int { return strings.Compare(a.Name, b.Name) })
	rules := []rbacv1.PolicyRule{}
	for i := range role.AggregationRule.ClusterRoleSelectors {
		sel, err := LabelSelectorAsSelector(&role.AggregationRule.ClusterRoleSelectors[i])
		if err != nil {
			continue
		}
		for _, other := range sorted {
			if other.Name == role.Name || !sel.Matches(labels.Set(other.Labels)) {
				continue
			}
			for _, r := range other.Rules {
				if !slices.ContainsFunc(rules, func(have rbacv1.PolicyRule) bool { return reflect.DeepEqual(have, r) }) {
					rules = append(rules, *r.DeepCopy())
				}
			}
		}
	}
	return rules
}
