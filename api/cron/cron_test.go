package cron

import (
	"testing"
	"time"
)

func TestParseErrorsAreRobfigs(t *testing.T) {
	for _, tc := range []struct{ spec, err string }{
		{"", "empty spec string"},
		{"* * * *", "expected exactly 5 fields, found 4: [* * * *]"},
		{"@fortnightly", "unrecognized descriptor: @fortnightly"},
		{"foo * * * *", `failed to parse int from foo: strconv.Atoi: parsing "foo": invalid syntax`},
		{"60 * * * *", "end of range (60) above maximum (59): 60"},
		{"* * 0 * *", "beginning of range (0) below minimum (1): 0"},
		{"5-2 * * * *", "beginning of range (5) beyond end of range (2): 5-2"},
		{"*/0 * * * *", "step of range should be a positive number: */0"},
		{"1-2-3 * * * *", "too many hyphens: 1-2-3"},
		{"*/2/3 * * * *", "too many slashes: */2/3"},
		{"* * * * 7", "end of range (7) above maximum (6): 7"},
	} {
		_, err := ParseStandard(tc.spec)
		if err == nil || err.Error() != tc.err {
			t.Errorf("ParseStandard(%q) = %v, want %q", tc.spec, err, tc.err)
		}
	}
}

func TestParseFields(t *testing.T) {
	s, err := ParseStandard("*/15 9-17 * jan,JUL mon-fri")
	if err != nil {
		t.Fatal(err)
	}
	ss := s.(*SpecSchedule)
	for _, tc := range []struct {
		name string
		got  uint64
		want int
	}{{"minute", ss.Minute, 4}, {"hour", ss.Hour, 9}, {"dom", ss.Dom, 31}, {"month", ss.Month, 2}, {"dow", ss.Dow, 5}} {
		if n := count(tc.got); n != tc.want {
			t.Errorf("%s allows %d values, want %d", tc.name, n, tc.want)
		}
	}
}

func TestNext(t *testing.T) {
	utc := func(s string) time.Time {
		x, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		spec, from, want string
		loc              *time.Location
	}{
		{"* * * * *", "2026-01-01T10:00:00Z", "2026-01-01T10:01:00Z", nil},
		{"* * * * *", "2026-01-01T10:00:30Z", "2026-01-01T10:01:00Z", nil},
		{"*/5 * * * *", "2026-01-01T10:03:00Z", "2026-01-01T10:05:00Z", nil},
		{"@hourly", "2026-01-01T10:00:00Z", "2026-01-01T11:00:00Z", nil},
		{"30 2 * * *", "2026-01-01T10:00:00Z", "2026-01-02T02:30:00Z", nil},
		{"0 0 1 * *", "2026-01-15T00:00:00Z", "2026-02-01T00:00:00Z", nil},
		{"0 9 * * mon", "2026-01-01T00:00:00Z", "2026-01-05T09:00:00Z", nil}, // 1 Jan 2026 is a Thursday
		// Day of month or day of week when neither is a star.
		{"0 0 13 * fri", "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z", nil},
		{"0 0 29 2 *", "2026-01-01T00:00:00Z", "2028-02-29T00:00:00Z", nil},
		{"0 0 30 2 *", "2026-01-01T00:00:00Z", "0001-01-01T00:00:00Z", nil},
		{"@every 90s", "2026-01-01T10:00:00Z", "2026-01-01T10:01:30Z", nil},
		// Midnight in Tokyo is 15:00 UTC the day before.
		{"0 0 * * *", "2026-01-01T10:00:00Z", "2026-01-01T15:00:00Z", tokyo},
	} {
		s, err := ParseStandard(tc.spec)
		if err != nil {
			t.Fatalf("%s: %v", tc.spec, err)
		}
		from := utc(tc.from)
		if tc.loc != nil {
			from = from.In(tc.loc)
		}
		got := s.Next(from)
		if want := utc(tc.want); !got.Equal(want) && !(got.IsZero() && tc.want[0] == '0') {
			t.Errorf("%s after %s = %s, want %s", tc.spec, tc.from, got.UTC().Format(time.RFC3339), tc.want)
		}
	}
}

func TestNextAcrossDaylightSaving(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	s, _ := ParseStandard("30 2 * * *")
	// 2:30 does not exist on 8 March 2026 in New York: the next run is
	// the day after.
	got := s.Next(time.Date(2026, 3, 8, 0, 0, 0, 0, ny))
	if want := time.Date(2026, 3, 9, 2, 30, 0, 0, ny); !got.Equal(want) {
		t.Errorf("got %s, want %s", got, want)
	}
}
