// Package fieldmap writes a conversion between two forms of one kind once
// for both directions: a list of pairs, each naming a field of form A and
// the field of form B that holds it, which copies A to B or B to A. The
// two directions cannot drift apart — a field added to the list is
// converted both ways, one left out neither way, which a round-trip test
// then shows.
//
// kubesim converts this way where Kubernetes has a pair of generated
// conversion functions (Convert_v1_Event_To_core_Event and
// Convert_core_Event_To_v1_Event, pkg/apis/events/v1; the
// ReplicationController manager's Convert_v1_ReplicationController_To_apps_ReplicaSet
// and back, pkg/controller/replication/conversion.go). Left out:
// conversion-gen's generation of the list from the types, and its
// scheme. Read the real machinery in k8s.io/apimachinery/pkg/conversion
// and k8s.io/code-generator/cmd/conversion-gen.
package fieldmap
