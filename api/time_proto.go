package api

import (
	"fmt"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
)

// The protobuf form of Time and MicroTime is a Timestamp message
// {int64 seconds = 1; int32 nanos = 2}, as metav1's time_proto.go and
// micro_time_proto.go write it, with the precision of their JSON: a Time
// keeps whole seconds (nanos is written as 0 and ignored when read), a
// MicroTime microseconds. Kubernetes chose this so that an object written
// by a protobuf client reads the same to a JSON one. The zero time is an
// empty message.

// AppendProtobuf appends t's Timestamp message body, in whole seconds.
func (t Time) AppendProtobuf(b []byte) []byte {
	return appendTimestamp(b, t.Time, time.Second)
}

// UnmarshalProtobuf reads a Timestamp message body, in whole seconds; an
// empty one is the zero time.
func (t *Time) UnmarshalProtobuf(data []byte) error {
	v, err := parseTimestamp(data, time.Second)
	t.Time = v
	return err
}

// AppendProtobuf appends t's Timestamp message body, in microseconds.
func (t MicroTime) AppendProtobuf(b []byte) []byte {
	return appendTimestamp(b, t.Time, time.Microsecond)
}

// UnmarshalProtobuf reads a Timestamp message body, in microseconds; an
// empty one is the zero time.
func (t *MicroTime) UnmarshalProtobuf(data []byte) error {
	v, err := parseTimestamp(data, time.Microsecond)
	t.Time = v
	return err
}

func appendTimestamp(b []byte, t time.Time, precision time.Duration) []byte {
	if t.IsZero() {
		return b
	}
	// Both fields are written even when zero, as generated proto2 code does.
	b = protowire.AppendTag(b, 1, protowire.VarintType)
	b = protowire.AppendVarint(b, uint64(t.Unix()))
	b = protowire.AppendTag(b, 2, protowire.VarintType)
	nanos := time.Duration(t.Nanosecond()).Truncate(precision)
	return protowire.AppendVarint(b, uint64(nanos))
}

func parseTimestamp(data []byte, precision time.Duration) (time.Time, error) {
	if len(data) == 0 {
		return time.Time{}, nil
	}
	var seconds, nanos int64
	for len(data) > 0 {
		num, typ, n := protowire.ConsumeTag(data)
		if n < 0 {
			return time.Time{}, protowire.ParseError(n)
		}
		data = data[n:]
		if num != 1 && num != 2 {
			return time.Time{}, fmt.Errorf("proto: Timestamp: unknown field number %d (wire type %d)", num, typ)
		}
		if typ != protowire.VarintType {
			return time.Time{}, fmt.Errorf("proto: wrong wireType = %d for field %s", typ, map[protowire.Number]string{1: "Seconds", 2: "Nanos"}[num])
		}
		v, m := protowire.ConsumeVarint(data)
		if m < 0 {
			return time.Time{}, protowire.ParseError(m)
		}
		data = data[m:]
		if num == 1 {
			seconds = int64(v)
		} else {
			nanos = int64(int32(v))
		}
	}
	return time.Unix(seconds, int64(time.Duration(nanos).Truncate(precision))).UTC(), nil
}
