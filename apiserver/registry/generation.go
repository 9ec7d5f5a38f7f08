package registry

import (
	"reflect"

	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/unstructured"
)

// Generation is how a kind moves metadata.generation, the number of its
// desired state that controllers report back as status.observedGeneration.
// kube-apiserver has no generic rule for it: each kind's strategy sets it in
// PrepareForCreate (to 1) and PrepareForUpdate (one past the old one when
// what it counts changed), and most kinds set nothing at all.
type Generation struct {
	// StartAtZero leaves a new object's generation at 0, so that only its
	// first change sets one (CSIDriver, whose strategy bumps the generation
	// on update but never sets it on create). False: a new object is
	// generation 1.
	StartAtZero bool
	// Changed reports whether an update from old to obj changed what the
	// generation counts; nil: nothing does (PriorityClass, created at 1
	// and never moved).
	Changed func(obj, old api.Object) bool
}

// SpecGeneration is the rule of most kinds with a generation: created at 1,
// moved by any change outside metadata and status (the spec; the webhooks
// of a webhook configuration, the template of a PodTemplate, the endpoints
// and ports of an EndpointSlice, the content of a custom resource).
func SpecGeneration() *Generation { return &Generation{Changed: DesiredStateChanged} }

// onCreate sets a new object's generation. A kind without a rule keeps
// whatever the client sent, as kube-apiserver does (its generic create
// resets only the uid and the creation time).
func (g *Generation) onCreate(meta interface{ SetGeneration(int64) }) {
	switch {
	case g == nil:
	case g.StartAtZero:
		meta.SetGeneration(0)
	default:
		meta.SetGeneration(1)
	}
}

// onUpdate moves obj's generation (already old's) one past old's when the
// rule says the update changed what it counts.
func (g *Generation) onUpdate(obj, old api.Object) {
	if g != nil && g.Changed != nil && g.Changed(obj, old) {
		api.Meta(obj).Generation = api.Meta(old).Generation + 1
	}
}

// onDeletion moves the generation of an object whose deletion begins (its
// deletionTimestamp set for the first time), so that its controllers see a
// new desired state: gone. Only an object that has a generation moves
// (rest.BeforeDelete and the generic store's
// updateForGracefulDeletionAndFinalizers).
func onDeletion(meta interface {
	GetGeneration() int64
	SetGeneration(int64)
}) {
	if g := meta.GetGeneration(); g > 0 {
		meta.SetGeneration(g + 1)
	}
}

// DesiredStateChanged reports whether anything but metadata and status
// differs between obj and old. A custom resource compares everything but
// its metadata (the apiextensions-apiserver's strategy): its status, when it
// has a /status subresource, is old's by now; without one, a new status is
// a new generation too.
func DesiredStateChanged(obj, old api.Object) bool {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		cu, ok := old.(*unstructured.Unstructured)
		if !ok {
			return true
		}
		for k := range mergedKeys(u.Content, cu.Content) {
			if !reflect.DeepEqual(u.Content[k], cu.Content[k]) {
				return true
			}
		}
		return false
	}
	a, b := reflect.ValueOf(obj).Elem(), reflect.ValueOf(old).Elem()
	if a.Type() != b.Type() {
		return true
	}
	for i := range a.NumField() {
		switch f := a.Type().Field(i); {
		case f.Name == "TypeMeta", f.Name == "ObjectMeta", f.Name == "Status", !f.IsExported():
			// Blank fields (protobuf placeholders, a StorageClass's
			// allowedTopologies) hold nothing.
			continue
		}
		// Compared through pointers: boxing the fields themselves would
		// copy each (a PodSpec is a kilobyte) on every update.
		if !equality.Semantic.DeepEqual(a.Field(i).Addr().Interface(), b.Field(i).Addr().Interface()) {
			return true
		}
	}
	return false
}

func mergedKeys(a, b map[string]any) map[string]struct{} {
	out := make(map[string]struct{}, len(a)+len(b))
	for k := range a {
		out[k] = struct{}{}
	}
	for k := range b {
		out[k] = struct{}{}
	}
	return out
}
