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
// self and oldSelf are typed by the structural schema, as Kubernetes'
// SchemaDeclType does (types.go): objects are struct types with their
// declared fields, so a misspelt field or a type mismatch is refused when the
// CRD is written; int-or-string is dyn; numbers are doubles and date-time,
// duration and byte strings timestamps, durations and bytes.
//
// Left out: of the
// Kubernetes libraries only isSorted and quantity are provided (no url,
// ip, cidr, authz, format, regex find); validation ratcheting; the oldSelf
// correlation of x-kubernetes-list-type: set elements (map lists and maps
// are correlated); the static cost checks of ValidatingAdmissionPolicy
// expressions (the per-call limit still stops them at run time).
package cel
