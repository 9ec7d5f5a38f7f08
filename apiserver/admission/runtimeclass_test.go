package admission

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
)

func runtimeClassPlugin(classes ...*nodev1.RuntimeClass) *RuntimeClass {
	return &RuntimeClass{Get: func(_ context.Context, name string) (*nodev1.RuntimeClass, error) {
		for _, c := range classes {
			if c.Name == name {
				return c, nil
			}
		}
		return nil, api.NewNotFound(schema.GroupResource{Group: "node.k8s.io", Resource: "runtimeclasses"}, name)
	}}
}

func newPodCreate(pod *corev1.Pod) *Attributes {
	return &Attributes{Operation: Create, Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"},
		Namespace: "default", Name: pod.Name, Object: pod}
}

func TestRuntimeClassSetsOverheadAndScheduling(t *testing.T) {
	overhead := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m"), corev1.ResourceMemory: resource.MustParse("120Mi")}
	kata := &nodev1.RuntimeClass{ObjectMeta: metav1.ObjectMeta{Name: "kata"}, Handler: "kata",
		Overhead: &nodev1.Overhead{PodFixed: overhead},
		Scheduling: &nodev1.Scheduling{NodeSelector: map[string]string{"runtime": "kata"},
			Tolerations: []corev1.Toleration{{Key: "kata", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}}}
	p := runtimeClassPlugin(kata)
	ctx := context.Background()
	name := "kata"

	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "vm"}, Spec: corev1.PodSpec{RuntimeClassName: &name,
		NodeSelector: map[string]string{"zone": "a"},
		Tolerations:  []corev1.Toleration{{Key: "kata", Operator: corev1.TolerationOpExists}}}}
	a := newPodCreate(pod)
	require.NoError(t, p.Admit(ctx, a))
	assert.Equal(t, overhead, pod.Spec.Overhead)
	assert.Equal(t, map[string]string{"zone": "a", "runtime": "kata"}, pod.Spec.NodeSelector)
	assert.Len(t, pod.Spec.Tolerations, 1, "the pod's own toleration already covers the class's")
	require.NoError(t, p.Validate(ctx, a))

	// A node selector that says otherwise is a conflict.
	clash := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "x"}, Spec: corev1.PodSpec{RuntimeClassName: &name, NodeSelector: map[string]string{"runtime": "runc"}}}
	err := p.Admit(ctx, newPodCreate(clash))
	require.True(t, api.IsForbidden(err), "%v", err)
	assert.Contains(t, err.Error(), "conflict: runtimeClass.scheduling.nodeSelector[runtime] = kata; pod.spec.nodeSelector[runtime] = runc")

	// An overhead that is not the class's is refused.
	wrong := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "y"}, Spec: corev1.PodSpec{RuntimeClassName: &name,
		Overhead: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}}
	err = p.Admit(ctx, newPodCreate(wrong))
	require.True(t, api.IsForbidden(err))
	assert.Contains(t, err.Error(), "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead")

	// A missing class refuses the pod.
	missing := "gvisor"
	err = p.Admit(ctx, newPodCreate(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "z"}, Spec: corev1.PodSpec{RuntimeClassName: &missing}}))
	require.True(t, api.IsForbidden(err))
	assert.Equal(t, `pods "z" is forbidden: pod rejected: RuntimeClass "gvisor" not found`, err.Error())

	// An overhead without a class is refused by the validating half.
	bare := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "w"}, Spec: corev1.PodSpec{Overhead: overhead}}
	require.NoError(t, p.Admit(ctx, newPodCreate(bare)))
	err = p.Validate(ctx, newPodCreate(bare))
	require.True(t, api.IsForbidden(err))
	assert.Contains(t, err.Error(), "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead")

	assert.False(t, p.Handles(Update))
}

func TestMergeTolerations(t *testing.T) {
	sec := int64(30)
	pod := []corev1.Toleration{{Key: "a", Operator: corev1.TolerationOpEqual, Value: "1"}}
	extra := []corev1.Toleration{
		{Key: "a", Operator: corev1.TolerationOpEqual, Value: "1"},
		{Key: "a", Operator: corev1.TolerationOpEqual, Value: "2"},
		{Key: "b", Operator: corev1.TolerationOpExists, TolerationSeconds: &sec},
	}
	got := MergeTolerations(pod, extra)
	assert.Equal(t, []corev1.Toleration{pod[0], extra[1], extra[2]}, got)
	all := []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
	assert.Equal(t, all, MergeTolerations(all, extra), "an empty key with Exists tolerates everything")
}
