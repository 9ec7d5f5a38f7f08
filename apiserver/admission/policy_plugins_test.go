package admission

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
)

var podsGVR = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

func podCreate(pod *corev1.Pod) *Attributes {
	return &Attributes{Operation: Create, Resource: podsGVR, Namespace: "ns", Name: pod.Name, Object: pod}
}

func container(name string, requests, limits corev1.ResourceList) corev1.Container {
	return corev1.Container{Name: name, Image: "nginx", Resources: corev1.ResourceRequirements{Requests: requests, Limits: limits}}
}

func rl(pairs ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i+1 < len(pairs); i += 2 {
		out[corev1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
	}
	return out
}

func TestPriority(t *testing.T) {
	never := corev1.PreemptNever
	classes := []*schedulingv1.PriorityClass{
		{ObjectMeta: metav1.ObjectMeta{Name: "high"}, Value: 1000},
		{ObjectMeta: metav1.ObjectMeta{Name: "batch"}, Value: 10, PreemptionPolicy: &never},
	}
	plugin := func(extra ...*schedulingv1.PriorityClass) *Priority {
		all := append(append([]*schedulingv1.PriorityClass{}, classes...), extra...)
		return &Priority{List: func(context.Context) ([]*schedulingv1.PriorityClass, error) { return all, nil }}
	}
	mk := func(class string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "x", Namespace: "ns"},
			Spec: corev1.PodSpec{PriorityClassName: class, Containers: []corev1.Container{container("c", nil, nil)}}}
	}
	for _, tc := range []struct {
		name      string
		plugin    *Priority
		pod       *corev1.Pod
		wantClass string
		want      int32
		policy    corev1.PreemptionPolicy
		err       string
	}{
		{"named class", plugin(), mk("high"), "high", 1000, corev1.PreemptLowerPriority, ""},
		{"class that never preempts", plugin(), mk("batch"), "batch", 10, corev1.PreemptNever, ""},
		{"no class, no default: zero", plugin(), mk(""), "", 0, corev1.PreemptLowerPriority, ""},
		{"no class: the global default", plugin(&schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "def"}, Value: 5, GlobalDefault: true}),
			mk(""), "def", 5, corev1.PreemptLowerPriority, ""},
		{"unknown class", plugin(), mk("y"), "", 0, "", `pods "x" is forbidden: no PriorityClass with name y was found`},
		{"a priority that disagrees", plugin(), func() *corev1.Pod { p := mk("high"); v := int32(7); p.Spec.Priority = &v; return p }(), "", 0, "",
			`pods "x" is forbidden: the integer value of priority (7) must not be provided in pod spec; priority admission controller computed 1000 from the given PriorityClass name`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.plugin.Admit(context.Background(), podCreate(tc.pod))
			if tc.err != "" {
				require.Error(t, err)
				assert.True(t, api.IsForbidden(err))
				assert.Equal(t, tc.err, err.Error())
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.wantClass, tc.pod.Spec.PriorityClassName)
			require.NotNil(t, tc.pod.Spec.Priority)
			assert.Equal(t, tc.want, *tc.pod.Spec.Priority)
			assert.Equal(t, tc.policy, *tc.pod.Spec.PreemptionPolicy)
		})
	}
	// A second global default is refused.
	p := plugin(&schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "def"}, GlobalDefault: true})
	err := p.Validate(context.Background(), &Attributes{Operation: Create, Name: "other",
		Resource: schema.GroupVersionResource{Group: api.SchedulingGroupName, Version: "v1", Resource: "priorityclasses"},
		Object:   &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "other"}, GlobalDefault: true}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "PriorityClass def is already marked as default. Only one default can exist")
}

func TestLimitRanger(t *testing.T) {
	lr := &corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Name: "lr", Namespace: "ns"}, Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{
		Type: corev1.LimitTypeContainer, Default: rl("cpu", "500m", "memory", "256Mi"), DefaultRequest: rl("cpu", "100m", "memory", "128Mi"),
		Max: rl("cpu", "1"), Min: rl("memory", "64Mi"), MaxLimitRequestRatio: rl("memory", "4"),
	}}}}
	plugin := &LimitRanger{List: func(context.Context, string) ([]*corev1.LimitRange, error) { return []*corev1.LimitRange{lr}, nil }}
	run := func(cs ...corev1.Container) (*corev1.Pod, error) {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "x", Namespace: "ns"}, Spec: corev1.PodSpec{Containers: cs}}
		a := podCreate(pod)
		if err := plugin.Admit(context.Background(), a); err != nil {
			return pod, err
		}
		return pod, plugin.Validate(context.Background(), a)
	}

	pod, err := run(container("web", nil, nil))
	require.NoError(t, err)
	c := pod.Spec.Containers[0].Resources
	assert.Equal(t, "500m", ptrQ(c.Limits, "cpu"))
	assert.Equal(t, "128Mi", ptrQ(c.Requests, "memory"))
	assert.Equal(t, "LimitRanger plugin set: cpu, memory request for container web; cpu, memory limit for container web",
		pod.Annotations[LimitRangeAnnotation])

	pod, err = run(container("web", rl("cpu", "200m"), rl("cpu", "300m")))
	require.NoError(t, err)
	assert.Equal(t, "LimitRanger plugin set: memory request for container web; memory limit for container web",
		pod.Annotations[LimitRangeAnnotation], "what the container states stays")
	assert.Equal(t, "300m", ptrQ(pod.Spec.Containers[0].Resources.Limits, "cpu"))

	for _, tc := range []struct {
		c    corev1.Container
		want string
	}{
		{container("web", nil, rl("cpu", "2")), `pods "x" is forbidden: maximum cpu usage per Container is 1, but limit is 2.`},
		{container("web", rl("memory", "32Mi"), rl("memory", "64Mi")), `pods "x" is forbidden: minimum memory usage per Container is 64Mi, but request is 32Mi.`},
		{container("web", rl("memory", "64Mi"), rl("memory", "1Gi")), `pods "x" is forbidden: memory max limit to request ratio per Container is 4, but provided ratio is 16.000000.`},
		{container("web", rl("memory", "32Mi"), rl("cpu", "2", "memory", "64Mi")),
			`pods "x" is forbidden: [minimum memory usage per Container is 64Mi, but request is 32Mi., maximum cpu usage per Container is 1, but limit is 2.]`},
	} {
		_, err := run(tc.c)
		require.Error(t, err, tc.want)
		assert.True(t, api.IsForbidden(err))
		assert.Equal(t, tc.want, err.Error())
	}
}

func ptrQ(l corev1.ResourceList, k string) string {
	q, ok := l[corev1.ResourceName(k)]
	if !ok {
		return "<none>"
	}
	return q.String()
}

func TestResourceQuota(t *testing.T) {
	q := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "q", Namespace: "ns", ResourceVersion: "5"},
		Spec:   corev1.ResourceQuotaSpec{Hard: rl("pods", "2", "limits.cpu", "1", "configmaps", "3")},
		Status: corev1.ResourceQuotaStatus{Hard: rl("pods", "2", "limits.cpu", "1", "configmaps", "3"), Used: rl("pods", "1", "limits.cpu", "500m", "configmaps", "0")}}
	var written []*corev1.ResourceQuota
	plugin := &ResourceQuota{
		List:        func(context.Context, string) ([]*corev1.ResourceQuota, error) { return []*corev1.ResourceQuota{q}, nil },
		WriteStatus: func(_ context.Context, q *corev1.ResourceQuota) error { written = append(written, q); return nil },
	}
	mk := func(cs ...corev1.Container) *Attributes {
		return podCreate(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "x", Namespace: "ns"}, Spec: corev1.PodSpec{Containers: cs}})
	}
	// Within the quota: admitted and charged at once.
	require.NoError(t, plugin.Validate(context.Background(), mk(container("web", nil, rl("cpu", "250m")))))
	require.Len(t, written, 1)
	assert.Equal(t, "2", ptrQ(written[0].Status.Used, "pods"))
	assert.Equal(t, "750m", ptrQ(written[0].Status.Used, "limits.cpu"))
	assert.Equal(t, "1", ptrQ(q.Status.Used, "pods"), "the lister's quota is not changed")

	for _, tc := range []struct {
		a    *Attributes
		want string
	}{
		{mk(container("web", nil, nil)), `pods "x" is forbidden: failed quota: q: must specify limits.cpu for: web`},
		{mk(container("web", nil, rl("cpu", "1"))), `pods "x" is forbidden: exceeded quota: q, requested: limits.cpu=1, used: limits.cpu=500m, limited: limits.cpu=1`},
	} {
		err := plugin.Validate(context.Background(), tc.a)
		require.Error(t, err)
		assert.True(t, api.IsForbidden(err))
		assert.Equal(t, tc.want, err.Error())
	}

	full := q.DeepCopy()
	full.Status.Used = rl("pods", "2", "limits.cpu", "0", "configmaps", "0")
	plugin.List = func(context.Context, string) ([]*corev1.ResourceQuota, error) {
		return []*corev1.ResourceQuota{full}, nil
	}
	err := plugin.Validate(context.Background(), mk(container("web", nil, rl("cpu", "1"))))
	require.Error(t, err)
	assert.Equal(t, `pods "x" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2`, err.Error())

	// Other kinds count too; a dry run charges nothing.
	written = nil
	cm := &Attributes{Operation: Create, Resource: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Namespace: "ns", Name: "c",
		Object: &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "ns"}}, DryRun: true}
	require.NoError(t, plugin.Validate(context.Background(), cm))
	assert.Empty(t, written)
}

func TestPriorityKeptOnUpdate(t *testing.T) {
	p := &Priority{List: func(context.Context) ([]*schedulingv1.PriorityClass, error) { return nil, nil }}
	v, pol := int32(1000), corev1.PreemptNever
	old := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "x"}, Spec: corev1.PodSpec{Priority: &v, PreemptionPolicy: &pol}}
	upd := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "x"}}
	require.NoError(t, p.Admit(context.Background(), &Attributes{Operation: Update, Resource: podsGVR, Namespace: "ns", Name: "x", Object: upd, OldObject: old}))
	require.NotNil(t, upd.Spec.Priority)
	assert.Equal(t, int32(1000), *upd.Spec.Priority)
	assert.Equal(t, corev1.PreemptNever, *upd.Spec.PreemptionPolicy)
}
