package kinds

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The tables of PodDisruptionBudgets, ResourceQuotas, LimitRanges,
// PriorityClasses and EndpointSlices print as kubectl's printers do.
func TestPolicyTables(t *testing.T) {
	objs := sampleObjects()
	for _, tc := range []struct {
		resource string
		want     []any
	}{
		{"poddisruptionbudgets", []any{"x", "50%", "N/A", int64(1), "3h"}},
		{"resourcequotas", []any{"x", "3h", "pods: 1/2", "limits.cpu: 0/2"}},
		{"limitranges", nil},
		{"priorityclasses", []any{"x", int64(1000), false, "3h", "PreemptLowerPriority"}},
		{"endpointslices", []any{"x", "IPv4", "80", "10.0.0.1,10.0.0.2", "3h"}},
	} {
		for _, r := range Builtin() {
			if r.Name != tc.resource {
				continue
			}
			got := r.Table.Cells(objs[tc.resource], tableNow)
			if tc.resource == "limitranges" {
				assert.Equal(t, "x", got[0])
				assert.Regexp(t, `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`, got[1])
				continue
			}
			assert.Equal(t, tc.want, got, tc.resource)
		}
	}
	assert.Equal(t, "1,2,3 + 2 more...", listWithMore([]string{"1", "2", "3", "4", "5"}, 3))
	assert.Equal(t, "<unset>", listWithMore(nil, 3))
}
