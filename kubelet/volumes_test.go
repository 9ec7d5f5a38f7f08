package kubelet

import (
	"context"
	"strings"
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
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/kubelet/programs"
	"github.com/kubesim/kubesim/kubelet/shell"
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

// boundClaim makes the PersistentVolume pv and the claim bound to it, as
// the PV controller leaves them.
func boundClaim(t *testing.T, f *fixture, pv, claim string) {
	t.Helper()
	_, err := f.env.Client.PersistentVolumes().Create(f.ctx, &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: pv},
		Spec: corev1.PersistentVolumeSpec{Capacity: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
			AccessModes:            []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/mnt/data"}}}})
	require.NoError(t, err)
	pvc, err := f.env.Client.PersistentVolumeClaims().Create(f.ctx, &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: claim, Namespace: "default"},
		Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}, VolumeName: pv,
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}})
	require.NoError(t, err)
	pvc.Status.Phase = corev1.ClaimBound
	_, err = f.env.Client.PersistentVolumeClaims().UpdateStatus(f.ctx, pvc)
	require.NoError(t, err)
}

// execIn runs script in the pod's container (kubectl exec) and returns
// what it printed and its status.
func execIn(t *testing.T, k *Kubelet, pod, script string) (string, int) {
	t.Helper()
	env, err := k.ExecTarget(context.Background(), "default", pod, "c")
	require.NoError(t, err)
	var out strings.Builder
	code := k.Exec(context.Background(), env, []string{"sh", "-c", script}, shell.Stdio{Stdout: &out, Stderr: &out})
	return out.String(), code
}

// What is written through kubectl exec into a claim's mount stays with
// the PersistentVolume: the next pod that mounts the claim finds it, on
// another node too, and its own command reads it; an emptyDir is the
// pod's — its containers share it, across restarts — and goes with it.
func TestVolumesKeepTheirDataAsKubernetesDoes(t *testing.T) {
	f := newFixture(t, Config{})
	k2, err := New(Config{Client: f.env.Client, Clock: f.env.Clock, Mode: f.k.cfg.Mode, NodeName: "node-2", PodCIDR: "10.244.2.0/24",
		VolumeData: f.k.cfg.VolumeData, Registry: f.k.cfg.Registry})
	require.NoError(t, err)
	f.loops = func() []*controllers.Controller { return append(f.k.Controllers(), k2.Controllers()...) }
	f.settle()
	boundClaim(t, f, "pv-1", "data")
	withVolumes := func(p *corev1.Pod) {
		p.Spec.Volumes = []corev1.Volume{claimVolume("data", "data"), {Name: "cache", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
		p.Spec.Containers = []corev1.Container{{Name: "c", Image: "busybox", Command: []string{"sh", "-c", "cat /data/msg; sleep 3600"},
			VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/data"}, {Name: "cache", MountPath: "/cache"}}}}
	}
	f.createPod("writer", withVolumes)
	f.settle()
	out, code := execIn(t, f.k, "writer", "echo hello from writer > /data/msg; echo scratch > /cache/x; echo layer > /tmp/y; cat /data/msg /cache/x")
	require.Equal(t, 0, code, out)
	assert.Equal(t, "hello from writer\nscratch\n", out)
	out, _ = execIn(t, f.k, "writer", "cat /cache/x /tmp/y")
	assert.Equal(t, "scratch\nlayer\n", out, "one pod, one emptyDir, one layer while the container runs")

	zero := int64(0)
	require.NoError(t, f.env.Client.Pods().Delete(f.ctx, "default", "writer", &metav1.DeleteOptions{GracePeriodSeconds: &zero}))
	f.settle()

	// A new pod on node-2 mounts the claim: the volume's data is there,
	// the old pod's emptyDir is not.
	reader := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "reader", Namespace: "default"}}
	withVolumes(reader)
	_, err = f.env.Client.Pods().Create(f.ctx, reader)
	require.NoError(t, err)
	require.NoError(t, f.env.Client.Pods().CreateSubresource(f.ctx, "default", "reader", "binding",
		&corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "reader", Namespace: "default"}, Target: corev1.ObjectReference{Kind: "Node", Name: "node-2"}}))
	f.settle()
	out, code = execIn(t, k2, "reader", "cat /data/msg; ls /cache; cat /tmp/y")
	assert.Equal(t, 1, code)
	assert.Equal(t, "hello from writer\ncat: can't open '/tmp/y': No such file or directory\n", out)
	var logs strings.Builder
	require.NoError(t, k2.ContainerLogs(f.ctx, "default", "reader", "c", LogOptions{}, &logs))
	assert.Equal(t, "hello from writer\n", logs.String(), "the container's own command reads the volume")

	// What a container's own command writes is played ahead of the
	// clock: it does not land in the volume.
	f.createPod("scribbler", func(p *corev1.Pod) {
		withVolumes(p)
		p.Spec.Containers[0].Command = []string{"sh", "-c", "echo overwritten > /data/msg; sleep 3600"}
	})
	f.settle()
	out, _ = execIn(t, k2, "reader", "cat /data/msg")
	assert.Equal(t, "hello from writer\n", out)
}

// The StatefulSet tutorial's nginx: with a claim mounted over its
// document root it answers 403 until a page is written there, then
// serves it, to curl localhost from inside and to the cluster; without
// a volume it serves its welcome page, or a page an exec wrote.
func TestNginxServesItsDocumentRoot(t *testing.T) {
	f := newFixture(t, Config{})
	boundClaim(t, f, "pv-www", "www")
	f.createPod("web-0", func(p *corev1.Pod) {
		p.Spec.Volumes = []corev1.Volume{claimVolume("www", "www")}
		p.Spec.Containers = []corev1.Container{{Name: "c", Image: "registry.k8s.io/nginx-slim:0.21",
			VolumeMounts: []corev1.VolumeMount{{Name: "www", MountPath: "/usr/share/nginx/html"}}}}
	})
	f.createPod("plain", func(p *corev1.Pod) { p.Spec.Containers = []corev1.Container{{Name: "c", Image: "nginx:1.27"}} })
	f.settle()

	out, code := execIn(t, f.k, "web-0", "curl -s http://localhost/")
	require.Equal(t, 0, code, out)
	assert.Contains(t, out, "<title>403 Forbidden</title>", "the volume hides the image's pages")
	out, code = execIn(t, f.k, "web-0", `echo "$(hostname)" > /usr/share/nginx/html/index.html; curl -s http://localhost/`)
	require.Equal(t, 0, code, out)
	assert.Equal(t, "web-0\n", out)
	out, _ = execIn(t, f.k, "plain", "curl -s "+f.pod("web-0").Status.PodIP)
	assert.Equal(t, "web-0\n", out, "from another pod too")

	out, _ = execIn(t, f.k, "plain", "curl -s localhost")
	assert.Contains(t, out, "Welcome to nginx!")
	out, _ = execIn(t, f.k, "plain", "echo mine > /usr/share/nginx/html/index.html; curl -s localhost; curl -s localhost/nope")
	assert.Equal(t, "mine\n"+programs.NginxErrorPage(404, "1.27.5"), out)
}
