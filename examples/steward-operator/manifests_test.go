package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestManifestsFresh re-runs controller-gen (the tool pinned in go.mod)
// into a temp dir and fails if the checked-in CRD, Role or webhook
// configurations differ: a marker changed without `make manifests`.
func TestManifestsFresh(t *testing.T) {
	out := t.TempDir()
	cmd := exec.Command("go", "tool", "controller-gen",
		"rbac:roleName=manager-role", "crd", "webhook", "paths=./...",
		"output:crd:artifacts:config="+filepath.Join(out, "crd/bases"),
		"output:rbac:artifacts:config="+filepath.Join(out, "rbac"),
		"output:webhook:artifacts:config="+filepath.Join(out, "webhook"))
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("controller-gen: %v\n%s", err, b)
	}
	for _, f := range []string{
		"crd/bases/oam.crd.fp.net_stewards.yaml",
		"rbac/role.yaml",
		"webhook/manifests.yaml",
	} {
		want, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatalf("controller-gen wrote no %s: %v", f, err)
		}
		got, err := os.ReadFile(filepath.Join("config", f))
		if err != nil {
			t.Fatalf("checked-in %s: %v", f, err)
		}
		if string(got) != string(want) {
			t.Errorf("config/%s is stale: run `make manifests` (controller-gen output differs)", f)
		}
	}
}

// TestDeepCopyFresh runs controller-gen's object generator on a copy of
// the module's api/ in a temp dir (it writes next to the types, so not in
// place) and fails if zz_generated.deepcopy.go differs: a field added
// without `make generate` would be copied shallowly.
func TestDeepCopyFresh(t *testing.T) {
	tmp := t.TempDir()
	for _, f := range []string{"go.mod", "go.sum", "hack/boilerplate.go.txt"} {
		copyFile(t, f, filepath.Join(tmp, f))
	}
	err := filepath.WalkDir("api", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Base(p) == "zz_generated.deepcopy.go" {
			return err
		}
		copyFile(t, p, filepath.Join(tmp, p))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "tool", "controller-gen", "object:headerFile=hack/boilerplate.go.txt", "paths=./api/...")
	cmd.Dir = tmp
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("controller-gen object: %v\n%s", err, b)
	}
	want, err := os.ReadFile(filepath.Join(tmp, "api/v1/zz_generated.deepcopy.go"))
	if err != nil {
		t.Fatalf("controller-gen wrote no deepcopy: %v", err)
	}
	got, err := os.ReadFile("api/v1/zz_generated.deepcopy.go")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("api/v1/zz_generated.deepcopy.go is stale: run `make generate`")
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
