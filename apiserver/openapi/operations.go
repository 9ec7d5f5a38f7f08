package openapi

import (
	"strings"
	"unicode"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// operationIDs names operations as Kubernetes' route builder does:
// verb + group + version + (Namespaced) + kind + subresource, for example
// patchCoreV1NamespacedPod or readAppsV1NamespacedDeploymentScale.
type operationIDs struct {
	gv         schema.GroupVersion
	kind       string
	namespaced bool
}

func (o operationIDs) id(verb, sub string) string {
	ns := ""
	if o.namespaced {
		ns = "Namespaced"
	}
	return verb + o.groupVersionCamel() + ns + o.kind + sub
}

// groupVersionCamel is "CoreV1", "AppsV1", "CoordinationV1" (the .k8s.io
// suffix dropped) or "LabExampleComV1".
func (o operationIDs) groupVersionCamel() string {
	g := strings.TrimSuffix(o.gv.Group, ".k8s.io")
	if g == "" {
		g = "core"
	}
	return camel(g) + camel(o.gv.Version)
}

// camel capitalises each part of s separated by '.', '-' or '_' and joins
// them: "lab.example.com" is "LabExampleCom", "binding" is "Binding".
func camel(s string) string {
	var b strings.Builder
	upper := true
	for _, r := range s {
		if r == '.' || r == '-' || r == '_' {
			upper = true
			continue
		}
		if upper {
			r = unicode.ToUpper(r)
			upper = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// pathItem builds a path item from its shared parameters and
// method/operation pairs.
func pathItem(params []any, methodsAndOps ...any) map[string]any {
	p := map[string]any{}
	if len(params) > 0 {
		p["parameters"] = params
	}
	for i := 0; i+1 < len(methodsAndOps); i += 2 {
		p[methodsAndOps[i].(string)] = methodsAndOps[i+1]
	}
	return p
}

func pathParam(name, desc string) map[string]any {
	return map[string]any{
		"name": name, "in": "path", "required": true, "description": desc,
		"schema": map[string]any{"type": "string", "uniqueItems": true},
	}
}

func queryParam(name, typ, desc string) map[string]any {
	return map[string]any{
		"name": name, "in": "query", "description": desc,
		"schema": map[string]any{"type": typ, "uniqueItems": true},
	}
}

// pathParams are the parameters shared by every operation of a path.
func pathParams(namespaced, named bool) []any {
	var ps []any
	if named {
		ps = append(ps, pathParam("name", "name of the object"))
	}
	if namespaced {
		ps = append(ps, pathParam("namespace", "object name and auth scope, such as for teams and projects"))
	}
	ps = append(ps, queryParam("pretty", "string", "If 'true', then the output is pretty printed."))
	return ps
}

func dryRunParam() map[string]any {
	return queryParam("dryRun", "string", "When present, indicates that modifications should not be persisted. The only valid value is All: every stage of the request runs, nothing is stored.")
}

func fieldManagerParam() map[string]any {
	return queryParam("fieldManager", "string", "fieldManager is a name associated with the actor or entity that is making these changes.")
}

// fieldValidationParam is what tells kubectl the server validates fields
// itself, so that it sends fieldValidation=Strict instead of validating
// on the client.
func fieldValidationParam() map[string]any {
	return queryParam("fieldValidation", "string", "fieldValidation instructs the server on how to handle objects in the request containing unknown or duplicate fields: Ignore, Warn (the default) or Strict.")
}

// jsonResponse is a response carrying the named schema.
func jsonResponse(desc, schemaName string) map[string]any {
	content := map[string]any{}
	for _, ct := range []string{"application/json", "application/yaml"} {
		content[ct] = map[string]any{"schema": ref(schemaName)}
	}
	return map[string]any{"description": desc, "content": content}
}

func unauthorized() map[string]any { return map[string]any{"description": "Unauthorized"} }

func operation(id, desc, action string, gvk schema.GroupVersionKind, params []any, body map[string]any, responses map[string]any) map[string]any {
	op := map[string]any{
		"operationId":                     id,
		"description":                     desc,
		"responses":                       responses,
		"x-kubernetes-action":             action,
		"x-kubernetes-group-version-kind": gvkExtension(gvk),
	}
	if len(params) > 0 {
		op["parameters"] = params
	}
	if body != nil {
		op["requestBody"] = body
	}
	return op
}

func listOperation(id, desc string, gvk schema.GroupVersionKind, listName string) map[string]any {
	params := []any{
		queryParam("allowWatchBookmarks", "boolean", "allowWatchBookmarks requests watch events with type BOOKMARK."),
		queryParam("continue", "string", "The continue option should be set when retrieving more results from the server."),
		queryParam("fieldSelector", "string", "A selector to restrict the list of returned objects by their fields. Defaults to everything."),
		queryParam("labelSelector", "string", "A selector to restrict the list of returned objects by their labels. Defaults to everything."),
		queryParam("limit", "integer", "limit is a maximum number of responses to return for a list call."),
		queryParam("resourceVersion", "string", "resourceVersion sets a constraint on what resource versions a request may be served from."),
		queryParam("resourceVersionMatch", "string", "resourceVersionMatch determines how resourceVersion is applied to list calls."),
		queryParam("timeoutSeconds", "integer", "Timeout for the list/watch call."),
		queryParam("watch", "boolean", "Watch for changes to the described resources and return them as a stream of add, update, and remove notifications."),
	}
	return operation(id, desc, "list", gvk, params, nil, map[string]any{
		"200": jsonResponse("OK", listName),
		"401": unauthorized(),
	})
}

func readOperation(id, desc string, gvk schema.GroupVersionKind, itemName string) map[string]any {
	return operation(id, desc, "get", gvk, nil, nil, map[string]any{
		"200": jsonResponse("OK", itemName),
		"401": unauthorized(),
	})
}

// writeOperation is a create (post) or replace (put) of a whole object.
func writeOperation(id, desc, action string, gvk schema.GroupVersionKind, bodyName, replyName string, create bool) map[string]any {
	params := []any{dryRunParam(), fieldManagerParam(), fieldValidationParam()}
	body := map[string]any{
		"required": true,
		"content":  map[string]any{"*/*": map[string]any{"schema": ref(bodyName)}},
	}
	responses := map[string]any{
		"200": jsonResponse("OK", replyName),
		"201": jsonResponse("Created", replyName),
		"401": unauthorized(),
	}
	if create {
		responses["202"] = jsonResponse("Accepted", replyName)
	}
	return operation(id, desc, action, gvk, params, body, responses)
}

// patchOperation carries the kind and the fieldValidation parameter that
// kubectl looks for, and the patch types the server accepts.
func patchOperation(id, desc string, gvk schema.GroupVersionKind, itemName string, strategic bool) map[string]any {
	params := []any{
		dryRunParam(), fieldManagerParam(), fieldValidationParam(),
		queryParam("force", "boolean", "Force is going to \"force\" Apply requests: the request takes the fields other managers own. It must be unset for non-apply patch requests."),
	}
	types := []string{applyPatchType, jsonPatchType, mergePatchType}
	if strategic {
		types = append(types, strategicPatchType)
	}
	content := map[string]any{}
	for _, t := range types {
		content[t] = map[string]any{"schema": ref(patchDefinition)}
	}
	body := map[string]any{"required": true, "content": content}
	return operation(id, desc, "patch", gvk, params, body, map[string]any{
		"200": jsonResponse("OK", itemName),
		"201": jsonResponse("Created", itemName),
		"401": unauthorized(),
	})
}

func deleteParams() []any {
	return []any{
		dryRunParam(),
		queryParam("gracePeriodSeconds", "integer", "The duration in seconds before the object should be deleted. Zero means delete immediately."),
		queryParam("propagationPolicy", "string", "Whether and how garbage collection will be performed: Orphan, Background or Foreground."),
	}
}

func deleteBody() map[string]any {
	return map[string]any{"content": map[string]any{"*/*": map[string]any{"schema": ref(deleteOptionsDefinition)}}}
}

func deleteOperation(id, desc string, gvk schema.GroupVersionKind) map[string]any {
	return operation(id, desc, "delete", gvk, deleteParams(), deleteBody(), map[string]any{
		"200": jsonResponse("OK", statusDefinition),
		"202": jsonResponse("Accepted", statusDefinition),
		"401": unauthorized(),
	})
}

func deleteCollectionOperation(id, desc string, gvk schema.GroupVersionKind) map[string]any {
	params := append(deleteParams(),
		queryParam("fieldSelector", "string", "A selector to restrict the list of deleted objects by their fields."),
		queryParam("labelSelector", "string", "A selector to restrict the list of deleted objects by their labels."),
	)
	return operation(id, desc, "deletecollection", gvk, params, deleteBody(), map[string]any{
		"200": jsonResponse("OK", statusDefinition),
		"401": unauthorized(),
	})
}
