package statefulset_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/controllers/statefulset"
	"github.com/kubesim/kubesim/stepper"
)

func withClaims(set *appsv1.StatefulSet) *appsv1.StatefulSet {
	set.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{{
		ObjectMeta: metav1.ObjectMeta{Name: "data", Labels: map[string]string{"kind": "data"}},
		Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}},
	}}
	set.Spec.Template.Spec.Volumes = []corev1.Volume{
		{Name: "data", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}, // replaced by the claim
		{Name: "cache", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
	}
	return set
}

func TestNewClaimsAndUpdateStorage(t *testing.T) {
	set := withClaims(newSet("web", 2, appsv1.ParallelPodManagement))
	set.Namespace = "shop"
	claims := statefulset.NewClaims(set, 1)
	require.Len(t, claims, 1)
	assert.Equal(t, "data-web-1", claims[0].Name)
	assert.Equal(t, "shop", claims[0].Namespace)
	assert.Equal(t, map[string]string{"kind": "data", "app": "web"}, claims[0].Labels, "the set's selector labels join the template's")
	assert.Empty(t, claims[0].OwnerReferences, "Retain: the claim outlives the set")

	set.Spec.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{
		WhenDeleted: appsv1.DeletePersistentVolumeClaimRetentionPolicyType, WhenScaled: appsv1.RetainPersistentVolumeClaimRetentionPolicyType}
	set.UID = "set-uid"
	owned := statefulset.NewClaims(set, 0)[0]
	require.Len(t, owned.OwnerReferences, 1)
	assert.Equal(t, types.UID("set-uid"), owned.OwnerReferences[0].UID)
	assert.Nil(t, owned.OwnerReferences[0].Controller, "the set owns its claims without controlling them")

	pod := statefulset.NewPod(set, &set.Spec.Template, 1, "rev", nil)
	require.Len(t, pod.Spec.Volumes, 2)
	assert.Equal(t, "data", pod.Spec.Volumes[0].Name)
	require.NotNil(t, pod.Spec.Volumes[0].PersistentVolumeClaim, "the template's own data volume gives way to the claim")
	assert.Equal(t, "data-web-1", pod.Spec.Volumes[0].PersistentVolumeClaim.ClaimName)
	assert.Equal(t, "cache", pod.Spec.Volumes[1].Name)
}

// TestPodGetsItsClaimBack is the seed's "own storage": each pod of the set
// gets a claim, bound to a volume provisioned on its node; a pod deleted
// comes back under its name on the same claim and volume, so on the same
// node.
func TestPodGetsItsClaimBack(t *testing.T) {
	c, cl := newCluster(t)
	_, err := cl.StatefulSets().Create(bg, withClaims(newSet("web", 2, appsv1.ParallelPodManagement)))
	require.NoError(t, err)
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)

	volumes := map[string]string{}
	nodes := map[string]string{}
	for i, name := range []string{"web-0", "web-1"} {
		pvc, err := cl.PersistentVolumeClaims().Get(bg, "default", "data-web-"+string(rune('0'+i)))
		require.NoError(t, err)
		assert.Equal(t, corev1.ClaimBound, pvc.Status.Phase)
		assert.Equal(t, "standard", *pvc.Spec.StorageClassName, "the default class, by admission")
		assert.Equal(t, "yes", pvc.Annotations[api.AnnBindCompleted])
		assert.Contains(t, pvc.Finalizers, api.PVCProtectionFinalizer)
		pod, err := cl.Pods().Get(bg, "default", name)
		require.NoError(t, err)
		require.NotEmpty(t, pod.Spec.NodeName)
		assert.Equal(t, pod.Spec.NodeName, pvc.Annotations[api.AnnSelectedNode], "the scheduler chose the volume's node")
		pv, err := cl.PersistentVolumes().Get(bg, "", pvc.Spec.VolumeName)
		require.NoError(t, err)
		assert.Equal(t, "pvc-"+string(pvc.UID), pv.Name)
		assert.Equal(t, corev1.VolumeBound, pv.Status.Phase)
		assert.Equal(t, corev1.PersistentVolumeReclaimDelete, pv.Spec.PersistentVolumeReclaimPolicy)
		require.NotNil(t, pv.Spec.NodeAffinity)
		assert.Equal(t, []string{pod.Spec.NodeName}, pv.Spec.NodeAffinity.Required.NodeSelectorTerms[0].MatchExpressions[0].Values)
		volumes[name], nodes[name] = pv.Name, pod.Spec.NodeName
	}

	old, err := cl.Pods().Get(bg, "default", "web-0")
	require.NoError(t, err)
	require.NoError(t, cl.Pods().Delete(bg, "default", "web-0", nil))
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	back, err := cl.Pods().Get(bg, "default", "web-0")
	require.NoError(t, err)
	assert.NotEqual(t, old.UID, back.UID, "a new pod")
	assert.Equal(t, "data-web-0", back.Spec.Volumes[0].PersistentVolumeClaim.ClaimName, "on its old claim")
	assert.Equal(t, nodes["web-0"], back.Spec.NodeName, "the volume's node affinity brings it back to its node")
	pvc, err := cl.PersistentVolumeClaims().Get(bg, "default", "data-web-0")
	require.NoError(t, err)
	assert.Equal(t, volumes["web-0"], pvc.Spec.VolumeName, "still bound to the same volume")
	l, err := cl.PersistentVolumes().List(bg, "", client.ListOptions{})
	require.NoError(t, err)
	assert.Len(t, l.Items, 2, "nothing provisioned twice")
}

func TestCondemnedClaimOwner(t *testing.T) {
	set := withClaims(newSet("web", 1, appsv1.ParallelPodManagement))
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-1", UID: "pod-uid"}}
	assert.Nil(t, statefulset.CondemnedClaimOwner(set, pod, 1), "no policy: Retain")
	set.Spec.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{
		WhenDeleted: appsv1.RetainPersistentVolumeClaimRetentionPolicyType, WhenScaled: appsv1.DeletePersistentVolumeClaimRetentionPolicyType}
	assert.Nil(t, statefulset.CondemnedClaimOwner(set, pod, 0), "an ordinal kept is not condemned")
	ref := statefulset.CondemnedClaimOwner(set, pod, 1)
	require.NotNil(t, ref)
	assert.Equal(t, metav1.OwnerReference{APIVersion: "v1", Kind: "Pod", Name: "web-1", UID: "pod-uid"}, *ref)
}

// TestRetentionPolicyOnScaleDown: Retain (the default) keeps the claim of
// a removed ordinal; whenScaled Delete lets it go with its pod.
func TestRetentionPolicyOnScaleDown(t *testing.T) {
	for _, tc := range []struct {
		policy appsv1.PersistentVolumeClaimRetentionPolicyType
		kept   bool
	}{{appsv1.RetainPersistentVolumeClaimRetentionPolicyType, true}, {appsv1.DeletePersistentVolumeClaimRetentionPolicyType, false}} {
		t.Run(string(tc.policy), func(t *testing.T) {
			c, cl := newCluster(t)
			set := withClaims(newSet("web", 2, appsv1.ParallelPodManagement))
			set.Spec.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{WhenScaled: tc.policy}
			_, err := cl.StatefulSets().Create(bg, set)
			require.NoError(t, err)
			_, err = c.RunUntilStable(bg, stepper.Limits{})
			require.NoError(t, err)
			cur, err := cl.StatefulSets().Get(bg, "default", "web")
			require.NoError(t, err)
			one := int32(1)
			cur.Spec.Replicas = &one
			_, err = cl.StatefulSets().Update(bg, cur)
			require.NoError(t, err)
			_, err = c.RunUntilStable(bg, stepper.Limits{})
			require.NoError(t, err)
			_, err = cl.PersistentVolumeClaims().Get(bg, "default", "data-web-1")
			if tc.kept {
				require.NoError(t, err)
			} else {
				assert.True(t, api.IsNotFound(err), "the claim went with its pod: %v", err)
			}
			_, err = cl.PersistentVolumeClaims().Get(bg, "default", "data-web-0")
			require.NoError(t, err, "the kept ordinal keeps its claim")
		})
	}
}
