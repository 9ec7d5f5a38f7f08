package api

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
)

func TestToleratesTaint(t *testing.T) {
	taint := corev1.Taint{Key: "k", Value: "v", Effect: corev1.TaintEffectNoSchedule}
	for _, tc := range []struct {
		name string
		tol  corev1.Toleration
		want bool
	}{
		{"exact", corev1.Toleration{Key: "k", Operator: corev1.TolerationOpEqual, Value: "v", Effect: corev1.TaintEffectNoSchedule}, true},
		{"default operator is Equal", corev1.Toleration{Key: "k", Value: "v"}, true},
		{"exists on key", corev1.Toleration{Key: "k", Operator: corev1.TolerationOpExists}, true},
		{"other value", corev1.Toleration{Key: "k", Value: "w"}, false},
		{"other key", corev1.Toleration{Key: "j", Operator: corev1.TolerationOpExists}, false},
		{"other effect", corev1.Toleration{Key: "k", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}, false},
		{"empty key Exists tolerates all", corev1.Toleration{Operator: corev1.TolerationOpExists}, true},
		{"empty key needs Exists", corev1.Toleration{Value: "v"}, false},
		{"unknown operator", corev1.Toleration{Key: "k", Operator: "Lt", Value: "v"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, ToleratesTaint(&tc.tol, &taint))
		})
	}
}
