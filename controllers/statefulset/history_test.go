package statefulset

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/api"
)

func TestPatchReplacesTheTemplate(t *testing.T) {
	s := set(3, "", 0)
	data, err := Patch(s)
	require.NoError(t, err)
	assert.JSONEq(t, `{"spec":{"template":{"$patch":"replace","metadata":{"creationTimestamp":null,"labels":{"app":"web"}},
		"spec":{"containers":[{"name":"web","image":"nginx","resources":{}}]}}}}`, string(data))
	again, err := Patch(s)
	require.NoError(t, err)
	assert.Equal(t, string(data), string(again), "the same template gives the same bytes")
}

func TestNewRevisionAndApplyRevision(t *testing.T) {
	s := set(3, "", 0)
	s.UID = "uid-1"
	s.Annotations = map[string]string{"kubernetes.io/change-cause": "first"}
	zero := int32(0)
	cr, err := NewRevision(s, 4, &zero)
	require.NoError(t, err)
	assert.Equal(t, Revision(s), cr.Name, "Revision names what NewRevision makes")
	assert.Equal(t, int64(4), cr.Revision)
	assert.Equal(t, "web", cr.Labels["app"], "labelled like the template")
	assert.Equal(t, cr.Name, "web-"+cr.Labels[ControllerRevisionHashLabel])
	assert.Equal(t, "first", cr.Annotations["kubernetes.io/change-cause"], "annotated like the set")
	assert.Equal(t, types.UID("uid-1"), api.GetControllerOf(&cr.ObjectMeta).UID)

	changed := s.DeepCopy()
	changed.Spec.Template.Spec.Containers[0].Image = "nginx:2"
	changed.Spec.Template.Labels["extra"] = "yes"
	back, err := ApplyRevision(changed, cr)
	require.NoError(t, err)
	assert.Equal(t, s.Spec.Template, back.Spec.Template, "the revision's template replaces the set's")
	assert.Equal(t, "nginx:2", changed.Spec.Template.Spec.Containers[0].Image, "the set itself is not changed")

	_, err = ApplyRevision(s, &appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Name: "x"}, Data: runtime.RawExtension{Raw: json.RawMessage(`{}`)}})
	assert.EqualError(t, err, "revision x holds no template")
}

func rev(name string, n int64, data string) *appsv1.ControllerRevision {
	return &appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Name: name}, Revision: n, Data: runtime.RawExtension{Raw: json.RawMessage(data)}}
}

func names(rs []*appsv1.ControllerRevision) []string {
	out := []string{}
	for _, r := range rs {
		out = append(out, r.Name)
	}
	return out
}

func TestNextRevision(t *testing.T) {
	assert.Equal(t, int64(4), NextRevision([]*appsv1.ControllerRevision{rev("c", 3, `3`), rev("a", 1, `1`)}))
	assert.Equal(t, int64(1), NextRevision(nil))
}

func TestRevisionsToPrune(t *testing.T) {
	limit := func(n int32) *appsv1.StatefulSet {
		s := set(3, "", 0)
		s.Spec.RevisionHistoryLimit = &n
		return s
	}
	history := func(n int) []*appsv1.ControllerRevision {
		var out []*appsv1.ControllerRevision
		for i := 1; i <= n; i++ {
			out = append(out, rev(fmt.Sprintf("web-%d", i), int64(i), `{}`))
		}
		return out
	}
	cases := []struct {
		name            string
		set             *appsv1.StatefulSet
		pods            []*corev1.Pod
		revisions       int
		current, update string
		want            []string
	}{
		{"within the limit", limit(10), nil, 5, "web-4", "web-5", []string{}},
		{"limit 0 keeps only live ones", limit(0), nil, 4, "web-3", "web-4", []string{"web-1", "web-2"}},
		{"oldest first beyond the limit", limit(1), nil, 5, "web-5", "web-5", []string{"web-1", "web-2", "web-3"}},
		{"a pod's revision is live", limit(0), []*corev1.Pod{pod("web-0", "ok", "web-1")}, 3, "web-3", "web-3", []string{"web-2"}},
		{"default limit 10", set(3, "", 0), nil, 13, "web-13", "web-13", []string{"web-1", "web-2"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, names(RevisionsToPrune(c.set, c.pods, history(c.revisions), c.current, c.update)))
		})
	}
}
