package controllers_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/apiservertest"
	"github.com/kubesim/kubesim/controllers"
)

var rsKind = api.GroupVersionKind{Group: "apps", Version: "v1", Kind: "ReplicaSet"}

// claimEnv stores a ReplicaSet "web" and three pods: "orphan" (matching,
// no owner), "mine" (owned, matching) and "stray" (owned, no longer
// matching).
func claimEnv(t *testing.T) (*apiservertest.Env, *api.ReplicaSet, []*api.Pod) {
	t.Helper()
	env := apiservertest.New(t)
	ctx := context.Background()
	one := int32(1)
	rs, err := env.Client.ReplicaSets().Create(ctx, &api.ReplicaSet{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: api.ReplicaSetSpec{Replicas: &one, Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: api.PodTemplateSpec{ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}}}}})
	require.NoError(t, err)
	ref := *api.NewControllerRef(&rs.ObjectMeta, rsKind)
	var pods []*api.Pod
	for _, p := range []struct {
		name  string
		app   string
		owned bool
	}{{"orphan", "web", false}, {"mine", "web", true}, {"stray", "db", true}} {
		pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: p.name, Namespace: "default", Labels: map[string]string{"app": p.app}},
			Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}}}
		if p.owned {
			pod.OwnerReferences = []api.OwnerReference{ref}
		}
		created, err := env.Client.Pods().Create(ctx, pod)
		require.NoError(t, err)
		pods = append(pods, created)
	}
	return env, rs, pods
}

func claimConfig(env *apiservertest.Env, rs *api.ReplicaSet, fresh error) controllers.ClaimConfig[*api.Pod] {
	return controllers.ClaimConfig[*api.Pod]{Owner: &rs.ObjectMeta, OwnerKind: rsKind, Dependents: env.Client.Pods(), DependentKind: "Pod",
		Match: func(p *api.Pod) bool { return p.Labels["app"] == "web" },
		GetFresh: func(ctx context.Context) (*api.ObjectMeta, error) {
			if fresh != nil {
				return nil, fresh
			}
			got, err := env.Client.ReplicaSets().Get(ctx, rs.Namespace, rs.Name)
			if err != nil {
				return nil, err
			}
			return &got.ObjectMeta, nil
		}}
}

func names(pods []*api.Pod) []string {
	var out []string
	for _, p := range pods {
		out = append(out, p.Name)
	}
	return out
}

func TestClaimObjectsAdoptsAndReleases(t *testing.T) {
	env, rs, pods := claimEnv(t)
	ctx := context.Background()
	claimed, err := controllers.ClaimObjects(ctx, claimConfig(env, rs, nil), pods)
	require.NoError(t, err)
	assert.Equal(t, []string{"orphan", "mine"}, names(claimed))

	orphan, err := env.Client.Pods().Get(ctx, "default", "orphan")
	require.NoError(t, err)
	require.NotNil(t, api.GetControllerOf(&orphan.ObjectMeta), "adopted")
	assert.Equal(t, rs.UID, api.GetControllerOf(&orphan.ObjectMeta).UID)
	stray, err := env.Client.Pods().Get(ctx, "default", "stray")
	require.NoError(t, err)
	assert.Nil(t, api.GetControllerOf(&stray.ObjectMeta), "released")
}

// A failed quorum read skips the orphans (the ReplicaSet's way) or ends
// the claim (AbortIfCannotAdopt, the Deployment's way).
func TestClaimObjectsCannotAdopt(t *testing.T) {
	gone := errors.New("the owner is gone")
	t.Run("skip", func(t *testing.T) {
		env, rs, pods := claimEnv(t)
		claimed, err := controllers.ClaimObjects(context.Background(), claimConfig(env, rs, gone), pods)
		require.ErrorIs(t, err, gone)
		assert.Contains(t, err.Error(), "can't adopt Pod default/orphan")
		assert.Equal(t, []string{"mine"}, names(claimed), "the pods it owns still count")
	})
	t.Run("abort", func(t *testing.T) {
		env, rs, pods := claimEnv(t)
		cfg := claimConfig(env, rs, gone)
		cfg.AbortIfCannotAdopt = true
		claimed, err := controllers.ClaimObjects(context.Background(), cfg, pods)
		require.ErrorIs(t, err, gone)
		assert.Empty(t, claimed)
	})
	t.Run("another owner under the same name", func(t *testing.T) {
		env, rs, pods := claimEnv(t)
		stale := rs.DeepCopy()
		stale.UID = "an-older-uid"
		cfg := claimConfig(env, stale, nil)
		_, err := controllers.ClaimObjects(context.Background(), cfg, pods[:1])
		require.Error(t, err)
		assert.Contains(t, err.Error(), "original ReplicaSet default/web is gone: got uid "+rs.UID+", wanted an-older-uid")
	})
}
