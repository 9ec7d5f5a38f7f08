package kinds

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func validDaemonSet() *appsv1.DaemonSet {
	return &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "default"},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
			Template: template(map[string]string{"app": "agent"}),
		},
	}
}

func TestDaemonSetDefaults(t *testing.T) {
	ds := validDaemonSet()
	mustNoErrors(t, create(t, "daemonsets", ds))
	assert.Equal(t, appsv1.RollingUpdateDaemonSetStrategyType, ds.Spec.UpdateStrategy.Type)
	require.NotNil(t, ds.Spec.UpdateStrategy.RollingUpdate)
	assert.Equal(t, intstr.FromInt32(1), *ds.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable)
	assert.Equal(t, intstr.FromInt32(0), *ds.Spec.UpdateStrategy.RollingUpdate.MaxSurge)
	assert.Equal(t, int32(10), *ds.Spec.RevisionHistoryLimit)
	assert.Equal(t, corev1.RestartPolicyAlways, ds.Spec.Template.Spec.RestartPolicy, "the template gets the pod defaults")

	onDelete := validDaemonSet()
	onDelete.Spec.UpdateStrategy.Type = appsv1.OnDeleteDaemonSetStrategyType
	mustNoErrors(t, create(t, "daemonsets", onDelete))
	assert.Nil(t, onDelete.Spec.UpdateStrategy.RollingUpdate, "OnDelete has no rolling update to default")
}

func TestDaemonSetValidation(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(ds *appsv1.DaemonSet)
		want   []string
	}{
		{"valid", func(*appsv1.DaemonSet) {}, nil},
		{"selector does not match", func(ds *appsv1.DaemonSet) { ds.Spec.Template.Labels = map[string]string{"app": "other"} },
			[]string{"spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"other\"}: `selector` does not match template `labels`"}},
		{"empty selector", func(ds *appsv1.DaemonSet) { ds.Spec.Selector = &metav1.LabelSelector{} },
			[]string{"spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for daemonset"}},
		{"template restartPolicy", func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyOnFailure },
			[]string{`spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"`}},
		{"both 0", func(ds *appsv1.DaemonSet) {
			ds.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateDaemonSet{MaxUnavailable: ptr(intstr.FromInt32(0)), MaxSurge: ptr(intstr.FromString("0%"))}
		}, []string{"spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0"}},
		{"both set", func(ds *appsv1.DaemonSet) {
			ds.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateDaemonSet{MaxUnavailable: ptr(intstr.FromInt32(1)), MaxSurge: ptr(intstr.FromInt32(1))}
		}, []string{"spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: intstr.IntOrString{Type:0, IntVal:1, StrVal:\"\"}: may not be set when maxUnavailable is non-zero"}},
		{"surge only", func(ds *appsv1.DaemonSet) {
			ds.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateDaemonSet{MaxUnavailable: ptr(intstr.FromInt32(0)), MaxSurge: ptr(intstr.FromString("10%"))}
		}, nil},
		{"over 100%", func(ds *appsv1.DaemonSet) {
			ds.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateDaemonSet{MaxUnavailable: ptr(intstr.FromString("150%"))}
		}, []string{"spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:\"150%\"}: must not be greater than 100%"}},
		{"bad strategy", func(ds *appsv1.DaemonSet) { ds.Spec.UpdateStrategy.Type = "Surge" },
			[]string{`spec.updateStrategy: Unsupported value: v1.DaemonSetUpdateStrategy{Type:"Surge", RollingUpdate:(*v1.RollingUpdateDaemonSet)(nil)}: supported values: "RollingUpdate", "OnDelete"`}},
		{"negative history", func(ds *appsv1.DaemonSet) { ds.Spec.RevisionHistoryLimit = ptr(int32(-1)) },
			[]string{"spec.revisionHistoryLimit: Invalid value: -1: must be greater than or equal to 0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds := validDaemonSet()
			tc.mutate(ds)
			assert.Equal(t, tc.want, create(t, "daemonsets", ds))
		})
	}

	old := validDaemonSet()
	mustNoErrors(t, create(t, "daemonsets", old))
	changed := old.DeepCopy()
	changed.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "agent", "tier": "x"}}
	changed.Spec.Template.Labels["tier"] = "x"
	assert.Equal(t, []string{`spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"agent", "tier":"x"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable`},
		update(t, "daemonsets", changed, old))
}

func TestDaemonSetTable(t *testing.T) {
	r := builtin(t, "daemonsets")
	assert.Equal(t, []string{"ds"}, r.ShortNames)
	assert.Equal(t, []string{"all"}, r.Categories)
	assert.True(t, r.StatusSubresource)
	var names []string
	for _, c := range r.Table.Columns {
		if c.Priority == 0 {
			names = append(names, c.Name)
		}
	}
	assert.Equal(t, []string{"Name", "Desired", "Current", "Ready", "Up-to-date", "Available", "Node Selector", "Age"}, names)
	ds := validDaemonSet()
	ds.CreationTimestamp = ago(2 * time.Minute)
	ds.Spec.Template.Spec.NodeSelector = map[string]string{"zone": "b", "disk": "ssd"}
	ds.Status = appsv1.DaemonSetStatus{DesiredNumberScheduled: 3, CurrentNumberScheduled: 3, NumberReady: 2, UpdatedNumberScheduled: 1, NumberAvailable: 2}
	assert.Equal(t, []any{"agent", int64(3), int64(3), int64(2), int64(1), int64(2), "disk=ssd,zone=b", "2m", "nginx", "nginx:1.27", "app=agent"},
		r.Table.Cells(ds, tableNow))
	assert.Equal(t, "<none>", formatLabels(nil))
}

func TestAffinityValidation(t *testing.T) {
	req := func(terms ...corev1.NodeSelectorTerm) *corev1.Affinity {
		return &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: terms}}}
	}
	expr := func(key string, op corev1.NodeSelectorOperator, values ...string) corev1.NodeSelectorTerm {
		return corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: key, Operator: op, Values: values}}}
	}
	fieldReq := func(key string, op corev1.NodeSelectorOperator, values ...string) corev1.NodeSelectorTerm {
		return corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{{Key: key, Operator: op, Values: values}}}
	}
	const rp = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
	for _, tc := range []struct {
		name     string
		affinity *corev1.Affinity
		want     []string
	}{
		{"valid", req(expr("disk", corev1.NodeSelectorOpIn, "ssd"), fieldReq("metadata.name", corev1.NodeSelectorOpIn, "node-1")), nil},
		{"no terms", req(), []string{rp + ": Required value: must have at least one node selector term"}},
		{"In without values", req(expr("disk", corev1.NodeSelectorOpIn)), []string{rp + "[0].matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'"}},
		{"Exists with values", req(expr("disk", corev1.NodeSelectorOpExists, "x")), []string{rp + "[0].matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"}},
		{"Gt with two values", req(expr("cores", corev1.NodeSelectorOpGt, "1", "2")), []string{rp + "[0].matchExpressions[0].values: Required value: must be specified single value when `operator` is 'Lt' or 'Gt'"}},
		{"bad operator", req(expr("disk", "Like", "x")), []string{rp + `[0].matchExpressions[0].operator: Invalid value: "Like": not a valid selector operator`}},
		{"field other than the name", req(fieldReq("spec.podCIDR", corev1.NodeSelectorOpIn, "x")), []string{rp + `[0].matchFields[0].key: Invalid value: "spec.podCIDR": not a valid field selector key`}},
		{"two node names", req(fieldReq("metadata.name", corev1.NodeSelectorOpIn, "a", "b")), []string{rp + "[0].matchFields[0].values: Required value: must be only one value when `operator` is 'In' or 'NotIn' for node field selector"}},
		{"bad weight", &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{Weight: 0, Preference: expr("disk", corev1.NodeSelectorOpIn, "ssd")}}}},
			[]string{"spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 0: must be in the range 1-100"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := validPod()
			p.Spec.Affinity = tc.affinity
			assert.Equal(t, tc.want, create(t, "pods", p))
		})
	}
}
