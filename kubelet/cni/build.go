package cni

import (
	"context"
	"fmt"
	"os"
	"os/exec"
)

// BuildPlugin builds a CNI plugin written in Go, the main package in
// src, into the binary bin, as lab 17 installs the course's mock plugin
// into a node's binary directory (`go install`). The package's module is
// built on its own, outside any workspace: the mock is a module of its
// own. It needs the Go toolchain on PATH.
func BuildPlugin(ctx context.Context, src, bin string) error {
	if _, err := os.Stat(src); err != nil {
		return fmt.Errorf("building the CNI plugin: %w", err)
	}
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building the CNI plugin %s: %w\n%s", src, err, out)
	}
	return nil
}
