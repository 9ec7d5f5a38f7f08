package registry

import "sync"

// listSizes remembers how big the lists of one resource were: per
// namespace ("" for every namespace, or a cluster-scoped resource), the
// stored bytes and the objects the last complete read went through. The
// API server's list budget charges a list by it before reading anything,
// as API Priority and Fairness charges a list by the resource's object
// count (kube-apiserver keeps that count from etcd; kubesim learns sizes
// from the lists it serves, so a list nobody made yet has no estimate).
type listSizes struct {
	mu    sync.Mutex
	byNS  map[string]listSize
	avg   int64 // bytes per object of the last read that saw any
	known bool
}

type listSize struct{ bytes, count int64 }

// maxListSizes bounds the namespaces remembered: past it the memory
// starts again, and estimates are learned anew.
const maxListSizes = 10000

// learn records a complete read of ns (every key under its prefix).
func (l *listSizes) learn(ns string, bytes, count int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.byNS == nil || len(l.byNS) >= maxListSizes {
		l.byNS = map[string]listSize{}
	}
	l.byNS[ns] = listSize{bytes, count}
	if count > 0 {
		l.avg, l.known = bytes/count, true
	}
}

// estimate is the stored bytes a list of ns with limit (0: all) will read,
// and whether there is anything to go by: the last complete read of ns, or
// failing that of every namespace (an upper bound), cut to limit objects
// at their average size; a limited list of a namespace never read is
// limit objects of the resource's average size.
func (l *listSizes) estimate(ns string, limit int64) (int64, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	size, ok := l.byNS[ns]
	if !ok && ns != "" {
		size, ok = l.byNS[""]
	}
	switch {
	case ok && limit > 0 && limit < size.count:
		return size.bytes / size.count * limit, true
	case ok:
		return size.bytes, true
	case limit > 0 && l.known:
		return l.avg * limit, true
	}
	return 0, false
}

// EstimateList is the bytes of stored objects a list of ns ("" for every
// namespace) with limit objects (0: all) is expected to read, from the
// lists served before; ok is false when none tells. The API server's list
// budget charges a list by it.
func (s *Store) EstimateList(ns string, limit int64) (bytes int64, ok bool) {
	return s.sizes.estimate(ns, limit)
}
