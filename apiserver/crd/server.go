package crd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"sync"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
	"github.com/kubesim/kubesim/apiserver/admission/webhook"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/schema"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/store"
)

// Registrar is the part of the API server that serves resources
// (*apiserver.Server implements it).
type Registrar interface {
	// ReplaceResource serves res, in place of a resource of the same group,
	// version and name if there is one.
	ReplaceResource(res *registry.Resource) error
	// RemoveResource stops serving a resource.
	RemoveResource(group, version, resource string)
	// Store returns the storage serving a resource.
	Store(group, version, resource string) (*registry.Store, bool)
}

// Config builds a Server.
type Config struct {
	// Registrar serves the custom resources of established CRDs.
	Registrar Registrar
	Clock     clock.Clock
	Logger    *slog.Logger
	// Webhooks reach conversion webhooks (the admission webhooks'
	// clients); UID names each ConversionReview. Without them a CRD
	// with conversion strategy Webhook converts as None does.
	Webhooks *webhook.Clients
	UID      func() types.UID
}

// Server is the apiextensions-apiserver inside kubesim's API server: it
// serves CustomResourceDefinitions and keeps the custom resources they
// define served.
type Server struct {
	cfg Config

	mu sync.Mutex
	// served: CRD name → versions served now, with what they were built
	// from (to skip rebuilding when only the status moved).
	served map[string]map[string]servedVersion
	// revs: CRD name → revision of the last write applied, so that writes
	// reported out of order never roll the registration back.
	revs map[string]int64
}

type servedVersion struct {
	group, plural string
	fingerprint   string
}

// New checks cfg and returns the Server.
func New(cfg Config) (*Server, error) {
	if cfg.Registrar == nil || cfg.Clock == nil {
		return nil, errors.New("crd: Registrar and Clock are required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Server{cfg: cfg, served: map[string]map[string]servedVersion{}, revs: map[string]int64{}}, nil
}

// crdSchema is the CRD's schema for pruning and OpenAPI: generated from the
// Go type, with openAPIV3Schema kept whole (its keywords are data).
func crdSchema(t reflect.Type, spec ...string) *api.JSONSchemaProps {
	s := schema.FromGoType(t)
	t2 := true
	anySchema := api.JSONSchemaProps{Type: "object", XPreserveUnknownFields: &t2,
		Description: "OpenAPIV3Schema is the OpenAPI v3 schema to use for validation and pruning."}
	var fix func(n *api.JSONSchemaProps)
	fix = func(n *api.JSONSchemaProps) {
		if n == nil {
			return
		}
		for k, p := range n.Properties {
			if k == "openAPIV3Schema" {
				n.Properties[k] = anySchema
				continue
			}
			fix(&p)
			n.Properties[k] = p
		}
		if n.Items != nil {
			fix(n.Items.Schema)
		}
	}
	fix(s)
	return s
}

// statusStrategy is the definitions' status strategy (statusStrategy in
// the apiextensions-apiserver's registry): a /status write may not change
// the spec. Its metadata is the written one's: the real strategy means to
// reset it (metav1.ResetObjectMetaForStatus) but hands it the new object
// twice. The conditions kubesim computes itself are computed again, as on
// every write (main is the kind's strategy).
func statusStrategy(main registry.Strategy) func(obj, old api.Object) {
	return func(obj, old api.Object) {
		switch c := obj.(type) {
		case *apiextensionsv1.CustomResourceDefinition:
			c.Spec = *old.(*apiextensionsv1.CustomResourceDefinition).Spec.DeepCopy()
		case *apiextensionsv1beta1.CustomResourceDefinition:
			c.Spec = *old.(*apiextensionsv1beta1.CustomResourceDefinition).Spec.DeepCopy()
		}
		main.PrepareForUpdate(obj, old)
	}
}

// Resources are the CustomResourceDefinition resources at v1 and v1beta1.
func (s *Server) Resources() []*registry.Resource {
	hook := func(st store.Interface) store.Interface { return store.WithWriteHook(st, s.afterWrite) }
	base := registry.Resource{
		Group: Group, Name: Resource, SingularName: "customresourcedefinition", Kind: Kind,
		ListKind: "CustomResourceDefinitionList", ShortNames: []string{"crd", "crds"}, Categories: []string{"api-extensions"},
		StatusSubresource: true, Table: crdTable(), PrepareForDelete: s.prepareForDelete,
		// A new spec is a new generation, which the establishing
		// controller reports back in its conditions.
		Generation:           registry.SpecGeneration(),
		StorageGroupResource: k8sschema.GroupResource{Group: Group, Resource: Resource},
	}
	v1 := base
	v1.Version = "v1"
	v1.New = func() api.Object { return &apiextensionsv1.CustomResourceDefinition{} }
	v1.Strategy = &v1Strategy{s: s}
	v1.Schema = crdSchema(reflect.TypeOf(apiextensionsv1.CustomResourceDefinition{}))
	v1.DecorateStorage = hook
	v1.PrepareForStatusUpdate = statusStrategy(v1.Strategy)
	v1beta1 := base
	v1beta1.Version = "v1beta1"
	v1beta1.New = func() api.Object { return &apiextensionsv1beta1.CustomResourceDefinition{} }
	v1beta1.Strategy = &v1beta1Strategy{s: s}
	v1beta1.Schema = crdSchema(reflect.TypeOf(apiextensionsv1beta1.CustomResourceDefinition{}))
	v1beta1.PrepareForStatusUpdate = statusStrategy(v1beta1.Strategy)
	v1beta1.DeprecationWarning = DeprecationWarningV1beta1
	// v1beta1 CRDs are stored as v1: both versions share one object.
	v1beta1.DecorateStorage = func(st store.Interface) store.Interface {
		return store.Converting{Interface: hook(st), ToStored: toStored, FromStored: fromStored}
	}
	return []*registry.Resource{&v1, &v1beta1}
}

// crdTable prints NAME and CREATED AT, as kube-apiserver does.
func crdTable() *registry.Table {
	return &registry.Table{
		Columns: []metav1.TableColumnDefinition{registry.NameColumn,
			{Name: "Created At", Type: "date", Description: registry.AgeColumn.Description}},
		Cells: func(obj api.Object, _ time.Time) []any {
			m := api.Meta(obj)
			return []any{m.Name, m.CreationTimestamp.UTC().Format(time.RFC3339)}
		},
	}
}

func (s *Server) now() metav1.Time {
	return metav1.NewTime(s.cfg.Clock.Now().UTC().Truncate(time.Second))
}

// crdStore is the v1 storage of CRDs.
func (s *Server) crdStore() (*registry.Store, bool) {
	return s.cfg.Registrar.Store(Group, "v1", Resource)
}

// list returns every CRD (v1), sorted by name.
func (s *Server) list(ctx context.Context) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	st, ok := s.crdStore()
	if !ok {
		return nil, nil
	}
	res, err := st.List(ctx, "", registry.ListOptions{})
	if err != nil {
		return nil, err
	}
	out := make([]*apiextensionsv1.CustomResourceDefinition, 0, len(res.Items))
	for _, obj := range res.Items {
		if c, ok := obj.(*apiextensionsv1.CustomResourceDefinition); ok {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Restore serves the resources of every established CRD in the store: a
// restarted API server serves what it served before.
func (s *Server) Restore(ctx context.Context) error {
	crds, err := s.list(ctx)
	if err != nil {
		return err
	}
	for _, c := range crds {
		rev, _ := strconv.ParseInt(c.ResourceVersion, 10, 64)
		s.apply(c, rev, false)
	}
	return nil
}

// afterWrite follows every stored write of a CRD.
func (s *Server) afterWrite(value []byte, rev int64, deleted bool) {
	var c apiextensionsv1.CustomResourceDefinition
	if err := json.Unmarshal(value, &c); err != nil {
		s.cfg.Logger.Error("decoding a written CRD", "err", err)
		return
	}
	s.apply(&c, rev, deleted)
	if deleted {
		s.reconsiderGroup(c.Spec.Group, c.Name)
	}
}

// apply makes what is served match c: its served versions when it is
// established (also while terminating, so that its objects can be
// deleted), nothing when it is gone or not established.
func (s *Server) apply(c *apiextensionsv1.CustomResourceDefinition, rev int64, deleted bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if last, ok := s.revs[c.Name]; ok && rev != 0 && rev < last {
		return
	}
	if deleted {
		delete(s.revs, c.Name)
	} else {
		s.revs[c.Name] = rev
	}
	want := map[string]*apiextensionsv1.CustomResourceDefinitionVersion{}
	if !deleted && api.IsCRDConditionTrue(c, apiextensionsv1.Established) {
		for i := range c.Spec.Versions {
			if v := &c.Spec.Versions[i]; v.Served {
				want[v.Name] = v
			}
		}
	}
	cur := s.served[c.Name]
	for name, sv := range cur {
		if _, ok := want[name]; !ok || sv.group != c.Spec.Group || sv.plural != c.Status.AcceptedNames.Plural {
			s.cfg.Registrar.RemoveResource(sv.group, name, sv.plural)
			delete(cur, name)
		}
	}
	if len(want) == 0 {
		delete(s.served, c.Name)
		return
	}
	if cur == nil {
		cur = map[string]servedVersion{}
		s.served[c.Name] = cur
	}
	names := slices.Sorted(maps.Keys(want))
	for _, name := range names {
		v := want[name]
		fp := fingerprint(c, v)
		if sv, ok := cur[name]; ok && sv.fingerprint == fp {
			continue
		}
		if err := s.cfg.Registrar.ReplaceResource(s.customResource(c, v)); err != nil {
			s.cfg.Logger.Error("serving a custom resource", "crd", c.Name, "version", name, "err", err)
			continue
		}
		cur[name] = servedVersion{group: c.Spec.Group, plural: c.Status.AcceptedNames.Plural, fingerprint: fp}
	}
}

// fingerprint is what the resource of version v is built from.
func fingerprint(c *apiextensionsv1.CustomResourceDefinition, v *apiextensionsv1.CustomResourceDefinitionVersion) string {
	raw, _ := json.Marshal(struct {
		Group      string
		Scope      apiextensionsv1.ResourceScope
		Preserve   bool
		Names      apiextensionsv1.CustomResourceDefinitionNames
		Version    *apiextensionsv1.CustomResourceDefinitionVersion
		Conversion *apiextensionsv1.CustomResourceConversion
		Storage    string
	}{c.Spec.Group, c.Spec.Scope, c.Spec.PreserveUnknownFields, c.Status.AcceptedNames, v, c.Spec.Conversion, StorageVersion(c)})
	return string(raw)
}

// customResource is the resource serving version v; with conversion
// strategy Webhook its objects are stored in the storage version and
// converted by the CRD's webhook (kubesim otherwise keeps each object in
// the version it was written in and only rewrites apiVersion).
func (s *Server) customResource(c *apiextensionsv1.CustomResourceDefinition, v *apiextensionsv1.CustomResourceDefinitionVersion) *registry.Resource {
	res := NewCustomResource(c, v)
	cv := c.Spec.Conversion
	if cv == nil || cv.Strategy != apiextensionsv1.WebhookConverter || cv.Webhook == nil || cv.Webhook.ClientConfig == nil ||
		s.cfg.Webhooks == nil || s.cfg.UID == nil {
		return res
	}
	conv := &converter{clients: s.cfg.Webhooks, cc: webhook.ConversionEndpoint(*cv.Webhook.ClientConfig.DeepCopy()), group: c.Spec.Group,
		kind: c.Status.AcceptedNames.Kind, uid: s.cfg.UID}
	served, storage := c.Spec.Group+"/"+v.Name, c.Spec.Group+"/"+StorageVersion(c)
	res.DecorateStorage = func(st store.Interface) store.Interface {
		return conversionStorage{Interface: st, conv: conv, served: served, storage: storage}
	}
	return res
}

// reconsiderGroup gives the other CRDs of a group whose names were refused
// another chance once a CRD has freed its names, as the naming controller
// requeues them.
func (s *Server) reconsiderGroup(group, except string) {
	st, ok := s.crdStore()
	if !ok {
		return
	}
	ctx := context.Background()
	crds, err := s.list(ctx)
	if err != nil {
		return
	}
	for _, c := range crds {
		if c.Spec.Group != group || c.Name == except || api.IsCRDConditionTrue(c, apiextensionsv1.NamesAccepted) {
			continue
		}
		_, _, err := st.Update(ctx, "", c.Name, func(cur api.Object) (api.Object, error) { return cur, nil },
			registry.UpdateOptions{Subresource: "status"})
		if err != nil && !api.IsNotFound(err) {
			s.cfg.Logger.Error("reconsidering CRD names", "crd", c.Name, "err", err)
		}
	}
}

// acceptedNamesInGroup are the names other CRDs of the group hold.
func (s *Server) acceptedNamesInGroup(group, except string) (resources, kinds map[string]bool) {
	resources, kinds = map[string]bool{}, map[string]bool{}
	crds, err := s.list(context.Background())
	if err != nil {
		return resources, kinds
	}
	for _, c := range crds {
		if c.Spec.Group != group || c.Name == except {
			continue
		}
		n := c.Status.AcceptedNames
		resources[n.Plural], resources[n.Singular] = true, true
		for _, sn := range n.ShortNames {
			resources[sn] = true
		}
		kinds[n.Kind], kinds[n.ListKind] = true, true
	}
	delete(resources, "")
	delete(kinds, "")
	return resources, kinds
}

func equalToAcceptedOrFresh(requested, accepted string, used map[string]bool) error {
	if requested == accepted || !used[requested] {
		return nil
	}
	return fmt.Errorf("%q is already in use", requested)
}

// computeStatus sets what the naming and establishing controllers and
// the storage strategy set: accepted names, NamesAccepted, Established,
// NonStructuralSchema and storedVersions.
func (s *Server) computeStatus(c *apiextensionsv1.CustomResourceDefinition) {
	used, usedKinds := s.acceptedNamesInGroup(c.Spec.Group, c.Name)
	req, acc := c.Spec.Names, c.Status.AcceptedNames
	names := acc
	cond := apiextensionsv1.CustomResourceDefinitionCondition{Type: apiextensionsv1.NamesAccepted, Status: apiextensionsv1.ConditionUnknown}
	conflict := func(reason string, err error) {
		cond.Status, cond.Reason, cond.Message = apiextensionsv1.ConditionFalse, reason, err.Error()
	}
	if err := equalToAcceptedOrFresh(req.Plural, acc.Plural, used); err != nil {
		conflict("PluralConflict", err)
	} else {
		names.Plural = req.Plural
	}
	if err := equalToAcceptedOrFresh(req.Singular, acc.Singular, used); err != nil {
		conflict("SingularConflict", err)
	} else {
		names.Singular = req.Singular
	}
	if !slices.Equal(req.ShortNames, acc.ShortNames) {
		var msgs []string
		for _, sn := range req.ShortNames {
			if slices.Contains(acc.ShortNames, sn) {
				continue
			}
			if err := equalToAcceptedOrFresh(sn, "", used); err != nil {
				msgs = append(msgs, err.Error())
			}
		}
		switch len(msgs) {
		case 0:
			names.ShortNames = req.ShortNames
		case 1:
			conflict("ShortNamesConflict", errors.New(msgs[0]))
		default:
			conflict("ShortNamesConflict", errors.New("["+joinComma(msgs)+"]"))
		}
	}
	if err := equalToAcceptedOrFresh(req.Kind, acc.Kind, usedKinds); err != nil {
		conflict("KindConflict", err)
	} else {
		names.Kind = req.Kind
	}
	if err := equalToAcceptedOrFresh(req.ListKind, acc.ListKind, usedKinds); err != nil {
		conflict("ListKindConflict", err)
	} else {
		names.ListKind = req.ListKind
	}
	names.Categories = req.Categories
	if cond.Status == apiextensionsv1.ConditionUnknown {
		cond.Status, cond.Reason, cond.Message = apiextensionsv1.ConditionTrue, "NoConflicts", "no conflicts found"
	}
	now := s.now()
	cond.LastTransitionTime = now
	c.Status.AcceptedNames = names
	api.SetCRDCondition(c, cond)
	est := apiextensionsv1.CustomResourceDefinitionCondition{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionFalse,
		Reason: "NotAccepted", Message: "not all names are accepted", LastTransitionTime: now}
	if old := api.FindCRDCondition(c, apiextensionsv1.Established); old != nil {
		est = *old
	}
	if est.Status != apiextensionsv1.ConditionTrue && cond.Status == apiextensionsv1.ConditionTrue {
		// The naming controller says Installing, and the establishing
		// controller at once Established: kubesim serves the resource
		// when the write returns, so it reports the end state.
		est = apiextensionsv1.CustomResourceDefinitionCondition{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue,
			Reason: "InitialNamesAccepted", Message: "the initial names have been accepted", LastTransitionTime: now}
	}
	api.SetCRDCondition(c, est)
	if c.Spec.PreserveUnknownFields {
		if msg := structuralProblems(c); msg != "" {
			api.SetCRDCondition(c, apiextensionsv1.CustomResourceDefinitionCondition{Type: apiextensionsv1.NonStructuralSchema, Status: apiextensionsv1.ConditionTrue,
				Reason: "Violations", Message: msg, LastTransitionTime: now})
		} else {
			RemoveCondition(c, apiextensionsv1.NonStructuralSchema)
		}
	} else {
		RemoveCondition(c, apiextensionsv1.NonStructuralSchema)
	}
	if sv := StorageVersion(c); sv != "" && !slices.Contains(c.Status.StoredVersions, sv) {
		c.Status.StoredVersions = append(c.Status.StoredVersions, sv)
	}
}

func joinComma(msgs []string) string {
	out := ""
	for i, m := range msgs {
		if i > 0 {
			out += ", "
		}
		out += m
	}
	return out
}

// prepareForDelete starts the deletion of a CRD: the cleanup finalizer
// keeps it until the finalizer controller (package controllers/crdfinalizer) has deleted its objects, and the
// Terminating condition tells clients why it is still there.
func (s *Server) prepareForDelete(obj api.Object) bool {
	switch c := obj.(type) {
	case *apiextensionsv1.CustomResourceDefinition:
		markTerminating(&c.ObjectMeta, c, s.now())
	case *apiextensionsv1beta1.CustomResourceDefinition:
		v1 := ToV1(c)
		markTerminating(&c.ObjectMeta, v1, s.now())
		c.Status = *sameShape[apiextensionsv1beta1.CustomResourceDefinitionStatus](&v1.Status)
	}
	return false
}

func markTerminating(meta *metav1.ObjectMeta, c *apiextensionsv1.CustomResourceDefinition, now metav1.Time) {
	if !slices.Contains(meta.Finalizers, registry.FinalizerCustomResourceGC) {
		meta.Finalizers = append(meta.Finalizers, registry.FinalizerCustomResourceGC)
	}
	api.SetCRDCondition(c, apiextensionsv1.CustomResourceDefinitionCondition{Type: apiextensionsv1.Terminating, Status: apiextensionsv1.ConditionTrue,
		Reason: "InstanceDeletionPending", Message: "CustomResourceDefinition marked for deletion; instance deletion pending",
		LastTransitionTime: now})
}

// v1Strategy is the CRD strategy at v1.
type v1Strategy struct{ s *Server }

// PrepareForCreate defaults the CRD and computes its status.
func (st *v1Strategy) PrepareForCreate(obj api.Object) {
	c := obj.(*apiextensionsv1.CustomResourceDefinition)
	c.Status = apiextensionsv1.CustomResourceDefinitionStatus{}
	SetDefaults(c)
	st.s.computeStatus(c)
}

// Default fills the v1 defaults.
func (st *v1Strategy) Default(obj api.Object) {
	SetDefaults(obj.(*apiextensionsv1.CustomResourceDefinition))
}

// Validate checks a v1 create.
func (st *v1Strategy) Validate(obj api.Object) field.ErrorList {
	return Validate(obj.(*apiextensionsv1.CustomResourceDefinition), V1Options())
}

// PrepareForUpdate recomputes the status for the new spec.
func (st *v1Strategy) PrepareForUpdate(obj, old api.Object) {
	c := obj.(*apiextensionsv1.CustomResourceDefinition)
	SetDefaults(c)
	st.s.computeStatus(c)
}

// ValidateUpdate checks a v1 update.
func (st *v1Strategy) ValidateUpdate(obj, old api.Object) field.ErrorList {
	o := old.(*apiextensionsv1.CustomResourceDefinition)
	return ValidateUpdate(obj.(*apiextensionsv1.CustomResourceDefinition), o, V1UpdateOptions(o))
}

// v1beta1Strategy is the CRD strategy at v1beta1: the v1 rules on the
// converted object, plus the v1beta1 spelling's own.
type v1beta1Strategy struct{ s *Server }

// PrepareForCreate defaults the CRD and computes its status.
func (st *v1beta1Strategy) PrepareForCreate(obj api.Object) {
	b := obj.(*apiextensionsv1beta1.CustomResourceDefinition)
	b.Status = apiextensionsv1beta1.CustomResourceDefinitionStatus{}
	SetDefaultsV1beta1(b)
	c := ToV1(b)
	SetDefaults(c)
	st.s.computeStatus(c)
	b.Status = *sameShape[apiextensionsv1beta1.CustomResourceDefinitionStatus](&c.Status)
}

// Default fills the v1beta1 defaults.
func (st *v1beta1Strategy) Default(obj api.Object) {
	SetDefaultsV1beta1(obj.(*apiextensionsv1beta1.CustomResourceDefinition))
}

// PrepareForUpdate recomputes the status for the new spec.
func (st *v1beta1Strategy) PrepareForUpdate(obj, old api.Object) {
	b := obj.(*apiextensionsv1beta1.CustomResourceDefinition)
	SetDefaultsV1beta1(b)
	c := ToV1(b)
	SetDefaults(c)
	st.s.computeStatus(c)
	b.Status = *sameShape[apiextensionsv1beta1.CustomResourceDefinitionStatus](&c.Status)
}

// Validate checks a v1beta1 create.
func (st *v1beta1Strategy) Validate(obj api.Object) field.ErrorList {
	b := obj.(*apiextensionsv1beta1.CustomResourceDefinition)
	c := ToV1(b)
	return append(validateV1beta1Spelling(b), v1beta1Paths(b, Validate(c, V1beta1Options(c)))...)
}

// ValidateUpdate checks a v1beta1 update.
func (st *v1beta1Strategy) ValidateUpdate(obj, old api.Object) field.ErrorList {
	b := obj.(*apiextensionsv1beta1.CustomResourceDefinition)
	c := ToV1(b)
	return append(validateV1beta1Spelling(b), v1beta1Paths(b, ValidateUpdate(c, ToV1(old.(*apiextensionsv1beta1.CustomResourceDefinition)), V1beta1Options(c)))...)
}

// validateV1beta1Spelling checks what only v1beta1 can say wrongly: a
// spec.version that is not the first version, and top-level fields next to
// per-version ones.
func validateV1beta1Spelling(b *apiextensionsv1beta1.CustomResourceDefinition) field.ErrorList {
	var errs field.ErrorList
	p := field.NewPath("spec")
	s := &b.Spec
	if s.Version != "" && len(s.Versions) > 0 && s.Versions[0].Name != s.Version {
		errs = append(errs, field.Invalid(p.Child("version"), s.Version, "must match the first version in spec.versions"))
	}
	perSchema, perSub, perCols := false, false, false
	for _, v := range s.Versions {
		perSchema = perSchema || v.Schema != nil
		perSub = perSub || v.Subresources != nil
		perCols = perCols || len(v.AdditionalPrinterColumns) > 0
	}
	if s.Validation != nil && perSchema {
		errs = append(errs, field.Forbidden(p.Child("validation"), "top-level and per-version schemas are mutually exclusive"))
	}
	if s.Subresources != nil && perSub {
		errs = append(errs, field.Forbidden(p.Child("subresources"), "top-level and per-version subresources are mutually exclusive"))
	}
	if len(s.AdditionalPrinterColumns) > 0 && perCols {
		errs = append(errs, field.Forbidden(p.Child("additionalPrinterColumns"), "top-level and per-version additionalPrinterColumns are mutually exclusive"))
	}
	return errs
}

// v1beta1Paths moves the errors of fields a v1beta1 CRD gave at the top
// level (and the conversion copied into every version) back to where the
// user wrote them, once.
func v1beta1Paths(b *apiextensionsv1beta1.CustomResourceDefinition, errs field.ErrorList) field.ErrorList {
	var out field.ErrorList
	seen := map[string]bool{}
	for _, e := range errs {
		f := e.Field
		for i := range b.Spec.Versions {
			vp := fmt.Sprintf("spec.versions[%d].", i)
			switch {
			case b.Spec.Validation != nil && hasPrefix(f, vp+"schema."):
				f = "spec.validation." + f[len(vp+"schema."):]
			case b.Spec.Subresources != nil && hasPrefix(f, vp+"subresources."):
				f = "spec.subresources." + f[len(vp+"subresources."):]
			case len(b.Spec.AdditionalPrinterColumns) > 0 && hasPrefix(f, vp+"additionalPrinterColumns"):
				f = "spec." + f[len(vp):]
				if n := len(f); n > 9 && f[n-9:] == ".jsonPath" {
					f = f[:n-9] + ".JSONPath"
				}
			}
		}
		c := *e
		c.Field = f
		if key := c.Error(); !seen[key] {
			seen[key] = true
			out = append(out, &c)
		}
	}
	return out
}

func hasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }
