package kubelet

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/client"
)

// A pod whose RuntimeClass names a handler the fake runtime lacks never
// gets a sandbox: it waits in ContainerCreating with a
// FailedCreatePodSandBox event at each try, while a pod of class runc
// (a handler the runtime has) runs.
func TestUnknownRuntimeHandlerHoldsThePod(t *testing.T) {
	f := newFixture(t, Config{})
	for name, handler := range map[string]string{"kata": "kata-qemu", "standard": "runc"} {
		_, err := f.env.Client.RuntimeClasses().Create(f.ctx, &nodev1.RuntimeClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Handler: handler})
		require.NoError(t, err)
	}
	kata, standard := "kata", "standard"
	f.createPod("vm", func(p *corev1.Pod) { p.Spec.RuntimeClassName = &kata })
	f.createPod("web", func(p *corev1.Pod) { p.Spec.RuntimeClassName = &standard })
	f.settle()
	f.until(f.clk.Now().Add(25 * time.Second))

	vm := f.pod("vm")
	assert.Equal(t, corev1.PodPending, vm.Status.Phase)
	require.Len(t, vm.Status.ContainerStatuses, 1)
	assert.Equal(t, "ContainerCreating", vm.Status.ContainerStatuses[0].State.Waiting.Reason)
	l, err := f.env.Client.Events().List(f.ctx, "default", client.ListOptions{FieldSelector: "involvedObject.name=vm,reason=FailedCreatePodSandBox"})
	require.NoError(t, err)
	require.NotEmpty(t, l.Items, "%v", f.events("vm"))
	assert.Equal(t, `Failed to create pod sandbox: rpc error: code = Unknown desc = RuntimeHandler "kata-qemu" not supported`, l.Items[0].Message)
	assert.Equal(t, "Warning", l.Items[0].Type)

	assert.Equal(t, corev1.PodRunning, f.pod("web").Status.Phase)
}
