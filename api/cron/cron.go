package cron

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"time"
)

// Schedule is a parsed schedule: Next gives the first time it fires
// strictly after t, in t's location.
type Schedule interface {
	Next(t time.Time) time.Time
}

// bounds of one field, and the names it accepts.
type bounds struct {
	min, max uint
	names    map[string]uint
}

var (
	minutes = bounds{0, 59, nil}
	hours   = bounds{0, 23, nil}
	dom     = bounds{1, 31, nil}
	months  = bounds{1, 12, map[string]uint{
		"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
		"jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12}}
	dow = bounds{0, 6, map[string]uint{
		"sun": 0, "mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6}}
)

// starBit marks a field written "*" or "?": it changes how day of month
// and day of week combine.
const starBit = 1 << 63

// SpecSchedule is a five-field schedule, one bit per allowed value.
type SpecSchedule struct {
	Minute, Hour, Dom, Month, Dow uint64
}

// ConstantDelaySchedule is "@every <duration>": every Delay (whole
// seconds, at least one), counted from the time asked.
type ConstantDelaySchedule struct {
	Delay time.Duration
}

// Next implements Schedule.
func (s ConstantDelaySchedule) Next(t time.Time) time.Time {
	return t.Add(s.Delay - time.Duration(t.Nanosecond())*time.Nanosecond)
}

// descriptors are the @ shorthands.
var descriptors = map[string]string{
	"@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *",
	"@weekly": "0 0 * * 0", "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *",
}

// ParseStandard parses a five-field schedule or a descriptor
// (robfig/cron's ParseStandard, with its error messages).
func ParseStandard(spec string) (Schedule, error) {
	if len(spec) == 0 {
		return nil, fmt.Errorf("empty spec string")
	}
	if strings.HasPrefix(spec, "@") {
		if strings.HasPrefix(spec, "@every ") {
			d, err := time.ParseDuration(spec[len("@every "):])
			if err != nil {
				return nil, fmt.Errorf("failed to parse duration %s: %s", spec, err)
			}
			if d < time.Second {
				d = time.Second
			}
			return ConstantDelaySchedule{Delay: d - d%time.Second}, nil
		}
		std, ok := descriptors[spec]
		if !ok {
			return nil, fmt.Errorf("unrecognized descriptor: %s", spec)
		}
		spec = std
	}
	fields := strings.Fields(spec)
	if len(fields) != 5 {
		return nil, fmt.Errorf("expected exactly 5 fields, found %d: %s", len(fields), fields)
	}
	var s SpecSchedule
	var err error
	for i, p := range []struct {
		out *uint64
		b   bounds
	}{{&s.Minute, minutes}, {&s.Hour, hours}, {&s.Dom, dom}, {&s.Month, months}, {&s.Dow, dow}} {
		if *p.out, err = getField(fields[i], p.b); err != nil {
			return nil, err
		}
	}
	return &s, nil
}

// getField parses one field: a comma-separated list of ranges.
func getField(field string, b bounds) (uint64, error) {
	var bitsSet uint64
	for _, expr := range strings.FieldsFunc(field, func(r rune) bool { return r == ',' }) {
		bit, err := getRange(expr, b)
		if err != nil {
			return 0, err
		}
		bitsSet |= bit
	}
	return bitsSet, nil
}

// getRange parses "*", "?", "n", "a-b", each optionally "/step".
func getRange(expr string, b bounds) (uint64, error) {
	var start, end, step uint
	var extra uint64
	rangeAndStep := strings.Split(expr, "/")
	lowAndHigh := strings.Split(rangeAndStep[0], "-")
	singleDigit := len(lowAndHigh) == 1
	var err error
	if lowAndHigh[0] == "*" || lowAndHigh[0] == "?" {
		start, end, extra = b.min, b.max, starBit
	} else {
		if start, err = parseIntOrName(lowAndHigh[0], b.names); err != nil {
			return 0, err
		}
		switch len(lowAndHigh) {
		case 1:
			end = start
		case 2:
			if end, err = parseIntOrName(lowAndHigh[1], b.names); err != nil {
				return 0, err
			}
		default:
			return 0, fmt.Errorf("too many hyphens: %s", expr)
		}
	}
	switch len(rangeAndStep) {
	case 1:
		step = 1
	case 2:
		if step, err = mustParseInt(rangeAndStep[1]); err != nil {
			return 0, err
		}
		// "n/step" means "n-max/step".
		if singleDigit {
			end = b.max
		}
		if step > 1 {
			extra = 0
		}
	default:
		return 0, fmt.Errorf("too many slashes: %s", expr)
	}
	switch {
	case start < b.min:
		return 0, fmt.Errorf("beginning of range (%d) below minimum (%d): %s", start, b.min, expr)
	case end > b.max:
		return 0, fmt.Errorf("end of range (%d) above maximum (%d): %s", end, b.max, expr)
	case start > end:
		return 0, fmt.Errorf("beginning of range (%d) beyond end of range (%d): %s", start, end, expr)
	case step == 0:
		return 0, fmt.Errorf("step of range should be a positive number: %s", expr)
	}
	var out uint64
	for i := start; i <= end; i += step {
		out |= 1 << i
	}
	return out | extra, nil
}

func parseIntOrName(expr string, names map[string]uint) (uint, error) {
	if names != nil {
		if v, ok := names[strings.ToLower(expr)]; ok {
			return v, nil
		}
	}
	return mustParseInt(expr)
}

func mustParseInt(expr string) (uint, error) {
	num, err := strconv.Atoi(expr)
	if err != nil {
		return 0, fmt.Errorf("failed to parse int from %s: %s", expr, err)
	}
	if num < 0 {
		return 0, fmt.Errorf("negative number (%d) not allowed: %s", num, expr)
	}
	return uint(num), nil
}

// has reports whether value v is in the field.
func has(field uint64, v int) bool { return field&(1<<uint(v)) != 0 }

// dayMatches combines day of month and day of week as cron does: both
// when either is a star, otherwise either.
func (s *SpecSchedule) dayMatches(t time.Time) bool {
	domMatch, dowMatch := has(s.Dom, t.Day()), has(s.Dow, int(t.Weekday()))
	if s.Dom&starBit != 0 || s.Dow&starBit != 0 {
		return domMatch && dowMatch
	}
	return domMatch || dowMatch
}

// Next implements Schedule: the first whole minute strictly after t whose
// fields all match, in t's location; the zero time if none within five
// years (a schedule such as "0 0 30 2 *" never fires). It skips the
// non-matching months, days and hours whole, so a search is at most a few
// hundred steps.
func (s *SpecSchedule) Next(t time.Time) time.Time {
	loc := t.Location()
	t = t.Truncate(time.Second).Add(time.Minute - time.Duration(t.Second())*time.Second)
	limit := t.Year() + 5
	for t.Year() <= limit {
		switch {
		case !has(s.Month, int(t.Month())):
			t = time.Date(t.Year(), t.Month()+1, 1, 0, 0, 0, 0, loc)
		case !s.dayMatches(t):
			next := time.Date(t.Year(), t.Month(), t.Day()+1, 0, 0, 0, 0, loc)
			if !next.After(t) { // a midnight that a clock change skipped
				next = t.Add(time.Hour)
			}
			t = next
		case !has(s.Hour, t.Hour()):
			t = t.Add(time.Duration(60-t.Minute()) * time.Minute)
		case !has(s.Minute, t.Minute()):
			t = t.Add(time.Minute)
		default:
			return t
		}
	}
	return time.Time{}
}

// count is for tests: how many values a field allows.
func count(field uint64) int { return bits.OnesCount64(field &^ starBit) }
