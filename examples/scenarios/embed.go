// Package scenarios holds the scenario files of the examples and the labs
// (YAML, run by kubesim scenario and checked against golden traces in
// testdata/), embedded so that the kubesim binary can tell the demo's
// story without the source tree.
package scenarios

import (
	"embed"
	"io/fs"
)

//go:embed *.yaml manifests/*.yaml
var files embed.FS

// FS returns the scenario files and the manifests they apply.
func FS() fs.FS { return files }
