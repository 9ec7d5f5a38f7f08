package registry

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
	"github.com/kubesim/kubesim/api/fields"
	"github.com/kubesim/kubesim/api/jsoncodec"
	"github.com/kubesim/kubesim/api/labels"
	"github.com/kubesim/kubesim/api/unstructured"
	"github.com/kubesim/kubesim/apiserver/admission"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/store"
)

// Store serves one Resource over a store.Interface.
type Store struct {
	res *Resource
	// apiVersion is the resource's group and version joined once: every
	// object the store encodes, decodes or sends carries it, and
	// joining them for each (SetGroupVersionKind) made a new string per
	// Lease, Deployment or any grouped kind's object.
	apiVersion string
	storage    store.Interface
	clock      clock.Clock
	ids        *IDs
	cacher     *cacher
	// written and prevs: objects writes decoded, for their events
	// (written.go).
	written, prevs decodedWrites
	rvWait         time.Duration
	admit          admission.Chain
	// sizes are the lists served, for EstimateList (listsize.go).
	sizes listSizes
}

// Config builds a Store.
type Config struct {
	Resource *Resource
	Storage  store.Interface
	Clock    clock.Clock
	IDs      *IDs
	// ResourceVersionWait is how long a read of a revision the store has
	// not reached waits for it before its 504 (default
	// DefaultResourceVersionWait), on Clock.
	ResourceVersionWait time.Duration
	// WatchBuffer, when set, is how many undelivered events a watcher may
	// hold before it is ended as too slow (default: 8192, or 256 for a
	// watch of one field value, such as a kubelet's spec.nodeName).
	WatchBuffer int
	// Admission is the chain a client's write passes: its mutating
	// plugins after defaulting, its validating ones after the kind's
	// own validation (nil: none).
	Admission admission.Chain
}

// NewStore checks cfg and returns the Store.
func NewStore(cfg Config) (*Store, error) {
	switch {
	case cfg.Resource == nil || cfg.Resource.New == nil:
		return nil, errors.New("registry: Resource with New is required")
	case cfg.Storage == nil:
		return nil, errors.New("registry: Storage is required")
	case cfg.Clock == nil:
		return nil, errors.New("registry: Clock is required")
	case cfg.IDs == nil:
		return nil, errors.New("registry: IDs is required")
	}
	if cfg.ResourceVersionWait <= 0 {
		cfg.ResourceVersionWait = DefaultResourceVersionWait
	}
	s := &Store{res: cfg.Resource, apiVersion: cfg.Resource.GroupVersion().String(), storage: cfg.Storage, clock: cfg.Clock, ids: cfg.IDs, rvWait: cfg.ResourceVersionWait, admit: cfg.Admission}
	s.cacher = newCacher(s)
	if cfg.WatchBuffer > 0 {
		s.cacher.buffer, s.cacher.indexedBuffer = cfg.WatchBuffer, cfg.WatchBuffer
	}
	return s, nil
}

// Resource is the resource this store serves.
func (s *Store) Resource() *Resource { return s.res }

// Now is the store's clock, for subresources that stamp times (an
// eviction's DisruptionTarget condition).
func (s *Store) Now() time.Time { return s.clock.Now() }

// prefix is the key prefix of the namespace ns ("" for all namespaces).
func (s *Store) prefix(ns string) string {
	gr := s.res.StorageGroupResource
	if gr.Empty() {
		gr = s.res.GroupResource()
	}
	group := gr.Group
	if group == "" {
		group = "core"
	}
	p := "/registry/" + group + "/" + gr.Resource + "/"
	if s.res.Namespaced && ns != "" {
		p += ns + "/"
	}
	return p
}

func (s *Store) key(ns, name string) string { return s.prefix(ns) + name }

// StoragePrefix is the key prefix of every object of the resource:
// "/registry/<group>/<resource>/", the group "core" for the core group
// (two resources sharing their storage share it too).
func (s *Store) StoragePrefix() string { return s.prefix("") }

// encode serializes obj for storage, without its resourceVersion (the
// store's revision is the resourceVersion, put back on decode). Its errors
// are API errors, ready for the client.
func (s *Store) encode(obj api.Object) ([]byte, error) {
	meta := api.Meta(obj)
	rv := meta.ResourceVersion
	meta.ResourceVersion = ""
	defer func() { meta.ResourceVersion = rv }()
	s.setTypeMeta(obj)
	data, err := jsoncodec.Marshal(obj)
	if err != nil {
		return nil, api.NewInternalError(err)
	}
	if len(data) > MaxObjectBytes {
		return nil, api.NewRequestEntityTooLargeError(fmt.Sprintf("limit is %d", MaxObjectBytes))
	}
	return data, nil
}

// MaxObjectBytes is the largest object the registry stores: the request
// limit, so that what a patch, a default or an admission mutation makes of
// a body cannot outgrow what a client may send (etcd refuses large values
// for the same reason).
const MaxObjectBytes = 3 * 1024 * 1024

// decodeKV decodes a stored entry; a value that does not decode is a
// corrupt object, reported with its key so that an admin can find it and
// remove it (see Delete: ignoreStoreReadErrorWithClusterBreakingPotential).
func (s *Store) decodeKV(kv store.KeyValue) (api.Object, error) {
	obj, err := s.decode(kv.Value, kv.ModRevision)
	if err != nil {
		return nil, s.corrupt(kv.Key, err)
	}
	return obj, nil
}

// corrupt words a stored value that cannot be decoded.
func (s *Store) corrupt(key string, err error) error {
	var se *api.StatusError
	if errors.As(err, &se) && len(se.ErrStatus.Details.Causes) > 0 {
		err = errors.New(se.ErrStatus.Details.Causes[0].Message)
	}
	// The key itself may be what is damaged: shown escaped and bounded.
	return api.NewInternalError(fmt.Errorf("corrupt object: key %s: %v (delete it with ignoreStoreReadErrorWithClusterBreakingPotential=true)", store.PrintableKey(key), err))
}

// decode turns a stored entry back into an object served at this version.
func (s *Store) decode(value []byte, rev int64) (api.Object, error) {
	obj := s.res.New()
	if err := jsoncodec.Unmarshal(value, obj); err != nil {
		return nil, api.NewInternalError(fmt.Errorf("decoding stored %s: %w", s.res.GroupResource(), err))
	}
	s.setTypeMeta(obj)
	api.Meta(obj).ResourceVersion = strconv.FormatInt(rev, 10)
	if d, ok := s.res.strategy().(ReadDefaulter); ok {
		d.DefaultOnRead(obj)
	}
	return obj, nil
}

// setTypeMeta sets obj's apiVersion and kind to the resource's, with the
// store's apiVersion string rather than a new one.
func (s *Store) setTypeMeta(obj api.Object) {
	if tm, ok := obj.GetObjectKind().(*metav1.TypeMeta); ok {
		tm.APIVersion, tm.Kind = s.apiVersion, s.res.Kind
		return
	}
	obj.GetObjectKind().SetGroupVersionKind(s.res.GroupVersionKind())
}

// storeError maps a store error to the API error a client expects.
func (s *Store) storeError(err error, name string) error {
	gr := s.res.GroupResource()
	switch {
	case store.IsNotFound(err):
		return api.NewNotFound(gr, name)
	case store.IsKeyExists(err):
		return api.NewAlreadyExists(gr, name)
	case store.IsConflict(err):
		return api.NewConflict(gr, name, errors.New(api.OptimisticLockErrorMsg))
	case store.IsExpired(err):
		return api.NewResourceExpired(err.Error())
	case store.IsUnavailable(err) && errors.Is(err, context.DeadlineExceeded):
		// etcd did not answer within the request's time: kube-apiserver's
		// words when a request outlives its deadline.
		return api.NewTimeoutError("request did not complete within requested timeout - "+context.DeadlineExceeded.Error(), 0)
	case store.IsUnavailable(err):
		// etcd is away: the server is, for now, unable to serve this.
		return api.NewServiceUnavailable(err.Error())
	}
	var se *api.StatusError
	if errors.As(err, &se) {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return api.NewTimeoutError(fmt.Sprintf("request for %s %q did not complete: %v", gr, name, err), 0)
	}
	return api.NewInternalError(err)
}

// CreateOptions modify a create.
type CreateOptions struct {
	// DryRun runs everything but the write.
	DryRun bool
	// Admit says the write comes from a client and passes the admission
	// chain; the server's own writes (bootstrap objects, a subresource's
	// inner write) do not.
	Admit bool
	// Decoded, when set, receives after a committed create the object
	// decoded from the bytes the store keeps, with its resourceVersion:
	// exactly what a client decoding the answer's JSON gets, and shared with
	// no one (the handler hands it to an in-process client: api/handoff).
	Decoded *api.Object
}

// Create stores a new object in namespace ns.
func (s *Store) Create(ctx context.Context, ns string, obj api.Object, opts CreateOptions) (api.Object, error) {
	if s.res.CreateOnly != nil {
		return s.answer(ctx, ns, obj, opts)
	}
	meta := api.Meta(obj)
	if s.res.Namespaced {
		meta.Namespace = ns
	} else {
		meta.Namespace = ""
	}
	generated := meta.Name == "" && meta.GenerateName != ""
	if generated {
		meta.Name = meta.GenerateName + s.ids.Suffix(5)
	}
	// The server owns these fields; whatever the client sent is replaced.
	meta.UID = s.ids.UID()
	meta.CreationTimestamp = metav1.NewTime(s.clock.Now().UTC().Truncate(time.Second))
	meta.ResourceVersion = ""
	s.res.Generation.onCreate(meta)
	meta.DeletionTimestamp = nil
	meta.DeletionGracePeriodSeconds = nil

	if s.res.StatusSubresource && !s.res.KeepStatusOnCreate {
		// Status is written through /status only; a create starts without.
		resetStatus(obj)
	}
	st := s.res.strategy()
	st.PrepareForCreate(obj)
	if rp, ok := st.(RequestPreparer); ok {
		rp.PrepareForCreateFromRequest(ctx, obj)
	}
	st.Default(obj)
	attrs := s.attributes(ctx, admission.Create, obj, nil, "", opts.DryRun, nil)
	if err := s.mutate(ctx, opts.Admit, attrs); err != nil {
		return nil, err
	}
	errs := s.validateMeta(obj, nil)
	errs = append(errs, st.Validate(obj)...)
	if len(errs) > 0 {
		return nil, api.NewInvalid(s.invalidKind(obj), meta.Name, errs)
	}
	if err := s.validate(ctx, opts.Admit, attrs); err != nil {
		return nil, err
	}
	finish := FinishFunc(noFinish)
	if s.res.BeginCreate != nil {
		f, err := s.res.BeginCreate(ctx, obj, opts.DryRun)
		if err != nil {
			return nil, err
		}
		finish = f
	}
	if opts.DryRun {
		finish(false)
		s.warn(ctx, obj)
		return obj, nil
	}
	for attempt := 0; ; attempt++ {
		data, err := s.encode(obj)
		if err != nil {
			finish(false)
			return nil, err
		}
		answer := s.decodeWritten(opts.Decoded != nil, s.key(ns, meta.Name), data)
		kv, err := s.storage.Create(ctx, s.key(ns, meta.Name), data, store.CreateOptions{UID: string(meta.UID)})
		if store.IsKeyExists(err) && generated && attempt < 3 {
			// A generated name collided: draw another, as Kubernetes does.
			meta.Name = meta.GenerateName + s.ids.Suffix(5)
			continue
		}
		if err != nil {
			finish(false)
			return nil, s.storeError(err, meta.Name)
		}
		finish(true)
		meta.ResourceVersion = strconv.FormatInt(kv.ModRevision, 10)
		answered(opts.Decoded, answer, kv.ModRevision)
		s.warn(ctx, obj)
		return obj, nil
	}
}

// warn sends the resource's warnings about obj, written by a client
// (admission.AddWarning: the handler adds them to the answer as Warning
// headers).
func (s *Store) warn(ctx context.Context, obj api.Object) {
	if s.res.Warnings == nil {
		return
	}
	for _, w := range s.res.Warnings(obj) {
		admission.AddWarning(ctx, w)
	}
}

// validateMeta checks the metadata every kind shares.
func (s *Store) validateMeta(obj api.Object, old api.Object) field.ErrorList {
	meta := api.Meta(obj)
	var errs field.ErrorList
	p := field.NewPath("metadata")
	if meta.Name == "" {
		errs = append(errs, field.Required(p.Child("name"), "name or generateName is required"))
	} else if old == nil {
		check := s.res.ValidateName
		if check == nil {
			check = labels.IsDNS1123Subdomain
		}
		for _, msg := range check(meta.Name) {
			errs = append(errs, field.Invalid(p.Child("name"), meta.Name, msg))
		}
	}
	for k, v := range meta.Labels {
		for _, msg := range labels.IsQualifiedName(k) {
			errs = append(errs, field.Invalid(p.Child("labels"), k, msg))
		}
		for _, msg := range labels.IsValidLabelValue(v) {
			errs = append(errs, field.Invalid(p.Child("labels"), v, msg))
		}
	}
	total := 0
	for k, v := range meta.Annotations {
		for _, msg := range labels.IsQualifiedName(strings.ToLower(k)) {
			errs = append(errs, field.Invalid(p.Child("annotations"), k, msg))
		}
		total += len(k) + len(v)
	}
	if total > 256*1024 {
		errs = append(errs, field.TooLong(p.Child("annotations"), "", 256*1024))
	}
	for i, ref := range meta.OwnerReferences {
		rp := p.Child("ownerReferences").Index(i)
		if ref.APIVersion == "" {
			errs = append(errs, field.Invalid(rp.Child("apiVersion"), ref.APIVersion, "version must not be empty"))
		}
		if ref.Kind == "" {
			errs = append(errs, field.Invalid(rp.Child("kind"), ref.Kind, "kind must not be empty"))
		}
		if ref.Name == "" {
			errs = append(errs, field.Invalid(rp.Child("name"), ref.Name, "name must not be empty"))
		}
		if ref.UID == "" {
			errs = append(errs, field.Invalid(rp.Child("uid"), ref.UID, "uid must not be empty"))
		}
	}
	if old != nil {
		om := api.Meta(old)
		if meta.Name != om.Name {
			errs = append(errs, field.Invalid(p.Child("name"), meta.Name, "field is immutable"))
		}
		if meta.Namespace != om.Namespace {
			errs = append(errs, field.Invalid(p.Child("namespace"), meta.Namespace, "field is immutable"))
		}
	}
	return errs
}

// Get returns the object ns/name.
func (s *Store) Get(ctx context.Context, ns, name string) (api.Object, error) {
	kv, err := s.storage.Get(ctx, s.key(ns, name))
	if err != nil {
		return nil, s.storeError(err, name)
	}
	return s.decodeKV(kv)
}

// ListResult is one page of a list.
type ListResult struct {
	Items           []api.Object
	ResourceVersion string
	// Continue, when not empty, fetches the next page.
	Continue string
	// Warnings name the stored values left out because they do not decode
	// (corrupt objects): one bad value does not hide all the others.
	Warnings []string
}

// continueToken is the opaque continue string, shaped like Kubernetes'
// (base64 of {"v":"meta.k8s.io/v1","rv":N,"start":"key"}): the revision
// of the list's first page, which every later page is read at, and the
// last key served. rv -1 is the token of a 410 for a compacted revision:
// it continues at the latest revision, accepting an inconsistent list.
type continueToken struct {
	APIVersion      string `json:"v"`
	ResourceVersion int64  `json:"rv"`
	StartKey        string `json:"start"`
}

// latestRevision is the rv of a token that continues at the latest
// revision (etcd3's store uses -1 rather than 0, which no valid token has).
const latestRevision = -1

func encodeContinue(rev int64, startKey string) string {
	tok, _ := json.Marshal(continueToken{APIVersion: "meta.k8s.io/v1", ResourceVersion: rev, StartKey: startKey})
	return base64.RawURLEncoding.EncodeToString(tok)
}

// decodeContinue returns the key to list after and the revision to list
// at (0: the latest).
func decodeContinue(tok, prefix string) (string, int64, error) {
	raw, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil {
		return "", 0, api.NewBadRequest("continue key is not valid: " + err.Error())
	}
	var c continueToken
	if err := json.Unmarshal(raw, &c); err != nil || c.APIVersion != "meta.k8s.io/v1" || c.StartKey == "" || c.ResourceVersion == 0 {
		return "", 0, api.NewBadRequest("continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)")
	}
	if strings.Contains(c.StartKey, "/..") || strings.HasPrefix(c.StartKey, "/") {
		return "", 0, api.NewBadRequest("continue key is not valid: key must not escape the prefix")
	}
	return prefix + c.StartKey, max(c.ResourceVersion, 0), nil
}

// inconsistentContinue is kube-apiserver's answer (k8s.io/apiserver's
// etcd3 store) to a continue token whose revision is compacted.
const inconsistentContinue = "The provided continue parameter is too old " +
	"to display a consistent list result. You can start a new list without " +
	"the continue parameter, or use the continue token in this response to " +
	"retrieve the remainder of the results. Continuing with the provided " +
	"token results in an inconsistent list - objects that were created, " +
	"modified, or deleted between the time the first chunk was returned " +
	"and now may show up in the list."

// continueExpired is the 410 for a continue token whose revision the
// store's history no longer reaches: the Status carries a token that goes
// on from the same key at the latest revision, for a client that prefers
// an inconsistent rest to starting again.
func continueExpired(startKey string) error {
	se := api.NewResourceExpired(inconsistentContinue)
	se.ErrStatus.ListMeta.Continue = encodeContinue(latestRevision, startKey)
	return se
}

// List returns the objects in ns ("" for all namespaces) that match opts.
func (s *Store) List(ctx context.Context, ns string, opts ListOptions) (*ListResult, error) {
	return s.listDecoded(ctx, ns, opts, nil, nil)
}

// listDecoded is the one loop of List and ListShared: the page
// is the store's; each value is decoded unless cached (when it is set)
// has the object for the key at its modRevision, and a value decoded is
// handed to decoded (when set) to be remembered. A value that does not
// decode is left out with a warning.
func (s *Store) listDecoded(ctx context.Context, ns string, opts ListOptions,
	cached func(store.KeyValue) api.Object, decoded func(store.KeyValue, api.Object)) (*ListResult, error) {
	out := &ListResult{}
	rv, cont, err := s.scan(ctx, ns, opts, func(kv store.KeyValue) (bool, error) {
		var obj api.Object
		if cached != nil {
			obj = cached(kv)
		}
		if obj == nil {
			var err error
			if obj, err = s.decodeKV(kv); err != nil {
				out.Warnings = append(out.Warnings, corruptWarning(kv.Key, err))
				return false, nil
			}
			if decoded != nil {
				decoded(kv, obj)
			}
		}
		if !s.Matches(obj, opts) {
			return false, nil
		}
		out.Items = append(out.Items, obj)
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	out.ResourceVersion, out.Continue = rv, cont
	return out, nil
}

// RawListResult is a page of objects as JSON.
type RawListResult struct {
	Items           []json.RawMessage
	ResourceVersion string
	Continue        string
	// Warnings: as ListResult's.
	Warnings []string
}

// corruptWarning is the warning for a value a list leaves out.
func corruptWarning(key string, err error) string {
	msg := err.Error()
	var se *api.StatusError
	if errors.As(err, &se) {
		msg = se.ErrStatus.Message
	}
	return fmt.Sprintf("left out of the list: %s", strings.TrimPrefix(msg, "Internal error occurred: "))
}

// ListRaw is List for callers that send the objects on as JSON: an object
// is served from its stored bytes with the resourceVersion put back, and
// decoded only as far as the selectors need (its labels; the whole object
// for field selectors, and for a resource whose strategy defaults what it
// reads). This is what makes a LIST of 10,000 pods cheap;
// Kubernetes' watch cache plays the same trick with cached serializations.
func (s *Store) ListRaw(ctx context.Context, ns string, opts ListOptions) (*RawListResult, error) {
	out := &RawListResult{}
	_, readDefaults := s.res.strategy().(ReadDefaulter)
	needFields := opts.Fields != nil && !opts.Fields.Empty() || readDefaults
	needLabels := opts.Labels != nil && !opts.Labels.Empty()
	gv := s.apiVersion
	rv, cont, err := s.scan(ctx, ns, opts, func(kv store.KeyValue) (bool, error) {
		// The stored bytes are trusted as JSON here (they are what this
		// registry encoded, and the store checksums them); a damaged entry
		// comes with no value and takes the decoding path, which names it.
		raw, ok := spliceResourceVersion(kv.Value, kv.ModRevision, gv)
		if !ok || needFields {
			obj, err := s.decodeKV(kv)
			if err != nil {
				out.Warnings = append(out.Warnings, corruptWarning(kv.Key, err))
				return false, nil
			}
			if !s.Matches(obj, opts) {
				return false, nil
			}
			if raw, err = json.Marshal(obj); err != nil {
				return false, api.NewInternalError(err)
			}
		} else if needLabels {
			var meta struct {
				Metadata struct {
					Labels map[string]string `json:"labels"`
				} `json:"metadata"`
			}
			if err := json.Unmarshal(kv.Value, &meta); err != nil {
				out.Warnings = append(out.Warnings, corruptWarning(kv.Key, s.corrupt(kv.Key, err)))
				return false, nil
			}
			if !opts.Labels.Matches(labels.Set(meta.Metadata.Labels)) {
				return false, nil
			}
		}
		out.Items = append(out.Items, raw)
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	out.ResourceVersion, out.Continue = rv, cont
	return out, nil
}

// spliceResourceVersion inserts "resourceVersion":"rev" into the top-level
// metadata of a stored object. Objects are stored by encoding/json with
// apiVersion and kind before metadata, and a JSON string cannot contain an
// unescaped `"metadata":{`, so the first occurrence is the top-level one. It
// refuses (false) objects stored at another apiVersion than gv, which must
// be decoded to be served at this version.
func spliceResourceVersion(value []byte, rev int64, gv string) ([]byte, bool) {
	marker := []byte(`"metadata":{`)
	i := bytes.Index(value, marker)
	if i < 0 || i+len(marker) >= len(value) || !bytes.Contains(value[:i], []byte(`"apiVersion":"`+gv+`"`)) {
		return nil, false
	}
	i += len(marker)
	field := `"resourceVersion":"` + strconv.FormatInt(rev, 10) + `"`
	out := make([]byte, 0, len(value)+len(field)+1)
	out = append(out, value[:i]...)
	out = append(out, field...)
	if value[i] != '}' {
		out = append(out, ',')
	}
	return append(out, value[i:]...), true
}

// scan walks the keys of ns in order from opts.Continue, offering each to
// take until opts.Limit objects were taken, and returns the list's
// resourceVersion and the continue token of the next page. Selectors are
// applied by take, after reading, so a page may need several reads; all
// of them, and every later page, read at the revision of the first read,
// so one list is one snapshot, as etcd's range reads WithRev give
// kube-apiserver.
func (s *Store) scan(ctx context.Context, ns string, opts ListOptions, take func(store.KeyValue) (bool, error)) (string, string, error) {
	exact, err := s.readRevision(ctx, opts)
	if err != nil {
		return "", "", err
	}
	prefix := s.prefix(ns)
	start := ""
	var rev int64 // the revision every read is at, once known
	if opts.Continue != "" {
		var err error
		if start, rev, err = decodeContinue(opts.Continue, prefix); err != nil {
			return "", "", err
		}
	}
	if exact > 0 {
		// resourceVersionMatch=Exact reads at that revision.
		rev = exact
	}
	continued := start
	var taken, readBytes, readCount int64
	done := func(cont string) (string, string, error) {
		if continued == "" && cont == "" {
			// Everything under the prefix was read: the size of the
			// next such list, for the list budget.
			s.sizes.learn(ns, readBytes, readCount)
		}
		return strconv.FormatInt(rev, 10), cont, nil
	}
	read := func(o store.ListOptions) (store.ListResult, error) {
		o.Revision = rev
		page, err := s.storage.List(ctx, prefix, o)
		switch {
		case err == nil:
			rev = page.Revision
			return page, nil
		case store.IsExpired(err) && opts.Continue != "":
			return page, continueExpired(strings.TrimPrefix(continued, prefix))
		case store.IsExpired(err):
			return page, listExpired()
		case errors.Is(err, store.ErrFutureRevision):
			// Only a token made up by hand names a revision not reached.
			return page, api.NewBadRequest("continue key is not valid: its resourceVersion is newer than the store's")
		}
		return page, s.storeError(err, "")
	}
	for {
		if err := ctx.Err(); err != nil {
			// The client has gone (or its time is up): stop reading.
			return "", "", s.storeError(err, "")
		}
		page, err := read(store.ListOptions{Limit: opts.Limit, StartAfter: start})
		if err != nil {
			return "", "", err
		}
		for i, kv := range page.Items {
			if i%256 == 255 && ctx.Err() != nil {
				// The client has gone: stop building its answer.
				return "", "", s.storeError(ctx.Err(), "")
			}
			start = kv.Key
			readBytes += int64(len(kv.Value))
			readCount++
			ok, err := take(kv)
			if err != nil {
				return "", "", err
			}
			// take keeps no reference to the stored bytes (it copies or
			// decodes them): let the garbage collector have them now
			// rather than when the whole page is done.
			page.Items[i] = store.KeyValue{}
			if ok {
				taken++
			}
			if opts.Limit > 0 && taken == opts.Limit {
				break
			}
		}
		if opts.Limit > 0 && taken == opts.Limit {
			// A page is full: is there anything after its last key?
			more, err := read(store.ListOptions{Limit: 1, StartAfter: start})
			if err != nil {
				return "", "", err
			}
			cont := ""
			if len(more.Items) > 0 {
				cont = encodeContinue(rev, strings.TrimPrefix(start, prefix))
			}
			return done(cont)
		}
		if !page.More {
			return done("")
		}
	}
}

// FieldSet returns the selectable fields of obj.
func (s *Store) FieldSet(obj api.Object) fields.Set {
	meta := api.Meta(obj)
	set := fields.Set{"metadata.name": meta.Name}
	if s.res.Namespaced {
		set["metadata.namespace"] = meta.Namespace
	}
	if s.res.Fields != nil {
		for k, v := range s.res.Fields(obj) {
			set[k] = v
		}
	}
	return set
}

// Matches reports whether obj passes the selectors of opts.
func (s *Store) Matches(obj api.Object, opts ListOptions) bool {
	if opts.Labels != nil && !opts.Labels.Empty() && !opts.Labels.Matches(labels.Set(api.Meta(obj).Labels)) {
		return false
	}
	if opts.Fields != nil && !opts.Fields.Empty() && !opts.Fields.Matches(s.FieldSet(obj)) {
		return false
	}
	return true
}

// UpdateOptions modify an update.
type UpdateOptions struct {
	DryRun bool
	// Admit: the write passes the admission chain (see CreateOptions).
	Admit bool
	// Subresource is "" for the object or "status".
	Subresource string
	// AdmissionSubresource, when set, is the subresource admission sees
	// instead (a scale write changes the object, admitted as "scale";
	// kubesim passes the object, where Kubernetes passes the Scale).
	AdmissionSubresource string
	// CreateIfMissing makes the update a create when the object does not
	// exist (server-side apply, and PUT for kinds that allow it).
	CreateIfMissing bool
	// Decoded: see CreateOptions. An update that changed nothing, or
	// that completed a delete, leaves it nil.
	Decoded *api.Object
	// Replace says the update function returns a new object without
	// reading or changing the current one (a PUT): it is then given the
	// current object itself, read-only, rather than a copy of its own.
	Replace bool
	// Checked says the update function made the change and checked it
	// itself, as a subresource whose REST storage in Kubernetes writes
	// the object without the kind's strategy (pods/binding: BindingREST
	// sets the node through GuaranteedUpdate): the strategy's
	// ValidateUpdate is not run. The metadata is still checked.
	Checked bool
}

// UpdateFunc computes the new object from the current one (nil when it
// does not exist and CreateIfMissing is set). It may be called more than
// once when a concurrent write forces a retry.
type UpdateFunc func(current api.Object) (api.Object, error)

// maxUpdateRetries bounds the read-modify-write retries of one update.
const maxUpdateRetries = 16

// Update applies fn to the current object and stores the result, retrying
// when another writer got there first, unless the new object names a
// resourceVersion: then a stale one is a Conflict, as Kubernetes answers.
// It reports whether the object was created.
func (s *Store) Update(ctx context.Context, ns, name string, fn UpdateFunc, opts UpdateOptions) (api.Object, bool, error) {
	key := s.key(ns, name)
	for attempt := 0; ; attempt++ {
		kv, err := s.storage.Get(ctx, key)
		if store.IsNotFound(err) && opts.CreateIfMissing && opts.Subresource == "" {
			obj, err := fn(nil)
			if err != nil {
				return nil, false, err
			}
			if api.Meta(obj).Name == "" {
				api.Meta(obj).Name = name
			}
			created, err := s.Create(ctx, ns, obj, CreateOptions{DryRun: opts.DryRun, Admit: opts.Admit, Decoded: opts.Decoded})
			if api.IsAlreadyExists(err) && attempt < maxUpdateRetries {
				continue
			}
			return created, err == nil, err
		}
		if err != nil {
			return nil, false, s.storeError(err, name)
		}
		cur, cached, err := s.current(key, kv)
		if err != nil {
			return nil, false, err
		}
		in := cur
		if !opts.Replace {
			in = api.DeepCopy(cur)
		}
		obj, err := fn(in)
		if err != nil {
			return nil, false, err
		}
		meta := api.Meta(obj)
		explicitRV := meta.ResourceVersion != ""
		if explicitRV && meta.ResourceVersion != api.Meta(cur).ResourceVersion {
			return nil, false, api.NewConflict(s.res.GroupResource(), name, errors.New(api.OptimisticLockErrorMsg))
		}
		if err := s.prepareUpdate(obj, cur, opts.Subresource); err != nil {
			return nil, false, err
		}
		sub := opts.Subresource
		if opts.AdmissionSubresource != "" {
			sub = opts.AdmissionSubresource
		}
		attrs := s.attributes(ctx, admission.Update, obj, cur, sub, opts.DryRun, nil)
		if err := s.mutate(ctx, opts.Admit, attrs); err != nil {
			return nil, false, err
		}
		errs := s.validateMeta(obj, cur)
		if us, ok := s.res.UpdateSubresources[opts.Subresource]; ok {
			errs = append(errs, us.ValidateUpdate(obj, cur)...)
		} else if opts.Checked {
			// The caller's own checks were the write's.
		} else if opts.Subresource == "status" && s.res.ValidateStatusUpdate != nil {
			errs = append(errs, s.res.ValidateStatusUpdate(obj, cur)...)
		} else {
			errs = append(errs, s.res.strategy().ValidateUpdate(obj, cur)...)
		}
		if len(errs) > 0 {
			return nil, false, api.NewInvalid(s.invalidKind(obj), name, errs)
		}
		if err := s.validate(ctx, opts.Admit, attrs); err != nil {
			return nil, false, err
		}
		finish := FinishFunc(noFinish)
		if s.res.BeginUpdate != nil {
			f, err := s.res.BeginUpdate(ctx, obj, cur, opts.DryRun)
			if err != nil {
				return nil, false, err
			}
			finish = f
		}
		out, retry, err := s.write(ctx, key, obj, cur, cached, kv, explicitRV, opts, attempt)
		finish(err == nil && !retry && out != cur && !opts.DryRun)
		if retry {
			continue
		}
		if err == nil && opts.Subresource == "" && opts.AdmissionSubresource == "" {
			s.warn(ctx, obj)
		}
		return out, false, err
	}
}

// current is the stored object kv (at key) for an update to start from:
// a copy of the watch cache's decoded object when the cache holds the key
// at kv's modRevision — a stored value never changes at a given revision,
// so it is the object decoding gives (objectCache), and copying costs a
// fraction of decoding — and decoded otherwise. The update owns it:
// splicing a status write and the strategies may share its parts with the
// new object, which admission then changes. cached is the watch cache's
// own object, nil when decoded.
func (s *Store) current(key string, kv store.KeyValue) (cur, cached api.Object, err error) {
	if cached = s.cacher.objects.get(key, kv.ModRevision); cached != nil {
		return api.DeepCopy(cached), cached, nil
	}
	cur, err = s.decode(kv.Value, kv.ModRevision)
	return cur, nil, err
}

// write stores obj over cur (read as kv), or deletes it when the update
// removed its last finalizer. It returns cur itself when nothing changed,
// and retry when a concurrent write won and the update may run again.
func (s *Store) write(ctx context.Context, key string, obj, cur, cached api.Object, kv store.KeyValue, explicitRV bool, opts UpdateOptions, attempt int) (api.Object, bool, error) {
	name, meta := api.Meta(obj).Name, api.Meta(obj)
	newData, err := s.encode(obj)
	if err != nil {
		return nil, false, err
	}
	if bytes.Equal(newData, kv.Value) {
		// Nothing changed: no write, no new resourceVersion, no event.
		return cur, false, nil
	}
	if opts.DryRun {
		return obj, false, nil
	}
	if s.finalizable(obj) {
		// The last finalizer is gone from an object being deleted:
		// the update completes the delete.
		del, err := s.storage.Delete(ctx, key, store.Preconditions{ResourceVersion: kv.ModRevision})
		if store.IsConflict(err) && !explicitRV && attempt < maxUpdateRetries {
			return nil, true, nil
		}
		if err != nil {
			return nil, false, s.storeError(err, name)
		}
		meta.ResourceVersion = strconv.FormatInt(del.ModRevision, 10)
		return obj, false, nil
	}
	if cached != nil {
		s.prevs.put(key, kv.Value, cached)
	}
	answer := s.decodeWritten(opts.Decoded != nil, key, newData)
	res, err := s.storage.Update(ctx, key, newData, store.Preconditions{ResourceVersion: kv.ModRevision})
	if store.IsConflict(err) && !explicitRV && attempt < maxUpdateRetries {
		return nil, true, nil
	}
	if err != nil {
		return nil, false, s.storeError(err, name)
	}
	meta.ResourceVersion = strconv.FormatInt(res.ModRevision, 10)
	answered(opts.Decoded, answer, res.ModRevision)
	return obj, false, nil
}

// decodeWritten decodes data, the bytes about to be stored at key, when
// want says an in-process client takes the answer decoded (api/handoff),
// and returns the client's own copy. A deep copy of it is left for the
// write's event (written.go), which then needs no decode of its own,
// and from the watch cache the next update of the key starts from it. A
// value that does not decode gives nil: the handler then writes the
// answer's JSON, and the watch cache reports the corrupt value as it would
// anyway.
func (s *Store) decodeWritten(want bool, key string, data []byte) api.Object {
	if !want {
		return nil
	}
	obj, err := s.decode(data, 0)
	if err != nil {
		return nil
	}
	if !s.watchCacheLive() {
		return obj // no event will be decoded: nothing to leave
	}
	// The copy stays and the decoded object goes to the client: the JSON
	// decoder grows a slice as it reads it (a pod's conditions and
	// container statuses end with room to spare), where DeepCopy makes
	// each slice its exact length, and the watch cache keeps its object
	// until the next write of the key, the client seldom keeps its answer
	// at all. At 10,000 pods this keeps 32 MB less in use.
	kept := api.DeepCopy(obj)
	s.written.put(key, data, kept)
	return obj
}

// answered sets *into (when into is set) to answer, the object decoded by
// decodeWritten, with the revision its write was committed at.
func answered(into *api.Object, answer api.Object, rev int64) {
	if into == nil || answer == nil {
		return
	}
	api.Meta(answer).ResourceVersion = strconv.FormatInt(rev, 10)
	*into = answer
}

// finalizable: deletion was requested, no finalizer is left and no grace
// period is running.
func (s *Store) finalizable(obj api.Object) bool {
	meta := api.Meta(obj)
	return meta.DeletionTimestamp != nil && len(meta.Finalizers) == 0 &&
		(meta.DeletionGracePeriodSeconds == nil || *meta.DeletionGracePeriodSeconds == 0) &&
		(s.res.PendingFinalizers == nil || !s.res.PendingFinalizers(obj))
}

// prepareUpdate carries over from cur what this write may not change.
func (s *Store) prepareUpdate(obj, cur api.Object, subresource string) error {
	meta, old := api.Meta(obj), api.Meta(cur)
	meta.UID = old.UID
	meta.CreationTimestamp = old.CreationTimestamp
	meta.GenerateName = old.GenerateName
	meta.Generation = old.Generation
	// Only a delete sets deletionTimestamp; an update may only keep it.
	meta.DeletionTimestamp = old.DeletionTimestamp
	meta.DeletionGracePeriodSeconds = old.DeletionGracePeriodSeconds
	if meta.Namespace == "" && s.res.Namespaced {
		meta.Namespace = old.Namespace
	}
	if old.DeletionTimestamp != nil && len(meta.Finalizers) > len(old.Finalizers) {
		for _, f := range meta.Finalizers {
			if !contains(old.Finalizers, f) {
				return api.NewInvalid(s.res.GroupKind(), meta.Name, field.ErrorList{
					field.Forbidden(field.NewPath("metadata", "finalizers"),
						"no new finalizers can be added if the object is being deleted, found new finalizers []string{\""+f+"\"}")})
			}
		}
	}
	if us, ok := s.res.UpdateSubresources[subresource]; ok {
		us.PrepareForUpdate(obj, cur)
		return nil
	}
	switch subresource {
	case "status":
		// A status write is how controllers report: the kind's status
		// strategy says what else it may change; without one, nothing
		// else (everything comes from the current object). A status
		// strategy replaces the main one, as in kube-apiserver, where
		// the status REST storage has a strategy of its own.
		if s.res.PrepareForStatusUpdate != nil {
			s.res.PrepareForStatusUpdate(obj, cur)
			return nil
		}
		if err := splice(obj, cur, false); err != nil {
			return err
		}
		s.res.strategy().PrepareForUpdate(obj, cur)
		return nil
	case "":
		if s.res.StatusSubresource {
			if err := splice(obj, cur, true); err != nil {
				return err
			}
		}
	}
	s.res.strategy().PrepareForUpdate(obj, cur)
	s.res.strategy().Default(obj)
	s.res.Generation.onUpdate(obj, cur)
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// splice moves status between obj and cur. keepStatus: obj keeps
// everything it has but takes cur's status (a write to the main resource).
// Otherwise obj becomes cur with only obj's status (a write to /status).
// Typed kinds are handled through their Status field, unstructured objects
// through their "status" key; no JSON round trip.
func splice(obj, cur api.Object, keepStatus bool) error {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		cu, ok := cur.(*unstructured.Unstructured)
		if !ok {
			return api.NewInternalError(fmt.Errorf("splice: %T and %T", obj, cur))
		}
		var st any
		var has bool
		if keepStatus {
			st, has = cu.Content["status"]
			st = unstructured.DeepCopyValue(st)
		} else {
			st, has = u.Content["status"]
			rv := u.ResourceVersion
			*u = *cu.DeepCopy()
			u.ResourceVersion = rv
		}
		if u.Content == nil {
			u.Content = map[string]any{}
		}
		if has {
			u.Content["status"] = st
		} else {
			delete(u.Content, "status")
		}
		return nil
	}
	ov := reflect.ValueOf(obj).Elem()
	fresh := reflect.ValueOf(api.DeepCopy(cur)).Elem()
	if ov.Type() != fresh.Type() {
		return api.NewInternalError(fmt.Errorf("splice: %T and %T", obj, cur))
	}
	os, fs := ov.FieldByName("Status"), fresh.FieldByName("Status")
	if !os.IsValid() {
		return nil
	}
	if keepStatus {
		os.Set(fs)
		return nil
	}
	rv := api.Meta(obj).ResourceVersion
	fs.Set(os)
	ov.Set(fresh)
	api.Meta(obj).ResourceVersion = rv
	return nil
}

// resetStatus clears the status of obj: the Status field of a typed kind,
// the "status" key of an unstructured object.
func resetStatus(obj api.Object) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		delete(u.Content, "status")
		return
	}
	v := reflect.ValueOf(obj).Elem()
	if f := v.FieldByName("Status"); f.IsValid() && f.CanSet() {
		f.Set(reflect.Zero(f.Type()))
	}
}

// invalidKind is the kind an Invalid error names: the object's own, as
// Kubernetes' BeforeCreate and BeforeUpdate ask the object for its kind
// (ObjectKinds). A custom resource sent as a Gadget to the widgets
// resource is "Gadget.lab.example.com "w28" is invalid: kind: ...".
func (s *Store) invalidKind(obj api.Object) schema.GroupKind {
	tm := api.TypeMetaOf(obj)
	if tm.Kind == "" {
		return s.res.GroupKind()
	}
	gv, err := schema.ParseGroupVersion(tm.APIVersion)
	if err != nil {
		return s.res.GroupKind()
	}
	return schema.GroupKind{Group: gv.Group, Kind: tm.Kind}
}

// answer serves a create on a CreateOnly resource: the object is a
// question, checked as any object is, answered and not stored.
func (s *Store) answer(ctx context.Context, ns string, obj api.Object, opts CreateOptions) (api.Object, error) {
	if s.res.Namespaced {
		// A namespaced question (LocalSubjectAccessReview) is asked in
		// the request's namespace.
		api.Meta(obj).Namespace = ns
	}
	st := s.res.strategy()
	st.PrepareForCreate(obj)
	if rp, ok := st.(RequestPreparer); ok {
		rp.PrepareForCreateFromRequest(ctx, obj)
	}
	st.Default(obj)
	attrs := s.attributes(ctx, admission.Create, obj, nil, "", opts.DryRun, nil)
	if err := s.mutate(ctx, opts.Admit, attrs); err != nil {
		return nil, err
	}
	if errs := st.Validate(obj); len(errs) > 0 {
		return nil, api.NewInvalid(s.res.GroupKind(), api.Meta(obj).Name, errs)
	}
	if err := s.validate(ctx, opts.Admit, attrs); err != nil {
		return nil, err
	}
	return s.res.CreateOnly(ctx, obj)
}
