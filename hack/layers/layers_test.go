package layers

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const module = "github.com/kubesim/kubesim"

// moduleImports lists every package of the module with its imports (test
// files left out), as `go list` sees them.
func moduleImports(t *testing.T, root string) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	require.NoError(t, err, "go list")
	imports := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg, _ := strings.CutPrefix(f[0], module+"/")
		imports[pkg] = f[1:]
	}
	return imports
}

// The module's imports follow the layer table of docs/architecture.md.
func TestImportsPointDown(t *testing.T) {
	root := filepath.Join("..", "..")
	doc, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	require.NoError(t, err)
	layers, err := Parse(string(doc))
	require.NoError(t, err)
	imports := moduleImports(t, root)
	require.Contains(t, imports, "cluster", "go list found the module's packages")
	for _, err := range Check(layers, module, imports) {
		t.Error(err)
	}
	var pkgs []string
	for p := range imports {
		pkgs = append(pkgs, p)
	}
	assert.Empty(t, Unused(layers, pkgs), "rows of the layer table that hold no package")
}

const sample = `# x

## Layers

Some words.

| layer | packages | may import |
| --- | --- | --- |
| cluster | ` + "`cluster`" + ` | servers, controllers |
| servers | ` + "`apiserver`, `aggregator`" + ` | server parts |
| server parts | ` + "`apiserver/...`" + ` | server parts, types |
| controllers | ` + "`controllers/...`" + ` | kit |
| kit | ` + "`controllers`" + ` | types |
| types | ` + "`api`" + ` | — |

## Next
`

func TestParse(t *testing.T) {
	layers, err := Parse(sample)
	require.NoError(t, err)
	require.Len(t, layers, 6)
	assert.Equal(t, Layer{Name: "servers", Packages: []string{"apiserver", "aggregator"}, MayUse: []string{"server parts"}}, layers[1])
	assert.Nil(t, layers[5].MayUse)

	_, err = Parse(strings.Replace(sample, "| kit |", "| kits |", 1))
	assert.ErrorContains(t, err, `may import "kits", which is not a layer`)
	_, err = Parse("## Other\n| a | b | c |\n")
	assert.Error(t, err)
}

func TestCheckFindsImportsThatClimb(t *testing.T) {
	layers, err := Parse(sample)
	require.NoError(t, err)
	m := func(pkgs ...string) []string {
		var out []string
		for _, p := range pkgs {
			out = append(out, module+"/"+p)
		}
		return append(out, "fmt")
	}
	tests := []struct {
		name    string
		imports map[string][]string
		want    []string
	}{
		{"down is fine", map[string][]string{"cluster": m("aggregator", "controllers/replicaset", "api"),
			"apiserver": m("apiserver/registry"), "apiserver/handlers": m("apiserver/registry"),
			"controllers/replicaset": m("controllers", "api")}, nil},
		{"a server part imports the server", map[string][]string{"apiserver/registry": m("apiserver")},
			[]string{`apiserver/registry (layer "server parts") imports apiserver (layer "servers")`}},
		{"controllers import each other", map[string][]string{"controllers/statefulset": m("controllers/deployment")},
			[]string{`controllers/statefulset (layer "controllers") imports controllers/deployment (layer "controllers")`}},
		{"a server imports a controller", map[string][]string{"apiserver": m("controllers")},
			[]string{`apiserver (layer "servers") imports controllers (layer "kit")`}},
		{"a controller under the server's tree", map[string][]string{"apiserver/crd/finalizer": m("controllers")},
			[]string{`apiserver/crd/finalizer (layer "server parts") imports controllers (layer "kit")`}},
		{"a package in no layer", map[string][]string{"examples/x": nil}, []string{"package examples/x is in no layer"}},
	}
	for _, tt := range tests {
		errs := Check(layers, module, tt.imports)
		require.Len(t, errs, len(tt.want), tt.name)
		for i, w := range tt.want {
			assert.Contains(t, errs[i].Error(), w, tt.name)
		}
	}
	assert.Equal(t, []string{"aggregator"}, Unused(layers, []string{"cluster", "apiserver", "apiserver/x", "controllers", "controllers/a", "api"}))
}
