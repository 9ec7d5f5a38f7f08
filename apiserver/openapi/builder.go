package openapi

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/registry"
	kubesimschema "github.com/kubesim/kubesim/apiserver/schema"
)

// ErrGroupVersionNotFound is returned by Document for a group-version that
// no resource is served at.
var ErrGroupVersionNotFound = errors.New("the server could not find the requested resource")

// Names of the shared definitions every document carries.
const (
	statusDefinition        = "io.k8s.apimachinery.pkg.apis.meta.v1.Status"
	patchDefinition         = "io.k8s.apimachinery.pkg.apis.meta.v1.Patch"
	deleteOptionsDefinition = "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions"
	scaleDefinition         = "io.k8s.api.autoscaling.v1.Scale"
)

// Patch content types. Strategic merge is advertised only for kinds whose
// schema carries patch merge keys: kubectl would otherwise compute
// strategic patches the server cannot apply as intended.
const (
	applyPatchType     = "application/apply-patch+yaml"
	jsonPatchType      = "application/json-patch+json"
	mergePatchType     = "application/merge-patch+json"
	strategicPatchType = "application/strategic-merge-patch+json"
)

// The descriptions Kubernetes gives the type fields of every kind; a
// custom resource schema without them gets them, as the CRD builder does.
const (
	apiVersionDescription = "APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources"
	kindDescription       = "Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"
	metadataDescription   = "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
	listMetaDescription   = "Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"
)

// DefinitionName names the schema of a kind as Kubernetes does: the Go
// package path of the type for built-in groups (io.k8s.api.core.v1.Pod,
// io.k8s.api.apps.v1.Deployment, io.k8s.api.rbac.v1.Role) and the reversed
// group for the others (com.example.lab.v1.Widget).
func DefinitionName(gvk schema.GroupVersionKind) string {
	return groupPrefix(gvk.Group) + "." + gvk.Version + "." + gvk.Kind
}

func groupPrefix(group string) string {
	switch {
	case group == "":
		return "io.k8s.api.core"
	case group == "apiextensions.k8s.io":
		return "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions"
	case group == "apiregistration.k8s.io":
		return "io.k8s.kube-aggregator.pkg.apis.apiregistration"
	case !strings.Contains(group, "."):
		return "io.k8s.api." + group
	case strings.HasSuffix(group, ".k8s.io"):
		first, _, _ := strings.Cut(group, ".")
		return "io.k8s.api." + first
	}
	labels := strings.Split(group, ".")
	slices.Reverse(labels)
	return strings.Join(labels, ".")
}

// GroupVersions lists the group-versions resources are served at: the core
// v1 first, then the named groups by name and version.
func GroupVersions(resources []*registry.Resource) []schema.GroupVersion {
	seen := map[schema.GroupVersion]bool{}
	var out []schema.GroupVersion
	for _, r := range resources {
		if !servable(r) {
			continue
		}
		gv := r.GroupVersion()
		if !seen[gv] {
			seen[gv] = true
			out = append(out, gv)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Group != out[j].Group {
			return out[i].Group < out[j].Group
		}
		return out[i].Version < out[j].Version
	})
	return out
}

// servable reports whether r has what a path needs.
func servable(r *registry.Resource) bool {
	return r != nil && r.Version != "" && r.Name != "" && r.Kind != ""
}

// IndexKey is the key of a group-version in the /openapi/v3 index:
// "api/v1" or "apis/<group>/<version>".
func IndexKey(gv schema.GroupVersion) string {
	if gv.Group == "" {
		return "api/" + gv.Version
	}
	return "apis/" + gv.Group + "/" + gv.Version
}

// parseIndexKey is the inverse of IndexKey.
func parseIndexKey(key string) (schema.GroupVersion, bool) {
	parts := strings.Split(key, "/")
	switch {
	case len(parts) == 2 && parts[0] == "api" && parts[1] != "":
		return schema.GroupVersion{Version: parts[1]}, true
	case len(parts) == 3 && parts[0] == "apis" && parts[1] != "" && parts[2] != "":
		return schema.GroupVersion{Group: parts[1], Version: parts[2]}, true
	}
	return schema.GroupVersion{}, false
}

// resourcesAt picks the resources served at gv, one per name (the first
// wins), sorted by name so that the document does not depend on order.
func resourcesAt(gv schema.GroupVersion, resources []*registry.Resource) []*registry.Resource {
	var out []*registry.Resource
	seen := map[string]bool{}
	for _, r := range resources {
		if servable(r) && r.GroupVersion() == gv && !seen[r.Name] {
			seen[r.Name] = true
			out = append(out, r)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Document builds the OpenAPI 3.0 document of one group-version ("v1" for
// the core group, "apps/v1", "lab.example.com/v1"). It returns
// ErrGroupVersionNotFound when no resource is served there.
func Document(groupVersion string, resources []*registry.Resource) ([]byte, error) {
	gv, err := schema.ParseGroupVersion(groupVersion)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrGroupVersionNotFound, err)
	}
	return document(gv, resourcesAt(gv, resources))
}

// document builds the document from the resources of gv alone.
func document(gv schema.GroupVersion, rs []*registry.Resource) ([]byte, error) {
	b, err := buildGroupVersion(gv, rs)
	if err != nil {
		return nil, err
	}
	doc := map[string]any{
		"openapi": "3.0.0",
		"info":    map[string]any{"title": "Kubernetes", "version": "unversioned"},
		"paths":   b.paths,
		"components": map[string]any{
			"schemas": b.schemas,
			"securitySchemes": map[string]any{
				"BearerToken": map[string]any{
					"type": "apiKey", "name": "authorization", "in": "header",
					"description": "Bearer Token authentication",
				},
			},
		},
	}
	return encodeJSON(doc)
}

// buildGroupVersion builds the schemas and paths of gv's resources, in
// OpenAPI v3 form; the v2 document is converted from them (v2.go), so
// both come from the same source.
func buildGroupVersion(gv schema.GroupVersion, rs []*registry.Resource) (*docBuilder, error) {
	if len(rs) == 0 {
		return nil, ErrGroupVersionNotFound
	}
	b := &docBuilder{gv: gv, schemas: map[string]any{}, paths: map[string]any{}}
	b.schemas[statusDefinition] = statusSchema()
	b.schemas[patchDefinition] = map[string]any{
		"type":        "object",
		"description": "Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.",
	}
	b.schemas[deleteOptionsDefinition] = deleteOptionsSchema()
	for _, r := range rs {
		if err := b.addResource(r); err != nil {
			return nil, fmt.Errorf("openapi for %s: %w", r.GroupResource(), err)
		}
	}
	return b, nil
}

type docBuilder struct {
	gv      schema.GroupVersion
	schemas map[string]any
	paths   map[string]any
}

func ref(name string) map[string]any {
	return map[string]any{"$ref": "#/components/schemas/" + name}
}

func gvkExtension(gvk schema.GroupVersionKind) map[string]any {
	// All three keys, group included when empty: kubectl compares the
	// whole map.
	return map[string]any{"group": gvk.Group, "version": gvk.Version, "kind": gvk.Kind}
}

// addResource adds r's kind and list schemas and its paths.
func (b *docBuilder) addResource(r *registry.Resource) error {
	gvk := r.GroupVersionKind()
	itemName := DefinitionName(gvk)
	if err := b.addKindSchema(itemName, gvk, r.Schema); err != nil {
		return err
	}
	listKind := r.ListKind
	if listKind == "" {
		listKind = r.Kind + "List"
	}
	listGVK := r.GroupVersion().WithKind(listKind)
	listName := DefinitionName(listGVK)
	b.schemas[listName] = listSchema(r, listGVK, itemName)

	prefix := "/api/" + b.gv.Version
	if b.gv.Group != "" {
		prefix = "/apis/" + b.gv.Group + "/" + b.gv.Version
	}
	scope := prefix
	if r.Namespaced {
		scope += "/namespaces/{namespace}"
	}
	collection := scope + "/" + r.Name
	item := collection + "/{name}"
	ids := operationIDs{gv: b.gv, kind: r.Kind, namespaced: r.Namespaced}

	b.paths[collection] = pathItem(pathParams(r.Namespaced, false),
		"get", listOperation(ids.id("list", ""), "list or watch objects of kind "+r.Kind, gvk, listName),
		"post", writeOperation(ids.id("create", ""), "create "+article(r.Kind)+" "+r.Kind, "post", gvk, itemName, itemName, true),
		"delete", deleteCollectionOperation(ids.id("deleteCollection", ""), "delete collection of "+r.Kind, gvk),
	)
	if r.Namespaced {
		// Lists across namespaces: kubectl get -A, and explain looks here
		// first for the kind of the resource.
		b.paths[prefix+"/"+r.Name] = pathItem(nil,
			"get", listOperation("list"+ids.groupVersionCamel()+r.Kind+"ForAllNamespaces",
				"list or watch objects of kind "+r.Kind, gvk, listName))
	}
	b.paths[item] = pathItem(pathParams(r.Namespaced, true),
		"get", readOperation(ids.id("read", ""), "read the specified "+r.Kind, gvk, itemName),
		"put", writeOperation(ids.id("replace", ""), "replace the specified "+r.Kind, "put", gvk, itemName, itemName, false),
		"patch", patchOperation(ids.id("patch", ""), "partially update the specified "+r.Kind, gvk, itemName, r.StrategicMergePatch),
		"delete", deleteOperation(ids.id("delete", ""), "delete "+article(r.Kind)+" "+r.Kind, gvk),
	)
	if r.StatusSubresource {
		b.paths[item+"/status"] = pathItem(pathParams(r.Namespaced, true),
			"get", readOperation(ids.id("read", "Status"), "read status of the specified "+r.Kind, gvk, itemName),
			"put", writeOperation(ids.id("replace", "Status"), "replace status of the specified "+r.Kind, "put", gvk, itemName, itemName, false),
			"patch", patchOperation(ids.id("patch", "Status"), "partially update status of the specified "+r.Kind, gvk, itemName, r.StrategicMergePatch),
		)
	}
	if r.Scale != nil {
		scaleGVK := schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}
		b.schemas[scaleDefinition] = scaleSchema()
		b.paths[item+"/scale"] = pathItem(pathParams(r.Namespaced, true),
			"get", readOperation(ids.id("read", "Scale"), "read scale of the specified "+r.Kind, scaleGVK, scaleDefinition),
			"put", writeOperation(ids.id("replace", "Scale"), "replace scale of the specified "+r.Kind, "put", scaleGVK, scaleDefinition, scaleDefinition, false),
			"patch", patchOperation(ids.id("patch", "Scale"), "partially update scale of the specified "+r.Kind, scaleGVK, scaleDefinition, true),
		)
	}
	for _, sub := range sortedKeys(r.UpdateSubresources) {
		// Subresources that write part of the object itself
		// (namespaces/finalize, pods/ephemeralcontainers).
		us := r.UpdateSubresources[sub]
		put := writeOperation(ids.id("replace", camel(sub)), "replace "+sub+" of the specified "+r.Kind, "put", gvk, itemName, itemName, false)
		if us.UpdateOnly {
			b.paths[item+"/"+sub] = pathItem(pathParams(r.Namespaced, true), "put", put)
			continue
		}
		b.paths[item+"/"+sub] = pathItem(pathParams(r.Namespaced, true),
			"get", readOperation(ids.id("read", camel(sub)), "read "+sub+" of the specified "+r.Kind, gvk, itemName),
			"put", put,
			"patch", patchOperation(ids.id("patch", camel(sub)), "partially update "+sub+" of the specified "+r.Kind, gvk, itemName, r.StrategicMergePatch),
		)
	}
	for _, sub := range sortedKeys(r.CreateSubresources) {
		posted := r.CreateSubresources[sub].Resource
		postedGVK := schema.GroupVersionKind{Group: r.Group, Version: r.Version, Kind: r.Kind}
		var schema *api.JSONSchemaProps
		if posted != nil && posted.Kind != "" {
			postedGVK.Kind = posted.Kind
			if posted.Version != "" {
				postedGVK.Group, postedGVK.Version = posted.Group, posted.Version
			}
			schema = posted.Schema
		}
		postedName := DefinitionName(postedGVK)
		if _, done := b.schemas[postedName]; !done {
			if err := b.addKindSchema(postedName, postedGVK, schema); err != nil {
				return err
			}
		}
		b.paths[item+"/"+sub] = pathItem(pathParams(r.Namespaced, true),
			"post", writeOperation(ids.id("create", camel(sub)), "create "+sub+" of "+article(r.Kind)+" "+r.Kind,
				"post", postedGVK, postedName, postedName, true),
		)
	}
	return nil
}

// addKindSchema converts s to a JSON object, completes the type fields
// and tags it with its kind.
func (b *docBuilder) addKindSchema(name string, gvk schema.GroupVersionKind, s *api.JSONSchemaProps) error {
	m, err := schemaMap(s)
	if err != nil {
		return err
	}
	if _, ok := m["type"]; !ok {
		m["type"] = "object"
	}
	props, _ := m["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
		m["properties"] = props
	}
	if _, ok := props["apiVersion"]; !ok {
		props["apiVersion"] = map[string]any{"type": "string", "description": apiVersionDescription}
	}
	if _, ok := props["kind"]; !ok {
		props["kind"] = map[string]any{"type": "string", "description": kindDescription}
	}
	if md, _ := props["metadata"].(map[string]any); md == nil || md["properties"] == nil {
		// A custom resource's schema says at most `metadata: {type:
		// object}`: apiextensions-apiserver's builder publishes the whole
		// ObjectMeta there, so that `kubectl explain <crd>.metadata` lists
		// its fields with their descriptions.
		om, err := schemaMap(kubesimschema.FromGoType(reflect.TypeFor[metav1.ObjectMeta]()))
		if err != nil {
			return err
		}
		om["description"] = metadataDescription
		props["metadata"] = om
	}
	m["x-kubernetes-group-version-kind"] = []any{gvkExtension(gvk)}
	b.schemas[name] = m
	return nil
}

func listSchema(r *registry.Resource, gvk schema.GroupVersionKind, itemName string) map[string]any {
	return map[string]any{
		"type":        "object",
		"description": gvk.Kind + " is a list of " + r.Kind + ".",
		"required":    []any{"items"},
		"properties": map[string]any{
			"apiVersion": map[string]any{"type": "string", "description": apiVersionDescription},
			"kind":       map[string]any{"type": "string", "description": kindDescription},
			"metadata":   map[string]any{"type": "object", "description": listMetaDescription},
			"items": map[string]any{
				"type":        "array",
				"description": "List of " + strings.ToLower(r.Name) + ".",
				"items":       ref(itemName),
			},
		},
		"x-kubernetes-group-version-kind": []any{gvkExtension(gvk)},
	}
}

func statusSchema() map[string]any {
	return map[string]any{
		"type":        "object",
		"description": "Status is a return value for calls that don't return other objects.",
		"properties": map[string]any{
			"apiVersion": map[string]any{"type": "string", "description": apiVersionDescription},
			"kind":       map[string]any{"type": "string", "description": kindDescription},
			"metadata":   map[string]any{"type": "object", "description": listMetaDescription},
			"status":     map[string]any{"type": "string", "description": `Status of the operation. One of: "Success" or "Failure".`},
			"message":    map[string]any{"type": "string", "description": "A human-readable description of the status of this operation."},
			"reason":     map[string]any{"type": "string", "description": "A machine-readable description of why this operation is in the \"Failure\" status."},
			"details":    map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true, "description": "Extended data associated with the reason."},
			"code":       map[string]any{"type": "integer", "format": "int32", "description": "Suggested HTTP return code for this status, 0 if not set."},
		},
		"x-kubernetes-group-version-kind": []any{gvkExtension(schema.GroupVersionKind{Version: "v1", Kind: "Status"})},
	}
}

func deleteOptionsSchema() map[string]any {
	return map[string]any{
		"type":        "object",
		"description": "DeleteOptions may be provided when deleting an API object.",
		"properties": map[string]any{
			"apiVersion":         map[string]any{"type": "string", "description": apiVersionDescription},
			"kind":               map[string]any{"type": "string", "description": kindDescription},
			"dryRun":             map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": "When present, the deletion is checked but not persisted. The only valid value is All."},
			"gracePeriodSeconds": map[string]any{"type": "integer", "format": "int64", "description": "The duration in seconds before the object should be deleted."},
			"propagationPolicy":  map[string]any{"type": "string", "description": "Whether and how garbage collection will be performed: Orphan, Background or Foreground."},
			"orphanDependents":   map[string]any{"type": "boolean", "description": "Deprecated: use propagationPolicy."},
			"preconditions": map[string]any{
				"type":        "object",
				"description": "Must be fulfilled before a deletion is carried out.",
				"properties": map[string]any{
					"uid":             map[string]any{"type": "string", "description": "Specifies the target UID."},
					"resourceVersion": map[string]any{"type": "string", "description": "Specifies the target ResourceVersion."},
				},
			},
		},
		"x-kubernetes-group-version-kind": []any{gvkExtension(schema.GroupVersionKind{Version: "v1", Kind: "DeleteOptions"})},
	}
}

func scaleSchema() map[string]any {
	int32Field := func(desc string) map[string]any {
		return map[string]any{"type": "integer", "format": "int32", "description": desc}
	}
	return map[string]any{
		"type":        "object",
		"description": "Scale represents a scaling request for a resource.",
		"properties": map[string]any{
			"apiVersion": map[string]any{"type": "string", "description": apiVersionDescription},
			"kind":       map[string]any{"type": "string", "description": kindDescription},
			"metadata":   map[string]any{"type": "object", "description": metadataDescription},
			"spec": map[string]any{
				"type":        "object",
				"description": "spec defines the behavior of the scale.",
				"properties": map[string]any{
					"replicas": int32Field("replicas is the desired number of instances for the scaled object."),
				},
			},
			"status": map[string]any{
				"type":        "object",
				"description": "status is the current status of the scale. Read-only.",
				"required":    []any{"replicas"},
				"properties": map[string]any{
					"replicas": int32Field("replicas is the actual number of observed instances of the scaled object."),
					"selector": map[string]any{"type": "string", "description": "selector is the label query over pods that should match the replicas count, in the string form of a label selector."},
				},
			},
		},
		"x-kubernetes-group-version-kind": []any{gvkExtension(schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"})},
	}
}

// article is "a" or "an" for the operation summaries ("create a Pod",
// "delete an Endpoints").
func article(kind string) string {
	if kind != "" && strings.ContainsRune("AEIOU", rune(kind[0])) {
		return "an"
	}
	return "a"
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
