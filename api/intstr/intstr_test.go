package intstr

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestJSON(t *testing.T) {
	type holder struct {
		V IntOrString  `json:"v"`
		P *IntOrString `json:"p,omitempty"`
	}
	tests := []struct {
		in   holder
		json string
	}{
		{holder{V: FromInt32(8080)}, `{"v":8080}`},
		{holder{V: FromString("http")}, `{"v":"http"}`},
		{holder{V: FromString("25%")}, `{"v":"25%"}`},
		{holder{}, `{"v":0}`},
		{holder{V: FromString("80")}, `{"v":"80"}`},
		{holder{V: FromInt32(1), P: &IntOrString{Type: String, StrVal: "x"}}, `{"v":1,"p":"x"}`},
	}
	for _, tt := range tests {
		b, err := json.Marshal(tt.in)
		require.NoError(t, err)
		assert.JSONEq(t, tt.json, string(b))
		var back holder
		require.NoError(t, json.Unmarshal(b, &back))
		assert.Equal(t, tt.in, back)
	}
	var h holder
	assert.Error(t, json.Unmarshal([]byte(`{"v":1.5}`), &h))
	assert.Error(t, json.Unmarshal([]byte(`{"v":99999999999}`), &h))
	assert.Error(t, json.Unmarshal([]byte(`{"v":true}`), &h))
}

func TestParseAndString(t *testing.T) {
	assert.Equal(t, FromInt32(80), Parse("80"))
	assert.Equal(t, FromString("http"), Parse("http"))
	assert.Equal(t, FromString("99999999999"), Parse("99999999999"))
	v := FromInt32(-3)
	assert.Equal(t, "-3", v.String())
	v = FromString("25%")
	assert.Equal(t, "25%", v.String())
	v = FromString("12")
	assert.Equal(t, 12, v.IntValue())
}

func TestGetScaledValueFromIntOrPercent(t *testing.T) {
	p := func(v IntOrString) *IntOrString { return &v }
	tests := []struct {
		name    string
		in      *IntOrString
		total   int
		roundUp bool
		want    int
		err     string
	}{
		{"int", p(FromInt32(3)), 10, true, 3, ""},
		{"percent up", p(FromString("25%")), 10, true, 3, ""},
		{"percent down", p(FromString("25%")), 10, false, 2, ""},
		{"exact", p(FromString("50%")), 10, false, 5, ""},
		{"zero total", p(FromString("25%")), 0, true, 0, ""},
		{"hundred", p(FromString("100%")), 7, true, 7, ""},
		{"nil", nil, 10, true, 0, "nil value for IntOrString"},
		{"not percent", p(FromString("5")), 10, true, 0, "invalid value for IntOrString: invalid type: string is not a percentage"},
		{"bad number", p(FromString("x%")), 10, true, 0, `invalid value for IntOrString: invalid value "x%": strconv.Atoi: parsing "x": invalid syntax`},
		{"bad type", &IntOrString{Type: 7}, 10, true, 0, "invalid value for IntOrString: invalid type: neither int nor percentage"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := GetScaledValueFromIntOrPercent(tt.in, tt.total, tt.roundUp)
			if tt.err != "" {
				assert.EqualError(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestValueOrDefault(t *testing.T) {
	def := FromString("25%")
	assert.Equal(t, &def, ValueOrDefault(nil, def))
	v := FromInt32(1)
	assert.Same(t, &v, ValueOrDefault(&v, def))
}

func FuzzUnmarshalJSON(f *testing.F) {
	for _, s := range []string{`80`, `"http"`, `"25%"`, `-1`, `null`, `"\u00e9"`, `1.5`, `true`, `{}`, `2147483648`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var v IntOrString
		if err := json.Unmarshal(b, &v); err != nil {
			return
		}
		out, err := json.Marshal(v)
		require.NoError(t, err)
		var back IntOrString
		require.NoError(t, json.Unmarshal(out, &back), "%s", out)
		require.Equal(t, v, back)
		_, _ = GetScaledValueFromIntOrPercent(&v, 10, true)
	})
}
