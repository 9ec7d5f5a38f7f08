package scenario

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Quotas and disruption budgets in step mode: the resourcequota and disruption
// controllers settle (their periodic resync does not keep a run from
// becoming stable), and the quota plugin refuses in the real words.
func TestQuotaAndBudgetInStepMode(t *testing.T) {
	r, _, out := runSource(t, `cluster: {nodeCount: 1, stages: {containerCreating: 1s, running: 1s, ready: 1s}}
steps:
- apply:
    manifest: |
      apiVersion: v1
      kind: ResourceQuota
      metadata: {name: q}
      spec: {hard: {pods: "1"}}
- apply:
    manifest: |
      apiVersion: policy/v1
      kind: PodDisruptionBudget
      metadata: {name: web}
      spec:
        minAvailable: 1
        selector: {matchLabels: {app: web}}
- runUntilStable
- apply:
    manifest: |
      apiVersion: v1
      kind: Pod
      metadata: {name: a, labels: {app: web}}
      spec: {containers: [{name: c, image: nginx}]}
- runUntilStable
- expect:
  - {kind: ResourceQuota, name: q, field: .status.used.pods, equals: "1"}
  - {kind: PodDisruptionBudget, name: web, field: .status.currentHealthy, equals: 1}
  - {kind: PodDisruptionBudget, name: web, field: .status.disruptionsAllowed, equals: 0}
- apply:
    manifest: |
      apiVersion: v1
      kind: Pod
      metadata: {name: b}
      spec: {containers: [{name: c, image: nginx}]}
    fails: {reason: Forbidden, message: "exceeded quota: q, requested: pods=1, used: pods=1, limited: pods=1"}
`)
	ok, err := r.RunAll(context.Background())
	require.NoError(t, err)
	assert.True(t, ok, out.String())
}
