// Package cel compiles and runs the Common Expression Language (CEL)
// expressions the API server accepts: the x-kubernetes-validations rules of
// CustomResourceDefinition schemas, and the expressions of
// ValidatingAdmissionPolicies. The language itself is github.com/google/cel-go,
// the implementation Kubernetes uses; this package only builds the
// environment, estimates cost and turns results into field errors.
//
// Real counterparts:
//   - k8s.io/apiserver/pkg/cel (the base environment, the cost limits of
//     k8s.io/apiserver/pkg/apis/cel, the Kubernetes function libraries);
//   - k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel (rule
//     compilation, the size estimator, the schema walk with self and
//     oldSelf);
//   - the CEL checks of k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/
//     validation (compile errors and the cost budget at CRD create/update).
//
// Left out: self and oldSelf are dynamically typed, not declared from the
// schema, so a misspelt field or a type mismatch is found when the rule runs
// ("no such key", "no such overload"), not when the CRD is written; of the
// Kubernetes libraries only isSorted and quantity are provided (no url,
// ip, cidr, authz, format, regex find); validation ratcheting; the oldSelf
// correlation of x-kubernetes-list-type: set elements (map lists and maps
// are correlated); the static cost checks of ValidatingAdmissionPolicy
// expressions (the per-call limit still stops them at run time).
package cel
