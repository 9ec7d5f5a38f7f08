package scenarios

import (
	"flag"
	"io/fs"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/scenario/scenariotest"
)

var update = flag.Bool("update", false, "rewrite the golden traces in testdata/")

// TestScenariosMatchGoldenTraces runs every scenario here: each must pass
// and print its golden trace, testdata/NAME.trace (-update rewrites the
// goldens, after checking that two runs agree).
func TestScenariosMatchGoldenTraces(t *testing.T) {
	files, err := fs.Glob(FS(), "*.yaml")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		t.Run(f, func(t *testing.T) {
			t.Parallel()
			scenariotest.CheckGolden(t, filepath.Clean(f), *update)
		})
	}
}
