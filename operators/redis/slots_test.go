package redis

import (
	"fmt"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func names(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("r-%d", i)
	}
	return out
}

// checkPlan proves the invariants of a plan: every slot held exactly once
// by a listed master, balanced counts, Moves consistent with the change,
// and no more slots moved than the least any balanced assignment needs.
func checkPlan(t *testing.T, current map[string][]SlotRange, masters []string, plan SlotPlan) {
	t.Helper()
	holder := make([]string, NumSlots)
	listed := map[string]bool{}
	for _, m := range masters {
		listed[m] = true
	}
	require.Len(t, plan.Assignment, len(masters))
	counts := map[string]int{}
	for m, rs := range plan.Assignment {
		require.True(t, listed[m], "slots given to an unknown master %q", m)
		last := -1
		for _, r := range rs {
			require.True(t, r.Start <= r.End && r.Start > last, "%s: ranges ascending and merged: %v", m, rs)
			require.False(t, r.Start == last+1 && last >= 0, "%s: adjacent ranges not merged: %v", m, rs)
			for s := r.Start; s <= r.End; s++ {
				require.Empty(t, holder[s], "slot %d held twice (%s and %s)", s, holder[s], m)
				holder[s] = m
			}
			counts[m] += r.Len()
			last = r.End
		}
	}
	for s, h := range holder {
		require.NotEmpty(t, h, "slot %d lost", s)
	}
	lo, hi := NumSlots, 0
	for _, m := range masters {
		lo, hi = min(lo, counts[m]), max(hi, counts[m])
	}
	require.LessOrEqual(t, hi-lo, 1, "balanced")

	// What each slot had before (first claimant in master order, then by name).
	before := make([]string, NumSlots)
	order := append([]string(nil), masters...)
	var others []string
	for m := range current {
		if !listed[m] {
			others = append(others, m)
		}
	}
	sort.Strings(others)
	order = append(order, others...)
	for _, m := range order {
		for _, r := range current[m] {
			for s := r.Start; s <= r.End; s++ {
				if before[s] == "" {
					before[s] = m
				}
			}
		}
	}
	moved, assigned := 0, 0
	for s := range NumSlots {
		if before[s] != holder[s] {
			if before[s] == "" {
				assigned++
			} else {
				moved++
			}
		}
	}
	assert.Equal(t, moved, plan.Moved)
	assert.Equal(t, assigned, plan.Assigned)
	inMoves := 0
	for _, mv := range plan.Moves {
		for s := mv.Range.Start; s <= mv.Range.End; s++ {
			require.Equal(t, before[s], mv.From, "slot %d", s)
			require.Equal(t, holder[s], mv.To, "slot %d", s)
		}
		inMoves += mv.Range.Len()
	}
	assert.Equal(t, moved+assigned, inMoves)

	// The lower bound: a balanced assignment keeps at most min(have, target)
	// slots per listed master, and is best when the extra slots go to the
	// masters holding the most.
	haves := make([]int, len(masters))
	for i, m := range masters {
		for s := range NumSlots {
			if before[s] == m {
				haves[i]++
			}
		}
	}
	sort.Sort(sort.Reverse(sort.IntSlice(haves)))
	q, r := NumSlots/len(masters), NumSlots%len(masters)
	kept := 0
	for i, h := range haves {
		target := q
		if i < r {
			target++
		}
		kept += min(h, target)
	}
	assert.Equal(t, NumSlots-kept, moved+assigned, "as few slots as possible change hands")
}

func TestPlanSlots(t *testing.T) {
	r := func(a, b int) SlotRange { return SlotRange{a, b} }
	for _, tc := range []struct {
		name    string
		current map[string][]SlotRange
		masters []string
		want    map[string]string
		moved   int
	}{
		{"three masters from nothing, contiguous", nil, names(3),
			map[string]string{"r-0": "0-5461", "r-1": "5462-10922", "r-2": "10923-16383"}, 0},
		{"one master holds everything", nil, names(1), map[string]string{"r-0": "0-16383"}, 0},
		{"balanced stays put", map[string][]SlotRange{"r-0": {r(0, 5461)}, "r-1": {r(5462, 10922)}, "r-2": {r(10923, 16383)}}, names(3),
			map[string]string{"r-0": "0-5461", "r-1": "5462-10922", "r-2": "10923-16383"}, 0},
		{"three to five: only the surplus moves", map[string][]SlotRange{"r-0": {r(0, 5461)}, "r-1": {r(5462, 10922)}, "r-2": {r(10923, 16383)}}, names(5),
			map[string]string{"r-0": "0-3276", "r-1": "5462-8738", "r-2": "10923-14199",
				"r-3": "3277-5461,8739-9830", "r-4": "9831-10922,14200-16383"}, 16384 - 3*3277},
		{"five to three: the leaving masters' slots are spread", map[string][]SlotRange{
			"r-0": {r(0, 3276)}, "r-1": {r(3277, 6553)}, "r-2": {r(6554, 9830)}, "r-3": {r(9831, 13107)}, "r-4": {r(13108, 16383)}}, names(3),
			map[string]string{"r-0": "0-3276,9831-12015", "r-1": "3277-6553,12016-14199", "r-2": "6554-9830,14200-16383"}, 16384 - 3*3277},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := PlanSlots(tc.current, tc.masters)
			require.NoError(t, err)
			checkPlan(t, tc.current, tc.masters, plan)
			if tc.want != nil {
				got := map[string]string{}
				for m, rs := range plan.Assignment {
					got[m] = FormatRanges(rs)
				}
				assert.Equal(t, tc.want, got)
				assert.Equal(t, tc.moved, plan.Moved)
			}
		})
	}
}

func TestPlanSlotsScaleDownAndRemovedMaster(t *testing.T) {
	start, err := PlanSlots(nil, names(5))
	require.NoError(t, err)
	plan, err := PlanSlots(start.Assignment, names(3))
	require.NoError(t, err)
	checkPlan(t, start.Assignment, names(3), plan)
	assert.Equal(t, 2*3277-1, plan.Moved, "exactly the two leaving masters' slots move")
	for _, mv := range plan.Moves {
		assert.Contains(t, []string{"r-3", "r-4"}, mv.From)
	}
}

func TestPlanSlotsRepairsDuplicatesAndGaps(t *testing.T) {
	current := map[string][]SlotRange{"r-0": {{0, 9000}}, "r-1": {{8000, 12000}}}
	plan, err := PlanSlots(current, names(2))
	require.NoError(t, err)
	checkPlan(t, current, names(2), plan)
	assert.Equal(t, 16383-12000, plan.Assigned, "the slots nobody held are assigned")
}

func TestPlanSlotsErrors(t *testing.T) {
	for _, tc := range []struct {
		current map[string][]SlotRange
		masters []string
		want    string
	}{
		{nil, nil, "no masters"},
		{nil, []string{"a", "a"}, `master "a" is listed twice`},
		{nil, []string{""}, "master 0 has no name"},
		{map[string][]SlotRange{"a": {{5, 3}}}, []string{"a"}, `master "a": invalid slot range 5-3`},
		{map[string][]SlotRange{"a": {{0, NumSlots}}}, []string{"a"}, "invalid slot range 0-16384"},
	} {
		_, err := PlanSlots(tc.current, tc.masters)
		require.Error(t, err)
		assert.Contains(t, err.Error(), tc.want)
	}
}

func TestParseRanges(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []SlotRange
		err  bool
	}{
		{"", nil, false},
		{"0-5461", []SlotRange{{0, 5461}}, false},
		{"7", []SlotRange{{7, 7}}, false},
		{"0-1,3-16383", []SlotRange{{0, 1}, {3, 16383}}, false},
		{"0-16384", nil, true},
		{"5-3", nil, true},
		{"3-5,4-6", nil, true},
		{"x", nil, true},
		{"1-", nil, true},
		{"-1", nil, true},
		{"1,,2", nil, true},
	} {
		got, err := ParseRanges(tc.in)
		if tc.err {
			assert.Error(t, err, tc.in)
			continue
		}
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, got, tc.in)
		assert.Equal(t, tc.in, FormatRanges(got))
	}
}

func FuzzParseRanges(f *testing.F) {
	for _, s := range []string{"", "0-5461", "1,2,3", "0-16383", "3-5,4-6", "-", "99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		rs, err := ParseRanges(s)
		if err != nil {
			return
		}
		back, err := ParseRanges(FormatRanges(rs))
		require.NoError(t, err)
		require.Equal(t, rs, back)
	})
}

// FuzzPlanSlots builds an arbitrary starting assignment (ranges with
// overlaps and gaps, masters that leave) and an arbitrary new master count,
// and checks every invariant of the plan, minimal movement included.
func FuzzPlanSlots(f *testing.F) {
	f.Add([]byte{3, 5}, uint8(5))
	f.Add([]byte{0, 0, 0}, uint8(3))
	f.Add([]byte{200, 17, 90, 4, 4, 250, 1}, uint8(2))
	f.Add([]byte{}, uint8(1))
	f.Add([]byte{9, 9, 9, 9, 9, 9, 9, 9, 9, 9}, uint8(20))
	f.Fuzz(func(t *testing.T, data []byte, m uint8) {
		masters := names(int(m%24) + 1)
		current := map[string][]SlotRange{}
		// Each 3 bytes: a holder (possibly one that leaves), a start and a length.
		for i := 0; i+2 < len(data) && i < 90; i += 3 {
			holder := fmt.Sprintf("r-%d", data[i]%30)
			start := int(data[i+1]) * 64
			end := min(NumSlots-1, start+int(data[i+2])*40)
			current[holder] = append(current[holder], SlotRange{start, end})
		}
		plan, err := PlanSlots(current, masters)
		require.NoError(t, err)
		checkPlan(t, current, masters, plan)
		// Planning again from the result moves nothing.
		again, err := PlanSlots(plan.Assignment, masters)
		require.NoError(t, err)
		require.Zero(t, again.Moved+again.Assigned)
	})
}
