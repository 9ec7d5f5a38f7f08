package api

import (
	"fmt"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
)

// The protobuf form of Time and MicroTime is a Timestamp message
// {int64 seconds = 1; int32 nanos = 2}, as metav1's time_proto.go writes
// it. Unlike JSON it keeps nanoseconds. The zero time is an empty message.

// AppendProtobuf appends t's Timestamp message body.
func (t Time) AppendProtobuf(b []byte) []byte { return appendTimestamp(b, t.Time) }

// UnmarshalProtobuf reads a Timestamp message body; an empty one is the
// zero time.
func (t *Time) UnmarshalProtobuf(data []byte) error {
	v, err := parseTimestamp(data)
	t.Time = v
	return err
}

// AppendProtobuf appends t's Timestamp message body.
func (t MicroTime) AppendProtobuf(b []byte) []byte { return appendTimestamp(b, t.Time) }

// UnmarshalProtobuf reads a Timestamp message body; an empty one is the
// zero time.
func (t *MicroTime) UnmarshalProtobuf(data []byte) error {
	v, err := parseTimestamp(data)
	t.Time = v
	return err
}

func appendTimestamp(b []byte, t time.Time) []byte {
	if t.IsZero() {
		return b
	}
	// Both fields are written even when zero, as generated proto2 code does.
	b = protowire.AppendTag(b, 1, protowire.VarintType)
	b = protowire.AppendVarint(b, uint64(t.Unix()))
	b = protowire.AppendTag(b, 2, protowire.VarintType)
	return protowire.AppendVarint(b, uint64(int64(int32(t.Nanosecond()))))
}

func parseTimestamp(data []byte) (time.Time, error) {
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
	return time.Unix(seconds, nanos).UTC(), nil
}
