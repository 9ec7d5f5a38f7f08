package job

import (
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/clock"
)

// ExpectationsTimeout is how long the controller waits to see its own
// creates and deletes before it acts anyway (a lost watch event), as in
// Kubernetes.
const ExpectationsTimeout = 5 * time.Minute

// expectations remember, per Job uid, the pod creations and deletions
// written but not yet seen by the pod informer. Until they are seen the
// Job is not synced from a stale cache, so that a live sync right after a
// create never creates the same pod twice (Kubernetes'
// UIDTrackingControllerExpectations, smaller). In step mode the informers
// are refreshed before every step, so nothing ever waits.
type expectations struct {
	clock clock.Clock
	mu    sync.Mutex
	m     map[types.UID]*expectation
}

type expectation struct {
	adds     int
	deleting map[string]bool // pod keys
	at       time.Time
}

func newExpectations(clk clock.Clock) *expectations {
	return &expectations{clock: clk, m: map[types.UID]*expectation{}}
}

// satisfied reports whether the Job may be synced.
func (e *expectations) satisfied(uid types.UID) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	x, ok := e.m[uid]
	if !ok || (x.adds <= 0 && len(x.deleting) == 0) {
		return true
	}
	return e.clock.Now().Sub(x.at) > ExpectationsTimeout
}

// expect records n creations and the deletion of the pods keys, replacing
// what was recorded (a sync happens only once the last was satisfied).
func (e *expectations) expect(uid types.UID, adds int, deletes []string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	x := &expectation{adds: adds, deleting: map[string]bool{}, at: e.clock.Now()}
	for _, k := range deletes {
		x.deleting[k] = true
	}
	e.m[uid] = x
}

// lowerAdds is a creation that failed, or was seen.
func (e *expectations) lowerAdds(uid types.UID) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if x, ok := e.m[uid]; ok {
		x.adds--
	}
}

// deletionObserved is a deletion seen (or failed).
func (e *expectations) deletionObserved(uid types.UID, podKey string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if x, ok := e.m[uid]; ok {
		delete(x.deleting, podKey)
	}
}

// forget drops a deleted Job's record.
func (e *expectations) forget(uid types.UID) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.m, uid)
}

// controllerUID is the uid of a pod's controller, if it is a Job.
func controllerUID(p *corev1.Pod) (types.UID, bool) {
	ref := api.GetControllerOf(&p.ObjectMeta)
	if ref == nil || ref.Kind != GroupVersionKind.Kind {
		return "", false
	}
	return ref.UID, true
}
