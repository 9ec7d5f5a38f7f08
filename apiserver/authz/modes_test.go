package authz

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseModes(t *testing.T) {
	m, err := ParseModes("Node,RBAC")
	require.NoError(t, err)
	assert.Equal(t, []string{ModeNode, ModeRBAC}, m)
	m, err = ParseModes("")
	require.NoError(t, err)
	assert.Equal(t, []string{ModeAlwaysAllow}, m)
	_, err = ParseModes("RBAC,ABAC")
	assert.EqualError(t, err, `authorization-mode "ABAC" is not a valid mode (want Node, RBAC or AlwaysAllow)`)
	_, err = ParseModes("RBAC,RBAC")
	assert.EqualError(t, err, `authorization-mode "RBAC" has mode specified more than once`)
}

type fixed struct {
	d      Decision
	reason string
	err    error
}

func (f fixed) Authorize(context.Context, Attributes) (Decision, string, error) {
	return f.d, f.reason, f.err
}

// The union asks in order: the first that decides wins; the reasons of
// those with no opinion are joined with newlines, as kube-apiserver's.
func TestUnion(t *testing.T) {
	d, reason, err := Union(fixed{d: DecisionNoOpinion, reason: "a"}, fixed{d: DecisionAllow}, fixed{d: DecisionDeny}).Authorize(context.Background(), Attributes{})
	assert.Equal(t, DecisionAllow, d)
	assert.Empty(t, reason)
	assert.NoError(t, err)
	d, _, _ = Union(fixed{d: DecisionDeny, reason: "no"}, fixed{d: DecisionAllow}).Authorize(context.Background(), Attributes{})
	assert.Equal(t, DecisionDeny, d)
	d, reason, err = Union(fixed{reason: "a"}, fixed{reason: "b", err: errors.New("boom")}).Authorize(context.Background(), Attributes{})
	assert.Equal(t, DecisionNoOpinion, d)
	assert.Equal(t, "a\nb", reason)
	assert.EqualError(t, err, "boom")
}
