// Package etcdstore is store.Interface on a real etcd cluster, through
// go.etcd.io/etcd/client/v3: what kube-apiserver's storage layer
// (k8s.io/apiserver/pkg/storage/etcd3) does with etcd.
//
//   - Revisions are etcd's revisions: a key's create and mod revision, the
//     cluster's revision in every reply.
//   - Preconditions are etcd transactions: a create puts only if the key's
//     create revision is 0; an update or delete reads the key, checks the
//     caller's resourceVersion and uid, and commits only if the key's mod
//     revision is still the one read (compare-and-swap), retrying when
//     another writer came between and the caller gave no resourceVersion.
//     Two API servers racing on one object: exactly one wins.
//   - Watch is etcd's watch: one stream from the key prefix, with previous
//     values, feeds a store.Broadcaster, the same window and slow-watcher
//     policy boltstore uses; a write returns once its event is in that
//     window, so a writer's own watch never lags its reply.
//   - Compaction is etcd's compaction; if etcd compacts history this
//     store's stream still needed, every watcher gets the expired error and
//     relists, as with kube-apiserver's 410.
//
// Each value is stored with the uid given at create, in a small envelope
// (uid length, uid, value); everything is kept under Config.Prefix (the
// --etcd-prefix of kube-apiserver, "/registry" there), so several
// kubesim stores can share one etcd.
//
// Left out: TLS client options are the caller's (Config.TLS), leases on
// keys (events' TTL), and etcd's own authentication.
package etcdstore
