package registry

import (
	"github.com/kubesim/kubesim/api/fields"
	"github.com/kubesim/kubesim/api/jsoncodec"
	"github.com/kubesim/kubesim/api/labels"
)

// selectableBefore is what the watch cache needs of the object before a
// MODIFIED event: its fields and labels, which say whether a watcher with
// selectors saw the change as an update, an ADDED or a DELETED. The
// object itself is never delivered. For a resource without selectable
// fields of its own, those fields are the name and namespace, the same
// before as after (fields, the new object's set); then only the labels
// are read from the stored bytes, not the whole object decoded: a Lease
// renewal decoded both its objects for the watch cache, the old one only
// for its labels. A resource with selectable fields (a pod's
// spec.nodeName, status.phase) decodes the old object as before.
func (s *Store) selectableBefore(prev []byte, after fields.Set) (fields.Set, labels.Set, error) {
	if s.res.Fields == nil {
		var meta struct {
			Metadata struct {
				Labels map[string]string `json:"labels,omitempty"`
			} `json:"metadata"`
		}
		if err := jsoncodec.Unmarshal(prev, &meta); err == nil {
			return after, labels.Set(meta.Metadata.Labels), nil
		}
		// Anything unexpected (a label that is not a string in a custom
		// resource) is left to the whole decode, which words the errors.
	}
	obj, err := s.decode(prev, 0)
	if err != nil {
		return nil, nil, err
	}
	return s.FieldSet(obj), labels.Set(obj.GetObjectMeta().Labels), nil
}
