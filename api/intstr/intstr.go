package intstr

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Type says which of the two values an IntOrString holds.
type Type int64

// The two kinds of value.
const (
	// Int means IntVal holds the value.
	Int Type = iota
	// String means StrVal holds the value.
	String
)

// IntOrString holds an int32 or a string; the zero value is the integer 0.
type IntOrString struct {
	// Type says which field is used.
	Type Type `protobuf:"varint,1,opt,name=type,casttype=Type"`
	// IntVal is the value when Type is Int.
	IntVal int32 `protobuf:"varint,2,opt,name=intVal"`
	// StrVal is the value when Type is String.
	StrVal string `protobuf:"bytes,3,opt,name=strVal"`
}

// FromInt32 holds an integer.
func FromInt32(v int32) IntOrString { return IntOrString{Type: Int, IntVal: v} }

// FromString holds a string.
func FromString(s string) IntOrString { return IntOrString{Type: String, StrVal: s} }

// Parse holds an integer if s is one, else the string.
func Parse(s string) IntOrString {
	i, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return FromString(s)
	}
	return FromInt32(int32(i))
}

// String prints the value: digits for an integer, the string otherwise.
func (v *IntOrString) String() string {
	if v == nil {
		return "<nil>"
	}
	if v.Type == String {
		return v.StrVal
	}
	return strconv.Itoa(v.IntValue())
}

// IntValue returns the integer, or the string parsed as one (0 if it is
// not a number).
func (v *IntOrString) IntValue() int {
	if v.Type == String {
		i, _ := strconv.Atoi(v.StrVal)
		return i
	}
	return int(v.IntVal)
}

// DeepCopy returns v; an IntOrString holds no references.
func (v IntOrString) DeepCopy() IntOrString { return v }

// MarshalJSON writes a JSON number or a JSON string.
func (v IntOrString) MarshalJSON() ([]byte, error) {
	if v.Type == String {
		return json.Marshal(v.StrVal)
	}
	return json.Marshal(v.IntVal)
}

// UnmarshalJSON reads a JSON string or an int32 number.
func (v *IntOrString) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		v.Type = String
		v.IntVal = 0
		return json.Unmarshal(b, &v.StrVal)
	}
	v.Type = Int
	v.StrVal = ""
	return json.Unmarshal(b, &v.IntVal)
}

// GetScaledValueFromIntOrPercent resolves v against total: an integer is
// returned as is, a percentage such as "25%" becomes that share of total,
// rounded up or down. Deployments use it for maxSurge (up) and
// maxUnavailable (down).
func GetScaledValueFromIntOrPercent(v *IntOrString, total int, roundUp bool) (int, error) {
	if v == nil {
		return 0, errors.New("nil value for IntOrString")
	}
	value, isPercent, err := getIntOrPercentValueSafely(v)
	if err != nil {
		return 0, fmt.Errorf("invalid value for IntOrString: %v", err)
	}
	if isPercent {
		if roundUp {
			value = int(math.Ceil(float64(value) * float64(total) / 100))
		} else {
			value = int(math.Floor(float64(value) * float64(total) / 100))
		}
	}
	return value, nil
}

func getIntOrPercentValueSafely(v *IntOrString) (int, bool, error) {
	switch v.Type {
	case Int:
		return int(v.IntVal), false, nil
	case String:
		s, ok := strings.CutSuffix(v.StrVal, "%")
		if !ok {
			return 0, false, errors.New("invalid type: string is not a percentage")
		}
		i, err := strconv.Atoi(s)
		if err != nil {
			return 0, false, fmt.Errorf("invalid value %q: %v", v.StrVal, err)
		}
		return i, true, nil
	}
	return 0, false, errors.New("invalid type: neither int nor percentage")
}

// ValueOrDefault returns v, or def when v is nil.
func ValueOrDefault(v *IntOrString, def IntOrString) *IntOrString {
	if v == nil {
		return &def
	}
	return v
}
