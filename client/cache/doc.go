// Package cache keeps a control loop's local copy of the objects it
// watches: an informer lists a resource, then watches from the list's
// resourceVersion, keeps every object in an indexed cache and calls event
// handlers; on a 410 Expired it lists again.
//
// It simulates k8s.io/client-go/tools/cache (SharedIndexInformer, Indexer,
// listers). Objects handed out by the cache are shared: copy before changing
// (DeepCopyObject), as in client-go.
//
// Two ways to run: Run keeps a watch open in a goroutine (live mode); Sync
// lists once and applies the differences in key order (step mode, where the
// stepper must see the same events in the same order every run). Both feed
// the same handlers. Left out: resync periods, shared informer factories,
// and the DeltaFIFO between the watch and the cache.
package cache
