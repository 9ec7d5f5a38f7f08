package api

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestToleratesTaint(t *testing.T) {
	taint := Taint{Key: "k", Value: "v", Effect: TaintEffectNoSchedule}
	for _, tc := range []struct {
		name string
		tol  Toleration
		want bool
	}{
		{"exact", Toleration{Key: "k", Operator: TolerationOpEqual, Value: "v", Effect: TaintEffectNoSchedule}, true},
		{"default operator is Equal", Toleration{Key: "k", Value: "v"}, true},
		{"exists on key", Toleration{Key: "k", Operator: TolerationOpExists}, true},
		{"other value", Toleration{Key: "k", Value: "w"}, false},
		{"other key", Toleration{Key: "j", Operator: TolerationOpExists}, false},
		{"other effect", Toleration{Key: "k", Operator: TolerationOpExists, Effect: TaintEffectNoExecute}, false},
		{"empty key Exists tolerates all", Toleration{Operator: TolerationOpExists}, true},
		{"empty key needs Exists", Toleration{Value: "v"}, false},
		{"unknown operator", Toleration{Key: "k", Operator: "Lt", Value: "v"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, ToleratesTaint(&tc.tol, &taint))
		})
	}
}
