package admission

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
)

func newPlugin(accounts ...*corev1.ServiceAccount) *ServiceAccount {
	return &ServiceAccount{
		Get: func(_ context.Context, ns, name string) (*corev1.ServiceAccount, error) {
			for _, sa := range accounts {
				if sa.Namespace == ns && sa.Name == name {
					return sa, nil
				}
			}
			return nil, api.NewNotFound(schema.GroupResource{Resource: "serviceaccounts"}, name)
		},
		Suffix: func(n int) string { return "abcde"[:n] },
	}
}

func podAttrs(pod *corev1.Pod) *Attributes {
	return &Attributes{Operation: Create, Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"},
		Namespace: "ns", Name: pod.Name, Object: pod}
}

func TestServiceAccountPlugin(t *testing.T) {
	off := false
	def := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: "ns"}}
	quiet := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "quiet", Namespace: "ns"}, AutomountServiceAccountToken: &off}
	p := newPlugin(def, quiet)
	ctx := context.Background()

	t.Run("default account and token volume", func(t *testing.T) {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: corev1.PodSpec{
			InitContainers: []corev1.Container{{Name: "init"}},
			Containers:     []corev1.Container{{Name: "a"}, {Name: "b"}},
		}}
		require.NoError(t, p.Admit(ctx, podAttrs(pod)))
		assert.Equal(t, "default", pod.Spec.ServiceAccountName)
		assert.Equal(t, "default", pod.Spec.DeprecatedServiceAccount)
		require.Len(t, pod.Spec.Volumes, 1)
		assert.Equal(t, TokenVolume("kube-api-access-abcde"), pod.Spec.Volumes[0])
		want := []corev1.VolumeMount{{Name: "kube-api-access-abcde", ReadOnly: true, MountPath: ServiceAccountTokenMountPath}}
		for _, c := range append(pod.Spec.InitContainers, pod.Spec.Containers...) {
			assert.Equal(t, want, c.VolumeMounts, c.Name)
		}
		src := pod.Spec.Volumes[0].Projected.Sources
		assert.Equal(t, int64(3607), *src[0].ServiceAccountToken.ExpirationSeconds)
		assert.Equal(t, "token", src[0].ServiceAccountToken.Path)
		assert.Equal(t, "kube-root-ca.crt", src[1].ConfigMap.Name)
		assert.Equal(t, "metadata.namespace", src[2].DownwardAPI.Items[0].FieldRef.FieldPath)
	})

	t.Run("the account's image pull secrets", func(t *testing.T) {
		withSecrets := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "puller", Namespace: "ns"},
			ImagePullSecrets: []corev1.LocalObjectReference{{Name: "regcred"}}}
		p := newPlugin(withSecrets)
		pod := &corev1.Pod{Spec: corev1.PodSpec{ServiceAccountName: "puller", Containers: []corev1.Container{{Name: "a"}}}}
		require.NoError(t, p.Admit(ctx, podAttrs(pod)))
		assert.Equal(t, []corev1.LocalObjectReference{{Name: "regcred"}}, pod.Spec.ImagePullSecrets)
		// A pod that names its own keeps them.
		pod = &corev1.Pod{Spec: corev1.PodSpec{ServiceAccountName: "puller", ImagePullSecrets: []corev1.LocalObjectReference{{Name: "mine"}},
			Containers: []corev1.Container{{Name: "a"}}}}
		require.NoError(t, p.Admit(ctx, podAttrs(pod)))
		assert.Equal(t, []corev1.LocalObjectReference{{Name: "mine"}}, pod.Spec.ImagePullSecrets)
	})

	t.Run("missing account refused with the real words", func(t *testing.T) {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "x"}, Spec: corev1.PodSpec{ServiceAccountName: "sa", Containers: []corev1.Container{{Name: "a"}}}}
		err := p.Admit(ctx, podAttrs(pod))
		require.True(t, api.IsForbidden(err), "%v", err)
		assert.EqualError(t, err, `pods "x" is forbidden: error looking up service account ns/sa: serviceaccount "sa" not found`)
	})

	t.Run("opting out", func(t *testing.T) {
		pod := &corev1.Pod{Spec: corev1.PodSpec{ServiceAccountName: "quiet", Containers: []corev1.Container{{Name: "a"}}}}
		require.NoError(t, p.Admit(ctx, podAttrs(pod)))
		assert.Empty(t, pod.Spec.Volumes)
		// The pod's own choice wins over the account's.
		on := true
		pod = &corev1.Pod{Spec: corev1.PodSpec{ServiceAccountName: "quiet", AutomountServiceAccountToken: &on, Containers: []corev1.Container{{Name: "a"}}}}
		require.NoError(t, p.Admit(ctx, podAttrs(pod)))
		assert.Len(t, pod.Spec.Volumes, 1)
		pod = &corev1.Pod{Spec: corev1.PodSpec{AutomountServiceAccountToken: &off, Containers: []corev1.Container{{Name: "a"}}}}
		require.NoError(t, p.Admit(ctx, podAttrs(pod)))
		assert.Empty(t, pod.Spec.Volumes)
	})

	t.Run("a container already mounting the path is left alone", func(t *testing.T) {
		own := corev1.VolumeMount{Name: "mine", MountPath: ServiceAccountTokenMountPath}
		pod := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "a", VolumeMounts: []corev1.VolumeMount{own}}}}}
		require.NoError(t, p.Admit(ctx, podAttrs(pod)))
		assert.Empty(t, pod.Spec.Volumes)
		assert.Equal(t, []corev1.VolumeMount{own}, pod.Spec.Containers[0].VolumeMounts)
	})

	t.Run("only pod creations", func(t *testing.T) {
		pod := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "a"}}}}
		a := podAttrs(pod)
		a.Operation = Update
		require.NoError(t, p.Admit(ctx, a))
		assert.Empty(t, pod.Spec.ServiceAccountName)
		mirror := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{corev1.MirrorPodAnnotationKey: "x"}}}
		require.NoError(t, p.Admit(ctx, podAttrs(mirror)))
		assert.Empty(t, mirror.Spec.ServiceAccountName)
	})
}
