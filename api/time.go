package api

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Time is a timestamp with one-second precision on the wire, as
// metav1.Time: it marshals as RFC 3339 in UTC ("2026-01-02T03:04:05Z") and
// the zero time marshals as null. Kubernetes uses it for every timestamp an
// object carries (creationTimestamp, lastTransitionTime...).
type Time = metav1.Time

// NewTime wraps t.
func NewTime(t time.Time) Time { return Time{Time: t} }

// Date is time.Date wrapped as a Time, handy in tests.
func Date(year int, month time.Month, day, hour, min, sec, nsec int, loc *time.Location) Time {
	return Time{Time: time.Date(year, month, day, hour, min, sec, nsec, loc)}
}

// RFC3339Micro is the layout of MicroTime on the wire.
const RFC3339Micro = "2006-01-02T15:04:05.000000Z07:00"

// MicroTime is a timestamp with microsecond precision on the wire, as
// metav1.MicroTime; Lease and the eventTime of Event use it.
type MicroTime = metav1.MicroTime

// NewMicroTime wraps t.
func NewMicroTime(t time.Time) MicroTime { return MicroTime{Time: t} }

// Duration is a time.Duration that marshals as its String form ("1m30s"),
// as metav1.Duration.
type Duration = metav1.Duration
