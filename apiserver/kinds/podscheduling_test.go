package kinds

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
)

func TestPodSchedulingValidation(t *testing.T) {
	term := func(key string) corev1.PodAffinityTerm {
		return corev1.PodAffinityTerm{TopologyKey: key, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}
	}
	spread := func(mut func(*corev1.TopologySpreadConstraint)) func(p *corev1.Pod) {
		return func(p *corev1.Pod) {
			c := corev1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: corev1.LabelHostname, WhenUnsatisfiable: corev1.DoNotSchedule,
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}
			mut(&c)
			p.Spec.TopologySpreadConstraints = append(p.Spec.TopologySpreadConstraints, c)
		}
	}
	bogus := corev1.NodeInclusionPolicy("Sometimes")
	for _, tc := range []struct {
		name   string
		mutate func(p *corev1.Pod)
		want   []string
	}{
		{"a valid anti-affinity", func(p *corev1.Pod) {
			p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{term(corev1.LabelHostname)}}}
		}, nil},
		{"a required term without topologyKey", func(p *corev1.Pod) {
			p.Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{term("")}}}
		}, []string{
			"spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Required value: can not be empty",
			`spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Invalid value: "": name part must be non-empty`,
			`spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Invalid value: "": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
		}},
		{"a preferred term weighted 0", func(p *corev1.Pod) {
			p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
				PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{PodAffinityTerm: term("zone")}}}}
		}, []string{"spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 0: must be in the range 1-100"}},
		{"a key in matchLabelKeys and mismatchLabelKeys", func(p *corev1.Pod) {
			t := term("zone")
			t.MatchLabelKeys, t.MismatchLabelKeys = []string{"tenant"}, []string{"tenant"}
			p.Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{t}}}
		}, []string{`spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].matchLabelKeys[0]: Invalid value: "tenant": exists in both matchLabelKeys and mismatchLabelKeys`}},
		{"matchLabelKeys without labelSelector", func(p *corev1.Pod) {
			t := corev1.PodAffinityTerm{TopologyKey: "zone", MatchLabelKeys: []string{"tenant"}}
			p.Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{t}}}
		}, []string{"spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].matchLabelKeys: Forbidden: must not be specified when labelSelector is not set"}},
		{"a bad selector operator", func(p *corev1.Pod) {
			t := term("zone")
			t.LabelSelector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "tier", Operator: "Near"}}
			p.Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{t}}}
		}, []string{`spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchExpressions[0].operator: Invalid value: "Near": not a valid selector operator`}},
		{"a valid spread constraint", spread(func(*corev1.TopologySpreadConstraint) {}), nil},
		{"maxSkew 0 and no topologyKey", spread(func(c *corev1.TopologySpreadConstraint) { c.MaxSkew, c.TopologyKey = 0, "" }), []string{
			"spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero",
			"spec.topologySpreadConstraints[0].topologyKey: Required value: can not be empty",
		}},
		{"an unknown whenUnsatisfiable", spread(func(c *corev1.TopologySpreadConstraint) { c.WhenUnsatisfiable = "Maybe" }),
			[]string{`spec.topologySpreadConstraints[0].whenUnsatisfiable: Unsupported value: "Maybe": supported values: "DoNotSchedule", "ScheduleAnyway"`}},
		{"minDomains with ScheduleAnyway, and not positive", spread(func(c *corev1.TopologySpreadConstraint) {
			c.WhenUnsatisfiable, c.MinDomains = corev1.ScheduleAnyway, ptr(int32(0))
		}), []string{
			"spec.topologySpreadConstraints[0].minDomains: Invalid value: 0: must be greater than zero",
			"spec.topologySpreadConstraints[0].minDomains: Invalid value: 0: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway",
		}},
		{"an unknown node inclusion policy", spread(func(c *corev1.TopologySpreadConstraint) { c.NodeTaintsPolicy = &bogus }),
			[]string{`spec.topologySpreadConstraints[0].nodeTaintsPolicy: Unsupported value: "Sometimes": supported values: "Honor", "Ignore"`}},
		{"matchLabelKeys repeating the selector", spread(func(c *corev1.TopologySpreadConstraint) { c.MatchLabelKeys = []string{"app"} }),
			[]string{`spec.topologySpreadConstraints[0].matchLabelKeys[0]: Invalid value: "app": exists in both matchLabelKeys and labelSelector`}},
		{"one constraint twice", func(p *corev1.Pod) {
			spread(func(*corev1.TopologySpreadConstraint) {})(p)
			spread(func(c *corev1.TopologySpreadConstraint) { c.MaxSkew = 2 })(p)
		}, []string{`spec.topologySpreadConstraints[0].{topologyKey, whenUnsatisfiable}: Duplicate value: "{kubernetes.io/hostname, DoNotSchedule}"`}},
		{"scheduling gates named twice, one badly", func(p *corev1.Pod) {
			p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "example.com/quota"}, {Name: "example.com/quota"}, {Name: "-bad"}}
		}, []string{
			`spec.schedulingGates[1]: Duplicate value: "example.com/quota"`,
			`spec.schedulingGates[2]: Invalid value: "-bad": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
		}},
		{"a gated pod naming its node", func(p *corev1.Pod) {
			p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "example.com/quota"}}
			p.Spec.NodeName = "node-1"
		}, []string{"spec.nodeName: Forbidden: cannot be set until all schedulingGates have been cleared"}},
		{"a readiness gate that is no qualified name", func(p *corev1.Pod) {
			p.Spec.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: "has space"}}
		}, []string{`spec.readinessGates[0].conditionType: Invalid value: "has space": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := validPod()
			tc.mutate(p)
			assert.Equal(t, tc.want, create(t, "pods", p))
		})
	}
}

func TestSchedulingGatesMayOnlyBeRemoved(t *testing.T) {
	old := validPod()
	old.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "example.com/a"}, {Name: "example.com/b"}}
	mustNoErrors(t, create(t, "pods", old))
	for _, tc := range []struct {
		name  string
		gates []corev1.PodSchedulingGate
		want  []string
	}{
		{"one removed", []corev1.PodSchedulingGate{{Name: "example.com/b"}}, nil},
		{"all removed", nil, nil},
		{"one added", []corev1.PodSchedulingGate{{Name: "example.com/a"}, {Name: "example.com/b"}, {Name: "example.com/c"}},
			[]string{"spec.schedulingGates[2].name: Forbidden: only deletion is allowed, but found new scheduling gate 'example.com/c'"}},
		{"one swapped", []corev1.PodSchedulingGate{{Name: "example.com/a"}, {Name: "example.com/z"}},
			[]string{"spec.schedulingGates[1].name: Forbidden: only deletion is allowed, but found new scheduling gate 'example.com/z'"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := api.DeepCopy(old).(*corev1.Pod)
			p.Spec.SchedulingGates = tc.gates
			assert.Equal(t, tc.want, update(t, "pods", p, old))
		})
	}
	ungated := api.DeepCopy(old).(*corev1.Pod)
	ungated.Spec.SchedulingGates = nil
	assert.Equal(t, []string{
		"spec.schedulingGates[0].name: Forbidden: only deletion is allowed, but found new scheduling gate 'example.com/a'",
		"spec.schedulingGates[1].name: Forbidden: only deletion is allowed, but found new scheduling gate 'example.com/b'",
	}, update(t, "pods", old, ungated), "gates may not come back")
}

func TestApplyMatchLabelKeys(t *testing.T) {
	p := validPod()
	p.Labels = map[string]string{"app": "web", "pod-template-hash": "abc", "tenant": "red"}
	t1 := corev1.PodAffinityTerm{TopologyKey: corev1.LabelHostname, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
		MatchLabelKeys: []string{"pod-template-hash", "missing"}, MismatchLabelKeys: []string{"tenant"}}
	t2 := corev1.PodAffinityTerm{TopologyKey: corev1.LabelHostname, MatchLabelKeys: nil}
	p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution:  []corev1.PodAffinityTerm{t1, t2},
		PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{Weight: 1, PodAffinityTerm: *t1.DeepCopy()}},
	}}
	applyMatchLabelKeys(p)
	want := []metav1.LabelSelectorRequirement{
		{Key: "pod-template-hash", Operator: metav1.LabelSelectorOpIn, Values: []string{"abc"}},
		{Key: "tenant", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"red"}},
	}
	paa := p.Spec.Affinity.PodAntiAffinity
	assert.Equal(t, want, paa.RequiredDuringSchedulingIgnoredDuringExecution[0].LabelSelector.MatchExpressions)
	assert.Nil(t, paa.RequiredDuringSchedulingIgnoredDuringExecution[1].LabelSelector, "a term selecting nothing stays so")
	assert.Equal(t, want, paa.PreferredDuringSchedulingIgnoredDuringExecution[0].PodAffinityTerm.LabelSelector.MatchExpressions)
	assert.Equal(t, []string{"pod-template-hash", "missing"}, paa.RequiredDuringSchedulingIgnoredDuringExecution[0].MatchLabelKeys, "the keys stay")
}

func TestGatedPodIsCreatedSchedulingGated(t *testing.T) {
	p := validPod()
	p.CreationTimestamp = ago(0)
	p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "example.com/quota"}}
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}} // the client's, dropped
	mustNoErrors(t, create(t, "pods", p))
	assert.Equal(t, []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "SchedulingGated",
		Message: "Scheduling is blocked due to non-empty scheduling gates", LastTransitionTime: p.CreationTimestamp}}, p.Status.Conditions)
	cells := podTable().Cells(p, tableNow)
	assert.Equal(t, "SchedulingGated", cells[2], "STATUS")

	plain := validPod()
	mustNoErrors(t, create(t, "pods", plain))
	assert.Empty(t, plain.Status.Conditions)
}

func TestReadinessGatesColumn(t *testing.T) {
	for _, tc := range []struct {
		name  string
		gates []corev1.PodReadinessGate
		conds []corev1.PodCondition
		want  string
	}{
		{"no gates", nil, nil, "<none>"},
		{"a gate without its condition", []corev1.PodReadinessGate{{ConditionType: "example.com/lb"}}, nil, "0/1"},
		{"a gate whose condition is False", []corev1.PodReadinessGate{{ConditionType: "example.com/lb"}},
			[]corev1.PodCondition{{Type: "example.com/lb", Status: corev1.ConditionFalse}}, "0/1"},
		{"one of two met", []corev1.PodReadinessGate{{ConditionType: "example.com/lb"}, {ConditionType: "example.com/dns"}},
			[]corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}, {Type: "example.com/dns", Status: corev1.ConditionTrue}}, "1/2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := validPod()
			p.Spec.ReadinessGates, p.Status.Conditions = tc.gates, tc.conds
			table := podTable()
			cells := table.Cells(p, tableNow)
			assert.Equal(t, "Readiness Gates", table.Columns[len(table.Columns)-1].Name)
			assert.Equal(t, tc.want, cells[len(cells)-1])
		})
	}
}
