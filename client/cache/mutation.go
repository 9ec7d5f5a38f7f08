package cache

import (
	"fmt"
	"reflect"
	"sync"

	"github.com/kubesim/kubesim/api"
)

// MutationDetector catches a component changing an object it got from an
// informer: client-go's cacheMutationDetector (KUBE_CACHE_MUTATION_DETECTOR).
// Objects in a cache are shared — between the controllers of a shared
// informer, and, in process, with the API server's watch cache and every
// other in-process watcher — so a change made in place instead of on a
// copy corrupts what everyone else sees. The detector keeps a deep copy of
// every object the informers it is given to store, and Check compares
// each with its copy.
//
// It costs a copy of every version of every object, for the life of the
// detector: an option for tests, never on by default.
type MutationDetector struct {
	mu      sync.Mutex
	entries []mutationEntry
}

type mutationEntry struct {
	obj, copy api.Object
}

// NewMutationDetector returns an empty detector.
func NewMutationDetector() *MutationDetector { return &MutationDetector{} }

// add remembers obj as it is now (a nil detector does nothing).
func (d *MutationDetector) add(obj api.Object) {
	if d == nil {
		return
	}
	cp := api.DeepCopy(obj)
	d.mu.Lock()
	d.entries = append(d.entries, mutationEntry{obj: obj, copy: cp})
	d.mu.Unlock()
}

// Check reports the first object that differs from its copy: something
// changed a shared object in place.
func (d *MutationDetector) Check() error {
	if d == nil {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, e := range d.entries {
		if !reflect.DeepEqual(e.obj, e.copy) {
			m := api.Meta(e.copy)
			return fmt.Errorf("cache mutation detected: %T %s/%s (resourceVersion %s) was changed in place; copy it (DeepCopy) before changing it",
				e.obj, m.Namespace, m.Name, m.ResourceVersion)
		}
	}
	return nil
}
