package kubelet

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
)

func claimVolume(volume, claim string) corev1.Volume {
	return corev1.Volume{Name: volume, VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}}
}

func TestMountError(t *testing.T) {
	bound := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "bound"}, Spec: corev1.PersistentVolumeClaimSpec{VolumeName: "pv-1"},
		Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound}}
	pending := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "pending"}, Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}}
	now := metav1.NewTime(time.Unix(0, 0))
	deleting := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "deleting", DeletionTimestamp: &now}, Spec: bound.Spec, Status: bound.Status}
	claims := map[string]*corev1.PersistentVolumeClaim{"bound": bound, "pending": pending, "deleting": deleting}
	get := func(_ context.Context, ns, name string) (*corev1.PersistentVolumeClaim, error) {
		if c, ok := claims[name]; ok {
			return c, nil
		}
		return nil, api.NewNotFound(schema.GroupResource{Resource: "persistentvolumeclaims"}, name)
	}
	for _, tc := range []struct {
		name    string
		volumes []corev1.Volume
		want    string
	}{
		{"no claims", []corev1.Volume{{Name: "cfg", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}, ""},
		{"bound", []corev1.Volume{claimVolume("data", "bound")}, ""},
		{"not bound", []corev1.Volume{claimVolume("data", "bound"), claimVolume("www", "pending")},
			"Unable to attach or mount volumes: unmounted volumes=[www], unattached volumes=[], failed to process volumes=[www]: error processing PVC default/pending: PVC is not bound"},
		{"missing", []corev1.Volume{claimVolume("data", "gone")},
			`Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[], failed to process volumes=[data]: error processing PVC default/gone: failed to fetch PVC from API server: persistentvolumeclaims "gone" not found`},
		{"being deleted", []corev1.Volume{claimVolume("data", "deleting")},
			"Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[], failed to process volumes=[data]: can't start pod because PVC default/deleting is being deleted"},
		{"two", []corev1.Volume{claimVolume("b", "pending"), claimVolume("a", "gone")},
			`Unable to attach or mount volumes: unmounted volumes=[a b], unattached volumes=[], failed to process volumes=[a b]: error processing PVC default/pending: PVC is not bound; error processing PVC default/gone: failed to fetch PVC from API server: persistentvolumeclaims "gone" not found`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"}, Spec: corev1.PodSpec{Volumes: tc.volumes}}
			got, err := MountError(context.Background(), pod, get)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

// A pod put on the node with an unbound claim (by nodeName, past the
// scheduler) waits in ContainerCreating with FailedMount events, every
// pod-worker back-off, and starts once the claim is bound.
func TestUnboundClaimHoldsThePod(t *testing.T) {
	f := newFixture(t, Config{})
	class := "none"
	pvc, err := f.env.Client.PersistentVolumeClaims().Create(f.ctx, &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: "default"},
		Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}, StorageClassName: &class,
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}})
	require.NoError(t, err)
	f.createPod("db", func(p *corev1.Pod) { p.Spec.Volumes = []corev1.Volume{claimVolume("data", "data")} })
	f.settle()
	t0 := f.clk.Now()
	f.until(t0.Add(25 * time.Second))
	pod := f.pod("db")
	assert.Equal(t, corev1.PodPending, pod.Status.Phase)
	require.Len(t, pod.Status.ContainerStatuses, 1)
	assert.Equal(t, "ContainerCreating", pod.Status.ContainerStatuses[0].State.Waiting.Reason)
	// One event, repeated at each try (at 0, 10 and 20 seconds).
	l, err := f.env.Client.Events().List(f.ctx, "default", client.ListOptions{FieldSelector: "involvedObject.name=db"})
	require.NoError(t, err)
	var count int32
	for _, ev := range l.Items {
		if ev.Reason == "FailedMount" {
			assert.Equal(t, "Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[], failed to process volumes=[data]: error processing PVC default/data: PVC is not bound", ev.Message)
			assert.Equal(t, "Warning", ev.Type)
			count += max(ev.Count, 1)
		}
	}
	assert.Equal(t, int32(3), count, "%v", f.events("db"))

	// The PV controller binds it: the next sync starts the container.
	pvc.Spec.VolumeName = "pv-1"
	pvc, err = f.env.Client.PersistentVolumeClaims().Update(f.ctx, pvc)
	require.NoError(t, err)
	pvc.Status.Phase = corev1.ClaimBound
	_, err = f.env.Client.PersistentVolumeClaims().UpdateStatus(f.ctx, pvc)
	require.NoError(t, err)
	f.until(f.clk.Now().Add(workerBackOffPeriod))
	pod = f.pod("db")
	assert.Equal(t, corev1.PodRunning, pod.Status.Phase)
	assert.NotNil(t, pod.Status.ContainerStatuses[0].State.Running)
}
