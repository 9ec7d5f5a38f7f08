package store

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Since waits for the events its backend committed but has not published
// yet, keeps to its prefix and range, and is expired once compacted.
func TestBroadcasterSince(t *testing.T) {
	b := NewBroadcaster(BroadcasterConfig{}, 3)
	got := make(chan []Event, 1)
	go func() {
		evs, err := b.Since("/a/", 3, 5)
		assert.NoError(t, err)
		got <- evs
	}()
	b.Publish(Event{Type: Added, Key: "/a/x", Revision: 4}, Event{Type: Added, Key: "/b/y", Revision: 5})
	evs := <-got
	require.Len(t, evs, 1)
	assert.Equal(t, "/a/x", evs[0].Key)

	b.Publish(Event{Type: Modified, Key: "/a/x", Revision: 6, PrevModRevision: 4})
	evs, err := b.Since("/a/", 4, 6)
	require.NoError(t, err)
	require.Len(t, evs, 1)
	assert.Equal(t, int64(6), evs[0].Revision)
	evs, err = b.Since("/a/", 6, 6)
	require.NoError(t, err)
	assert.Empty(t, evs)

	b.Compact(5)
	_, err = b.Since("/a/", 4, 6)
	assert.True(t, IsExpired(err), "%v", err)
	b.Close()
	_, err = b.Since("/a/", 6, 7)
	assert.ErrorIs(t, err, ErrClosed)
}
