package unstructured

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/api/jsoncodec"
)

// fromDecodedSeeds are bodies whose numbers, strings and metadata the
// round trip (encode, decode) treats in every way it can.
var fromDecodedSeeds = []string{
	`{"apiVersion":"lab.example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"default","labels":{"a":"b"},"annotations":{"x":"y"},"generation":2,"creationTimestamp":"2024-01-01T00:00:00Z","finalizers":["f"],"ownerReferences":[{"apiVersion":"v1","kind":"Pod","name":"p","uid":"u","controller":true}]},"spec":{"color":"green","size":3,"ports":[{"port":80},{"port":443,"protocol":"UDP"}]}}`,
	// Whole floats: written without a fraction and read back as int64,
	// except where they do not fit; above 2^53 the written form is not
	// the float's exact value.
	`{"spec":{"a":1.0,"b":-0.0,"c":0.5,"d":1e20,"e":1e21,"f":4611686018427387904.0,"g":9223372036854775807,"h":-9223372036854775808,"i":9223372036854775808,"j":-9223372036854775809,"k":1e300,"l":-1e-7,"m":123456789012345678.0,"n":9007199254740993.0}}`,
	`{"spec":{"list":[1.0,2.5,[3.0,{"x":4.0}],null,true,false,"s"],"empty":{},"none":[],"null":null}}`,
	`{"spec":{"s":"ünïcödé \u2028 \u0000 \"quoted\" \\ <tag> &amp;","k\u00e9y":"v"}}`,
	`{"metadata":null,"spec":{}}`,
	`{"kind":"Widget","spec":{"x":1}}`,
	`{"metadata":{"generation":3.0,"name":"g"}}`,
	`{"metadata":{"labels":"not a map"}}`,
	`{"metadata":{"name":7}}`,
	`{"metadata":{"creationTimestamp":"yesterday"}}`,
	`{"metadata":{"Name":"case"}}`,
	`{"metadata":{"name":"dup","name":"dup2"}}`,
	`{"apiVersion":3}`,
	`{"spec":{"big":1e700,"small":-1e700}}`,
	`{"metadata":["not","an","object"]}`,
	`{}`,
}

// checkFromDecoded holds FromDecoded to the round trip for one body:
// where it answers, the round trip gives the same object; where the round
// trip fails, FromDecoded does not answer.
func checkFromDecoded(t *testing.T, body []byte) {
	m, err := DecodeMap(body)
	if err != nil {
		return
	}
	want := &Unstructured{}
	raw, roundTripErr := jsoncodec.Marshal(m)
	if roundTripErr == nil {
		roundTripErr = jsoncodec.Unmarshal(raw, want)
	}
	got, ok := FromDecoded(m)
	if !ok {
		again, err := DecodeMap(body)
		require.NoError(t, err)
		if roundTripErr == nil {
			// m goes to the round trip now: it must be as it was.
			raw2, err := jsoncodec.Marshal(m)
			require.NoError(t, err)
			want2, err := jsoncodec.Marshal(again)
			require.NoError(t, err)
			assert.Equal(t, string(want2), string(raw2), "a refusal left m changed: %s", body)
		}
		return
	}
	require.NoError(t, roundTripErr, "FromDecoded answered where the round trip fails: %s", body)
	assert.Equal(t, want, got, "%s", body)
}

func TestFromDecodedIsTheRoundTrip(t *testing.T) {
	for _, body := range fromDecodedSeeds {
		checkFromDecoded(t, []byte(body))
	}
	// And it answers for the usual bodies, not only refuses.
	for _, body := range fromDecodedSeeds[:7] {
		m, err := DecodeMap([]byte(body))
		require.NoError(t, err)
		_, ok := FromDecoded(m)
		assert.True(t, ok, "%s", body)
	}
	for _, body := range []string{`{"metadata":{"labels":"not a map"}}`, `{"metadata":{"name":7}}`, `{"apiVersion":3}`, `{"metadata":["x"]}`} {
		m, err := DecodeMap([]byte(body))
		require.NoError(t, err)
		_, ok := FromDecoded(m)
		assert.False(t, ok, "%s: the round trip words this error", body)
	}
}

func TestFromDecodedRefusesWhatTheEncoderWouldChange(t *testing.T) {
	for name, m := range map[string]map[string]any{
		"invalid UTF-8 in a value":  {"spec": map[string]any{"s": "a\xffb"}},
		"invalid UTF-8 in a name":   {"spec": map[string]any{"a\xff": "b"}},
		"a type Decode never makes": {"spec": map[string]any{"n": 3}},
		"invalid UTF-8 in metadata": {"metadata": map[string]any{"name": "a\xff"}},
	} {
		_, ok := FromDecoded(m)
		assert.False(t, ok, name)
	}
}

func FuzzFromDecoded(f *testing.F) {
	for _, body := range fromDecodedSeeds {
		f.Add([]byte(body))
	}
	f.Fuzz(checkFromDecoded)
}

// DecodeMapExact says whether the strict tokenizer read the body: never
// for a name twice in one object or invalid UTF-8 (encoding/json decodes
// those), always otherwise; the map is DecodeMap's either way.
func TestDecodeMapExact(t *testing.T) {
	for body, wantExact := range map[string]bool{
		`{"spec":{"a":1,"b":[{"c":"d"}]}}`:      true,
		`{"spec":{"a":1,"a":2}}`:                false,
		`{"spec":{"list":[{"x":1,"x":1}]}}`:     false,
		`{"metadata":{"name":"a"},"spec":{}}`:   true,
		"{\"spec\":{\"s\":\"a\xffb\"}}":         false,
		`{"a":{"b":1},"c":{"b":1},"b":{"a":1}}`: true, // the same name in different objects
	} {
		m, exact, err := DecodeMapExact([]byte(body))
		require.NoError(t, err, body)
		assert.Equal(t, wantExact, exact, body)
		want, err := DecodeMap([]byte(body))
		require.NoError(t, err)
		assert.Equal(t, want, m, body)
	}
}
