package controllers

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
)

const hashLabel = "controller.kubernetes.io/hash"

func rev(name string, n int64, data string) *appsv1.ControllerRevision {
	return &appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Name: name}, Revision: n, Data: runtime.RawExtension{Raw: json.RawMessage(data)}}
}

func revNames(rs []*appsv1.ControllerRevision) []string {
	out := []string{}
	for _, r := range rs {
		out = append(out, r.Name)
	}
	return out
}

func TestTemplatePatchAndRevisionTemplate(t *testing.T) {
	tmpl := &corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}}}
	data, err := TemplatePatch(tmpl)
	require.NoError(t, err)
	assert.JSONEq(t, `{"spec":{"template":{"$patch":"replace","metadata":{"creationTimestamp":null,"labels":{"app":"web"}},
		"spec":{"containers":[{"name":"web","image":"nginx","resources":{}}]}}}}`, string(data))
	back, err := RevisionTemplate(&appsv1.ControllerRevision{Data: runtime.RawExtension{Raw: data}})
	require.NoError(t, err)
	assert.Equal(t, tmpl, back)
	_, err = RevisionTemplate(&appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Name: "x"}, Data: runtime.RawExtension{Raw: json.RawMessage(`{}`)}})
	assert.EqualError(t, err, "revision x holds no template")
}

func TestRevisionsToPrune(t *testing.T) {
	history := func(n int) []*appsv1.ControllerRevision {
		var out []*appsv1.ControllerRevision
		for i := 1; i <= n; i++ {
			out = append(out, rev(fmt.Sprintf("web-%d", i), int64(i), `{}`))
		}
		return out
	}
	lim := func(n int32) *int32 { return &n }
	assert.Equal(t, []string{}, revNames(RevisionsToPrune(history(5), map[string]bool{"web-5": true}, lim(10))))
	assert.Equal(t, []string{"web-1", "web-3"}, revNames(RevisionsToPrune(history(5), map[string]bool{"web-2": true, "web-5": true}, lim(1))),
		"live revisions stay whatever their age")
	assert.Equal(t, []string{"web-1", "web-2"}, revNames(RevisionsToPrune(history(13), map[string]bool{"web-13": true}, nil)), "default 10")
}

func TestHashControllerRevision(t *testing.T) {
	zero, one := int32(0), int32(1)
	cases := []struct {
		name      string
		data      string
		collision *int32
		want      string
	}{
		// FNV-32 (not 32a) of "abc" is 1134309195 (computed apart from Go); of "abc0" 3118363425.
		{"data alone", "abc", nil, encodeDigits(1134309195)},
		{"with collision count 0", "abc", &zero, encodeDigits(3118363425)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, HashControllerRevision([]byte(c.data), c.collision))
		})
	}
	assert.NotEqual(t, HashControllerRevision([]byte("abc"), &zero), HashControllerRevision([]byte("abc"), &one), "a collision gives another name")
	assert.Regexp(t, `^[bcdfghjklmnpqrstvwxz2456789]+$`, HashControllerRevision([]byte("abc"), nil))
}

// encodeDigits is SafeEncodeString of n's decimal digits, spelled out:
// each digit d becomes alphabet[int('0'+d) % 27].
func encodeDigits(n uint32) string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	s := fmt.Sprint(n)
	out := make([]byte, len(s))
	for i := range s {
		out[i] = alphabet[int(s[i])%len(alphabet)]
	}
	return string(out)
}

func TestControllerRevisionNameCutsTheOwnerName(t *testing.T) {
	assert.Equal(t, "web-abc", ControllerRevisionName("web", "abc"))
	long := string(make([]byte, 300))
	assert.Len(t, ControllerRevisionName(long, "abc"), 223+1+3)
}

func TestSortMaxAndEqualRevisions(t *testing.T) {
	rs := []*appsv1.ControllerRevision{rev("c", 3, `3`), rev("a", 1, `1`), rev("b", 2, `1`)}
	SortControllerRevisions(rs)
	assert.Equal(t, []string{"a", "b", "c"}, revNames(rs))
	assert.Equal(t, int64(3), MaxRevision(rs))
	assert.Equal(t, int64(0), MaxRevision(nil))
	assert.Equal(t, []string{"a", "b"}, revNames(FindEqualRevisions(rs, rev("new", 9, `1`), hashLabel)))
	assert.True(t, EqualRevision(nil, nil, hashLabel))
	assert.False(t, EqualRevision(rs[0], nil, hashLabel))
	x, y := rev("x", 1, `1`), rev("y", 1, `1`)
	x.Labels = map[string]string{hashLabel: "h1"}
	y.Labels = map[string]string{hashLabel: "h2"}
	assert.False(t, EqualRevision(x, y, hashLabel), "different hashes are different revisions")
}
