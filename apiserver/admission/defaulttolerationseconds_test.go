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

// A new pod gets 300-second tolerations of not-ready and unreachable,
// unless it tolerates them already (a key-less or effect-less toleration
// counts); updates and other kinds are left alone.
func TestDefaultTolerationSeconds(t *testing.T) {
	seconds := int64(300)
	notReady := corev1.Toleration{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &seconds}
	unreachable := corev1.Toleration{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &seconds}
	own := corev1.Toleration{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}
	everything := corev1.Toleration{Operator: corev1.TolerationOpExists}
	noSchedule := corev1.Toleration{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}
	for _, tc := range []struct {
		name      string
		op        Operation
		have, got []corev1.Toleration
	}{
		{name: "none: both added", op: Create, got: []corev1.Toleration{notReady, unreachable}},
		{name: "its own unreachable one is kept", op: Create, have: []corev1.Toleration{own}, got: []corev1.Toleration{own, notReady}},
		{name: "a key-less toleration tolerates both", op: Create, have: []corev1.Toleration{everything}, got: []corev1.Toleration{everything}},
		{name: "NoSchedule is another effect", op: Create, have: []corev1.Toleration{noSchedule}, got: []corev1.Toleration{noSchedule, notReady, unreachable}},
		{name: "an update is left alone", op: Update},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"}, Spec: corev1.PodSpec{Tolerations: tc.have}}
			a := &Attributes{Operation: tc.op, Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"},
				Namespace: "default", Name: "web", Object: pod, OldObject: pod.DeepCopy()}
			require.NoError(t, DefaultTolerationSeconds{}.Admit(context.Background(), a))
			assert.Equal(t, tc.got, pod.Spec.Tolerations)
		})
	}

	// The seconds are the API server's setting.
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"}}
	a := &Attributes{Operation: Create, Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, Namespace: "default", Name: "web", Object: pod}
	require.NoError(t, DefaultTolerationSeconds{Seconds: 30}.Admit(context.Background(), a))
	require.Len(t, pod.Spec.Tolerations, 2)
	assert.Equal(t, int64(30), *pod.Spec.Tolerations[1].TolerationSeconds)
}
