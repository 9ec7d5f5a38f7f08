package registry

import (
	"context"
	"net/http"
	"net/url"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
	"github.com/kubesim/kubesim/api/fields"
	"github.com/kubesim/kubesim/api/labels"
	"github.com/kubesim/kubesim/apiserver/schema"
	"github.com/kubesim/kubesim/store"
)

// Resource describes one REST resource at one version.
type Resource struct {
	Group, Version string
	// Name is the plural resource name used in URLs ("pods").
	Name         string
	SingularName string
	Kind         string
	ListKind     string
	ShortNames   []string
	Categories   []string
	Namespaced   bool
	// New returns an empty object of the kind.
	New func() api.Object
	// Strategy holds the kind's rules; nil means DefaultStrategy.
	Strategy Strategy
	// Schema is the structural schema of the object, used for pruning,
	// strict field validation, strategic merge patch and OpenAPI.
	Schema *api.JSONSchemaProps
	// CompiledSchema, when set, is Schema prepared once (schema.Compile)
	// for the walk every write makes: the decoder prunes the body with it
	// to find unknown fields. It is used only while it was compiled from
	// Schema itself (a copy of the Resource with another Schema falls
	// back to walking that one); nil: the decoder walks Schema.
	CompiledSchema *schema.Compiled
	// Generation, when set, is how the kind moves metadata.generation;
	// nil: it has none (the server neither sets nor moves it).
	Generation *Generation
	// StatusSubresource splits writes: the main resource cannot change
	// status and /status can change only status.
	StatusSubresource bool
	// PrepareForStatusUpdate, when set, is the kind's status strategy
	// (kube-apiserver's <kind>StatusStrategy.PrepareForUpdate): a write
	// to /status keeps the object it sends, metadata included, and this
	// carries over from old what such a write may not change (the spec;
	// for some kinds the labels or owner references too). Nil: a /status
	// write changes the status only, everything else coming from old (a
	// custom resource's status strategy).
	PrepareForStatusUpdate func(obj, old api.Object)
	// ValidateStatusUpdate, when set, checks a write to /status in place
	// of the strategy's ValidateUpdate (kube-apiserver's
	// <kind>StatusStrategy.ValidateUpdate): the spec of such a write is
	// the stored one, which its own write checked, so the status
	// strategy checks what the write may change. Nil: the strategy's
	// ValidateUpdate.
	ValidateStatusUpdate func(obj, old api.Object) field.ErrorList
	// KeepStatusOnCreate keeps the status sent at creation although the
	// resource has a status subresource (nodes: the kubelet registers its
	// node with its status, as in Kubernetes).
	KeepStatusOnCreate bool
	// Scale, when set, serves /scale as an autoscaling/v1 Scale.
	Scale *ScaleSubresource
	// Table prints the resource for kubectl get; nil prints NAME and AGE.
	Table *Table
	// PrepareForDelete, when set, runs when a delete is requested (the
	// namespace sets phase Terminating); it reports whether the object
	// must wait for a finalizer kept outside metadata.finalizers.
	PrepareForDelete func(obj api.Object) (wait bool)
	// PendingFinalizers, when set, reports finalizers kept outside
	// metadata.finalizers (a namespace's spec.finalizers): an object being
	// deleted stays while it reports true.
	PendingFinalizers func(obj api.Object) bool
	// Fields returns the selectable fields beyond metadata.name and
	// metadata.namespace (spec.nodeName, status.phase...).
	Fields func(obj api.Object) fields.Set
	// ValidateName checks metadata.name; nil means DNS-1123 subdomain.
	ValidateName func(name string) []string
	// GracePeriod, when set, makes deletes graceful: it returns how long a
	// delete waits (0: delete now). Pods use it.
	GracePeriod func(obj api.Object, requested *int64) int64
	// StrategicMergePatch is true for built-in kinds, whose schemas carry
	// patch merge keys; custom resources accept only the other patch types.
	StrategicMergePatch bool
	// CreateSubresources are POST-only subresources, such as pods/binding.
	CreateSubresources map[string]CreateSubresource
	// UpdateSubresources are GET/PUT/PATCH subresources that change part
	// of the object, such as pods/ephemeralcontainers.
	UpdateSubresources map[string]UpdateSubresource
	// Connect are subresources served by a handler of their own instead
	// of the store: pods/log (and exec, attach, portforward), which the
	// API server forwards to the pod's kubelet (Kubernetes' rest.Connecter
	// and the pod's LogREST). Keyed by subresource name.
	Connect map[string]ConnectSubresource
	// StorageGroupResource keys the objects; versions of one resource share
	// storage. Empty means Group/Name.
	StorageGroupResource k8sschema.GroupResource
	// DecorateStorage, when set, wraps the shared storage for this
	// resource: CustomResourceDefinitions convert v1beta1 to the stored v1
	// there, and learn of every write to serve the resources they define.
	DecorateStorage func(store.Interface) store.Interface
	// ToStored and FromStored convert this version's objects (as JSON) to
	// the stored version's and back, where the shapes differ (autoscaling/v1
	// HorizontalPodAutoscalers stored as v2); nil when they do not.
	// Admission uses them to show a webhook the version it registered for
	// (matchPolicy Equivalent), as kube-apiserver's object convertor does.
	ToStored   func([]byte) ([]byte, error)
	FromStored func([]byte) []byte
	// BeginCreate, when set, runs after validation and just before the
	// write (genericregistry.Store.BeginCreate): a Service takes its
	// cluster IP here. It may change obj. The FinishFunc it returns learns
	// whether the write happened, so that a failed or dry-run create gives
	// back what it took.
	BeginCreate func(ctx context.Context, obj api.Object, dryRun bool) (FinishFunc, error)
	// BeginUpdate is BeginCreate for updates (genericregistry.Store.BeginUpdate).
	BeginUpdate func(ctx context.Context, obj, old api.Object, dryRun bool) (FinishFunc, error)
	// ValidatesTypeMeta says the strategy checks apiVersion and kind
	// itself, so the decoder keeps the body's kind: a custom resource with
	// the wrong kind is a 422 field error, as in the apiextensions-apiserver.
	ValidatesTypeMeta bool
	// CreateOnly, when set, makes the resource a question answered on
	// create and never stored (SubjectAccessReview, SelfSubjectReview:
	// the REST storage of pkg/registry/authorization): a POST is
	// defaulted, admitted and validated, then CreateOnly answers it; every
	// other verb is 405. Nothing is written and the metadata is left as
	// sent.
	CreateOnly func(ctx context.Context, obj api.Object) (api.Object, error)
	// Warnings, when set, returns the warnings a create or an update of
	// obj is answered with (the WarningsOnCreate and WarningsOnUpdate of
	// kube-apiserver's strategies): the built-in kinds name the fields
	// kubesim stores without simulating them. Writes to /status and to
	// other subresources are not warned about.
	Warnings func(obj api.Object) []string
	// DeprecationWarning, when set, is sent as a Warning header with every
	// response at this version (apiextensions.k8s.io/v1beta1, deprecated
	// custom resource versions).
	DeprecationWarning string
}

// FinishFunc ends what a BeginCreate or BeginUpdate started; success
// reports whether the object was written.
type FinishFunc func(success bool)

func noFinish(bool) {}

// CreateSubresource is a subresource that accepts a POST of another kind
// (pods/binding takes a Binding).
type CreateSubresource struct {
	// Resource describes the posted kind (for decoding).
	Resource *Resource
	// Create handles the posted object for the parent ns/name.
	Create func(ctx context.Context, st *Store, ns, name string, obj api.Object) (api.Object, error)
}

// ConnectSubresource is a subresource served by Serve rather than by the
// store: the request reaches it authenticated and authorized (with the
// subresource in the attributes), and Serve gets the original
// ResponseWriter and Request, so that a connection upgrade can pass.
type ConnectSubresource struct {
	// Verbs are the request verbs it answers ("get" for pods/log, "get"
	// and "create" for pods/exec); any other is 405.
	Verbs []string
	// Kind is the kind discovery names for it (pods/exec:
	// PodExecOptions); empty is the parent's kind (pods/log: Pod).
	Kind string
	// NewConnectOptions decodes the request's options (pods/exec:
	// PodExecOptions) from its query. When set, the request is a CONNECT
	// that passes the admission chain with them as its object before
	// Serve runs (ConnectResource in Kubernetes); pods/log, a plain read,
	// has none.
	NewConnectOptions func(q url.Values) (api.Object, error)
	// Serve answers the request for the parent object ns/name; st is the
	// parent's store. An error is written as a Status.
	Serve func(w http.ResponseWriter, r *http.Request, st *Store, ns, name string) error
	// Path lets a path follow the subresource (nodes/NAME/proxy/PATH,
	// the connecter's {path:*} route); Serve reads it from the request's
	// Info.Parts.
	Path bool
}

// ScaleSubresource says where the replica counts live in the object.
type ScaleSubresource struct {
	// SpecReplicasPath, StatusReplicasPath and LabelSelectorPath are JSON
	// paths such as ".spec.replicas".
	SpecReplicasPath   string
	StatusReplicasPath string
	LabelSelectorPath  string
}

// Table renders objects as the rows of kubectl get.
type Table struct {
	// Columns are all the columns, usually NameColumn first and AgeColumn
	// among them; columns with Priority 1 show only with -o wide.
	Columns []metav1.TableColumnDefinition
	// Cells returns one cell per column for obj; now is for ages.
	Cells func(obj api.Object, now time.Time) []any
}

// NameColumn is the NAME column; format "name" tells kubectl it holds the
// object's name.
var NameColumn = metav1.TableColumnDefinition{
	Name: "Name", Type: "string", Format: "name",
	Description: "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated.",
}

// AgeColumn is the AGE column.
var AgeColumn = metav1.TableColumnDefinition{
	Name: "Age", Type: "date",
	Description: "CreationTimestamp is a timestamp representing the server time when this object was created.",
}

// DefaultTable prints NAME and AGE, for resources without their own.
var DefaultTable = &Table{
	Columns: []metav1.TableColumnDefinition{NameColumn, AgeColumn},
	Cells: func(obj api.Object, now time.Time) []any {
		m := api.Meta(obj)
		return []any{m.Name, HumanDuration(now.Sub(m.CreationTimestamp.Time))}
	},
}

// GroupResource is the resource's group and plural name.
func (r *Resource) GroupResource() k8sschema.GroupResource {
	return k8sschema.GroupResource{Group: r.Group, Resource: r.Name}
}

// GroupVersion is the resource's group/version.
func (r *Resource) GroupVersion() k8sschema.GroupVersion {
	return k8sschema.GroupVersion{Group: r.Group, Version: r.Version}
}

// GroupKind is the resource's group and kind, as Invalid errors name it.
func (r *Resource) GroupKind() k8sschema.GroupKind {
	return k8sschema.GroupKind{Group: r.Group, Kind: r.Kind}
}

// GroupVersionKind is the kind at this version.
func (r *Resource) GroupVersionKind() k8sschema.GroupVersionKind {
	return k8sschema.GroupVersionKind{Group: r.Group, Version: r.Version, Kind: r.Kind}
}

func (r *Resource) strategy() Strategy {
	if r.Strategy == nil {
		return DefaultStrategy{}
	}
	return r.Strategy
}

// ReadDefaulter is a Strategy whose defaults also fill an object as it is
// read from storage, as apiextensions-apiserver defaults a custom
// resource stored before its schema had the default: every read (get,
// list, watch, the object an update starts from) sees it, and the stored
// bytes stay as they are until the next write. Lists of such a resource
// are always decoded (never served from the stored bytes).
type ReadDefaulter interface {
	DefaultOnRead(obj api.Object)
}

// Strategy is what a kind adds to the generic storage: the real
// RESTCreateStrategy and RESTUpdateStrategy.
type Strategy interface {
	// PrepareForCreate clears what a client may not set at creation
	// (status, for kinds with a status subresource).
	PrepareForCreate(obj api.Object)
	// Default fills the fields Kubernetes defaults (restartPolicy...).
	Default(obj api.Object)
	// Validate checks a new object.
	Validate(obj api.Object) field.ErrorList
	// PrepareForUpdate carries over from old what the update may not change.
	PrepareForUpdate(obj, old api.Object)
	// ValidateUpdate checks an update, immutable fields included.
	ValidateUpdate(obj, old api.Object) field.ErrorList
}

// RequestPreparer is a Strategy that prepares a new object from the
// request as well (rest.RESTCreateStrategy's PrepareForCreate takes the
// request's context): a CertificateSigningRequest records the user who
// asks. The store calls it right after PrepareForCreate.
type RequestPreparer interface {
	PrepareForCreateFromRequest(ctx context.Context, obj api.Object)
}

// DefaultStrategy accepts everything; kinds embed it and override.
type DefaultStrategy struct{}

// PrepareForCreate implements Strategy.
func (DefaultStrategy) PrepareForCreate(api.Object) {}

// Default implements Strategy.
func (DefaultStrategy) Default(api.Object) {}

// Validate implements Strategy.
func (DefaultStrategy) Validate(api.Object) field.ErrorList { return nil }

// PrepareForUpdate implements Strategy.
func (DefaultStrategy) PrepareForUpdate(api.Object, api.Object) {}

// ValidateUpdate implements Strategy.
func (DefaultStrategy) ValidateUpdate(api.Object, api.Object) field.ErrorList { return nil }

// ListOptions select and page a list or a watch.
type ListOptions struct {
	Labels labels.Selector
	Fields fields.Selector
	// Limit and Continue page a list.
	Limit    int64
	Continue string
	// ResourceVersion is where a read stands: "" the most recent state,
	// "0" any state, N a state at least as new as N (exactly N with
	// ResourceVersionMatch Exact). A watch starts after it; "" or "0" with
	// no SendInitialEvents first sends every current object as ADDED.
	ResourceVersion string
	// ResourceVersionMatch is "", "Exact" or "NotOlderThan" (see
	// ValidateListOptions for the combinations allowed).
	ResourceVersionMatch string
	// SendInitialEvents, on a watch, asks for the current state as ADDED
	// events first (true) or not (false); nil is the legacy behaviour
	// that ResourceVersion decides. This is the watch-list of KEP-3157.
	SendInitialEvents *bool
	// AllowWatchBookmarks, with SendInitialEvents true, ends the initial
	// events with a BOOKMARK annotated k8s.io/initial-events-end.
	AllowWatchBookmarks bool
}
