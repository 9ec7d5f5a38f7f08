package api

import (
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRawExtension(t *testing.T) {
	// JSON: the document itself, null when empty.
	cr := ControllerRevision{Revision: 1, Data: RawExtension{Raw: json.RawMessage(`{"a":[1,2]}`)}}
	out, err := json.Marshal(cr)
	require.NoError(t, err)
	assert.Contains(t, string(out), `"data":{"a":[1,2]},"revision":1`)
	var back ControllerRevision
	require.NoError(t, json.Unmarshal(out, &back))
	assert.JSONEq(t, `{"a":[1,2]}`, string(back.Data.Raw))
	require.NoError(t, json.Unmarshal([]byte(`{"data":null}`), &back))
	assert.Nil(t, back.Data.Raw)

	// Protobuf: a message {bytes raw = 1}; empty when there is none.
	assert.Equal(t, "0a027b7d20", hex.EncodeToString(append(RawExtension{Raw: json.RawMessage(`{}`)}.AppendProtobuf(nil), 0x20)))
	assert.Empty(t, RawExtension{}.AppendProtobuf(nil))
	var re RawExtension
	// An unknown field 2 is skipped, field 1 kept.
	require.NoError(t, re.UnmarshalProtobuf([]byte{0x10, 0x05, 0x0a, 0x02, '[', ']'}))
	assert.Equal(t, "[]", string(re.Raw))
	require.NoError(t, re.UnmarshalProtobuf(nil))
	assert.Nil(t, re.Raw)
	assert.Error(t, re.UnmarshalProtobuf([]byte{0x0a, 0x05, '['}), "a truncated field")
}
