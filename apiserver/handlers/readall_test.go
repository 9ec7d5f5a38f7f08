package handlers

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readAll reads what io.ReadAll reads whatever Content-Length announced:
// the body itself when it is as long, shorter or longer, and an unknown
// or out-of-limit length falls back to io.ReadAll.
func TestReadAllReadsTheBodyWhateverItsAnnouncedLength(t *testing.T) {
	body := `{"kind":"Pod"}`
	for _, size := range []int64{-1, 0, 5, int64(len(body)) - 1, int64(len(body)), int64(len(body)) + 1, 1000, 1 << 40} {
		data, err := readAll(strings.NewReader(body), size, 1<<20)
		require.NoError(t, err, size)
		assert.Equal(t, body, string(data), size)
	}
	data, err := readAll(strings.NewReader(""), 10, 1<<20)
	require.NoError(t, err)
	assert.Empty(t, data)
	boom := errors.New("boom")
	_, err = readAll(io.MultiReader(strings.NewReader("ab"), errReader{boom}), 10, 1<<20)
	assert.ErrorIs(t, err, boom)
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
