package persistentvolume_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/runmode"
	"github.com/kubesim/kubesim/stepper"
)

var bg = context.Background()

func newCluster(t *testing.T) (*cluster.Cluster, *client.Client) {
	c, err := cluster.New(cluster.Config{DetectCacheMutations: true, Mode: runmode.Step, Seed: 7, NodeCount: 2})
	require.NoError(t, err)
	t.Cleanup(func() {
		if err := c.CheckCacheMutations(); err != nil {
			t.Error(err)
		}
		c.Close()
	})
	settle(t, c)
	return c, c.Client("test")
}

func settle(t *testing.T, c *cluster.Cluster) {
	t.Helper()
	_, err := c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
}

func pvc(name string, class *string) *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}, StorageClassName: class,
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}}
}

func staticPV(name string, policy corev1.PersistentVolumeReclaimPolicy) *corev1.PersistentVolume {
	return &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PersistentVolumeSpec{Capacity: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("2Gi")},
			AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			PersistentVolumeSource:        corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/data/" + name}},
			PersistentVolumeReclaimPolicy: policy}}
}

func eventsAbout(t *testing.T, cl *client.Client, name string) []*corev1.Event {
	l, err := cl.Events().List(bg, "default", client.ListOptions{})
	require.NoError(t, err)
	var out []*corev1.Event
	for _, e := range l.Items {
		if e.InvolvedObject.Name == name {
			out = append(out, e)
		}
	}
	return out
}

func ptr[T any](v T) *T { return &v }

func TestStaticBindingAndRetain(t *testing.T) {
	c, cl := newCluster(t)
	_, err := cl.PersistentVolumes().Create(bg, staticPV("pv-a", ""))
	require.NoError(t, err)
	settle(t, c)
	pv, err := cl.PersistentVolumes().Get(bg, "", "pv-a")
	require.NoError(t, err)
	assert.Equal(t, corev1.VolumeAvailable, pv.Status.Phase)
	assert.Equal(t, corev1.PersistentVolumeReclaimRetain, pv.Spec.PersistentVolumeReclaimPolicy, "a static volume is retained by default")
	assert.Equal(t, []string{api.PVProtectionFinalizer}, pv.Finalizers)

	_, err = cl.PersistentVolumeClaims().Create(bg, pvc("data", ptr("")))
	require.NoError(t, err)
	settle(t, c)
	claim, err := cl.PersistentVolumeClaims().Get(bg, "default", "data")
	require.NoError(t, err)
	assert.Equal(t, corev1.ClaimBound, claim.Status.Phase)
	assert.Equal(t, "pv-a", claim.Spec.VolumeName)
	assert.Equal(t, "yes", claim.Annotations[api.AnnBindCompleted])
	assert.Equal(t, "yes", claim.Annotations[api.AnnBoundByController])
	q := claim.Status.Capacity[corev1.ResourceStorage]
	assert.Equal(t, "2Gi", q.String(), "the claim gets the whole volume")
	pv, err = cl.PersistentVolumes().Get(bg, "", "pv-a")
	require.NoError(t, err)
	assert.Equal(t, corev1.VolumeBound, pv.Status.Phase)
	assert.Equal(t, claim.UID, pv.Spec.ClaimRef.UID)

	// A bound volume cannot go while bound.
	require.NoError(t, cl.PersistentVolumes().Delete(bg, "", "pv-a", nil))
	settle(t, c)
	pv, err = cl.PersistentVolumes().Get(bg, "", "pv-a")
	require.NoError(t, err, "pv-protection keeps a bound volume")
	require.NotNil(t, pv.DeletionTimestamp)

	// The claim goes: Retain leaves the volume Released... then it goes,
	// its deletion having been asked.
	require.NoError(t, cl.PersistentVolumeClaims().Delete(bg, "default", "data", nil))
	settle(t, c)
	_, err = cl.PersistentVolumeClaims().Get(bg, "default", "data")
	assert.True(t, api.IsNotFound(err), "no pod used the claim: pvc-protection let it go")
	_, err = cl.PersistentVolumes().Get(bg, "", "pv-a")
	assert.True(t, api.IsNotFound(err), "released, the volume being deleted is freed by pv-protection")
}

func TestRetainLeavesTheVolumeReleased(t *testing.T) {
	c, cl := newCluster(t)
	_, err := cl.PersistentVolumes().Create(bg, staticPV("pv-r", corev1.PersistentVolumeReclaimRetain))
	require.NoError(t, err)
	_, err = cl.PersistentVolumeClaims().Create(bg, pvc("data", ptr("")))
	require.NoError(t, err)
	settle(t, c)
	require.NoError(t, cl.PersistentVolumeClaims().Delete(bg, "default", "data", nil))
	settle(t, c)
	pv, err := cl.PersistentVolumes().Get(bg, "", "pv-r")
	require.NoError(t, err)
	assert.Equal(t, corev1.VolumeReleased, pv.Status.Phase)
	require.NotNil(t, pv.Status.LastPhaseTransitionTime)

	// A new claim by the same name does not get a released volume.
	_, err = cl.PersistentVolumeClaims().Create(bg, pvc("data", ptr("")))
	require.NoError(t, err)
	settle(t, c)
	claim, err := cl.PersistentVolumeClaims().Get(bg, "default", "data")
	require.NoError(t, err)
	assert.Equal(t, corev1.ClaimPending, claim.Status.Phase)
	evs := eventsAbout(t, cl, "data")
	require.NotEmpty(t, evs)
	assert.Equal(t, "no persistent volumes available for this claim and no storage class is set", evs[len(evs)-1].Message)
}

func TestDeletePolicyAndProvisioningImmediate(t *testing.T) {
	c, cl := newCluster(t)
	imm := storagev1.VolumeBindingImmediate
	_, err := cl.StorageClasses().Create(bg, &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "now"}, Provisioner: "kubesim.io/hostpath", VolumeBindingMode: &imm})
	require.NoError(t, err)
	_, err = cl.PersistentVolumeClaims().Create(bg, pvc("data", ptr("now")))
	require.NoError(t, err)
	settle(t, c)
	claim, err := cl.PersistentVolumeClaims().Get(bg, "default", "data")
	require.NoError(t, err)
	require.Equal(t, corev1.ClaimBound, claim.Status.Phase, "Immediate: bound without a pod")
	assert.Equal(t, "pvc-"+string(claim.UID), claim.Spec.VolumeName)
	assert.Equal(t, "kubesim.io/hostpath", claim.Annotations[api.AnnStorageProvisioner])
	pv, err := cl.PersistentVolumes().Get(bg, "", claim.Spec.VolumeName)
	require.NoError(t, err)
	assert.Nil(t, pv.Spec.NodeAffinity, "no node chosen: no affinity")
	assert.Equal(t, "kubesim.io/hostpath", pv.Annotations[api.AnnDynamicallyProvisioned])
	found := false
	for _, e := range eventsAbout(t, cl, "data") {
		found = found || (e.Reason == "ProvisioningSucceeded" && e.Message == "Successfully provisioned volume "+pv.Name+" using kubesim.io/hostpath")
	}
	assert.True(t, found, "ProvisioningSucceeded event")

	require.NoError(t, cl.PersistentVolumeClaims().Delete(bg, "default", "data", nil))
	settle(t, c)
	_, err = cl.PersistentVolumes().Get(bg, "", pv.Name)
	assert.True(t, api.IsNotFound(err), "Delete: the volume goes with its claim")
}

func TestUnknownClassStaysPending(t *testing.T) {
	c, cl := newCluster(t)
	_, err := cl.PersistentVolumeClaims().Create(bg, pvc("data", ptr("x")))
	require.NoError(t, err)
	settle(t, c)
	claim, err := cl.PersistentVolumeClaims().Get(bg, "default", "data")
	require.NoError(t, err)
	assert.Equal(t, corev1.ClaimPending, claim.Status.Phase)
	evs := eventsAbout(t, cl, "data")
	require.NotEmpty(t, evs)
	assert.Equal(t, "Warning", evs[0].Type)
	assert.Equal(t, "ProvisioningFailed", evs[0].Reason)
	assert.Equal(t, `storageclass.storage.k8s.io "x" not found`, evs[0].Message)
}

func TestClaimInUseIsKeptUntilItsPodGoes(t *testing.T) {
	c, cl := newCluster(t)
	_, err := cl.PersistentVolumeClaims().Create(bg, pvc("data", nil))
	require.NoError(t, err)
	_, err = cl.Pods().Create(bg, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}},
			Volumes: []corev1.Volume{{Name: "d", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}}}}})
	require.NoError(t, err)
	settle(t, c)
	claim, err := cl.PersistentVolumeClaims().Get(bg, "default", "data")
	require.NoError(t, err)
	require.Equal(t, corev1.ClaimBound, claim.Status.Phase, "the default class provisioned on the pod's node")

	require.NoError(t, cl.PersistentVolumeClaims().Delete(bg, "default", "data", nil))
	settle(t, c)
	claim, err = cl.PersistentVolumeClaims().Get(bg, "default", "data")
	require.NoError(t, err, "pvc-protection keeps a claim a pod uses")
	assert.NotNil(t, claim.DeletionTimestamp)

	require.NoError(t, cl.Pods().Delete(bg, "default", "db", nil))
	settle(t, c)
	_, err = cl.PersistentVolumeClaims().Get(bg, "default", "data")
	assert.True(t, api.IsNotFound(err), "the pod gone, the claim goes")
	l, err := cl.PersistentVolumes().List(bg, "", client.ListOptions{})
	require.NoError(t, err)
	assert.Empty(t, l.Items, "and its provisioned volume (Delete)")
}

func TestClaimLostWhenItsVolumeGoes(t *testing.T) {
	c, cl := newCluster(t)
	_, err := cl.PersistentVolumes().Create(bg, staticPV("pv-l", ""))
	require.NoError(t, err)
	_, err = cl.PersistentVolumeClaims().Create(bg, pvc("data", ptr("")))
	require.NoError(t, err)
	settle(t, c)
	// An administrator forces the volume away, finalizer and all.
	pv, err := cl.PersistentVolumes().Get(bg, "", "pv-l")
	require.NoError(t, err)
	pv.Finalizers = nil
	_, err = cl.PersistentVolumes().Update(bg, pv)
	require.NoError(t, err)
	require.NoError(t, cl.PersistentVolumes().Delete(bg, "", "pv-l", nil))
	settle(t, c)
	claim, err := cl.PersistentVolumeClaims().Get(bg, "default", "data")
	require.NoError(t, err)
	assert.Equal(t, corev1.ClaimLost, claim.Status.Phase)
	found := false
	for _, e := range eventsAbout(t, cl, "data") {
		found = found || (e.Type == "Warning" && e.Reason == "ClaimLost" && e.Message == "Bound claim has lost its PersistentVolume. Data on the volume is lost!")
	}
	assert.True(t, found, "ClaimLost event")
}
