package registry

import (
	"bytes"
	"sync"

	"github.com/kubesim/kubesim/api"
)

// writtenPrevs remembers, for an update that started from the watch
// cache's object (Store.current), that object and the stored bytes it was
// decoded from, under the key. The update's MODIFIED event, whose previous
// value is those very bytes, takes the object from here instead of
// decoding them again: the watchers' selectors need the object before the
// change (an update can make it stop matching). The store's event does not
// say at which revision its previous value was written, so the bytes are
// what is compared; equal bytes decode to an equal object, whichever write
// the event is of. The entry is left before the write is committed, since
// the watch cache may see the event before the write returns.
type writtenPrevs struct {
	mu sync.Mutex
	m  map[string]writtenPrev
}

type writtenPrev struct {
	value []byte
	prev  api.Object
}

// maxWrittenPrevs bounds entries no event took (the watch cache stopped
// in between; a failed write's is taken by the next write of the key from
// the same value): past it, the map starts again empty, and the events
// that find nothing decode as before.
const maxWrittenPrevs = 4096

// put records that an update of key starts from prev (shared, immutable:
// the watch cache's object), decoded from the stored bytes value.
func (w *writtenPrevs) put(key string, value []byte, prev api.Object) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.m == nil || len(w.m) >= maxWrittenPrevs {
		w.m = map[string]writtenPrev{}
	}
	w.m[key] = writtenPrev{value: value, prev: prev}
}

// take returns and forgets the object decoded from value, the previous
// value of a MODIFIED event of key, or nil when no update left it.
func (w *writtenPrevs) take(key string, value []byte) api.Object {
	w.mu.Lock()
	defer w.mu.Unlock()
	p, ok := w.m[key]
	if !ok || !bytes.Equal(p.value, value) {
		return nil
	}
	delete(w.m, key)
	return p.prev
}
