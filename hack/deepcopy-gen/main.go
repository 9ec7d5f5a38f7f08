// Command deepcopy-gen writes DeepCopy, DeepCopyInto and DeepCopyObject
// methods for every type of a package, as Kubernetes' deepcopy-gen
// (k8s.io/code-generator/cmd/deepcopy-gen) does, and a list of the types
// for the package's tests.
//
// It reads the package's source with go/ast, so it works even when the
// generated file is stale or missing. For each struct it copies the value
// and then, field by field, allocates new memory for every pointer, slice
// and map, recursing into nested types; fields that hold no references are
// left to the plain value copy. Types from other packages are copied by
// calling their DeepCopy method, except time.Time (a value) and
// json.RawMessage (a byte slice). Interface fields are copied with
// DeepCopyJSONValue, since they hold JSON values.
//
// A type that embeds TypeMeta and ObjectMeta gets DeepCopyObject() Object;
// one that embeds TypeMeta and ListMeta and has Items of such objects gets
// DeepCopyObject() ListObject and GetItems.
//
// Types with a hand-written DeepCopy or DeepCopyInto, types in files named
// with -skip, and types marked "+k8s:deepcopy-gen=false" are left alone.
//
// Usage (from a //go:generate line in the package):
//
//	go run ../hack/deepcopy-gen -dir . -skip jsonschema.go
//
// Left out: the tags Kubernetes uses to pick packages and interfaces; the
// interfaces implemented are fixed as described above.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
)

func main() {
	dir := flag.String("dir", ".", "directory of the package")
	skip := flag.String("skip", "", "comma-separated file names whose types are not generated")
	out := flag.String("out", "zz_generated_deepcopy.go", "name of the generated file")
	testOut := flag.String("test-out", "zz_generated_types_test.go", "name of the generated test helper file")
	flag.Parse()

	code, testCode, err := Generate(*dir, splitList(*skip))
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(*dir, *out), code, 0o644); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(*dir, *testOut), testCode, 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "deepcopy-gen: wrote %s and %s\n", *out, *testOut)
}
