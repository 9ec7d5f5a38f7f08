// Package schema is kubesim's OpenAPI v3 structural-schema machinery: it
// validates, defaults and prunes unstructured objects against an
// api.JSONSchemaProps, checks that a CRD's schema is structural, and
// generates schemas for the built-in kinds from their Go types, so that
// custom resources and pods go through the same code.
//
// Real counterparts:
//   - k8s.io/apiextensions-apiserver/pkg/apiserver/schema (structural
//     schemas: ValidateStructural, pruning/, defaulting/, objectmeta/);
//   - k8s.io/apiextensions-apiserver/pkg/apiserver/validation (conversion of
//     kube-openapi results to field errors) and pkg/apis/apiextensions/
//     validation (the CRD API checks on openAPIV3Schema);
//   - k8s.io/kube-openapi/pkg/validation/validate and errors (the keyword
//     checks and their "... in body should ..." messages);
//   - k8s.io/kube-openapi/cmd/openapi-gen (schemas from Go types, here by
//     reflection at run time instead of code generation).
//
// CEL rules (x-kubernetes-validations) are compiled and run by apiserver/cel.
//
// Left out: validation
// ratcheting on update, list-type uniqueness checks on values, the int32/
// int64 range of numeric formats, and ECMA-262 regular expressions: pattern
// uses Go's RE2 syntax, so lookarounds and backreferences do not compile.
// Where kube-openapi iterates maps in random order, kubesim sorts keys so
// that errors come out in a stable order.
package schema
