package admission

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
)

// The LimitRanger admission plugin (plugin/pkg/admission/limitranger):
// a new pod's containers get the defaults of their
// namespace's LimitRanges (default limits, defaultRequest requests) where
// they set none, with the kubernetes.io/limit-ranger annotation saying
// what was set; then the min, max and maxLimitRequestRatio of Container
// and Pod items are checked. Pod updates are not looked at: containers'
// resources cannot change in place.

// LimitRangeAnnotation records what the plugin set.
const LimitRangeAnnotation = "kubernetes.io/limit-ranger"

// LimitRangeLister lists the limit ranges of a namespace.
type LimitRangeLister func(ctx context.Context, namespace string) ([]*corev1.LimitRange, error)

// LimitRanger is the plugin.
type LimitRanger struct {
	List LimitRangeLister
}

// PluginName is the name kube-apiserver gives the plugin, in the trace
// and the admission metrics.
func (*LimitRanger) PluginName() string { return "LimitRanger" }

// Admit implements Mutator: the defaults.
func (l *LimitRanger) Admit(ctx context.Context, a *Attributes) error {
	pod, ranges, err := l.podAndRanges(ctx, a)
	if err != nil || pod == nil {
		return err
	}
	for _, lr := range ranges {
		SetLimitRangeDefaults(lr, pod)
	}
	return nil
}

// Validate implements Validator: the bounds.
func (l *LimitRanger) Validate(ctx context.Context, a *Attributes) error {
	pod, ranges, err := l.podAndRanges(ctx, a)
	if err != nil || pod == nil {
		return err
	}
	var errs []string
	for _, lr := range ranges {
		errs = append(errs, ValidatePodLimits(lr, pod)...)
	}
	if len(errs) == 0 {
		return nil
	}
	return api.NewForbidden(schema.GroupResource{Resource: "pods"}, a.Name, aggregate(errs))
}

func (l *LimitRanger) podAndRanges(ctx context.Context, a *Attributes) (*corev1.Pod, []*corev1.LimitRange, error) {
	if !isPodCreate(a) {
		return nil, nil, nil
	}
	pod, ok := a.Object.(*corev1.Pod)
	if !ok {
		return nil, nil, nil
	}
	ranges, err := l.List(ctx, a.Namespace)
	if err != nil {
		return nil, nil, api.NewInternalError(err)
	}
	return pod, ranges, nil
}

// aggregate prints errors as utilerrors.NewAggregate does: one alone, or
// several in brackets.
func aggregate(msgs []string) error {
	if len(msgs) == 1 {
		return fmt.Errorf("%s", msgs[0])
	}
	return fmt.Errorf("[%s]", strings.Join(msgs, ", "))
}

// SetLimitRangeDefaults is the mutating half: each container's missing
// limits and requests from the range's Container item, and the annotation.
func SetLimitRangeDefaults(lr *corev1.LimitRange, pod *corev1.Pod) {
	limits, requests := corev1.ResourceList{}, corev1.ResourceList{}
	for _, item := range lr.Spec.Limits {
		if item.Type != corev1.LimitTypeContainer {
			continue
		}
		for k, v := range item.DefaultRequest {
			requests[k] = v
		}
		for k, v := range item.Default {
			limits[k] = v
		}
	}
	if len(limits) == 0 && len(requests) == 0 {
		return
	}
	var notes []string
	merge := func(c *corev1.Container, kind string) {
		var setRequests, setLimits []string
		if c.Resources.Limits == nil {
			c.Resources.Limits = corev1.ResourceList{}
		}
		if c.Resources.Requests == nil {
			c.Resources.Requests = corev1.ResourceList{}
		}
		for k, v := range limits {
			if _, ok := c.Resources.Limits[k]; !ok {
				c.Resources.Limits[k] = v
				setLimits = append(setLimits, string(k))
			}
		}
		for k, v := range requests {
			if _, ok := c.Resources.Requests[k]; !ok {
				c.Resources.Requests[k] = v
				setRequests = append(setRequests, string(k))
			}
		}
		if len(setRequests) > 0 {
			slices.Sort(setRequests)
			notes = append(notes, strings.Join(setRequests, ", ")+" request for "+kind+" "+c.Name)
		}
		if len(setLimits) > 0 {
			slices.Sort(setLimits)
			notes = append(notes, strings.Join(setLimits, ", ")+" limit for "+kind+" "+c.Name)
		}
	}
	for i := range pod.Spec.Containers {
		merge(&pod.Spec.Containers[i], "container")
	}
	for i := range pod.Spec.InitContainers {
		merge(&pod.Spec.InitContainers[i], "init container")
	}
	if len(notes) > 0 {
		if pod.Annotations == nil {
			pod.Annotations = map[string]string{}
		}
		pod.Annotations[LimitRangeAnnotation] = "LimitRanger plugin set: " + strings.Join(notes, "; ")
	}
}

// ValidatePodLimits is the validating half (PodValidateLimitFunc): the
// messages of every bound the pod's containers, or the pod as a whole,
// break.
func ValidatePodLimits(lr *corev1.LimitRange, pod *corev1.Pod) []string {
	var errs []string
	check := func(t corev1.LimitType, item corev1.LimitRangeItem, requests, limits corev1.ResourceList) {
		for _, k := range sortedNames(item.Min) {
			if err := minConstraint(t, k, item.Min[k], requests, limits); err != "" {
				errs = append(errs, err)
			}
		}
		for _, k := range sortedNames(item.Max) {
			if err := maxConstraint(t, k, item.Max[k], requests, limits); err != "" {
				errs = append(errs, err)
			}
		}
		for _, k := range sortedNames(item.MaxLimitRequestRatio) {
			if err := ratioConstraint(t, k, item.MaxLimitRequestRatio[k], requests, limits); err != "" {
				errs = append(errs, err)
			}
		}
	}
	for _, item := range lr.Spec.Limits {
		switch item.Type {
		case corev1.LimitTypeContainer:
			for _, cs := range [][]corev1.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
				for _, c := range cs {
					check(item.Type, item, c.Resources.Requests, c.Resources.Limits)
				}
			}
		case corev1.LimitTypePod:
			requests, limits := podTotals(pod)
			check(item.Type, item, requests, limits)
		}
	}
	return errs
}

// podTotals is the sum over containers, or the largest init container if
// larger; a resource some container leaves unset is left out of the sum.
func podTotals(pod *corev1.Pod) (requests, limits corev1.ResourceList) {
	sum := func(get func(c corev1.Container) corev1.ResourceList) corev1.ResourceList {
		out := corev1.ResourceList{}
		names := map[corev1.ResourceName]bool{}
		for _, c := range pod.Spec.Containers {
			for k := range get(c) {
				names[k] = true
			}
		}
		for k := range names {
			var total resource.Quantity
			set := true
			for _, c := range pod.Spec.Containers {
				v, ok := get(c)[k]
				if !ok {
					set = false
					break
				}
				total.Add(v)
			}
			if set {
				out[k] = total
			}
		}
		for _, c := range pod.Spec.InitContainers {
			for k, v := range get(c) {
				if cur, ok := out[k]; !ok || v.Cmp(cur) > 0 {
					out[k] = v
				}
			}
		}
		return out
	}
	return sum(func(c corev1.Container) corev1.ResourceList { return c.Resources.Requests }),
		sum(func(c corev1.Container) corev1.ResourceList { return c.Resources.Limits })
}

func sortedNames(rl corev1.ResourceList) []corev1.ResourceName {
	out := make([]corev1.ResourceName, 0, len(rl))
	for k := range rl {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func minConstraint(t corev1.LimitType, k corev1.ResourceName, enforced resource.Quantity, requests, limits corev1.ResourceList) string {
	req, reqOK := requests[k]
	lim, limOK := limits[k]
	switch {
	case !reqOK:
		return fmt.Sprintf("minimum %s usage per %s is %s.  No request is specified.", k, t, enforced.String())
	case req.Cmp(enforced) < 0:
		return fmt.Sprintf("minimum %s usage per %s is %s, but request is %s.", k, t, enforced.String(), req.String())
	case limOK && lim.Cmp(enforced) < 0:
		return fmt.Sprintf("minimum %s usage per %s is %s, but limit is %s.", k, t, enforced.String(), lim.String())
	}
	return ""
}

func maxConstraint(t corev1.LimitType, k corev1.ResourceName, enforced resource.Quantity, requests, limits corev1.ResourceList) string {
	req, reqOK := requests[k]
	lim, limOK := limits[k]
	switch {
	case !limOK:
		return fmt.Sprintf("maximum %s usage per %s is %s.  No limit is specified.", k, t, enforced.String())
	case lim.Cmp(enforced) > 0:
		return fmt.Sprintf("maximum %s usage per %s is %s, but limit is %s.", k, t, enforced.String(), lim.String())
	case reqOK && req.Cmp(enforced) > 0:
		return fmt.Sprintf("maximum %s usage per %s is %s, but request is %s.", k, t, enforced.String(), req.String())
	}
	return ""
}

func ratioConstraint(t corev1.LimitType, k corev1.ResourceName, enforced resource.Quantity, requests, limits corev1.ResourceList) string {
	req, reqOK := requests[k]
	lim, limOK := limits[k]
	if !reqOK || req.IsZero() {
		return fmt.Sprintf("%s max limit to request ratio per %s is %s, but no request is specified or request is 0.", k, t, enforced.String())
	}
	if !limOK || lim.IsZero() {
		return fmt.Sprintf("%s max limit to request ratio per %s is %s, but no limit is specified or limit is 0.", k, t, enforced.String())
	}
	ratio := float64(lim.MilliValue()) / float64(req.MilliValue())
	if ratio*1000 > float64(enforced.MilliValue()) {
		return fmt.Sprintf("%s max limit to request ratio per %s is %s, but provided ratio is %f.", k, t, enforced.String(), ratio)
	}
	return ""
}
