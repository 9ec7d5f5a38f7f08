package snapshot

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/kubesim/kubesim/store"
)

// Format names the file format in the header line.
const Format = "kubesim-store-snapshot/v1"

// pageSize is how many keys one List reads: an export never holds the
// whole store in one reply.
const pageSize = 500

// Header is the first line of a snapshot.
type Header struct {
	Format string `json:"format"`
	// Revision is the store's revision when the export began.
	Revision int64 `json:"revision"`
}

// Entry is one key of a snapshot; Value is base64 in the file (as
// encoding/json writes []byte).
type Entry struct {
	Key   string `json:"key"`
	UID   string `json:"uid,omitempty"`
	Value []byte `json:"value"`
}

// Export writes every key of s under "/" to w and returns the header it
// wrote and the number of keys.
func Export(ctx context.Context, s store.Interface, w io.Writer) (Header, int, error) {
	return export(ctx, s, w, pageSize)
}

// export is Export with the page size given (tests use small pages).
func export(ctx context.Context, s store.Interface, w io.Writer, limit int64) (Header, int, error) {
	var sw *Writer
	var h Header
	after := ""
	for {
		page, err := s.List(ctx, "/", store.ListOptions{Limit: limit, StartAfter: after})
		if err != nil {
			return h, sw.Count(), err
		}
		if sw == nil {
			h = Header{Format: Format, Revision: page.Revision}
			if sw, err = NewWriter(w, h); err != nil {
				return h, 0, err
			}
		}
		for _, kv := range page.Items {
			if kv.ModRevision > h.Revision {
				return h, sw.Count(), fmt.Errorf("key %s was written during the export (revision %d, after %d): stop the API server and export again",
					kv.Key, kv.ModRevision, h.Revision)
			}
			if len(kv.Value) == 0 {
				return h, sw.Count(), fmt.Errorf("key %s is damaged (its value fails the store's integrity check): see `kubesim store check`, "+
					"and export the rest with `kubesim store export --skip-damaged`", store.PrintableKey(kv.Key))
			}
			if err := sw.Add(Entry{Key: kv.Key, UID: kv.UID, Value: kv.Value}); err != nil {
				return h, sw.Count(), err
			}
			after = kv.Key
		}
		if !page.More || len(page.Items) == 0 {
			break
		}
	}
	return h, sw.Count(), sw.Flush()
}

// Writer writes a snapshot one entry at a time, for a source that is not
// a store.Interface: the keys Salvage reads from a damaged data file.
type Writer struct {
	bw  *bufio.Writer
	enc *json.Encoder
	n   int
}

// NewWriter writes the header line h to w and returns a Writer for the
// entries; call Flush at the end.
func NewWriter(w io.Writer, h Header) (*Writer, error) {
	bw := bufio.NewWriter(w)
	sw := &Writer{bw: bw, enc: json.NewEncoder(bw)}
	return sw, sw.enc.Encode(h)
}

// Add writes one entry. Entries go in key order, as Export writes them.
func (w *Writer) Add(e Entry) error {
	if err := w.enc.Encode(e); err != nil {
		return err
	}
	w.n++
	return nil
}

// Count is the number of entries written; 0 for a nil Writer.
func (w *Writer) Count() int {
	if w == nil {
		return 0
	}
	return w.n
}

// Flush writes out what is buffered.
func (w *Writer) Flush() error { return w.bw.Flush() }

// ErrNotEmpty is returned by Import when the target store holds keys.
var ErrNotEmpty = errors.New("the target store is not empty")

// Import creates every key of the snapshot r in s, which must be empty
// (ErrNotEmpty otherwise: an import never merges or overwrites). Each key
// gets s's own next revision. It returns the snapshot's header and the
// number of keys created.
func Import(ctx context.Context, s store.Interface, r io.Reader) (Header, int, error) {
	var h Header
	existing, err := s.List(ctx, "/", store.ListOptions{Limit: 1})
	if err != nil {
		return h, 0, err
	}
	if len(existing.Items) > 0 {
		return h, 0, fmt.Errorf("%w (it holds %s, among others): import only into an empty store", ErrNotEmpty, existing.Items[0].Key)
	}
	dec := json.NewDecoder(bufio.NewReader(r))
	if err := dec.Decode(&h); err != nil {
		return h, 0, fmt.Errorf("reading the snapshot's header: %w", err)
	}
	if h.Format != Format {
		return h, 0, fmt.Errorf("not a kubesim store snapshot: format %q, want %q", h.Format, Format)
	}
	n := 0
	for {
		var e Entry
		err := dec.Decode(&e)
		if errors.Is(err, io.EOF) {
			return h, n, nil
		}
		if err != nil {
			return h, n, fmt.Errorf("reading entry %d of the snapshot: %w", n+1, err)
		}
		if e.Key == "" || e.Key[0] != '/' {
			return h, n, fmt.Errorf("entry %d of the snapshot: key %q must start with /", n+1, e.Key)
		}
		if _, err := s.Create(ctx, e.Key, e.Value, store.CreateOptions{UID: e.UID}); err != nil {
			return h, n, fmt.Errorf("importing %s: %w", e.Key, err)
		}
		n++
	}
}
