package controllers_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/apiservertest"
	"github.com/kubesim/kubesim/controllers"
)

var rsKind = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "ReplicaSet"}

// claimEnv stores a ReplicaSet "web" and three pods: "orphan" (matching,
// no owner), "mine" (owned, matching) and "stray" (owned, no longer
// matching).
func claimEnv(t *testing.T) (*apiservertest.Env, *appsv1.ReplicaSet, []*corev1.Pod) {
	t.Helper()
	env := apiservertest.New(t)
	ctx := context.Background()
	one := int32(1)
	rs, err := env.Client.ReplicaSets().Create(ctx, &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: appsv1.ReplicaSetSpec{Replicas: &one, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}}})
	require.NoError(t, err)
	ref := *api.NewControllerRef(&rs.ObjectMeta, rsKind)
	var pods []*corev1.Pod
	for _, p := range []struct {
		name  string
		app   string
		owned bool
	}{{"orphan", "web", false}, {"mine", "web", true}, {"stray", "db", true}} {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: p.name, Namespace: "default", Labels: map[string]string{"app": p.app}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
		if p.owned {
			pod.OwnerReferences = []metav1.OwnerReference{ref}
		}
		created, err := env.Client.Pods().Create(ctx, pod)
		require.NoError(t, err)
		pods = append(pods, created)
	}
	return env, rs, pods
}

func claimConfig(env *apiservertest.Env, rs *appsv1.ReplicaSet, fresh error) controllers.ClaimConfig[*corev1.Pod] {
	return controllers.ClaimConfig[*corev1.Pod]{Owner: &rs.ObjectMeta, OwnerKind: rsKind, Dependents: env.Client.Pods(), DependentKind: "Pod",
		Match: func(p *corev1.Pod) bool { return p.Labels["app"] == "web" },
		GetFresh: func(ctx context.Context) (*metav1.ObjectMeta, error) {
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

func names(pods []*corev1.Pod) []string {
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
