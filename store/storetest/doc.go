// Package storetest is the conformance suite of store.Interface: every
// backend must pass Run. It is to kubesim what the storage "testing" package
// of k8s.io/apiserver (pkg/storage/testing) is to the etcd3 backend: the
// contract written down as tests, so a second backend (etcd, say) plugs in by
// passing the same tests.
package storetest
