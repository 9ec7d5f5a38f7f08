package persistentvolume_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"

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

func pvc(name string, class *string) *api.PersistentVolumeClaim {
	return &api.PersistentVolumeClaim{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default"},
		Spec: api.PersistentVolumeClaimSpec{AccessModes: []api.PersistentVolumeAccessMode{api.ReadWriteOnce}, StorageClassName: class,
			Resources: api.VolumeResourceRequirements{Requests: api.ResourceList{api.ResourceStorage: resource.MustParse("1Gi")}}}}
}

func staticPV(name string, policy api.PersistentVolumeReclaimPolicy) *api.PersistentVolume {
	return &api.PersistentVolume{ObjectMeta: api.ObjectMeta{Name: name},
		Spec: api.PersistentVolumeSpec{Capacity: api.ResourceList{api.ResourceStorage: resource.MustParse("2Gi")},
			AccessModes:                   []api.PersistentVolumeAccessMode{api.ReadWriteOnce},
			PersistentVolumeSource:        api.PersistentVolumeSource{HostPath: &api.HostPathVolumeSource{Path: "/data/" + name}},
			PersistentVolumeReclaimPolicy: policy}}
}

func eventsAbout(t *testing.T, cl *client.Client, name string) []*api.Event {
	l, err := cl.Events().List(bg, "default", client.ListOptions{})
	require.NoError(t, err)
	var out []*api.Event
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
	assert.Equal(t, api.VolumeAvailable, pv.Status.Phase)
	assert.Equal(t, api.PersistentVolumeReclaimRetain, pv.Spec.PersistentVolumeReclaimPolicy, "a static volume is retained by default")
	assert.Equal(t, []string{api.PVProtectionFinalizer}, pv.Finalizers)

	_, err = cl.PersistentVolumeClaims().Create(bg, pvc("data", ptr("")))
	require.NoError(t, err)
	settle(t, c)
	claim, err := cl.PersistentVolumeClaims().Get(bg, "default", "data")
	require.NoError(t, err)
	assert.Equal(t, api.ClaimBound, claim.Status.Phase)
	assert.Equal(t, "pv-a", claim.Spec.VolumeName)
	assert.Equal(t, "yes", claim.Annotations[api.AnnBindCompleted])
	assert.Equal(t, "yes", claim.Annotations[api.AnnBoundByController])
	q := claim.Status.Capacity[api.ResourceStorage]
	assert.Equal(t, "2Gi", q.String(), "the claim gets the whole volume")
	pv, err = cl.PersistentVolumes().Get(bg, "", "pv-a")
	require.NoError(t, err)
	assert.Equal(t, api.VolumeBound, pv.Status.Phase)
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
	_, err := cl.PersistentVolumes().Create(bg, staticPV("pv-r", api.PersistentVolumeReclaimRetain))
	require.NoError(t, err)
	_, err = cl.PersistentVolumeClaims().Create(bg, pvc("data", ptr("")))
	require.NoError(t, err)
	settle(t, c)
	require.NoError(t, cl.PersistentVolumeClaims().Delete(bg, "default", "data", nil))
	settle(t, c)
	pv, err := cl.PersistentVolumes().Get(bg, "", "pv-r")
	require.NoError(t, err)
	assert.Equal(t, api.VolumeReleased, pv.Status.Phase)
	require.NotNil(t, pv.Status.LastPhaseTransitionTime)

	// A new claim by the same name does not get a released volume.
	_, err = cl.PersistentVolumeClaims().Create(bg, pvc("data", ptr("")))
	require.NoError(t, err)
	settle(t, c)
	claim, err := cl.PersistentVolumeClaims().Get(bg, "default", "data")
	require.NoError(t, err)
	assert.Equal(t, api.ClaimPending, claim.Status.Phase)
	evs := eventsAbout(t, cl, "data")
	require.NotEmpty(t, evs)
	assert.Equal(t, "no persistent volumes available for this claim and no storage class is set", evs[len(evs)-1].Message)
}

func TestDeletePolicyAndProvisioningImmediate(t *testing.T) {
	c, cl := newCluster(t)
	imm := api.VolumeBindingImmediate
	_, err := cl.StorageClasses().Create(bg, &api.StorageClass{ObjectMeta: api.ObjectMeta{Name: "now"}, Provisioner: "kubesim.io/hostpath", VolumeBindingMode: &imm})
	require.NoError(t, err)
	_, err = cl.PersistentVolumeClaims().Create(bg, pvc("data", ptr("now")))
	require.NoError(t, err)
	settle(t, c)
	claim, err := cl.PersistentVolumeClaims().Get(bg, "default", "data")
	require.NoError(t, err)
	require.Equal(t, api.ClaimBound, claim.Status.Phase, "Immediate: bound without a pod")
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
	assert.Equal(t, api.ClaimPending, claim.Status.Phase)
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
	_, err = cl.Pods().Create(bg, &api.Pod{ObjectMeta: api.ObjectMeta{Name: "db", Namespace: "default"},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}},
			Volumes: []api.Volume{{Name: "d", VolumeSource: api.VolumeSource{PersistentVolumeClaim: &api.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}}}}})
	require.NoError(t, err)
	settle(t, c)
	claim, err := cl.PersistentVolumeClaims().Get(bg, "default", "data")
	require.NoError(t, err)
	require.Equal(t, api.ClaimBound, claim.Status.Phase, "the default class provisioned on the pod's node")

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
	assert.Equal(t, api.ClaimLost, claim.Status.Phase)
	found := false
	for _, e := range eventsAbout(t, cl, "data") {
		found = found || (e.Type == "Warning" && e.Reason == "ClaimLost" && e.Message == "Bound claim has lost its PersistentVolume. Data on the volume is lost!")
	}
	assert.True(t, found, "ClaimLost event")
}
