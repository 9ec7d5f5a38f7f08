package api

// ToleratesTaint is k8s.io/api/core/v1's Toleration.ToleratesTaint without
// its feature-gated numeric comparison operators: the
// effect matches (an empty effect matches all), the key matches (an empty
// key with Exists matches all), and for Equal (the default operator) the
// value too.
func ToleratesTaint(t *Toleration, taint *Taint) bool {
	if t.Effect != "" && t.Effect != taint.Effect {
		return false
	}
	if t.Key != taint.Key && !(t.Key == "" && t.Operator == TolerationOpExists) {
		return false
	}
	switch t.Operator {
	case TolerationOpExists:
		return true
	case "", TolerationOpEqual:
		return t.Value == taint.Value
	}
	return false
}
