package schema

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
)

// mustSchema reads a schema written in YAML, the way CRDs are written.
func mustSchema(t testing.TB, y string) *api.JSONSchemaProps {
	t.Helper()
	var m any
	require.NoError(t, yaml.Unmarshal([]byte(y), &m))
	b, err := json.Marshal(m)
	require.NoError(t, err)
	var s api.JSONSchemaProps
	require.NoError(t, json.Unmarshal(b, &s))
	return &s
}

// mustObj decodes JSON into the unstructured form.
func mustObj(t testing.TB, j string) any {
	t.Helper()
	v, err := decodeJSON([]byte(j))
	require.NoError(t, err)
	return v
}

func messages(errs field.ErrorList) []string {
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = e.Error()
	}
	return out
}

func types(errs field.ErrorList) []field.ErrorType {
	out := make([]field.ErrorType, len(errs))
	for i, e := range errs {
		out[i] = e.Type
	}
	return out
}

// toJSON renders an unstructured value for comparisons that ignore Go
// types.
func toJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}
