// Package registry is the generic REST storage of the API server: one
// implementation of create, get, list, watch, update, delete and
// deletecollection that serves every resource, built-in or custom, over the
// store.
//
// It simulates k8s.io/apiserver/pkg/registry/generic/registry (the generic
// Store) and k8s.io/apiserver/pkg/registry/rest (strategies: BeforeCreate,
// BeforeUpdate, graceful deletion, finalizers). A resource brings only what
// differs: its Strategy (defaults, validation, what a status write may
// change), its selectable fields and its table columns.
//
// Reads honour their resourceVersion as k8s.io/apiserver's watch cache
// does (resourceversion.go): a revision not reached yet is waited for, then
// 504; watches may start with the current state (sendInitialEvents, the
// watch-list client-go uses) closed by an annotated BOOKMARK.
//
// Left out: the watch cache's object cache (lists and gets read the store;
// the store keeps a window of changes but no past objects, so a list with
// resourceVersionMatch=Exact at a past revision is served only when nothing
// of the resource changed since, and is 410 otherwise), conversion
// between versions (objects of a custom resource are served at every
// version unchanged, like conversion strategy None), and per-resource
// storage transforms (encryption at rest).
package registry
