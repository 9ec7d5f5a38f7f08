package registry

import (
	"bytes"
	"sync"

	"github.com/kubesim/kubesim/api"
)

// decodedWrites hands objects a write has decoded to the watch cache,
// which would otherwise decode the same stored bytes again for the write's
// event: under the key, the object and the stored bytes it was decoded
// from. The store's event carries bytes, not the revision they were
// written at, so the bytes are what is compared; equal bytes decode to an
// equal object, whichever write the event is of. An entry is left before
// the write is committed, since the watch cache may see the event before
// the write returns. A Store keeps two:
//   - written: what an in-process client's write decoded for its answer
//     (decodeWritten), the event's new object;
//   - prevs: the watch cache's object an update started from (current),
//     the MODIFIED event's object before the change, of which the watchers'
//     selectors read the fields and labels (an update can make an object
//     stop matching).
type decodedWrites struct {
	mu sync.Mutex
	m  map[string]decodedWrite
}

type decodedWrite struct {
	value []byte
	obj   api.Object
}

// maxDecodedWrites bounds entries no event took (the watch cache stopped
// in between; a failed write's is taken by the next write of the key with
// the same bytes): past it, the map starts again empty, and the events
// that find nothing decode as before.
const maxDecodedWrites = 4096

// put leaves obj, decoded from value, for an event of key.
func (w *decodedWrites) put(key string, value []byte, obj api.Object) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.m == nil || len(w.m) >= maxDecodedWrites {
		w.m = map[string]decodedWrite{}
	}
	w.m[key] = decodedWrite{value: value, obj: obj}
}

// take returns and forgets the object left for key decoded from value,
// or nil.
func (w *decodedWrites) take(key string, value []byte) api.Object {
	w.mu.Lock()
	defer w.mu.Unlock()
	p, ok := w.m[key]
	if !ok || !bytes.Equal(p.value, value) {
		return nil
	}
	delete(w.m, key)
	return p.obj
}

// watchCacheLive reports whether the watch cache's stream runs, so that a
// write's event will be decoded (an object left for it would otherwise
// wait, unused, until the map starts again).
func (s *Store) watchCacheLive() bool {
	c := &s.cacher.objects
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.live
}
