package cluster

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	grpcstatus "google.golang.org/grpc/status"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/kubelet/csi/sample"
	"github.com/kubesim/kubesim/kubelet/shell"
	"github.com/kubesim/kubesim/runmode"
	"github.com/kubesim/kubesim/stepper"
)

const csiTestDriver = "example.csi.kubesim.io"

// csiCluster is a one-node step-mode cluster with CSI on, and the sample
// driver registered on its node.
type csiCluster struct {
	c      *Cluster
	cl     *client.Client
	root   string
	driver *sample.Driver
}

func newCSICluster(t *testing.T, drv sample.Config) *csiCluster {
	t.Helper()
	// Short: the sockets' paths must fit a sockaddr_un.
	root, err := os.MkdirTemp("", "csi")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(root) })
	drv.Name, drv.NodeID, drv.KubeletDir = csiTestDriver, "node-1", filepath.Join(root, "node-1")
	d, err := sample.New(drv)
	require.NoError(t, err)
	require.NoError(t, d.Start())
	t.Cleanup(d.Stop)
	c, err := newTestCluster(t, Config{Mode: runmode.Step, Seed: 1, NodeCount: 1, CSI: &CSIConfig{RootDir: root}})
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	x := &csiCluster{c: c, cl: c.Client("test"), root: root, driver: d}
	x.settle(t)
	return x
}

func (x *csiCluster) settle(t *testing.T) {
	t.Helper()
	_, err := x.c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
}

// settleNow settles without moving the clock to the pod worker's 10 s
// back-off: a pod that keeps failing never settles otherwise.
func (x *csiCluster) settleNow(t *testing.T) {
	t.Helper()
	_, err := x.c.RunUntilStable(bg, stepper.Limits{Horizon: 5 * time.Second})
	require.NoError(t, err)
}

func (x *csiCluster) trace() string {
	var b strings.Builder
	for _, e := range x.c.Trace() {
		b.WriteString(e.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// volumes are the driver's volumes, by id.
func (x *csiCluster) volumes(t *testing.T) []string {
	entries, err := os.ReadDir(filepath.Join(x.root, "node-1", "plugins", csiTestDriver, "volumes"))
	require.NoError(t, err)
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

func csiClass(name string) *storagev1.StorageClass {
	immediate := storagev1.VolumeBindingImmediate
	return &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Provisioner: csiTestDriver, VolumeBindingMode: &immediate,
		Parameters: map[string]string{"tier": "gold", "csi.storage.k8s.io/fstype": "xfs"}}
}

func csiClaim(name, class string) *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}, StorageClassName: &class,
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("2Gi")}}}}
}

func claimEvents(t *testing.T, cl *client.Client, name string) []string {
	l, err := cl.Events().List(bg, "default", client.ListOptions{FieldSelector: "involvedObject.name=" + name})
	require.NoError(t, err)
	var out []string
	for _, e := range l.Items {
		out = append(out, e.Source.Component+" "+e.Reason+": "+e.Message)
	}
	return out
}

// The sample driver registers on its node (the CSINode), and a claim of
// its class is provisioned by the external-provisioner: CreateVolume, a
// PersistentVolume pre-bound to the claim with spec.csi, bound by the
// PV controller; deleting the claim deletes the volume in the driver,
// then the PersistentVolume.
func TestCSIProvisionsAndDeletesAVolume(t *testing.T) {
	x := newCSICluster(t, sample.Config{MaxVolumesPerNode: 16})
	n, err := x.cl.CSINodes().Get(bg, "", "node-1")
	require.NoError(t, err)
	require.Len(t, n.Spec.Drivers, 1)
	assert.Equal(t, "node-1", n.Spec.Drivers[0].NodeID)

	_, err = x.cl.StorageClasses().Create(bg, csiClass("gold"))
	require.NoError(t, err)
	claim, err := x.cl.PersistentVolumeClaims().Create(bg, csiClaim("data", "gold"))
	require.NoError(t, err)
	x.settle(t)

	pvName := "pvc-" + string(claim.UID)
	pv, err := x.cl.PersistentVolumes().Get(bg, "", pvName)
	require.NoError(t, err)
	require.NotNil(t, pv.Spec.CSI)
	assert.Equal(t, corev1.CSIPersistentVolumeSource{Driver: csiTestDriver, VolumeHandle: pvName, FSType: "xfs",
		VolumeAttributes: map[string]string{"tier": "gold"}}, *pv.Spec.CSI)
	assert.Equal(t, csiTestDriver, pv.Annotations[api.AnnDynamicallyProvisioned])
	assert.Equal(t, "2Gi", pv.Spec.Capacity.Storage().String())
	claim, err = x.cl.PersistentVolumeClaims().Get(bg, "default", "data")
	require.NoError(t, err)
	assert.Equal(t, corev1.ClaimBound, claim.Status.Phase)
	assert.Equal(t, pvName, claim.Spec.VolumeName)
	assert.Contains(t, claimEvents(t, x.cl, "data"), "external-provisioner ProvisioningSucceeded: Successfully provisioned volume "+pvName)
	assert.Equal(t, []string{pvName}, x.volumes(t))
	assert.Regexp(t, `(?m)^\s+-> csi CreateVolume `+regexp.QuoteMeta(csiTestDriver+" "+pvName)+`$`, x.trace())

	require.NoError(t, x.cl.PersistentVolumeClaims().Delete(bg, "default", "data", nil))
	x.settle(t)
	_, err = x.cl.PersistentVolumes().Get(bg, "", pvName)
	assert.True(t, api.IsNotFound(err), "the volume is deleted: %v", err)
	assert.Empty(t, x.volumes(t), "the driver's volume is given back")
	assert.Regexp(t, `(?m)^\s+-> csi DeleteVolume `+regexp.QuoteMeta(csiTestDriver+" "+pvName)+`$`, x.trace())
}

// failing is an interceptor that handles CreateVolume by fault until it
// has done so times times, then lets the driver answer.
func failing(times int32, fault func(ctx context.Context, req any, handler grpc.UnaryHandler) (any, error)) grpc.UnaryServerInterceptor {
	var n atomic.Int32
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		if strings.HasSuffix(info.FullMethod, "/CreateVolume") && n.Add(1) <= times {
			return fault(ctx, req, handler)
		}
		return handler(ctx, req)
	}
}

// provisionOne makes the class and a claim and settles; it returns the
// claim's volume's name once it is bound.
func (x *csiCluster) provisionOne(t *testing.T) string {
	t.Helper()
	_, err := x.cl.StorageClasses().Create(bg, csiClass("gold"))
	require.NoError(t, err)
	claim, err := x.cl.PersistentVolumeClaims().Create(bg, csiClaim("data", "gold"))
	require.NoError(t, err)
	x.settle(t)
	claim, err = x.cl.PersistentVolumeClaims().Get(bg, "default", "data")
	require.NoError(t, err)
	require.Equal(t, corev1.ClaimBound, claim.Status.Phase)
	return "pvc-" + string(claim.UID)
}

// A driver that answers an error is the claim's ProvisioningFailed
// warning in external-provisioner's words, and the claim is tried again
// (with back-off) until the driver gives it a volume.
func TestCSIProvisioningErrorIsRetried(t *testing.T) {
	x := newCSICluster(t, sample.Config{Interceptor: failing(2, func(context.Context, any, grpc.UnaryHandler) (any, error) {
		return nil, grpcstatus.Error(codes.ResourceExhausted, "out of space")
	})})
	pvName := x.provisionOne(t)
	assert.Contains(t, claimEvents(t, x.cl, "data"),
		`external-provisioner ProvisioningFailed: failed to provision volume with StorageClass "gold": rpc error: code = ResourceExhausted desc = out of space`)
	assert.Equal(t, []string{pvName}, x.volumes(t))
}

// A driver that never answers is abandoned after the sidecar's timeout
// (on the cluster's clock), and the retry provisions the volume.
func TestCSIProvisioningTimeoutIsRetried(t *testing.T) {
	called := make(chan struct{}, 1)
	x := newCSICluster(t, sample.Config{Interceptor: failing(1, func(ctx context.Context, _ any, _ grpc.UnaryHandler) (any, error) {
		called <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	})})
	fake := x.c.Clock().(*clock.Fake)
	go func() {
		// The sidecar set its timer on the cluster's clock before it
		// called: once the driver has the call, move the clock past it.
		<-called
		fake.Step(15 * time.Second)
	}()
	pvName := x.provisionOne(t)
	assert.Contains(t, claimEvents(t, x.cl, "data"),
		`external-provisioner ProvisioningFailed: failed to provision volume with StorageClass "gold": rpc error: code = DeadlineExceeded desc = context deadline exceeded`)
	assert.Equal(t, []string{pvName}, x.volumes(t))
}

// A driver that crashes after it made the volume but before it answered
// is started again; the retry's CreateVolume names the same volume, which
// the driver finds made: one volume, not two.
func TestCSIProvisioningCrashDoesNotLeakAVolume(t *testing.T) {
	var x *csiCluster
	var restarted sync.WaitGroup
	restarted.Add(1)
	x = newCSICluster(t, sample.Config{Interceptor: failing(1, func(ctx context.Context, req any, handler grpc.UnaryHandler) (any, error) {
		if _, err := handler(ctx, req); err != nil {
			return nil, err
		}
		go func() {
			defer restarted.Done()
			x.driver.Crash()
			d, err := sample.New(sample.Config{Name: csiTestDriver, NodeID: "node-1", KubeletDir: filepath.Join(x.root, "node-1")})
			if err == nil {
				err = d.Start()
			}
			if err != nil {
				t.Error(err)
				return
			}
			t.Cleanup(d.Stop)
		}()
		<-ctx.Done()
		return nil, ctx.Err()
	})})
	pvName := x.provisionOne(t)
	restarted.Wait()
	var failed []string
	for _, e := range claimEvents(t, x.cl, "data") {
		if strings.Contains(e, "ProvisioningFailed") {
			failed = append(failed, e)
		}
	}
	assert.NotEmpty(t, failed, "the crash was seen")
	assert.Equal(t, []string{pvName}, x.volumes(t), "one volume")
}

func noAttach() *storagev1.CSIDriver {
	no := false
	return &storagev1.CSIDriver{ObjectMeta: metav1.ObjectMeta{Name: csiTestDriver}, Spec: storagev1.CSIDriverSpec{AttachRequired: &no}}
}

func csiPod(name, claim, script string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}, Spec: corev1.PodSpec{
		Containers: []corev1.Container{{Name: "c", Image: "busybox", Command: []string{"sh", "-c", script},
			VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/data"}}}},
		Volumes: []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}}}}}
}

// The kubelet stages and publishes a pod's CSI volume before its
// containers start, and the container writes into the driver's volume;
// when the pod goes, the volume is unpublished and unstaged. The calls
// are lines of the kubelet's steps.
func TestCSIVolumeIsMountedForItsPod(t *testing.T) {
	x := newCSICluster(t, sample.Config{})
	_, err := x.cl.CSIDrivers().Create(bg, noAttach())
	require.NoError(t, err)
	pvName := x.provisionOne(t)
	_, err = x.cl.Pods().Create(bg, csiPod("app", "data", "sleep 3600"))
	require.NoError(t, err)
	x.settle(t)
	pod, err := x.cl.Pods().Get(bg, "default", "app")
	require.NoError(t, err)
	require.Equal(t, corev1.PodRunning, pod.Status.Phase)
	k := x.c.kubelets["node-1"]
	env, err := k.ExecTarget(bg, "default", "app", "c")
	require.NoError(t, err)
	var out strings.Builder
	require.Zero(t, k.Exec(bg, env, []string{"sh", "-c", "echo hello > /data/msg"}, shell.Stdio{Stdout: &out, Stderr: &out}), out.String())
	data, err := os.ReadFile(filepath.Join(x.root, "node-1", "plugins", csiTestDriver, "volumes", pvName, "data", "msg"))
	require.NoError(t, err)
	assert.Equal(t, "hello\n", string(data))
	tr := x.trace()
	assert.Regexp(t, `kubelet/node-1\s+default/app .*\n(.*\n)*?\s+-> csi NodeStageVolume `+regexp.QuoteMeta(csiTestDriver+" "+pvName)+`\n\s+-> csi NodePublishVolume `+regexp.QuoteMeta(csiTestDriver+" "+pvName)+` default/app\n`, tr)

	zero := int64(0)
	require.NoError(t, x.cl.Pods().Delete(bg, "default", "app", &metav1.DeleteOptions{GracePeriodSeconds: &zero}))
	x.settle(t)
	tr = x.trace()
	assert.Regexp(t, `-> csi NodeUnpublishVolume `+regexp.QuoteMeta(csiTestDriver+" "+pvName)+` default/app\n\s+-> csi NodeUnstageVolume `+regexp.QuoteMeta(csiTestDriver+" "+pvName)+`\n`, tr)
	assert.Zero(t, x.c.kubelets["node-1"].CSIMountsInUse())
	entries, err := os.ReadDir(filepath.Join(x.root, "node-1", "plugins", "kubernetes.io", "csi", csiTestDriver))
	require.NoError(t, err)
	assert.Empty(t, entries, "the staging path is gone")
}

// A driver whose NodePublishVolume fails is the pod's FailedMount warning
// in the kubelet's words; the pod is not Running without its volume, and
// runs once the driver publishes it.
func TestCSIPublishFailureHoldsThePod(t *testing.T) {
	var fail atomic.Bool
	fail.Store(true)
	x := newCSICluster(t, sample.Config{Interceptor: func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		if strings.HasSuffix(info.FullMethod, "/NodePublishVolume") && fail.Load() {
			return nil, grpcstatus.Error(codes.Internal, "mount failed: device busy")
		}
		return handler(ctx, req)
	}})
	_, err := x.cl.CSIDrivers().Create(bg, noAttach())
	require.NoError(t, err)
	pvName := x.provisionOne(t)
	_, err = x.cl.Pods().Create(bg, csiPod("app", "data", "sleep 3600"))
	require.NoError(t, err)
	x.settleNow(t)
	pod, err := x.cl.Pods().Get(bg, "default", "app")
	require.NoError(t, err)
	assert.Equal(t, corev1.PodPending, pod.Status.Phase)
	assert.Contains(t, claimEvents(t, x.cl, "app"),
		`kubelet FailedMount: MountVolume.SetUp failed for volume "`+pvName+`" : rpc error: code = Internal desc = mount failed: device busy`)

	fail.Store(false)
	x.settle(t) // the pod worker's next try
	pod, err = x.cl.Pods().Get(bg, "default", "app")
	require.NoError(t, err)
	assert.Equal(t, corev1.PodRunning, pod.Status.Phase)
}

// A driver without a CSIDriver is attached: the attach/detach controller's
// VolumeAttachment, ControllerPublishVolume and status.attached before
// the kubelet stages the volume; when the pod goes, the volume is
// unmounted, then ControllerUnpublishVolume and the attachment goes.
func TestCSIVolumeIsAttachedBeforeItIsMounted(t *testing.T) {
	x := newCSICluster(t, sample.Config{})
	pvName := x.provisionOne(t)
	_, err := x.cl.Pods().Create(bg, csiPod("app", "data", "sleep 3600"))
	require.NoError(t, err)
	x.settle(t)
	pod, err := x.cl.Pods().Get(bg, "default", "app")
	require.NoError(t, err)
	require.Equal(t, corev1.PodRunning, pod.Status.Phase)
	vas, err := x.cl.VolumeAttachments().List(bg, "", client.ListOptions{})
	require.NoError(t, err)
	require.Len(t, vas.Items, 1)
	va := vas.Items[0]
	assert.True(t, va.Status.Attached)
	assert.Equal(t, map[string]string{"node": "node-1"}, va.Status.AttachmentMetadata)
	assert.Equal(t, []string{"external-attacher/" + csiTestDriver}, va.Finalizers)
	q := regexp.QuoteMeta
	assert.Regexp(t, `-> csi ControllerPublishVolume `+q(csiTestDriver+" "+pvName+" node-1")+`\n(.*\n)*?.*-> csi NodeStageVolume `+q(csiTestDriver+" "+pvName), x.trace())

	zero := int64(0)
	require.NoError(t, x.cl.Pods().Delete(bg, "default", "app", &metav1.DeleteOptions{GracePeriodSeconds: &zero}))
	require.NoError(t, x.cl.PersistentVolumeClaims().Delete(bg, "default", "data", nil))
	x.settle(t)
	vas, err = x.cl.VolumeAttachments().List(bg, "", client.ListOptions{})
	require.NoError(t, err)
	assert.Empty(t, vas.Items)
	assert.Regexp(t, `-> csi NodeUnstageVolume `+q(csiTestDriver+" "+pvName)+`\n(.*\n)*?.*-> csi ControllerUnpublishVolume `+q(csiTestDriver+" "+pvName+" node-1")+`\n(.*\n)*?.*-> csi DeleteVolume `+q(csiTestDriver+" "+pvName), x.trace())
	assert.Empty(t, x.volumes(t), "every volume given back")
}
