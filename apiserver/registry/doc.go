// Package registry is the generic REST storage of the API server: one
// implementation of create, get, list, watch, update, delete and
// deletecollection that serves every resource, built-in or custom, over the
// store.
//
// It simulates k8s.io/apiserver/pkg/registry/generic/registry (the generic
// Store) and k8s.io/apiserver/pkg/registry/rest (strategies: BeforeCreate,
// BeforeUpdate, graceful deletion, finalizers). A resource brings only what
// differs: its Strategy (defaults, validation), its status strategy
// (PrepareForStatusUpdate: what a /status write may change besides the
// status), its warnings, its selectable fields and its table columns.
//
// The watch cache (watchcache.go) decodes each store event once and hands
// it to the watchers it concerns, indexed by exact field values, as
// Kubernetes' Cacher does. Reads honour their resourceVersion as the watch
// cache does (resourceversion.go): a revision not reached yet is waited
// for, then 504; watches may start with the current state
// (sendInitialEvents, the watch-list client-go uses) closed by an
// annotated BOOKMARK; such a watch joins the shared stream before its list
// is read, so a long list leaves no gap, and a resource's watch-lists read
// their lists two at a time. When the store ends the cacher's own stream
// as too slow, the stream resumes from the store's window of changes and
// the watchers notice nothing; only past that window are they ended (and
// their clients relist). Callers that only read (the Table lists, the
// admission plugins' reads of namespaces, PriorityClasses and LimitRanges)
// take decoded objects from the store's one object cache (objectcache.go:
// the watch cache's objects while its stream runs, the reads' own
// otherwise) when the key's revision is the cached one.
//
// Every page of a paged list, and every read of one page, is at the
// revision of the list's first read (carried in the continue token), as
// kube-apiserver's pages are etcd range reads at that revision; a list
// with resourceVersionMatch=Exact reads at its revision alike. Once the
// store's history no longer reaches that revision the answer is 410
// Expired (for a continue token with kube-apiserver's words and a token
// that goes on at the latest revision).
//
// Left out: a cache of whole objects (lists and gets read the store, not
// the watch cache), conversion between versions (objects of a custom resource
// are served at every version unchanged, like conversion strategy None),
// and per-resource storage transforms (encryption at rest).
package registry
