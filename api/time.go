package api

import (
	"encoding/json"
	"time"
)

// Time is a timestamp with one-second precision on the wire, as
// metav1.Time: it marshals as RFC 3339 in UTC ("2026-01-02T03:04:05Z") and
// the zero time marshals as null. Kubernetes uses it for every timestamp an
// object carries (creationTimestamp, lastTransitionTime...).
type Time struct {
	time.Time
}

// NewTime wraps t.
func NewTime(t time.Time) Time { return Time{Time: t} }

// Date is time.Date wrapped as a Time, handy in tests.
func Date(year int, month time.Month, day, hour, min, sec, nsec int, loc *time.Location) Time {
	return Time{Time: time.Date(year, month, day, hour, min, sec, nsec, loc)}
}

// IsZero reports whether t is unset; a nil *Time counts as unset.
func (t *Time) IsZero() bool {
	return t == nil || t.Time.IsZero()
}

// Equal compares two times at the precision they are stored with; nil and
// zero are equal.
func (t *Time) Equal(u *Time) bool {
	if t.IsZero() || u.IsZero() {
		return t.IsZero() && u.IsZero()
	}
	return t.Time.Equal(u.Time)
}

// Rfc3339Copy drops sub-second precision, the value a round trip through
// JSON would give.
func (t Time) Rfc3339Copy() Time {
	return Time{Time: t.Time.UTC().Truncate(time.Second)}
}

// MarshalJSON writes null for the zero time and RFC 3339 seconds in UTC
// otherwise.
func (t Time) MarshalJSON() ([]byte, error) {
	if t.Time.IsZero() {
		return []byte("null"), nil
	}
	return json.Marshal(t.Time.UTC().Format(time.RFC3339))
}

// UnmarshalJSON accepts null (the zero time) or an RFC 3339 string. The
// result is kept in UTC so that a stored object prints the same everywhere.
func (t *Time) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		t.Time = time.Time{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	pt, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return err
	}
	t.Time = pt.UTC()
	return nil
}

// RFC3339Micro is the layout of MicroTime on the wire.
const RFC3339Micro = "2006-01-02T15:04:05.000000Z07:00"

// MicroTime is a timestamp with microsecond precision on the wire, as
// metav1.MicroTime; Lease and the eventTime of Event use it.
type MicroTime struct {
	time.Time
}

// NewMicroTime wraps t.
func NewMicroTime(t time.Time) MicroTime { return MicroTime{Time: t} }

// IsZero reports whether t is unset; a nil *MicroTime counts as unset.
func (t *MicroTime) IsZero() bool {
	return t == nil || t.Time.IsZero()
}

// MarshalJSON writes null for the zero time and RFC 3339 with six
// fractional digits in UTC otherwise.
func (t MicroTime) MarshalJSON() ([]byte, error) {
	if t.Time.IsZero() {
		return []byte("null"), nil
	}
	return json.Marshal(t.Time.UTC().Format(RFC3339Micro))
}

// UnmarshalJSON accepts null or an RFC 3339 string with any fraction.
func (t *MicroTime) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		t.Time = time.Time{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	pt, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return err
	}
	t.Time = pt.UTC()
	return nil
}

// Duration is a time.Duration that marshals as its String form ("1m30s"),
// as metav1.Duration.
type Duration struct {
	time.Duration `protobuf:"varint,1,opt,name=duration,casttype=time.Duration"`
}

// MarshalJSON writes the duration as a quoted Go duration string.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(d.Duration.String())
}

// UnmarshalJSON parses a quoted Go duration string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	pd, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	d.Duration = pd
	return nil
}
