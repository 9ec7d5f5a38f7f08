package api

import corev1 "k8s.io/api/core/v1"

// ToleratesTaint is k8s.io/api/core/v1's Toleration.ToleratesTaint without
// its feature-gated numeric comparison operators: the
// effect matches (an empty effect matches all), the key matches (an empty
// key with Exists matches all), and for Equal (the default operator) the
// value too.
func ToleratesTaint(t *corev1.Toleration, taint *corev1.Taint) bool {
	if t.Effect != "" && t.Effect != taint.Effect {
		return false
	}
	if t.Key != taint.Key && !(t.Key == "" && t.Operator == corev1.TolerationOpExists) {
		return false
	}
	switch t.Operator {
	case corev1.TolerationOpExists:
		return true
	case "", corev1.TolerationOpEqual:
		return t.Value == taint.Value
	}
	return false
}
