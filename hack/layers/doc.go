// Package layers checks that imports point down: every package of the
// module belongs to one layer of the table in docs/architecture.md
// ("Layers"), and may import only the layers its row names and, in turn,
// what those may import. The table in the doc is the checker's input, so
// the doc and the code cannot drift apart: `go test ./hack/layers` (run by
// `make test`) fails on an import that climbs, and on a package the table
// does not place.
//
// Kubernetes has the same kind of check: hack/verify-imports.sh and the
// import-restrictions.yaml files of staging repositories. Left out: rules
// per file, and test files (a test may import what it needs to build a
// cluster around the code it tests).
package layers
