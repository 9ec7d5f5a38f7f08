package admission

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/api"
)

func newPlugin(accounts ...*api.ServiceAccount) *ServiceAccount {
	return &ServiceAccount{
		Get: func(_ context.Context, ns, name string) (*api.ServiceAccount, error) {
			for _, sa := range accounts {
				if sa.Namespace == ns && sa.Name == name {
					return sa, nil
				}
			}
			return nil, api.NewNotFound(api.GroupResource{Resource: "serviceaccounts"}, name)
		},
		Suffix: func(n int) string { return "abcde"[:n] },
	}
}

func podAttrs(pod *api.Pod) *Attributes {
	return &Attributes{Operation: Create, Resource: api.GroupVersionResource{Version: "v1", Resource: "pods"},
		Namespace: "ns", Name: pod.Name, Object: pod}
}

func TestServiceAccountPlugin(t *testing.T) {
	off := false
	def := &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Name: "default", Namespace: "ns"}}
	quiet := &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Name: "quiet", Namespace: "ns"}, AutomountServiceAccountToken: &off}
	p := newPlugin(def, quiet)
	ctx := context.Background()

	t.Run("default account and token volume", func(t *testing.T) {
		pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "web"}, Spec: api.PodSpec{
			InitContainers: []api.Container{{Name: "init"}},
			Containers:     []api.Container{{Name: "a"}, {Name: "b"}},
		}}
		require.NoError(t, p.Admit(ctx, podAttrs(pod)))
		assert.Equal(t, "default", pod.Spec.ServiceAccountName)
		assert.Equal(t, "default", pod.Spec.DeprecatedServiceAccount)
		require.Len(t, pod.Spec.Volumes, 1)
		assert.Equal(t, TokenVolume("kube-api-access-abcde"), pod.Spec.Volumes[0])
		want := []api.VolumeMount{{Name: "kube-api-access-abcde", ReadOnly: true, MountPath: ServiceAccountTokenMountPath}}
		for _, c := range append(pod.Spec.InitContainers, pod.Spec.Containers...) {
			assert.Equal(t, want, c.VolumeMounts, c.Name)
		}
		src := pod.Spec.Volumes[0].Projected.Sources
		assert.Equal(t, int64(3607), *src[0].ServiceAccountToken.ExpirationSeconds)
		assert.Equal(t, "token", src[0].ServiceAccountToken.Path)
		assert.Equal(t, "kube-root-ca.crt", src[1].ConfigMap.Name)
		assert.Equal(t, "metadata.namespace", src[2].DownwardAPI.Items[0].FieldRef.FieldPath)
	})

	t.Run("missing account refused with the real words", func(t *testing.T) {
		pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "x"}, Spec: api.PodSpec{ServiceAccountName: "sa", Containers: []api.Container{{Name: "a"}}}}
		err := p.Admit(ctx, podAttrs(pod))
		require.True(t, api.IsForbidden(err), "%v", err)
		assert.EqualError(t, err, `pods "x" is forbidden: error looking up service account ns/sa: serviceaccount "sa" not found`)
	})

	t.Run("opting out", func(t *testing.T) {
		pod := &api.Pod{Spec: api.PodSpec{ServiceAccountName: "quiet", Containers: []api.Container{{Name: "a"}}}}
		require.NoError(t, p.Admit(ctx, podAttrs(pod)))
		assert.Empty(t, pod.Spec.Volumes)
		// The pod's own choice wins over the account's.
		on := true
		pod = &api.Pod{Spec: api.PodSpec{ServiceAccountName: "quiet", AutomountServiceAccountToken: &on, Containers: []api.Container{{Name: "a"}}}}
		require.NoError(t, p.Admit(ctx, podAttrs(pod)))
		assert.Len(t, pod.Spec.Volumes, 1)
		pod = &api.Pod{Spec: api.PodSpec{AutomountServiceAccountToken: &off, Containers: []api.Container{{Name: "a"}}}}
		require.NoError(t, p.Admit(ctx, podAttrs(pod)))
		assert.Empty(t, pod.Spec.Volumes)
	})

	t.Run("a container already mounting the path is left alone", func(t *testing.T) {
		own := api.VolumeMount{Name: "mine", MountPath: ServiceAccountTokenMountPath}
		pod := &api.Pod{Spec: api.PodSpec{Containers: []api.Container{{Name: "a", VolumeMounts: []api.VolumeMount{own}}}}}
		require.NoError(t, p.Admit(ctx, podAttrs(pod)))
		assert.Empty(t, pod.Spec.Volumes)
		assert.Equal(t, []api.VolumeMount{own}, pod.Spec.Containers[0].VolumeMounts)
	})

	t.Run("only pod creations", func(t *testing.T) {
		pod := &api.Pod{Spec: api.PodSpec{Containers: []api.Container{{Name: "a"}}}}
		a := podAttrs(pod)
		a.Operation = Update
		require.NoError(t, p.Admit(ctx, a))
		assert.Empty(t, pod.Spec.ServiceAccountName)
		mirror := &api.Pod{ObjectMeta: api.ObjectMeta{Annotations: map[string]string{api.MirrorPodAnnotationKey: "x"}}}
		require.NoError(t, p.Admit(ctx, podAttrs(mirror)))
		assert.Empty(t, mirror.Spec.ServiceAccountName)
	})
}
