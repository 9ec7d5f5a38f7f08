package redis

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// NumSlots is the number of hash slots of a Redis Cluster: a key lives in
// slot CRC16(key) mod 16384, and each slot is served by one master.
const NumSlots = 16384

// SlotRange is the slots Start..End, both included.
type SlotRange struct {
	Start, End int
}

// Len is the number of slots in the range.
func (r SlotRange) Len() int { return r.End - r.Start + 1 }

// String is "start-end", or "n" for a single slot (redis-cli's notation).
func (r SlotRange) String() string {
	if r.Start == r.End {
		return strconv.Itoa(r.Start)
	}
	return fmt.Sprintf("%d-%d", r.Start, r.End)
}

// FormatRanges renders ranges as "0-5460,10923-16383".
func FormatRanges(rs []SlotRange) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = r.String()
	}
	return strings.Join(parts, ",")
}

// ParseRanges reads FormatRanges's notation; the ranges must be valid
// slots, ascending and not overlapping.
func ParseRanges(s string) ([]SlotRange, error) {
	if s == "" {
		return nil, nil
	}
	var out []SlotRange
	prev := -1
	for part := range strings.SplitSeq(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		start, err := strconv.Atoi(lo)
		if err != nil {
			return nil, fmt.Errorf("invalid slot range %q", part)
		}
		end := start
		if isRange {
			if end, err = strconv.Atoi(hi); err != nil {
				return nil, fmt.Errorf("invalid slot range %q", part)
			}
		}
		if start < 0 || end >= NumSlots || start > end || start <= prev {
			return nil, fmt.Errorf("invalid slot range %q: slots are 0-%d, ascending, not overlapping", part, NumSlots-1)
		}
		out = append(out, SlotRange{start, end})
		prev = end
	}
	return out, nil
}

// SlotMove is a run of slots migrated from one master to another (From is
// "" for slots no master held).
type SlotMove struct {
	From, To string
	Range    SlotRange
}

// SlotPlan is the result of PlanSlots.
type SlotPlan struct {
	// Assignment gives every master its ranges, ascending.
	Assignment map[string][]SlotRange
	// Moves are the runs of slots that change master, by slot.
	Moves []SlotMove
	// Moved counts slots taken from a master; Assigned counts slots no
	// master held before.
	Moved, Assigned int
}

// PlanSlots assigns the 16384 slots to masters (in their order), starting
// from current (master → ranges; masters not in the list give their slots
// up, and a slot claimed twice counts for its first claimant in master
// order). The result is balanced — every master holds ⌊16384/M⌋ or one
// more — and moves as few slots as possible: the masters that already hold
// the most get the extra slots, each master keeps its lowest slots, and
// only the surplus travels. From an empty start this gives each master one
// contiguous range in order, as redis-cli --cluster create does.
func PlanSlots(current map[string][]SlotRange, masters []string) (SlotPlan, error) {
	if len(masters) == 0 {
		return SlotPlan{}, fmt.Errorf("no masters to assign slots to")
	}
	index := map[string]int{}
	for i, m := range masters {
		if m == "" {
			return SlotPlan{}, fmt.Errorf("master %d has no name", i)
		}
		if _, dup := index[m]; dup {
			return SlotPlan{}, fmt.Errorf("master %q is listed twice", m)
		}
		index[m] = i
	}
	if len(masters) > NumSlots {
		return SlotPlan{}, fmt.Errorf("%d masters for %d slots", len(masters), NumSlots)
	}
	// owner[s] is the index of the master holding slot s, or -1; prev
	// remembers every previous holder (removed masters too) for Moves.
	owner := make([]int, NumSlots)
	prev := make([]string, NumSlots)
	for i := range owner {
		owner[i] = -1
	}
	// Visit current holders in a fixed order: listed masters first (in
	// order), then the others by name.
	holders := make([]string, 0, len(current))
	for name := range current {
		holders = append(holders, name)
	}
	sort.Slice(holders, func(a, b int) bool {
		ia, okA := index[holders[a]]
		ib, okB := index[holders[b]]
		if okA != okB {
			return okA
		}
		if okA {
			return ia < ib
		}
		return holders[a] < holders[b]
	})
	for _, name := range holders {
		i, listed := index[name]
		for _, r := range current[name] {
			if r.Start < 0 || r.End >= NumSlots || r.Start > r.End {
				return SlotPlan{}, fmt.Errorf("master %q: invalid slot range %d-%d", name, r.Start, r.End)
			}
			for s := r.Start; s <= r.End; s++ {
				if prev[s] != "" {
					continue // claimed twice: the first claimant keeps it
				}
				prev[s] = name
				if listed {
					owner[s] = i
				}
			}
		}
	}
	have := make([]int, len(masters))
	for _, o := range owner {
		if o >= 0 {
			have[o]++
		}
	}
	// Targets: ⌊N/M⌋ each, and the N mod M extra slots to the masters
	// holding the most already (ties: earlier master), so fewest move.
	q, r := NumSlots/len(masters), NumSlots%len(masters)
	order := make([]int, len(masters))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return have[order[a]] > have[order[b]] })
	target := make([]int, len(masters))
	for rank, i := range order {
		target[i] = q
		if rank < r {
			target[i]++
		}
	}
	// Surplus masters give up their highest slots.
	excess := make([]int, len(masters))
	for i := range masters {
		excess[i] = max(0, have[i]-target[i])
	}
	for s := NumSlots - 1; s >= 0; s-- {
		if o := owner[s]; o >= 0 && excess[o] > 0 {
			excess[o]--
			owner[s] = -1
		}
	}
	// Short masters take free slots, lowest first, in master order.
	next := 0
	for i := range masters {
		for need := target[i] - have[i]; need > 0; need-- {
			for owner[next] >= 0 {
				next++
			}
			owner[next] = i
		}
	}
	plan := SlotPlan{Assignment: map[string][]SlotRange{}}
	for _, m := range masters {
		plan.Assignment[m] = nil
	}
	for s := 0; s < NumSlots; s++ {
		to := masters[owner[s]]
		plan.Assignment[to] = appendSlot(plan.Assignment[to], s)
		from := prev[s]
		if from == to {
			continue
		}
		if from == "" {
			plan.Assigned++
		} else {
			plan.Moved++
		}
		if n := len(plan.Moves); n > 0 && plan.Moves[n-1].From == from && plan.Moves[n-1].To == to && plan.Moves[n-1].Range.End == s-1 {
			plan.Moves[n-1].Range.End = s
		} else {
			plan.Moves = append(plan.Moves, SlotMove{From: from, To: to, Range: SlotRange{s, s}})
		}
	}
	return plan, nil
}

func appendSlot(rs []SlotRange, s int) []SlotRange {
	if n := len(rs); n > 0 && rs[n-1].End == s-1 {
		rs[n-1].End = s
		return rs
	}
	return append(rs, SlotRange{s, s})
}
