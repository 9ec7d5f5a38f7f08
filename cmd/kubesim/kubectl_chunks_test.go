package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// kubectl get pages its lists (--chunk-size, 500 by default) and the
// server answers Table pages through the watch cache: every chunk size,
// with label and field selectors, across namespaces, prints what one
// unpaged list prints, the first time (objects decoded) and the next
// (objects from the cache).
func TestKubectlGetInChunks(t *testing.T) {
	s := startServer(t, t.TempDir(), "--api-server-only")
	k := newKubectl(t, s)
	var docs []string
	for _, ns := range []string{"blue", "green"} {
		docs = append(docs, fmt.Sprintf("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: %s\n", ns))
		for i := range 7 {
			app := []string{"web", "db"}[i%2]
			docs = append(docs, fmt.Sprintf("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p%d\n  namespace: %s\n  labels:\n    app: %s\nspec:\n  containers:\n  - name: c\n    image: nginx\n", i, ns, app))
			docs = append(docs, fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c%d\n  namespace: %s\n  labels:\n    app: %s\ndata:\n  k: v%d\n", i, ns, app, i))
		}
	}
	file := filepath.Join(t.TempDir(), "objects.yaml")
	require.NoError(t, os.WriteFile(file, []byte(strings.Join(docs, "---\n")), 0o600))
	k.ok("apply", "-f", file)
	for _, args := range [][]string{
		{"get", "pods", "-A"},
		{"get", "pods", "-A", "-o", "wide"},
		{"get", "pods", "-n", "blue", "-l", "app=web"},
		{"get", "configmaps", "-A", "-l", "app=db", "--show-labels"},
		{"get", "configmaps", "-A", "--field-selector", "metadata.name=c3"},
		{"get", "pods", "-A", "--field-selector", "metadata.namespace=green", "-l", "app!=web"},
	} {
		whole := withoutAges(k.ok(append(args, "--chunk-size", "0")...))
		require.NotEmpty(t, whole)
		for _, chunk := range []string{"1", "3", "500"} {
			for range 2 {
				assert.Equal(t, whole, withoutAges(k.ok(append(args, "--chunk-size", chunk)...)), "kubectl %s --chunk-size %s", strings.Join(args, " "), chunk)
			}
		}
	}
	out := withoutAges(k.ok("get", "pods", "-A", "--chunk-size", "4", "-l", "app=web"))
	assert.Equal(t, 1+8, strings.Count(out, "\n"), out)
	assert.Contains(t, out, "green p6 ")
	assert.NotContains(t, out, " p1 ")
}

// ages matches the AGE column's values (16s, 2m3s), which move between
// two runs and change the columns' widths.
var ages, spaces = regexp.MustCompile(`\b(\d+[smhd])+\b`), regexp.MustCompile(` +`)

func withoutAges(out string) string {
	return spaces.ReplaceAllString(ages.ReplaceAllString(out, "AGE"), " ")
}
