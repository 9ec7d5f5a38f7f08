package kinds

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestRuntimeClassValidationAndTable(t *testing.T) {
	st := runtimeClassStrategy{}
	good := &nodev1.RuntimeClass{ObjectMeta: metav1.ObjectMeta{Name: "kata"}, Handler: "kata-qemu",
		Overhead:   &nodev1.Overhead{PodFixed: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m")}},
		Scheduling: &nodev1.Scheduling{NodeSelector: map[string]string{"runtime": "kata"}}}
	assert.Empty(t, st.Validate(good))

	fieldsOf := func(rc *nodev1.RuntimeClass) []string {
		var out []string
		for _, e := range st.Validate(rc) {
			out = append(out, e.Field)
		}
		return out
	}
	bad := good.DeepCopy()
	bad.Handler = "Kata_QEMU"
	bad.Overhead.PodFixed[corev1.ResourceCPU] = resource.MustParse("-1")
	bad.Scheduling.Tolerations = []corev1.Toleration{{Key: "k", Operator: "Sometimes"}}
	assert.Equal(t, []string{"handler", "overhead.limits[cpu]", "scheduling.tolerations[0].operator"}, fieldsOf(bad))
	assert.NotEmpty(t, fieldsOf(&nodev1.RuntimeClass{ObjectMeta: metav1.ObjectMeta{Name: "empty"}}), "a handler is required")

	changed := good.DeepCopy()
	changed.Handler = "runc"
	errs := st.ValidateUpdate(changed, good)
	require.Len(t, errs, 1)
	assert.Equal(t, "handler", errs[0].Field)

	r := builtin(t, "runtimeclasses")
	assert.Equal(t, NodeGroupName, r.Group)
	assert.False(t, r.Namespaced)
	var cols []string
	for _, c := range r.Table.Columns {
		cols = append(cols, c.Name)
	}
	assert.Equal(t, []string{"Name", "Handler", "Age"}, cols)
}
