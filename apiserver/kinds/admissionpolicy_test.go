package kinds

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestAdmissionPolicyTables(t *testing.T) {
	objs := sampleObjects()
	cells := func(name string) []any { return builtin(t, name).Table.Cells(objs[name], tableNow) }
	assert.Equal(t, []any{"x", int64(1), "v1/ConfigMap", "3h"}, cells("validatingadmissionpolicies"))
	assert.Equal(t, []any{"x", "p", "default/limits", "3h"}, cells("validatingadmissionpolicybindings"))
}
