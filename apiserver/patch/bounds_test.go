package patch

import (
	"encoding/json"
	"fmt"
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

// TestJSONPatchCopiesAreBounded: 21 copies of the document into itself
// (1.8 KB of patch) once grew an object past 6 GiB. The copies now stop at
// MaxCopyBytes with evanphx/json-patch's message, allocating about what
// they copied.
func TestJSONPatchCopiesAreBounded(t *testing.T) {
	doc := `{"metadata":{"name":"x"},"data":{"a":"` + strings.Repeat("x", 1000) + `"}}`
	var ops []string
	for i := range 21 {
		ops = append(ops, fmt.Sprintf(`{"op":"copy","from":"/data","path":"/data/c%d"}`, i))
	}
	body := "[" + strings.Join(ops, ",") + "]"
	var err error
	alloc := allocatedBy(func() { _, err = JSONPatch([]byte(doc), []byte(body)) })
	var perr *Error
	require.ErrorAs(t, err, &perr)
	require.Equal(t, 422, perr.Code)
	require.Regexp(t, `^Unable to complete the copy, the accumulated size increase of copy is \d+, exceeding the limit 3145728$`, perr.Message)
	require.Less(t, alloc, uint64(64<<20), "refusing the copies allocated %d bytes", alloc)

	// Copies under the limit still work.
	out, err := JSONPatch([]byte(doc), []byte(`[{"op":"copy","from":"/data/a","path":"/data/b"}]`))
	require.NoError(t, err)
	require.Contains(t, string(out), `"b":"xxx`)
}

func TestJSONSizeUpTo(t *testing.T) {
	for _, doc := range []string{`{}`, `[]`, `{"a":1,"b":[true,null,"x\"y"],"c":{"d":1.5}}`, `[{},[],""]`} {
		v, err := decodeJSON([]byte(doc))
		require.NoError(t, err)
		want, _ := json.Marshal(v)
		size, ok := jsonSizeUpTo(v, 1<<20)
		require.True(t, ok)
		require.Equal(t, len(want), size, doc)
		_, ok = jsonSizeUpTo(v, len(want)-1)
		require.False(t, ok || len(want) == 0, doc)
	}
}

// FuzzPatchCostIsBounded runs every patch type and apply over a document
// and a patch, and fails when one allocates more than a fixed multiple of
// its input (plus what it may copy): the bound that kept the copy bomb and
// the deep apply from taking the server's memory. The seeds are those
// inputs.
func FuzzPatchCostIsBounded(f *testing.F) {
	copies := make([]string, 21)
	for i := range copies {
		copies[i] = fmt.Sprintf(`{"op":"copy","from":"/data","path":"/data/c%d"}`, i)
	}
	f.Add([]byte(`{"metadata":{"name":"x"},"data":{"a":"`+strings.Repeat("x", 1000)+`"}}`), []byte("["+strings.Join(copies, ",")+"]"))
	f.Add([]byte(`{"metadata":{"name":"x"}}`), []byte(deepObject(3000)))
	f.Add([]byte(deepObject(2000)), []byte(`{"spec":{"a":{"a":null}}}`))
	f.Add([]byte(`{"metadata":{"name":"x"},"spec":{"containers":[{"name":"a"}]}}`), []byte(`{"spec":{"$patch":"bogus"}}`))
	f.Fuzz(func(t *testing.T, doc, p []byte) {
		cur, err := DecodeObject(doc)
		if err != nil {
			return
		}
		in := uint64(len(doc) + len(p))
		// 64 KiB of fixed cost, 4 KiB per input byte, and the copies a JSON
		// patch may make (MaxCopyBytes, counted a few times over for the
		// decoded values and the encoded result).
		limit := 64<<10 + 4096*in + 8*MaxCopyBytes
		check := func(name string, fn func()) {
			if a := allocatedBy(fn); a > limit {
				t.Fatalf("%s allocated %d bytes for %d input bytes", name, a, in)
			}
		}
		check("json patch", func() { _, _ = JSONPatch(doc, p) })
		check("merge patch", func() { _, _ = MergePatch(doc, p) })
		check("strategic merge patch", func() {
			if pm, err := DecodeObject(p); err == nil {
				_, _ = StrategicMergePatch(cur, pm, nil)
			}
		})
		check("apply", func() {
			if applied, err := DecodeObject(p); err == nil {
				if out, managed, err := Apply(cur, applied, "m", nil, false, nil, t0); err == nil {
					_ = UpdateManagedFields(cur, out, "e", managed, nil, t1)
				}
			}
		})
	})
}
