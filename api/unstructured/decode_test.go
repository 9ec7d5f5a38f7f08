package unstructured

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// decodeStd is Decode as it was before the faster reader: encoding/json
// alone. Decode must accept, refuse and word what it does.
func decodeStd(data []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, fmt.Errorf("unexpected data after the JSON value")
	}
	return FixNumbers(v), nil
}

func TestDecodeSameAsEncodingJSON(t *testing.T) {
	docs := []string{
		`{}`, `[]`, `null`, `true`, `"s"`, `0`, `-0`, `1.0`, `1e2`, `-1.5E-3`, `9223372036854775807`, `9223372036854775808`,
		`123456789012345678901234567890`, `1e400`, ` {"a" : [1, 2.5, "x", null, true, false, {"b": {}}, []]} `,
		`{"a":1,"a":2}`, `{"s":"a\xffb"}`, `{"s":"\u00e9\ud83d\ude00\n\"<>&"}`, `{"s":"\ud800"}`,
		`{} }`, `{}]`, `{}{}`, `{} x`, `{`, `{"a":}`, `[1,]`, `'x'`, ``, `   `, `nul`, `{"a":1}` + "\n",
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","labels":{"a":"b"}},"data":{"k":"v"}}`,
		strings.Repeat(`[`, 200) + strings.Repeat(`]`, 200),
	}
	for _, doc := range docs {
		want, wantErr := decodeStd([]byte(doc))
		got, err := Decode([]byte(doc))
		if wantErr != nil {
			if assert.Error(t, err, "%q", doc) {
				assert.Equal(t, wantErr.Error(), err.Error(), "%q", doc)
			}
			continue
		}
		if assert.NoError(t, err, "%q", doc) {
			assert.Equal(t, want, got, "%q", doc)
		}
	}
}
