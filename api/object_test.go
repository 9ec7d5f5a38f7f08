package api

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestObjectHelpers(t *testing.T) {
	pod := &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: metav1.ObjectMeta{Name: "p", Labels: map[string]string{"a": "b"}}}
	var o Object = pod
	assert.Same(t, &pod.ObjectMeta, Meta(o), "Meta is the object's own metadata")
	assert.Same(t, &pod.TypeMeta, TypeMetaOf(o))
	c := DeepCopy(o)
	require.IsType(t, pod, c)
	Meta(c).Labels["a"] = "changed"
	TypeMetaOf(c).Kind = "Changed"
	assert.Equal(t, "b", pod.Labels["a"], "the copy shares nothing")
	assert.Equal(t, "Pod", pod.Kind)

	list := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "7"}, Items: []corev1.Pod{{ObjectMeta: metav1.ObjectMeta{Name: "a"}}, {ObjectMeta: metav1.ObjectMeta{Name: "b"}}}}
	items := Items(list)
	require.Len(t, items, 2)
	Meta(items[0]).Name = "via-items"
	assert.Equal(t, "via-items", list.Items[0].Name, "items point into the list")
	assert.Same(t, &list.ListMeta, ListMetaOf(list))
	assert.Empty(t, Items(&corev1.PodList{}))
}
