package flowcontrol

import (
	"fmt"
	"time"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DanglingCondition is the Dangling condition a FlowSchema should carry:
// False (reason Found) when the priority level it names exists, True
// (NotFound) when it does not, in the config controller's words.
func DanglingCondition(fs *flowcontrolv1.FlowSchema, levelExists bool) flowcontrolv1.FlowSchemaCondition {
	name := fs.Spec.PriorityLevelConfiguration.Name
	if levelExists {
		return flowcontrolv1.FlowSchemaCondition{Type: flowcontrolv1.FlowSchemaConditionDangling, Status: flowcontrolv1.ConditionFalse,
			Reason: "Found", Message: fmt.Sprintf("This FlowSchema references the PriorityLevelConfiguration object named %q and it exists", name)}
	}
	return flowcontrolv1.FlowSchemaCondition{Type: flowcontrolv1.FlowSchemaConditionDangling, Status: flowcontrolv1.ConditionTrue,
		Reason: "NotFound", Message: fmt.Sprintf("This FlowSchema references the PriorityLevelConfiguration object named %q but there is no such object", name)}
}

// SetDangling puts want on fs (stamped now when its status, reason or
// message changes) and reports whether fs changed.
func SetDangling(fs *flowcontrolv1.FlowSchema, want flowcontrolv1.FlowSchemaCondition, now time.Time) bool {
	for i, c := range fs.Status.Conditions {
		if c.Type != want.Type {
			continue
		}
		if c.Status == want.Status && c.Reason == want.Reason && c.Message == want.Message {
			return false
		}
		want.LastTransitionTime = metav1.NewTime(now.UTC().Truncate(time.Second))
		fs.Status.Conditions[i] = want
		return true
	}
	want.LastTransitionTime = metav1.NewTime(now.UTC().Truncate(time.Second))
	fs.Status.Conditions = append(fs.Status.Conditions, want)
	return true
}
