package kinds

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	nodev1 "k8s.io/api/node/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
)

// groupsSamples are table samples of the kinds of the core group's
// workloads and of the other groups served since (keyed by resource, or
// group/resource where a name is served in two groups).
func groupsSamples() map[string]api.Object {
	meta := metav1.ObjectMeta{Name: "x", Namespace: "default", CreationTimestamp: ago(3 * time.Hour)}
	t := template(map[string]string{"app": "web"})
	return map[string]api.Object{
		"podtemplates":                &corev1.PodTemplate{ObjectMeta: meta, Template: t},
		"runtimeclasses":              &nodev1.RuntimeClass{ObjectMeta: meta, Handler: "runc"},
		"flowschemas":                 DefaultFlowControl().SuggestedFlowSchemas[0],
		"prioritylevelconfigurations": DefaultFlowControl().SuggestedPriorityLevels[0],
		"certificatesigningrequests": &certificatesv1.CertificateSigningRequest{ObjectMeta: meta, Spec: certificatesv1.CertificateSigningRequestSpec{
			SignerName: certificatesv1.KubeAPIServerClientSignerName, Username: "jane"}},
		"events.k8s.io/events": &eventsv1.Event{ObjectMeta: meta, Type: "Normal", Reason: "Scheduled", Note: "Successfully assigned default/web to node-1",
			Regarding: corev1.ObjectReference{Kind: "Pod", Name: "web"}, ReportingController: "default-scheduler",
			EventTime: metav1.NewMicroTime(tableNow.Add(-time.Minute))},
		"replicationcontrollers": &corev1.ReplicationController{ObjectMeta: meta, Spec: corev1.ReplicationControllerSpec{
			Replicas: ptr(int32(3)), Selector: map[string]string{"app": "web"}, Template: &t},
			Status: corev1.ReplicationControllerStatus{Replicas: 3, ReadyReplicas: 2}},
	}
}

func TestReplicationTables(t *testing.T) {
	objs := groupsSamples()
	cells := func(name string) []any { return builtin(t, name).Table.Cells(objs[name], tableNow) }
	assert.Equal(t, []any{"x", "nginx", "nginx:1.27", "app=web"}, cells("podtemplates"))
	assert.Equal(t, []any{"x", int64(3), int64(3), int64(2), "3h", "nginx", "nginx:1.27", "app=web"}, cells("replicationcontrollers"))
	rc := builtin(t, "replicationcontrollers")
	noTemplate := objs["replicationcontrollers"].(*corev1.ReplicationController).DeepCopy()
	noTemplate.Spec.Template = nil
	assert.Equal(t, []any{"x", int64(3), int64(3), int64(2), "3h", "", "", "app=web"}, rc.Table.Cells(noTemplate, tableNow))
	// An RC prints as a ReplicaSet does: the same columns, READY's
	// description naming the kind.
	rsColumns, rcColumns := builtin(t, "replicasets").Table.Columns, rc.Table.Columns
	require.Len(t, rcColumns, len(rsColumns))
	for i := range rsColumns {
		if rsColumns[i].Name == "Ready" {
			assert.Equal(t, "The number of ready replicas for this replication controller.", rcColumns[i].Description)
			continue
		}
		assert.Equal(t, rsColumns[i], rcColumns[i])
	}
	assert.Equal(t, []string{"rc"}, rc.ShortNames)
	assert.Equal(t, []string{"all"}, rc.Categories)
	require.NotNil(t, rc.Scale)
	assert.True(t, rc.StatusSubresource)
}

func TestReplicationControllerDefaultsAndValidation(t *testing.T) {
	tmpl := template(map[string]string{"app": "web"})
	rc := &corev1.ReplicationController{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: corev1.ReplicationControllerSpec{Template: &tmpl}}
	st := replicationControllerStrategy{}
	st.Default(rc)
	assert.Equal(t, map[string]string{"app": "web"}, rc.Spec.Selector, "the selector is the template's labels")
	assert.Equal(t, map[string]string{"app": "web"}, rc.Labels)
	assert.Equal(t, int32(1), *rc.Spec.Replicas)
	assert.Empty(t, st.Validate(rc))

	bad := rc.DeepCopy()
	bad.Spec.Selector = map[string]string{"app": "other"}
	errs := st.Validate(bad)
	require.Len(t, errs, 1)
	assert.Equal(t, "spec.template.metadata.labels", errs[0].Field)

	none := &corev1.ReplicationController{ObjectMeta: metav1.ObjectMeta{Name: "web"}}
	st.Default(none)
	var fields []string
	for _, e := range st.Validate(none) {
		fields = append(fields, e.Field)
	}
	assert.Equal(t, []string{"spec.selector", "spec.template"}, fields)

	neg := rc.DeepCopy()
	neg.Spec.Replicas = ptr(int32(-1))
	require.NotEmpty(t, st.Validate(neg))
	assert.Equal(t, "spec.replicas", st.Validate(neg)[0].Field)
}

// A change of what the kind's generation counts is a new generation; an
// update that leaves it alone is not.
func TestSpecChangeIsNewGeneration(t *testing.T) {
	samples := groupsSamples()
	for _, name := range []string{"podtemplates", "flowschemas", "prioritylevelconfigurations"} {
		rule := builtin(t, name).Generation
		require.NotNil(t, rule, name)
		old := samples[name].DeepCopyObject().(api.Object)
		same := old.DeepCopyObject().(api.Object)
		api.Meta(same).Labels = map[string]string{"only": "labels"}
		assert.False(t, rule.Changed(same, old), name)

		changed := old.DeepCopyObject().(api.Object)
		switch o := changed.(type) {
		case *corev1.PodTemplate:
			o.Template.Spec.Containers[0].Image = "nginx:1.28"
		case *flowcontrolv1.FlowSchema:
			o.Spec.MatchingPrecedence++
		case *flowcontrolv1.PriorityLevelConfiguration:
			o.Spec.Limited.LendablePercent = ptr(*o.Spec.Limited.LendablePercent + 1)
		}
		assert.True(t, rule.Changed(changed, old), name)
	}
}
