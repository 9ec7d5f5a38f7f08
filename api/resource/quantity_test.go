package resource

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseCanonical(t *testing.T) {
	tests := []struct {
		in     string
		want   string
		format Format
	}{
		{"0", "0", DecimalSI},
		{"100m", "100m", DecimalSI},
		{"0.1", "100m", DecimalSI},
		{".5", "500m", DecimalSI},
		{"1.", "1", DecimalSI},
		{"1000m", "1", DecimalSI},
		{"1500m", "1500m", DecimalSI},
		{"4", "4", DecimalSI},
		{"1000", "1k", DecimalSI},
		{"1500", "1500", DecimalSI},
		{"12k", "12k", DecimalSI},
		{"1M", "1M", DecimalSI},
		{"1.5G", "1500M", DecimalSI},
		{"1E", "1E", DecimalSI},
		{"1n", "1n", DecimalSI},
		{"1u", "1u", DecimalSI},
		{"0.0000000001", "1n", DecimalSI}, // rounded up to the smallest unit
		{"1.0000000001", "1000000001n", DecimalSI},
		{"-100m", "-100m", DecimalSI},
		{"+5", "5", DecimalSI},
		{"-", "0", DecimalSI},
		{"8Gi", "8Gi", BinarySI},
		{"1024Mi", "1Gi", BinarySI},
		{"1536Mi", "1536Mi", BinarySI},
		{"1.5Gi", "1536Mi", BinarySI},
		{"1Ki", "1Ki", BinarySI},
		{"0.5Ki", "512", BinarySI},
		{"1.5Ki", "1536", BinarySI},
		{"-1Ki", "-1Ki", BinarySI},
		{"0.5Mi", "512Ki", BinarySI},
		{"16Ei", "9223372036854775807", BinarySI}, // capped at 2^63-1
		{"1e3", "1e3", DecimalExponent},
		{"1E3", "1e3", DecimalExponent},
		{"1e-3", "1e-3", DecimalExponent},
		{"1.5e3", "1500", DecimalExponent},
		{"12e6", "12e6", DecimalExponent},
		{"1e0", "1", DecimalExponent},
		{"100e-2", "1", DecimalExponent},
		{"1e100", "10e99", DecimalExponent},
		{"123456789012345678901234567890", "123456789012345679T", DecimalSI},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			q, err := ParseQuantity(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, q.String())
			if tt.format != "" && !q.IsZero() {
				assert.Equal(t, tt.format, q.Format)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		in  string
		err error
	}{
		{"", ErrFormatWrong},
		{"abc", ErrFormatWrong},
		{"1x", ErrFormatWrong},
		{"1.2.3", ErrFormatWrong},
		{"1Gi ", ErrFormatWrong},
		{" 1", ErrFormatWrong},
		{"1kk", ErrSuffix},
		{"1Ki1", ErrSuffix},
		{"1i", ErrSuffix},
		{"1e", ErrSuffix},
		{"1e99999999999", ErrSuffix},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, err := ParseQuantity(tt.in)
			assert.Equal(t, tt.err, err)
		})
	}
	assert.EqualError(t, ErrFormatWrong, "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
	assert.EqualError(t, ErrSuffix, "unable to parse quantity's suffix")
	assert.PanicsWithError(t, "cannot parse 'x': "+ErrFormatWrong.Error(), func() { MustParse("x") })
}

func TestValues(t *testing.T) {
	tests := []struct {
		in          string
		value, mill int64
	}{
		{"100m", 1, 100},
		{"1", 1, 1000},
		{"1.5", 2, 1500},
		{"-1.5", -2, -1500},
		{"1n", 1, 1},
		{"8Gi", 8 * 1024 * 1024 * 1024, 8 * 1024 * 1024 * 1024 * 1000},
		{"1e3", 1000, 1000000},
		{"1E", 1000000000000000000, math.MaxInt64},
		{"1e100", math.MaxInt64, math.MaxInt64},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			q := MustParse(tt.in)
			assert.Equal(t, tt.value, q.Value())
			assert.Equal(t, tt.mill, q.MilliValue())
		})
	}
}

func TestCmpAddSub(t *testing.T) {
	assert.Equal(t, 0, MustParse("1").Cmp(MustParse("1000m")))
	assert.Equal(t, -1, MustParse("999m").Cmp(MustParse("1")))
	assert.Equal(t, 1, MustParse("1Ki").Cmp(MustParse("1k")))
	assert.Equal(t, 1, MustParse("1e100").Cmp(MustParse("8Ei")))
	assert.Equal(t, -1, MustParse("-1e100").Cmp(MustParse("1n")))
	assert.Equal(t, 0, MustParse("0").Cmp(Quantity{}))
	assert.True(t, MustParse("2k").Equal(MustParse("2000")))

	q := MustParse("100m")
	q.Add(MustParse("900m"))
	assert.Equal(t, "1", q.String())
	q.Add(MustParse("1.5"))
	assert.Equal(t, "2500m", q.String())
	q.Sub(MustParse("3"))
	assert.Equal(t, "-500m", q.String())
	q.Neg()
	assert.Equal(t, "500m", q.String())

	var sum Quantity // a zero sum takes the format of its first term
	sum.Add(MustParse("1Gi"))
	sum.Add(MustParse("1Gi"))
	assert.Equal(t, "2Gi", sum.String())
	assert.Equal(t, "2Gi", NewQuantity(2*1024*1024*1024, BinarySI).String())
	assert.Equal(t, "250m", NewMilliQuantity(250, DecimalSI).String())
	assert.Equal(t, "5k", NewScaledQuantity(5, 3).String())
	assert.Equal(t, "1500", NewQuantity(1500, BinarySI).String())
}

func TestJSON(t *testing.T) {
	type holder struct {
		Q Quantity  `json:"q"`
		P *Quantity `json:"p,omitempty"`
	}
	b, err := json.Marshal(holder{Q: MustParse("1.5Gi")})
	require.NoError(t, err)
	assert.JSONEq(t, `{"q":"1536Mi"}`, string(b))
	b, err = json.Marshal(holder{})
	require.NoError(t, err)
	assert.JSONEq(t, `{"q":"0"}`, string(b))

	for in, want := range map[string]string{
		`{"q":"100m"}`:   "100m",
		`{"q":2}`:        "2",
		`{"q":0.5}`:      "500m",
		`{"q":1e3}`:      "1e3",
		`{"q":" 64Mi "}`: "64Mi",
		`{"q":null}`:     "0",
	} {
		var h holder
		require.NoError(t, json.Unmarshal([]byte(in), &h), in)
		assert.Equal(t, want, h.Q.String(), in)
	}
	var h holder
	assert.Equal(t, ErrFormatWrong, json.Unmarshal([]byte(`{"q":"12 apples"}`), &h))
	assert.Error(t, json.Unmarshal([]byte(`{"q":true}`), &h))
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"0", "100m", "1.5Gi", "-1e-3", "8Ei", "16Ei", ".", "+.5k", "1e100", "0.0000000001", "123456789012345678901234567890", "9223372036854775807", "-9223372036854775808", "1e2147483647", "10e2147483647", "1e-2147483648"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := ParseQuantity(s)
		if err != nil {
			return
		}
		// The canonical form parses back to the same number and prints the
		// same again.
		out := q.String()
		q2, err := ParseQuantity(out)
		if err != nil {
			t.Fatalf("%q printed %q which does not parse: %v", s, out, err)
		}
		if q2.Cmp(q) != 0 {
			t.Fatalf("%q printed %q which parses to a different value %q", s, out, q2.String())
		}
		if q2.String() != out {
			t.Fatalf("%q printed %q then %q", s, out, q2.String())
		}
		_ = q.Value()
		_ = q.MilliValue()
		b, err := json.Marshal(q)
		if err != nil {
			t.Fatal(err)
		}
		var q3 Quantity
		if err := json.Unmarshal(b, &q3); err != nil || q3.Cmp(q) != 0 {
			t.Fatalf("JSON round trip of %q: %s, %v", s, b, err)
		}
	})
}

func TestConstructedEqualsParsed(t *testing.T) {
	assert.Equal(t, MustParse("1k"), *NewQuantity(1000, DecimalSI))
	assert.Equal(t, MustParse("100m"), *NewMilliQuantity(100, DecimalSI))
	assert.Equal(t, MustParse("1Gi"), *NewQuantity(1<<30, BinarySI))
	assert.Equal(t, MustParse("5k"), *NewScaledQuantity(5000, 0))
	q := MustParse("600m")
	q.Add(MustParse("400m"))
	assert.Equal(t, MustParse("1"), q)
}
