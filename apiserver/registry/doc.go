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
// Left out: the watch cache (lists and gets read the store), conversion
// between versions (objects of a custom resource are served at every
// version unchanged, like conversion strategy None), and per-resource
// storage transforms (encryption at rest).
package registry
