package statefulset_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/controllers/statefulset"
	"github.com/kubesim/kubesim/stepper"
)

func withClaims(set *api.StatefulSet) *api.StatefulSet {
	set.Spec.VolumeClaimTemplates = []api.PersistentVolumeClaim{{
		ObjectMeta: api.ObjectMeta{Name: "data", Labels: map[string]string{"kind": "data"}},
		Spec: api.PersistentVolumeClaimSpec{AccessModes: []api.PersistentVolumeAccessMode{api.ReadWriteOnce},
			Resources: api.VolumeResourceRequirements{Requests: api.ResourceList{api.ResourceStorage: resource.MustParse("1Gi")}}},
	}}
	set.Spec.Template.Spec.Volumes = []api.Volume{
		{Name: "data", VolumeSource: api.VolumeSource{EmptyDir: &api.EmptyDirVolumeSource{}}}, // replaced by the claim
		{Name: "cache", VolumeSource: api.VolumeSource{EmptyDir: &api.EmptyDirVolumeSource{}}},
	}
	return set
}

func TestNewClaimsAndUpdateStorage(t *testing.T) {
	set := withClaims(newSet("web", 2, api.ParallelPodManagement))
	set.Namespace = "shop"
	claims := statefulset.NewClaims(set, 1)
	require.Len(t, claims, 1)
	assert.Equal(t, "data-web-1", claims[0].Name)
	assert.Equal(t, "shop", claims[0].Namespace)
	assert.Equal(t, map[string]string{"kind": "data", "app": "web"}, claims[0].Labels, "the set's selector labels join the template's")
	assert.Empty(t, claims[0].OwnerReferences, "Retain: the claim outlives the set")

	set.Spec.PersistentVolumeClaimRetentionPolicy = &api.StatefulSetPersistentVolumeClaimRetentionPolicy{
		WhenDeleted: api.DeletePersistentVolumeClaimRetentionPolicyType, WhenScaled: api.RetainPersistentVolumeClaimRetentionPolicyType}
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
	_, err := cl.StatefulSets().Create(bg, withClaims(newSet("web", 2, api.ParallelPodManagement)))
	require.NoError(t, err)
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)

	volumes := map[string]string{}
	nodes := map[string]string{}
	for i, name := range []string{"web-0", "web-1"} {
		pvc, err := cl.PersistentVolumeClaims().Get(bg, "default", "data-web-"+string(rune('0'+i)))
		require.NoError(t, err)
		assert.Equal(t, api.ClaimBound, pvc.Status.Phase)
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
		assert.Equal(t, api.VolumeBound, pv.Status.Phase)
		assert.Equal(t, api.PersistentVolumeReclaimDelete, pv.Spec.PersistentVolumeReclaimPolicy)
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
	set := withClaims(newSet("web", 1, api.ParallelPodManagement))
	pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "web-1", UID: "pod-uid"}}
	assert.Nil(t, statefulset.CondemnedClaimOwner(set, pod, 1), "no policy: Retain")
	set.Spec.PersistentVolumeClaimRetentionPolicy = &api.StatefulSetPersistentVolumeClaimRetentionPolicy{
		WhenDeleted: api.RetainPersistentVolumeClaimRetentionPolicyType, WhenScaled: api.DeletePersistentVolumeClaimRetentionPolicyType}
	assert.Nil(t, statefulset.CondemnedClaimOwner(set, pod, 0), "an ordinal kept is not condemned")
	ref := statefulset.CondemnedClaimOwner(set, pod, 1)
	require.NotNil(t, ref)
	assert.Equal(t, api.OwnerReference{APIVersion: "v1", Kind: "Pod", Name: "web-1", UID: "pod-uid"}, *ref)
}

// TestRetentionPolicyOnScaleDown: Retain (the default) keeps the claim of
// a removed ordinal; whenScaled Delete lets it go with its pod.
func TestRetentionPolicyOnScaleDown(t *testing.T) {
	for _, tc := range []struct {
		policy api.PersistentVolumeClaimRetentionPolicyType
		kept   bool
	}{{api.RetainPersistentVolumeClaimRetentionPolicyType, true}, {api.DeletePersistentVolumeClaimRetentionPolicyType, false}} {
		t.Run(string(tc.policy), func(t *testing.T) {
			c, cl := newCluster(t)
			set := withClaims(newSet("web", 2, api.ParallelPodManagement))
			set.Spec.PersistentVolumeClaimRetentionPolicy = &api.StatefulSetPersistentVolumeClaimRetentionPolicy{WhenScaled: tc.policy}
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
