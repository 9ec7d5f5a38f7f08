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
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	var h Header
	n, after := 0, ""
	for {
		page, err := s.List(ctx, "/", store.ListOptions{Limit: limit, StartAfter: after})
		if err != nil {
			return h, n, err
		}
		if h.Format == "" {
			h = Header{Format: Format, Revision: page.Revision}
			if err := enc.Encode(h); err != nil {
				return h, n, err
			}
		}
		for _, kv := range page.Items {
			if kv.ModRevision > h.Revision {
				return h, n, fmt.Errorf("key %s was written during the export (revision %d, after %d): stop the API server and export again",
					kv.Key, kv.ModRevision, h.Revision)
			}
			if len(kv.Value) == 0 {
				return h, n, fmt.Errorf("key %s is damaged (its value fails the store's integrity check): see `kubesim store check`", kv.Key)
			}
			if err := enc.Encode(Entry{Key: kv.Key, UID: kv.UID, Value: kv.Value}); err != nil {
				return h, n, err
			}
			n++
			after = kv.Key
		}
		if !page.More || len(page.Items) == 0 {
			break
		}
	}
	return h, n, bw.Flush()
}

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
