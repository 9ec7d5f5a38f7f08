// Package resource holds Quantity, the fixed-point number with suffixes
// ("100m", "8Gi", "1e3") that Kubernetes uses for CPU, memory and other
// resource amounts.
//
// It simulates k8s.io/apimachinery/pkg/api/resource: the same grammar,
// suffixes, error wording, rounding (values are rounded up to nano units,
// so asking for some of a resource never gives none) and canonical
// printing (exponents in multiples of three for decimal suffixes, powers of
// 1024 for binary ones).
//
// Left out: Kubernetes keeps arbitrary-precision values in an inf.Dec when
// they do not fit an int64 mantissa; kubesim keeps an int64 mantissa and a
// decimal exponent only, rounding a longer mantissa up (away from zero) in
// its last digits. Kubernetes also caches the exact input string of values
// already in canonical form, so "+1" or "01" print back as typed; kubesim
// always prints the canonical form. The protobuf encoding is not provided.
//
// Read the real one at
// https://github.com/kubernetes/apimachinery/tree/master/pkg/api/resource
// (quantity.go, amount.go, suffix.go).
package resource
