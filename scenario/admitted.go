package scenario

import (
	"strings"

	"github.com/kubesim/kubesim/api/unstructured"
)

// keepAdmittedPodFields carries over to a re-applied Pod manifest what
// the ServiceAccount admission plugin added at creation and the manifest
// does not say: spec.serviceAccountName (and its deprecated twin), the
// kube-api-access-* volume and its mounts; and the tolerations, which the
// DefaultTolerationSeconds plugin added to. A pod's spec is immutable, so
// replacing the stored pod with the bare manifest would be refused;
// kubectl apply keeps these fields through its three-way merge, and the
// runner's apply, a replace, keeps them here.
func keepAdmittedPodFields(u, existing *unstructured.Unstructured) {
	if u.Kind != "Pod" || u.APIVersion != "v1" {
		return
	}
	spec, _ := u.Content["spec"].(map[string]any)
	old, _ := existing.Content["spec"].(map[string]any)
	if spec == nil || old == nil {
		return
	}
	for _, k := range []string{"serviceAccountName", "serviceAccount"} {
		if _, set := spec[k]; !set && old[k] != nil {
			spec[k] = old[k]
		}
	}
	if _, set := spec["tolerations"]; !set && old["tolerations"] != nil {
		spec["tolerations"] = unstructured.DeepCopyValue(old["tolerations"])
	}
	const mountPath = "/var/run/secrets/kubernetes.io/serviceaccount"
	volumes, _ := spec["volumes"].([]any)
	for _, v := range asMaps(old["volumes"]) {
		name, _ := v["name"].(string)
		if strings.HasPrefix(name, "kube-api-access-") && !hasItem(volumes, "name", name) {
			volumes = append(volumes, unstructured.DeepCopyMap(v))
		}
	}
	if len(volumes) > 0 {
		spec["volumes"] = volumes
	}
	for _, list := range []string{"initContainers", "containers"} {
		oldByName := map[string]map[string]any{}
		for _, c := range asMaps(old[list]) {
			name, _ := c["name"].(string)
			oldByName[name] = c
		}
		for _, c := range asMaps(spec[list]) {
			name, _ := c["name"].(string)
			mounts, _ := c["volumeMounts"].([]any)
			for _, m := range asMaps(oldByName[name]["volumeMounts"]) {
				if m["mountPath"] == mountPath && !hasItem(mounts, "mountPath", mountPath) {
					mounts = append(mounts, unstructured.DeepCopyMap(m))
				}
			}
			if len(mounts) > 0 {
				c["volumeMounts"] = mounts
			}
		}
	}
}

// asMaps returns the objects of a JSON list.
func asMaps(v any) []map[string]any {
	list, _ := v.([]any)
	out := make([]map[string]any, 0, len(list))
	for _, x := range list {
		if m, ok := x.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// hasItem reports whether a JSON list holds an object whose key is value.
func hasItem(list []any, key, value string) bool {
	for _, m := range asMaps(list) {
		if m[key] == value {
			return true
		}
	}
	return false
}
