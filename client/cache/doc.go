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
// stepper must see the same events in the same order every run) — or,
// given a change count (FactoryConfig.Changes), not at all while no write
// touched the resource since its last list. Both feed the same handlers.
//
// A Factory (SharedInformerFactory) gives the controllers of one process
// one informer per resource in live mode; a MutationDetector
// (KUBE_CACHE_MUTATION_DETECTOR) catches a component changing a shared
// object in place. In process, a watch receives the API server's decoded
// objects themselves (package api/handoff), shared with every other
// in-process watcher: the copy-before-changing rule is what keeps them
// right. Left out: resync periods, the factory's Start/WaitForCacheSync
// (each controller runs its informers; a shared one runs while any of them
// does), and the DeltaFIFO between the watch and the cache.
package cache
