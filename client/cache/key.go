package cache

import "strings"

// SplitKey splits a key made by Key into namespace and name; a key
// without "/" is a cluster-scoped object's name (SplitMetaNamespaceKey).
func SplitKey(key string) (namespace, name string) {
	if ns, n, ok := strings.Cut(key, "/"); ok {
		return ns, n
	}
	return "", key
}
