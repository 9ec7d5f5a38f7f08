package main

import (
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
