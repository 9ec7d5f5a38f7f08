package boltstore

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/store"
)

func branchKey(p []byte, i int) string {
	e := elem(p, i)
	pos, ksize := binary.NativeEndian.Uint32(e[0:]), binary.NativeEndian.Uint32(e[4:])
	at := 16 + 16*i + int(pos)
	return string(p[at : at+int(ksize)])
}

// Damage of every kind at once: a leaf page lost, a damaged record, a
// damaged entry in the middle of the log. The store refuses the file;
// Salvage keeps every other key, with the log's writes over the file's
// (a write in the log brings back a key of the lost page), in key order,
// and names what it left out.
func TestSalvageKeepsWhatIsReadable(t *testing.T) {
	path := treeFile(t, 300)
	r := openRaw(t, path)
	rootID := r.kvRoot()
	root := r.page(rootID)
	require.Equal(t, uint16(branchPageFlag), flagsOf(root))
	require.Greater(t, int(binary.NativeEndian.Uint16(root[10:])), 3)
	lostFrom, lostTo := branchKey(root, 1), branchKey(root, 2)
	require.Greater(t, "/k/0299", branchKey(root, 2), "the lost update is outside the lost page")

	// Writes in the log only: one to a key of the page to be lost, one to
	// be lost with its log entry, a create and a delete after it.
	s, err := Open(noCheckpoint(path))
	require.NoError(t, err)
	_, err = s.Update(bg, lostFrom, []byte(`{"from":"log"}`), store.Preconditions{})
	require.NoError(t, err)
	_, err = s.Update(bg, "/k/0299", []byte(`{"lost":true}`), store.Preconditions{})
	require.NoError(t, err)
	_, err = s.Create(bg, "/k/new", []byte(`{"new":true}`), store.CreateOptions{UID: "u-new"})
	require.NoError(t, err)
	_, err = s.Delete(bg, "/k/0200", store.Preconditions{})
	require.NoError(t, err)
	require.NoError(t, s.crash())
	entries := walEntries(t, path+WALSuffix)
	require.Len(t, entries, 4)
	flipAt(t, path+WALSuffix, entries[1][1]-3, 0x08)

	leaf0 := r.page(childOf(root, 0))
	k5 := string(leafKey(leaf0, 5))
	e5 := elem(leaf0, 5)
	at := 16 + 16*5 + int(binary.NativeEndian.Uint32(e5[4:])) + int(binary.NativeEndian.Uint32(e5[8:])) + 30
	leaf0[at] ^= 0x02 // a byte of its value
	r.put(childOf(root, 0), leaf0)
	setU64(elem(root, 1)[8:], 1<<30)
	r.put(rootID, root)

	_, err = Open(Config{Path: path})
	require.True(t, IsDamaged(err), "%v", err)

	var got []store.KeyValue
	started := int64(-1)
	rep, err := Salvage(path, func(rev int64) error { started = rev; return nil }, func(kv store.KeyValue) error {
		got = append(got, kv)
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, int64(304), started, "the header's revision: the newest write kept")
	keys := make([]string, 0, len(got))
	byKey := map[string]store.KeyValue{}
	for _, kv := range got {
		keys = append(keys, kv.Key)
		byKey[kv.Key] = kv
	}
	require.True(t, slices.IsSorted(keys))
	require.Equal(t, len(keys), len(byKey), "each key once")
	assert.Equal(t, len(got), rep.Kept)

	for i := range 300 {
		k := fmt.Sprintf("/k/%04d", i)
		_, kept := byKey[k]
		switch {
		case k == lostFrom:
			assert.Equal(t, `{"from":"log"}`, string(byKey[k].Value), "the log's write of a key of the lost page")
		case k >= lostFrom && k < lostTo:
			assert.False(t, kept, "%s was on the lost page", k)
		case k == k5:
			assert.False(t, kept, "the damaged record is left out")
		case k == "/k/0200":
			assert.False(t, kept, "deleted in the log")
		case k == "/k/0299":
			assert.Contains(t, string(byKey[k].Value), `"i":299`, "its update was in the damaged entry")
		default:
			assert.True(t, kept, k)
			assert.Contains(t, string(byKey[k].Value), fmt.Sprintf(`"i":%d,`, i))
		}
	}
	assert.Equal(t, "u-new", byKey["/k/new"].UID)
	assert.Equal(t, `{"new":true}`, string(byKey["/k/new"].Value))

	all := strings.Join(rep.Problems, "\n")
	t.Log(all)
	assert.Contains(t, all, "the keys from "+lostFrom+" up to (not including) "+lostTo+" are unreadable")
	assert.Contains(t, all, "key "+k5+": record checksum mismatch: left out")
	assert.Contains(t, all, "revisions 302 to 302 are lost")
	assert.Contains(t, all, "/k/0299", "the damaged entry's key, as far as it can be read")
	assert.Equal(t, int64(304), rep.Revision)
}
