package kinds

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
	"github.com/kubesim/kubesim/api/labels"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/schema"
)

// csiResources are the storage.k8s.io/v1 kinds of CSI drivers: CSIDriver
// (what a driver needs from Kubernetes, made by its installer), CSINode
// (the drivers each node's kubelet has registered) and VolumeAttachment
// (a volume to be attached to a node, for the external-attacher).
// Strategies follow pkg/registry/storage/{csidriver,csinode,volumeattachment}
// and pkg/apis/storage/validation, with fewer rules.
func csiResources(gen *schema.Generator) []*registry.Resource {
	return []*registry.Resource{
		{
			Group: api.StorageGroupName, Version: "v1", Name: "csidrivers", SingularName: "csidriver",
			Kind: "CSIDriver", ListKind: "CSIDriverList",
			New:                 func() api.Object { return &storagev1.CSIDriver{} },
			StrategicMergePatch: true,
			Strategy:            csiDriverStrategy{},
			Schema:              gen.FromGoType(reflect.TypeOf(storagev1.CSIDriver{})),
			Table:               csiDriverTable(),
		},
		{
			Group: api.StorageGroupName, Version: "v1", Name: "csinodes", SingularName: "csinode",
			Kind: "CSINode", ListKind: "CSINodeList",
			New:                 func() api.Object { return &storagev1.CSINode{} },
			StrategicMergePatch: true,
			Strategy:            csiNodeStrategy{},
			Schema:              gen.FromGoType(reflect.TypeOf(storagev1.CSINode{})),
			Table:               csiNodeTable(),
		},
		{
			Group: api.StorageGroupName, Version: "v1", Name: "volumeattachments", SingularName: "volumeattachment",
			Kind: "VolumeAttachment", ListKind: "VolumeAttachmentList",
			New:                 func() api.Object { return &storagev1.VolumeAttachment{} },
			StrategicMergePatch: true,
			Strategy:            volumeAttachmentStrategy{},
			Schema:              gen.FromGoType(reflect.TypeOf(storagev1.VolumeAttachment{})),
			StatusSubresource:   true,
			Table:               volumeAttachmentTable(),
		},
	}
}

// validateDriverName is ValidateCSIDriverName: a DNS subdomain of at most
// 63 characters.
func validateDriverName(name string, p *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	var errs field.ErrorList
	if len(name) > 63 {
		errs = append(errs, field.TooLong(p, name, 63))
	}
	for _, msg := range labels.IsDNS1123Subdomain(strings.ToLower(name)) {
		errs = append(errs, field.Invalid(p, name, msg))
	}
	return errs
}

// --- CSIDriver ---

type csiDriverStrategy struct{ registry.DefaultStrategy }

// Default is SetDefaults_CSIDriver.
func (csiDriverStrategy) Default(obj api.Object) {
	d := obj.(*storagev1.CSIDriver)
	if d.Spec.AttachRequired == nil {
		d.Spec.AttachRequired = ptr(true)
	}
	if d.Spec.PodInfoOnMount == nil {
		d.Spec.PodInfoOnMount = ptr(false)
	}
	if d.Spec.StorageCapacity == nil {
		d.Spec.StorageCapacity = ptr(false)
	}
	if d.Spec.FSGroupPolicy == nil {
		d.Spec.FSGroupPolicy = ptr(storagev1.ReadWriteOnceWithFSTypeFSGroupPolicy)
	}
	if d.Spec.RequiresRepublish == nil {
		d.Spec.RequiresRepublish = ptr(false)
	}
	if d.Spec.SELinuxMount == nil {
		d.Spec.SELinuxMount = ptr(false)
	}
	if len(d.Spec.VolumeLifecycleModes) == 0 {
		d.Spec.VolumeLifecycleModes = []storagev1.VolumeLifecycleMode{storagev1.VolumeLifecyclePersistent}
	}
}

var supportedLifecycleModes = []string{string(storagev1.VolumeLifecyclePersistent), string(storagev1.VolumeLifecycleEphemeral)}

// Validate is ValidateCSIDriver: the name is a driver name, the modes
// known ones.
func (csiDriverStrategy) Validate(obj api.Object) field.ErrorList {
	d := obj.(*storagev1.CSIDriver)
	errs := validateDriverName(d.Name, field.NewPath("metadata", "name"))
	for i, m := range d.Spec.VolumeLifecycleModes {
		if !slices.Contains(supportedLifecycleModes, string(m)) {
			errs = append(errs, field.NotSupported(field.NewPath("spec", "volumeLifecycleModes").Index(i), m, supportedLifecycleModes))
		}
	}
	return errs
}

// ValidateUpdate is ValidateCSIDriverUpdate: attachRequired is fixed
// (the attach/detach controller would lose track of attached volumes).
func (s csiDriverStrategy) ValidateUpdate(obj, old api.Object) field.ErrorList {
	d, o := obj.(*storagev1.CSIDriver), old.(*storagev1.CSIDriver)
	errs := s.Validate(obj)
	if !jsonEqual(d.Spec.AttachRequired, o.Spec.AttachRequired) {
		errs = append(errs, field.Invalid(field.NewPath("spec", "attachRequired"), d.Spec.AttachRequired, immutableErrMsg))
	}
	return errs
}

// --- CSINode ---

type csiNodeStrategy struct{ registry.DefaultStrategy }

// Validate is ValidateCSINode: each driver named once, with a node id
// and a count that is not negative.
func (csiNodeStrategy) Validate(obj api.Object) field.ErrorList {
	n := obj.(*storagev1.CSINode)
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, d := range n.Spec.Drivers {
		p := field.NewPath("spec", "drivers").Index(i)
		errs = append(errs, validateDriverName(d.Name, p.Child("name"))...)
		if seen[d.Name] {
			errs = append(errs, field.Duplicate(p.Child("name"), d.Name))
		}
		seen[d.Name] = true
		if d.NodeID == "" {
			errs = append(errs, field.Required(p.Child("nodeID"), ""))
		} else if len(d.NodeID) > 192 {
			errs = append(errs, field.TooLong(p.Child("nodeID"), d.NodeID, 192))
		}
		if d.Allocatable != nil && d.Allocatable.Count != nil && *d.Allocatable.Count < 0 {
			errs = append(errs, field.Invalid(p.Child("allocatable", "count"), *d.Allocatable.Count, "must be greater than or equal to 0"))
		}
	}
	return errs
}

// --- VolumeAttachment ---

type volumeAttachmentStrategy struct{ registry.DefaultStrategy }

// PrepareForCreate drops the status: only the attacher writes it.
func (volumeAttachmentStrategy) PrepareForCreate(obj api.Object) {
	obj.(*storagev1.VolumeAttachment).Status = storagev1.VolumeAttachmentStatus{}
}

// Validate is ValidateVolumeAttachment: an attacher, a node and exactly
// one source.
func (volumeAttachmentStrategy) Validate(obj api.Object) field.ErrorList {
	va := obj.(*storagev1.VolumeAttachment)
	p := field.NewPath("spec")
	errs := validateDriverName(va.Spec.Attacher, p.Child("attacher"))
	if va.Spec.NodeName == "" {
		errs = append(errs, field.Required(p.Child("nodeName"), ""))
	}
	src := va.Spec.Source
	switch {
	case src.PersistentVolumeName == nil && src.InlineVolumeSpec == nil:
		errs = append(errs, field.Required(p.Child("source"), "must specify exactly one of inlineVolumeSpec and persistentVolumeName"))
	case src.PersistentVolumeName != nil && src.InlineVolumeSpec != nil:
		errs = append(errs, field.Forbidden(p.Child("source"), "must specify exactly one of inlineVolumeSpec and persistentVolumeName"))
	case src.PersistentVolumeName != nil && *src.PersistentVolumeName == "":
		errs = append(errs, field.Required(p.Child("source", "persistentVolumeName"), "must specify non empty persistentVolumeName"))
	}
	return errs
}

// ValidateUpdate is ValidateVolumeAttachmentUpdate: the spec is fixed.
func (s volumeAttachmentStrategy) ValidateUpdate(obj, old api.Object) field.ErrorList {
	va, o := obj.(*storagev1.VolumeAttachment), old.(*storagev1.VolumeAttachment)
	errs := s.Validate(obj)
	if !reflect.DeepEqual(va.Spec, o.Spec) {
		errs = append(errs, field.Invalid(field.NewPath("spec"), va.Spec, "field is immutable"))
	}
	return errs
}

// --- tables (printCSIDriver, printCSINode, printVolumeAttachment) ---

func boolCell(b *bool) string { return fmt.Sprint(b != nil && *b) }

func csiDriverTable() *registry.Table {
	return &registry.Table{
		Columns: []metav1.TableColumnDefinition{
			registry.NameColumn,
			col("AttachRequired", "boolean", "Indicates this CSI volume driver requires an attach operation, and that Kubernetes should call attach and wait for any attach operation to complete before proceeding to mount."),
			col("PodInfoOnMount", "boolean", "Indicates this CSI volume driver requires additional pod information (like podName, podUID, etc.) during mount operations."),
			col("StorageCapacity", "boolean", "Indicates this CSI volume driver supports storage capacity tracking."),
			col("TokenRequests", "string", "Indicates this CSI volume driver requires the pods' service account tokens during mount operations."),
			col("RequiresRepublish", "boolean", "Indicates this CSI volume driver requires NodePublishVolume to be called periodically."),
			col("Modes", "string", "Defines the volume lifecycle modes the driver supports."),
			registry.AgeColumn,
		},
		Cells: func(obj api.Object, now time.Time) []any {
			d := obj.(*storagev1.CSIDriver)
			tokens := "<unset>"
			if len(d.Spec.TokenRequests) > 0 {
				var aud []string
				for _, t := range d.Spec.TokenRequests {
					aud = append(aud, t.Audience)
				}
				tokens = strings.Join(aud, ",")
			}
			modes := "<none>"
			if len(d.Spec.VolumeLifecycleModes) > 0 {
				var m []string
				for _, x := range d.Spec.VolumeLifecycleModes {
					m = append(m, string(x))
				}
				modes = strings.Join(m, ",")
			}
			return []any{d.Name, boolCell(d.Spec.AttachRequired), boolCell(d.Spec.PodInfoOnMount), boolCell(d.Spec.StorageCapacity),
				tokens, boolCell(d.Spec.RequiresRepublish), modes, age(d.CreationTimestamp.Time, now)}
		},
	}
}

func csiNodeTable() *registry.Table {
	return &registry.Table{
		Columns: []metav1.TableColumnDefinition{
			registry.NameColumn,
			col("Drivers", "integer", "Drivers indicates the number of CSI drivers registered on the node"),
			registry.AgeColumn,
		},
		Cells: func(obj api.Object, now time.Time) []any {
			n := obj.(*storagev1.CSINode)
			return []any{n.Name, int64(len(n.Spec.Drivers)), age(n.CreationTimestamp.Time, now)}
		},
	}
}

func volumeAttachmentTable() *registry.Table {
	return &registry.Table{
		Columns: []metav1.TableColumnDefinition{
			registry.NameColumn,
			col("Attacher", "string", "Attacher indicates the name of the volume driver that MUST handle this request. This is the name returned by GetPluginName()."),
			col("PV", "string", "Name of the persistent volume to attach."),
			col("Node", "string", "The node that the volume should be attached to."),
			col("Attached", "boolean", "Indicates the volume is successfully attached. This field must only be set by the entity completing the attach operation, i.e. the external-attacher."),
			registry.AgeColumn,
		},
		Cells: func(obj api.Object, now time.Time) []any {
			va := obj.(*storagev1.VolumeAttachment)
			pv := ""
			if va.Spec.Source.PersistentVolumeName != nil {
				pv = *va.Spec.Source.PersistentVolumeName
			}
			return []any{va.Name, va.Spec.Attacher, pv, va.Spec.NodeName, va.Status.Attached, age(va.CreationTimestamp.Time, now)}
		},
	}
}
