package store

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPrintableKey(t *testing.T) {
	long := "/registry/pods/default/" + strings.Repeat("a", 2000)
	cases := []struct{ key, want string }{
		{"/registry/core/configmaps/default/x", "/registry/core/configmaps/default/x"},
		{"/registry/a\x00b", `"/registry/a\x00b"`},
		{"/registry/a\"b", `"/registry/a\"b"`},
		{"/registry/\xff", `"/registry/\xff"`},
		{"/k/000 ", `"/k/000 "`},
		{"/k/é", `"/k/é"`},
		{long, `"/registry/pods/default/` + strings.Repeat("a", 128-len("/registry/pods/default/")) + `"… (2023 bytes)`},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, PrintableKey(c.key))
	}
	// A key of a damaged page: raw bytes, 13 KB.
	junk := "/registry/core/configmaps/default/big" + strings.Repeat("\x00\x01\xfe{", 3300)
	got := PrintableKey(junk)
	assert.Less(t, len(got), 600, "bounded")
	assert.Contains(t, got, "(13237 bytes)")
	for _, r := range got {
		assert.True(t, r >= 0x20 && r < 0x7f || r == '…', "escaped: %q", r)
	}
}
