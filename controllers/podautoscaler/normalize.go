package podautoscaler

import (
	"math"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
)

// DefaultDownscaleStabilization is the window of an HPA without behavior
// (--horizontal-pod-autoscaler-downscale-stabilization).
const DefaultDownscaleStabilization = 5 * time.Minute

// recommendation is one past unstabilized proposal.
type recommendation struct {
	replicas int32
	at       time.Time
}

// scaleEvent is one past change of the target's replicas.
type scaleEvent struct {
	change   int32
	at       time.Time
	outdated bool
}

// history is what the controller remembers of one HPA between syncs
// (the real controller's recommendations, scaleUpEvents and
// scaleDownEvents maps): in memory, lost on restart, as in Kubernetes.
type history struct {
	recommendations []recommendation
	scaleUps        []scaleEvent
	scaleDowns      []scaleEvent
}

// condition is a condition the normalization decided.
type condition struct {
	status          corev1.ConditionStatus
	reason, message string
}

// normalized is the outcome of normalizing a proposal.
type normalized struct {
	replicas int32
	// ableToScale and scalingLimited are the conditions to set.
	ableToScale, scalingLimited condition
}

// scaleUpLimit is calculateScaleUpLimit: at most double, at least 4.
func scaleUpLimit(current int32) int32 {
	return int32(math.Max(2.0*float64(current), 4.0))
}

// Normalize is normalizeDesiredReplicas, for an HPA without behavior:
// the highest recommendation of the downscale window, then at most
// double (or 4) and within min and max.
func (h *history) Normalize(now time.Time, window time.Duration, current, desired, minReplicas, maxReplicas int32) normalized {
	stabilized := h.stabilize(now, window, desired)
	var out normalized
	if stabilized != desired {
		out.ableToScale = condition{corev1.ConditionTrue, "ScaleDownStabilized", "recent recommendations were higher than current one, applying the highest recent recommendation"}
	} else {
		out.ableToScale = condition{corev1.ConditionTrue, "ReadyForNewScale", "recommended size matches current size"}
	}
	replicas, reason, message := withRules(current, stabilized, minReplicas, maxReplicas)
	out.replicas = replicas
	status := corev1.ConditionFalse
	if replicas != stabilized {
		status = corev1.ConditionTrue
	}
	out.scalingLimited = condition{status, reason, message}
	return out
}

// stabilize is stabilizeRecommendation: the highest of desired and the
// recommendations of the window; desired is recorded in place of one that
// has left the window.
func (h *history) stabilize(now time.Time, window time.Duration, desired int32) int32 {
	highest := desired
	reuse := -1
	cutoff := now.Add(-window)
	for i, r := range h.recommendations {
		if r.at.After(cutoff) {
			highest = max(highest, r.replicas)
		} else {
			reuse = i
		}
	}
	if reuse >= 0 {
		h.recommendations[reuse] = recommendation{desired, now}
	} else {
		h.recommendations = append(h.recommendations, recommendation{desired, now})
	}
	return highest
}

// withRules is convertDesiredReplicasWithRules.
func withRules(current, desired, minReplicas, maxReplicas int32) (int32, string, string) {
	maxAllowed, reason, message := maxReplicas, "TooManyReplicas", "the desired replica count is more than the maximum replica count"
	if limit := scaleUpLimit(current); maxReplicas > limit {
		maxAllowed, reason, message = limit, "ScaleUpLimit", "the desired replica count is increasing faster than the maximum scale rate"
	}
	switch {
	case desired < minReplicas:
		return minReplicas, "TooFewReplicas", "the desired replica count is less than the minimum replica count"
	case desired > maxAllowed:
		return maxAllowed, reason, message
	}
	return desired, "DesiredWithinRange", "the desired count is within the acceptable range"
}

// NormalizeWithBehavior is normalizeDesiredReplicasWithBehaviors: the
// proposal held between the lowest recommendation of the scale-up window
// and the highest of the scale-down window, then limited by the policies
// of its direction and by min and max.
func (h *history) NormalizeWithBehavior(now time.Time, up, down *autoscalingv2.HPAScalingRules, current, desired, minReplicas, maxReplicas int32) normalized {
	stabilized, reason, message := h.stabilizeWithBehavior(now, up, down, current, desired)
	var out normalized
	if stabilized != desired {
		out.ableToScale = condition{corev1.ConditionTrue, reason, message}
	} else {
		out.ableToScale = condition{corev1.ConditionTrue, "ReadyForNewScale", "recommended size matches current size"}
	}
	replicas, reason, message := h.withBehaviorRate(now, up, down, current, stabilized, minReplicas, maxReplicas)
	out.replicas = replicas
	status := corev1.ConditionFalse
	if replicas != stabilized {
		status = corev1.ConditionTrue
	}
	out.scalingLimited = condition{status, reason, message}
	return out
}

// stabilizeWithBehavior is stabilizeRecommendationWithBehaviors.
func (h *history) stabilizeWithBehavior(now time.Time, up, down *autoscalingv2.HPAScalingRules, current, desired int32) (int32, string, string) {
	upCutoff := now.Add(-time.Duration(*up.StabilizationWindowSeconds) * time.Second)
	downCutoff := now.Add(-time.Duration(*down.StabilizationWindowSeconds) * time.Second)
	upRec, downRec := desired, desired
	reuse := -1
	for i, r := range h.recommendations {
		if r.at.After(upCutoff) {
			upRec = min(upRec, r.replicas)
		}
		if r.at.After(downCutoff) {
			downRec = max(downRec, r.replicas)
		}
		if r.at.Before(upCutoff) && r.at.Before(downCutoff) {
			reuse = i
		}
	}
	rec := current
	if rec < upRec {
		rec = upRec
	}
	if rec > downRec {
		rec = downRec
	}
	if reuse >= 0 {
		h.recommendations[reuse] = recommendation{desired, now}
	} else {
		h.recommendations = append(h.recommendations, recommendation{desired, now})
	}
	if desired >= current {
		return rec, "ScaleUpStabilized", "recent recommendations were lower than current one, applying the lowest recent recommendation"
	}
	return rec, "ScaleDownStabilized", "recent recommendations were higher than current one, applying the highest recent recommendation"
}

// withBehaviorRate is convertDesiredReplicasWithBehaviorRate.
func (h *history) withBehaviorRate(now time.Time, up, down *autoscalingv2.HPAScalingRules, current, desired, minReplicas, maxReplicas int32) (int32, string, string) {
	switch {
	case desired > current:
		limit := max(scaleUpLimitWithRules(now, current, h.scaleUps, h.scaleDowns, up), current)
		maxAllowed, reason, message := maxReplicas, "TooManyReplicas", "the desired replica count is more than the maximum replica count"
		if maxAllowed > limit {
			maxAllowed, reason, message = limit, "ScaleUpLimit", "the desired replica count is increasing faster than the maximum scale rate"
		}
		if desired > maxAllowed {
			return maxAllowed, reason, message
		}
	case desired < current:
		limit := min(scaleDownLimitWithRules(now, current, h.scaleUps, h.scaleDowns, down), current)
		minAllowed, reason, message := minReplicas, "TooFewReplicas", "the desired replica count is less than the minimum replica count"
		if minAllowed < limit {
			minAllowed, reason, message = limit, "ScaleDownLimit", "the desired replica count is decreasing faster than the maximum scale rate"
		}
		if desired < minAllowed {
			return minAllowed, reason, message
		}
	}
	return desired, "DesiredWithinRange", "the desired count is within the acceptable range"
}

// changeInPeriod is getReplicasChangePerPeriod: the replicas changed by
// the events of the last period.
func changeInPeriod(now time.Time, periodSeconds int32, events []scaleEvent) int32 {
	cutoff := now.Add(-time.Duration(periodSeconds) * time.Second)
	var sum int32
	for _, e := range events {
		if e.at.After(cutoff) {
			sum += e.change
		}
	}
	return sum
}

// scaleUpLimitWithRules is calculateScaleUpLimitWithScalingRules: each
// policy proposes its limit from the replicas at the start of its period;
// Max takes the largest (the default), Min the smallest.
func scaleUpLimitWithRules(now time.Time, current int32, ups, downs []scaleEvent, rules *autoscalingv2.HPAScalingRules) int32 {
	if *rules.SelectPolicy == autoscalingv2.DisabledPolicySelect {
		return current
	}
	pick, result := maxInt32, int32(math.MinInt32)
	if *rules.SelectPolicy == autoscalingv2.MinChangePolicySelect {
		pick, result = minInt32, math.MaxInt32
	}
	for _, p := range rules.Policies {
		start := current - changeInPeriod(now, p.PeriodSeconds, ups) + changeInPeriod(now, p.PeriodSeconds, downs)
		var proposed int32
		switch p.Type {
		case autoscalingv2.PodsScalingPolicy:
			proposed = start + p.Value
		case autoscalingv2.PercentScalingPolicy:
			// Rounded up, or a small target could never grow.
			proposed = int32(math.Ceil(float64(start) * (1 + float64(p.Value)/100)))
		}
		result = pick(result, proposed)
	}
	return result
}

// scaleDownLimitWithRules is calculateScaleDownLimitWithBehaviors.
func scaleDownLimitWithRules(now time.Time, current int32, ups, downs []scaleEvent, rules *autoscalingv2.HPAScalingRules) int32 {
	if *rules.SelectPolicy == autoscalingv2.DisabledPolicySelect {
		return current
	}
	pick, result := minInt32, int32(math.MaxInt32)
	if *rules.SelectPolicy == autoscalingv2.MinChangePolicySelect {
		pick, result = maxInt32, math.MinInt32
	}
	for _, p := range rules.Policies {
		start := current - changeInPeriod(now, p.PeriodSeconds, ups) + changeInPeriod(now, p.PeriodSeconds, downs)
		var proposed int32
		switch p.Type {
		case autoscalingv2.PodsScalingPolicy:
			proposed = start - p.Value
		case autoscalingv2.PercentScalingPolicy:
			proposed = int32(float64(start) * (1 - float64(p.Value)/100))
		}
		result = pick(result, proposed)
	}
	return result
}

// recordScale is storeScaleEvent: the change is remembered for the
// longest period of the direction's policies; an event past it is
// replaced.
func (h *history) recordScale(now time.Time, behavior *autoscalingv2.HorizontalPodAutoscalerBehavior, from, to int32) {
	if behavior == nil {
		return // no policies to limit by
	}
	events, rules := &h.scaleUps, behavior.ScaleUp
	change := to - from
	if to < from {
		events, rules, change = &h.scaleDowns, behavior.ScaleDown, from-to
	}
	var longest int32
	for _, p := range rules.Policies {
		longest = max(longest, p.PeriodSeconds)
	}
	cutoff := now.Add(-time.Duration(longest) * time.Second)
	for i := range *events {
		if (*events)[i].at.Before(cutoff) {
			(*events)[i].outdated = true
		}
	}
	for i := range *events {
		if (*events)[i].outdated {
			(*events)[i] = scaleEvent{change: change, at: now}
			return
		}
	}
	*events = append(*events, scaleEvent{change: change, at: now})
}

func maxInt32(a, b int32) int32 { return max(a, b) }
func minInt32(a, b int32) int32 { return min(a, b) }
