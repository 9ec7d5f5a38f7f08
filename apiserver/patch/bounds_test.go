package patch

import (
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// deepObject is an object whose spec nests depth objects: the shape that
// made the old path-per-field set quadratic.
func deepObject(depth int) string {
	return `{"apiVersion":"v1","kind":"Deep","metadata":{"name":"d"},"spec":` +
		strings.Repeat(`{"a":`, depth) + `1` + strings.Repeat(`}`, depth) + `}`
}

// allocatedBy reports the bytes fn allocates (a count, not a time: the
// same on a busy machine).
func allocatedBy(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestApplyCostIsLinearInDepth applies (creates, re-applies with a change,
// and records an update of) objects nested ever deeper and checks that the
// bytes allocated per input byte stay flat: with a quadratic field set
// they grow with the depth (depth 2,000 took 731 MiB).
func TestApplyCostIsLinearInDepth(t *testing.T) {
	perByte := map[int]float64{}
	for _, depth := range []int{500, 3000} {
		body := deepObject(depth)
		changed := strings.Replace(body, `1}`, `2}`, 1)
		var out map[string]any
		alloc := allocatedBy(func() {
			applied, err := DecodeObject([]byte(body))
			require.NoError(t, err)
			res, managed, err := Apply(nil, applied, "m", nil, false, nil, t0)
			require.NoError(t, err)
			again, err := DecodeObject([]byte(changed))
			require.NoError(t, err)
			out, managed, err = Apply(res, again, "m", managed, false, nil, t1)
			require.NoError(t, err)
			_ = UpdateManagedFields(res, out, "editor", managed, nil, t2)
		})
		perByte[depth] = float64(alloc) / float64(len(body))
		t.Logf("depth %d: %d bytes in, %.1f MiB allocated, %.0f bytes per input byte", depth, len(body), float64(alloc)/(1<<20), perByte[depth])
		require.NotNil(t, out)
	}
	// Six times deeper may cost a little more per byte (maps grow in
	// steps), never six times more.
	require.Less(t, perByte[3000], 2*perByte[500], "apply's allocations grow faster than the object")
	require.Less(t, perByte[3000], 4000.0, "apply allocates too much per input byte")
}
