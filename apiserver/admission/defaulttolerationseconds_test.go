package admission

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func tolerationAttrs(op Operation, sub string, pod *corev1.Pod) *Attributes {
	return &Attributes{Operation: op, Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, Subresource: sub,
		Namespace: "default", Name: pod.Name, Object: pod}
}

func seconds(s int64) *int64 { return &s }

// A pod gets a 300-second toleration of each of the node lifecycle
// controller's NoExecute taints unless it already tolerates that taint —
// by its key, or with an empty key or effect that covers it.
func TestDefaultTolerationSecondsAdmit(t *testing.T) {
	notReady := corev1.Toleration{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: seconds(300)}
	unreachable := corev1.Toleration{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: seconds(300)}
	gpu := corev1.Toleration{Key: "gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}
	forever := corev1.Toleration{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}
	everything := corev1.Toleration{Operator: corev1.TolerationOpExists}
	anyEffect := corev1.Toleration{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists}
	noSchedule := corev1.Toleration{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}
	for _, tc := range []struct {
		name      string
		op        Operation
		sub       string
		has, want []corev1.Toleration
	}{
		{"none: both added", Create, "", nil, []corev1.Toleration{notReady, unreachable}},
		{"others kept, both added after them", Create, "", []corev1.Toleration{gpu}, []corev1.Toleration{gpu, notReady, unreachable}},
		{"a toleration of its own for one taint", Create, "", []corev1.Toleration{forever}, []corev1.Toleration{forever, notReady}},
		{"an empty key tolerates both", Create, "", []corev1.Toleration{everything}, []corev1.Toleration{everything}},
		{"an empty effect covers NoExecute", Create, "", []corev1.Toleration{anyEffect}, []corev1.Toleration{anyEffect, unreachable}},
		{"NoSchedule of the same key is another effect", Create, "", []corev1.Toleration{noSchedule}, []corev1.Toleration{noSchedule, notReady, unreachable}},
		{"an update that dropped them gets them back", Update, "", nil, []corev1.Toleration{notReady, unreachable}},
		{"a subresource is left alone", Create, "binding", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"}, Spec: corev1.PodSpec{Tolerations: tc.has}}
			require.NoError(t, (&DefaultTolerationSeconds{}).Admit(context.Background(), tolerationAttrs(tc.op, tc.sub, pod)))
			assert.Equal(t, tc.want, pod.Spec.Tolerations)
		})
	}
}

// kube-apiserver's flags set the two tolerationSeconds apart; other
// kinds are not touched.
func TestDefaultTolerationSecondsConfiguredAndOnlyForPods(t *testing.T) {
	d := &DefaultTolerationSeconds{NotReadySeconds: seconds(30), UnreachableSeconds: seconds(60)}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}}
	require.NoError(t, d.Admit(context.Background(), tolerationAttrs(Create, "", pod)))
	require.Len(t, pod.Spec.Tolerations, 2)
	assert.Equal(t, int64(30), *pod.Spec.Tolerations[0].TolerationSeconds)
	assert.Equal(t, int64(60), *pod.Spec.Tolerations[1].TolerationSeconds)

	assert.True(t, d.Handles(Create))
	assert.True(t, d.Handles(Update))
	assert.False(t, d.Handles(Delete))
	a := tolerationAttrs(Create, "", pod)
	a.Resource.Resource = "podtemplates"
	other := &corev1.Pod{}
	a.Object = other
	require.NoError(t, d.Admit(context.Background(), a))
	assert.Empty(t, other.Spec.Tolerations)
}
