// Package snapshot copies every key of a store.Interface to a file and
// back: kubesim's `store export` and `store import`, the counterpart of
// etcdctl's `snapshot save` and `snapshot restore` (and of backing up
// kube-apiserver's etcd). Because it goes through store.Interface, a
// bbolt data directory can be copied into etcd and back.
//
// The format is JSON lines, so that a student can read it with head and
// jq:
//
//	{"format":"kubesim-store-snapshot/v1","revision":42}
//	{"key":"/registry/configmaps/default/a","uid":"…","value":"eyJraW5kIjoi…"}
//	…
//
// The first line is the header: the format and the revision the snapshot
// was taken at (the revision of the first page read). Then one line per
// key, in key order: the key, the uid given at its create, and the value
// in base64 (values are protobuf or JSON bytes).
//
// Left out, unlike etcd's snapshots: revisions and history. Import goes
// through Create, so every key gets the target store's own next revision
// (resourceVersions change; clients relist), and watches cannot resume
// across a restore, as after etcd's `snapshot restore
// --bump-revision`. Export reads in pages; it is consistent only when no
// one writes meanwhile, and it fails when it sees a key written after its
// first page (stop the API server first).
package snapshot
