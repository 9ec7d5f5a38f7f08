package discovery

import (
	"strconv"
	"strings"
)

// DefaultGroupPriorityMinimum is the priority of a group missing from the
// built-in table: the value the CRD registration controller gives the
// APIServices of custom resource groups.
const DefaultGroupPriorityMinimum int32 = 1000

// apiregistrationPriority puts apiregistration.k8s.io first: kube-aggregator
// always lists its own group before every APIService.
const apiregistrationPriority int32 = 18100

// builtinGroupPriorities is kube-aggregator's groupPriorityMinimum table
// for the built-in groups (the core group, 18000, is not in /apis). It is a
// function rather than a package variable so that nothing can change it.
func builtinGroupPriorities() map[string]int32 {
	return map[string]int32{
		"apiregistration.k8s.io":       apiregistrationPriority,
		"apps":                         17800,
		"events.k8s.io":                17750,
		"authentication.k8s.io":        17700,
		"authorization.k8s.io":         17600,
		"autoscaling":                  17500,
		"batch":                        17400,
		"certificates.k8s.io":          17300,
		"networking.k8s.io":            17200,
		"policy":                       17100,
		"rbac.authorization.k8s.io":    17000,
		"storage.k8s.io":               16800,
		"apiextensions.k8s.io":         16700,
		"admissionregistration.k8s.io": 16700,
		"scheduling.k8s.io":            16600,
		"coordination.k8s.io":          16500,
		"node.k8s.io":                  16300,
		"discovery.k8s.io":             16200,
		"flowcontrol.apiserver.k8s.io": 16100,
		"internal.apiserver.k8s.io":    16000,
		"resource.k8s.io":              15900,
		"storagemigration.k8s.io":      15800,
	}
}

// GroupPriorityMinimum is the priority kube-aggregator gives group in
// /apis: higher comes first, equal priorities sort by name.
func GroupPriorityMinimum(group string) int32 {
	if p, ok := builtinGroupPriorities()[group]; ok {
		return p
	}
	return DefaultGroupPriorityMinimum
}

// versionType orders the stability levels of Kubernetes versions.
type versionType int

const (
	versionAlpha versionType = iota
	versionBeta
	versionGA
)

// parseKubeVersion splits a Kubernetes-style version ("v2", "v1beta3",
// "v1alpha1") into its major number, stability and minor number; ok is
// false for anything else ("foo1", "v0", "v1gamma1").
func parseKubeVersion(v string) (major int, typ versionType, minor int, ok bool) {
	rest, found := strings.CutPrefix(v, "v")
	if !found {
		return 0, 0, 0, false
	}
	digits := leadingDigits(rest)
	major, ok = positiveInt(digits)
	if !ok {
		return 0, 0, 0, false
	}
	rest = rest[len(digits):]
	if rest == "" {
		return major, versionGA, 0, true
	}
	switch {
	case strings.HasPrefix(rest, "alpha"):
		typ, rest = versionAlpha, rest[len("alpha"):]
	case strings.HasPrefix(rest, "beta"):
		typ, rest = versionBeta, rest[len("beta"):]
	default:
		return 0, 0, 0, false
	}
	if leadingDigits(rest) != rest {
		return 0, 0, 0, false
	}
	minor, ok = positiveInt(rest)
	if !ok {
		return 0, 0, 0, false
	}
	return major, typ, minor, true
}

func leadingDigits(s string) string {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[:i]
}

// positiveInt parses digits without a leading zero, as Kubernetes' version
// pattern ^v([\d]+)(?:(alpha|beta)([\d]+))?$ with a non-zero first digit.
func positiveInt(digits string) (int, bool) {
	if digits == "" || digits[0] == '0' {
		return 0, false
	}
	n, err := strconv.Atoi(digits)
	if err != nil {
		return 0, false
	}
	return n, true
}

// CompareKubeAwareVersionStrings orders versions the way Kubernetes prefers
// them: it is positive when a comes before b. GA versions come before beta
// before alpha; within one level a higher major, then a higher minor, comes
// first; versions that are not Kubernetes-like come last, alphabetically.
// It mirrors version.CompareKubeAwareVersionStrings in apimachinery.
func CompareKubeAwareVersionStrings(a, b string) int {
	if a == b {
		return 0
	}
	aMajor, aType, aMinor, aOK := parseKubeVersion(a)
	bMajor, bType, bMinor, bOK := parseKubeVersion(b)
	switch {
	case !aOK && !bOK:
		return strings.Compare(b, a)
	case !aOK:
		return -1
	case !bOK:
		return 1
	case aType != bType:
		return int(aType) - int(bType)
	case aMajor != bMajor:
		return aMajor - bMajor
	case aMinor != bMinor:
		return aMinor - bMinor
	}
	return 0
}
