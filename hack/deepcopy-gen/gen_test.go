package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGeneratedFilesAreCurrent fails when api's types changed without
// `go generate ./api`.
func TestGeneratedFilesAreCurrent(t *testing.T) {
	code, testCode, err := Generate("../../api", []string{"jsonschema.go"})
	require.NoError(t, err)
	onDisk, err := os.ReadFile("../../api/zz_generated_deepcopy.go")
	require.NoError(t, err)
	assert.True(t, string(onDisk) == string(code), "api/zz_generated_deepcopy.go is stale: run go generate ./api")
	onDisk, err = os.ReadFile("../../api/zz_generated_types_test.go")
	require.NoError(t, err)
	assert.True(t, string(onDisk) == string(testCode), "api/zz_generated_types_test.go is stale: run go generate ./api")
}

func TestGenerateSmallPackage(t *testing.T) {
	dir := t.TempDir()
	src := `package demo

import "encoding/json"

type TypeMeta struct{ Kind string }
type ObjectMeta struct{ Name string; Labels map[string]string }
type ListMeta struct{ ResourceVersion string }

type Thing struct {
	TypeMeta
	ObjectMeta
	Ptr    *int
	Nested map[string][]string
	Raw    json.RawMessage
	Plain  Plain
	Hand   Hand
}

type ThingList struct {
	TypeMeta
	ListMeta
	Items []Thing
}

type Plain struct{ A, B string }

type Names []string

// +k8s:deepcopy-gen=false
type Skipped struct{ P *int }

type Hand struct{ P *int }

func (in *Hand) DeepCopyInto(out *Hand) { *out = *in }
`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "demo.go"), []byte(src), 0o644))
	code, testCode, err := Generate(dir, nil)
	require.NoError(t, err)
	s := string(code)
	assert.Contains(t, s, "func (in *Thing) DeepCopyObject() Object")
	assert.Contains(t, s, "func (in *ThingList) DeepCopyObject() ListObject")
	assert.Contains(t, s, "func (in *ThingList) GetItems() []Object")
	assert.Contains(t, s, "func (in Names) DeepCopy() Names")
	assert.Contains(t, s, "in.Hand.DeepCopyInto(&out.Hand)")
	assert.Contains(t, s, `"encoding/json"`)
	assert.NotContains(t, s, "func (in *Skipped)")
	assert.NotContains(t, s, "func (in *Hand) DeepCopyInto")
	assert.NotContains(t, s, "in.Plain", "a struct without references is copied by value")
	assert.Contains(t, string(testCode), "&Thing{}")
	assert.Contains(t, string(testCode), "&ThingList{}")
}
