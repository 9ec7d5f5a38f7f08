// Package patch applies the four kinds of PATCH the Kubernetes API server
// accepts, on unstructured JSON values (map[string]any, []any, string, int64,
// float64, bool, nil):
//
//   - application/merge-patch+json: RFC 7386 JSON merge patch (MergePatch,
//     MergePatchMap), as k8s.io/apiserver/pkg/endpoints/handlers/patch.go does
//     it with gopkg.in/evanphx/json-patch.v4.
//   - application/json-patch+json: RFC 6902 JSON patch (JSONPatch), with the
//     error wording of evanphx/json-patch v4 that the API server passes on.
//   - application/strategic-merge-patch+json: StrategicMergePatch, the
//     server half of k8s.io/apimachinery/pkg/util/strategicpatch
//     (StrategicMergeMapPatch and its directives).
//   - application/apply-patch+yaml: Apply and UpdateManagedFields, a small
//     server-side apply after sigs.k8s.io/structured-merge-diff and
//     k8s.io/apimachinery/pkg/util/managedfields.
//
// The schema each needs is the Schema interface: patch strategies and merge
// keys (the Go struct tags patchStrategy/patchMergeKey in k8s.io/api, or
// x-kubernetes-patch-strategy in OpenAPI) and list types
// (x-kubernetes-list-type / x-kubernetes-list-map-keys).
//
// Errors are *Error values carrying the HTTP status Kubernetes answers with
// (400, 413, 422, or 500 for the internal errors of strategic merge), and
// server-side apply conflicts a *ConflictError (409).
//
// Left out, or simplified:
//   - Creating patches (CreateTwoWayMergePatch, CreateThreeWayMergePatch):
//     kubectl computes them; the server only applies them.
//   - Strategic merge reads no Go struct tags: everything comes from Schema.
//     Values a strategic patch adds lose their nulls and "$patch" maps as in
//     current Kubernetes, and also their other "$" keys and, in new list
//     elements and replaced lists, the same (Kubernetes leaves those to the
//     typed decoding, which kubesim's unstructured objects do not have).
//     Keys are processed in sorted order, where Kubernetes ranges over a map.
//   - Server-side apply keeps field sets as plain paths (no versioned
//     conversion, no subresources, no reset of status fields: a caller that
//     wants status ignored strips it first). Atomic maps
//     (x-kubernetes-map-type) are not modelled. Nulls in an applied
//     configuration are treated as absent. An associative list whose items
//     lack a key field is treated as atomic instead of being rejected. A field
//     dropped from an apply is removed unless another manager owns it or a
//     field beneath it.
//   - The API server also removes managedFields and retries when an object
//     gets too large, dedups ownerReferences, and runs admission; that is the
//     caller's business.
//
// Read the real ones at:
// https://github.com/kubernetes/kubernetes/tree/master/staging/src/k8s.io/apimachinery/pkg/util/strategicpatch
// https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go
// https://github.com/evanphx/json-patch (v4)
// https://github.com/kubernetes-sigs/structured-merge-diff
package patch
