package handlers

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
	"github.com/kubesim/kubesim/api/fields"
	"github.com/kubesim/kubesim/api/handoff"
	"github.com/kubesim/kubesim/api/jsoncodec"
	"github.com/kubesim/kubesim/api/labels"
	"github.com/kubesim/kubesim/apiserver/admission"
	"github.com/kubesim/kubesim/apiserver/audit"
	"github.com/kubesim/kubesim/apiserver/metrics"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/request"
	"github.com/kubesim/kubesim/apiserver/responsewriters"
	"github.com/kubesim/kubesim/clock"
)

// Lookup finds the store serving a resource at a group/version.
type Lookup func(group, version, resource string) (*registry.Store, bool)

// Handler serves every resource request (/api/v1/... and /apis/G/V/...).
type Handler struct {
	Lookup Lookup
	Clock  clock.Clock
	// MaxBodyBytes caps request bodies (default DefaultMaxBodyBytes).
	MaxBodyBytes int64
	// Metrics counts the events sent to watchers
	// (apiserver_watch_events_total); nil counts nothing.
	Metrics *metrics.Metrics

	// fast remembers which kinds the decoder's fast path can take.
	fast decodeCache
}

// admissionContext is ctx with the metrics the admission chain times
// its steps with (in the context the handlers already make for a write,
// so that timing costs no request of its own).
func (h *Handler) admissionContext(ctx context.Context) context.Context {
	if h.Metrics == nil {
		return ctx
	}
	return admission.WithMetrics(ctx, h.Metrics.Admission())
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	info := request.InfoOf(r)
	if !info.IsResourceRequest {
		responsewriters.WriteError(w, notFound())
		return
	}
	st, ok := h.Lookup(info.APIGroup, info.APIVersion, info.Resource)
	if !ok {
		responsewriters.WriteError(w, notFound())
		return
	}
	res := st.Resource()
	ns := info.Namespace
	name := info.Name
	if !res.Namespaced {
		if info.Resource != "namespaces" && ns != "" {
			responsewriters.WriteError(w, notFound())
			return
		}
		ns = ""
	} else if ns == "" && name != "" {
		responsewriters.WriteError(w, notFound())
		return
	}
	if (len(info.Parts) > 3 && !res.Connect[info.Subresource].Path) || !h.subresourceAllowed(res, info) {
		responsewriters.WriteError(w, notFound())
		return
	}
	if name != "" {
		if msg := pathSegmentProblem(name); msg != "" {
			responsewriters.WriteError(w, api.NewBadRequest(msg))
			return
		}
	}
	if us, ok := res.UpdateSubresources[info.Subresource]; ok && us.UpdateOnly && info.Verb != "update" {
		// An update-only subresource (namespaces/finalize): go-restful
		// has a route for the path but not for the method, and
		// kube-apiserver answers its 405 as a bare Status.
		responsewriters.WriteError(w, api.NewMethodNotAllowed())
		return
	}
	if res.CreateOnly != nil && info.Verb != "create" {
		// A question answered on create and never stored
		// (SubjectAccessReview and its kin).
		responsewriters.WriteError(w, api.NewMethodNotSupported(res.GroupResource(), info.Verb))
		return
	}
	if conn, ok := res.Connect[info.Subresource]; ok && info.Subresource != "" {
		// A connect subresource (pods/log): its own handler answers,
		// with the original writer so that an upgrade can pass.
		if !slices.Contains(conn.Verbs, info.Verb) {
			responsewriters.WriteError(w, api.NewMethodNotSupported(schema.GroupResource{Group: res.Group, Resource: res.Name + "/" + info.Subresource}, info.Verb))
			return
		}
		if conn.NewConnectOptions != nil {
			opts, err := conn.NewConnectOptions(r.URL.Query())
			if err == nil {
				err = admitConnect(h.admissionContext(r.Context()), st, res, info.Subresource, ns, name, opts)
			}
			if err != nil {
				responsewriters.WriteError(w, err)
				return
			}
		}
		if err := conn.Serve(w, r, st, ns, name); err != nil {
			responsewriters.WriteError(w, err)
		}
		return
	}
	if isWrite(info.Verb) {
		// What the admission chain did is shown with the answer, for the
		// stepper's trace (admission.Record).
		withRecord := admission.WithQuietRecord
		if r.Header.Get(AdmissionTraceHeader) != "" {
			withRecord = admission.WithRecord
		}
		ctx, rec := withRecord(h.admissionContext(r.Context()))
		r = r.WithContext(ctx)
		w = &admissionStepsWriter{ResponseWriter: w, rec: rec, ctx: ctx}
	}
	rc := &requestContext{h: h, w: w, r: r, info: info, st: st, res: res, ns: ns, name: name}
	// The answer's media type is settled before anything is written, as
	// Kubernetes' handlers do: a 406 must not follow a stored create.
	if _, err := rc.negotiate(); err != nil {
		responsewriters.WriteError(w, err)
		return
	}
	var err error
	switch info.Verb {
	case "get":
		err = rc.get()
	case "list":
		err = rc.list()
	case "watch":
		err = rc.watch()
	case "create":
		err = rc.create()
	case "update":
		err = rc.update()
	case "patch":
		err = rc.patch()
	case "delete":
		err = rc.delete()
	case "deletecollection":
		err = rc.deleteCollection()
	default:
		err = api.NewMethodNotSupported(res.GroupResource(), info.Verb)
	}
	if err != nil {
		responsewriters.WriteError(w, err)
	}
}

// pathSegmentProblem explains why a name cannot be used in a URL path.
func pathSegmentProblem(name string) string {
	switch {
	case name == "." || name == "..":
		return fmt.Sprintf("name may not be %q", name)
	case strings.ContainsAny(name, "/%"):
		return fmt.Sprintf("name may not contain %q or %q", "/", "%")
	}
	return ""
}

func (h *Handler) subresourceAllowed(res *registry.Resource, info *request.Info) bool {
	switch info.Subresource {
	case "":
		return true
	case "status":
		return res.StatusSubresource && (info.Verb == "get" || info.Verb == "update" || info.Verb == "patch")
	case "scale":
		return res.Scale != nil && (info.Verb == "get" || info.Verb == "update" || info.Verb == "patch")
	}
	if _, ok := res.Connect[info.Subresource]; ok {
		return true // its verbs are checked when it is served
	}
	if us, ok := res.UpdateSubresources[info.Subresource]; ok {
		// An update-only one answers other verbs 405 (ServeHTTP).
		return us.UpdateOnly || info.Verb == "get" || info.Verb == "update" || info.Verb == "patch"
	}
	_, ok := res.CreateSubresources[info.Subresource]
	return ok && info.Verb == "create"
}

// requestContext carries one request through its verb.
type requestContext struct {
	h    *Handler
	w    http.ResponseWriter
	r    *http.Request
	info *request.Info
	st   *registry.Store
	res  *registry.Resource
	ns   string
	name string
}

func (c *requestContext) ctx() context.Context { return c.r.Context() }

func (c *requestContext) dryRun() (bool, error) {
	for _, v := range c.r.URL.Query()["dryRun"] {
		if v != "All" {
			return false, api.NewBadRequest(fmt.Sprintf("Invalid dryRun value: %q (supported: All)", v))
		}
		return true, nil
	}
	return false, nil
}

func (c *requestContext) writeObject(code int, obj api.Object) error {
	out, err := c.negotiate()
	if err != nil {
		return err
	}
	if out == asTable {
		table, err := c.table([]api.Object{obj}, "", "")
		if err != nil {
			return err
		}
		responsewriters.WriteJSON(c.w, code, table)
		return nil
	}
	if out.metadataOnly() {
		return c.writeEncoded(code, out, partialObjectMetadata(obj, out.metaVersion))
	}
	return c.writeEncoded(code, out, obj)
}

// decodedAnswer asks the registry for the written object decoded from the
// stored bytes when an in-process client may take it instead of the
// answer's JSON (api/handoff: its request carries an Answer, and it asked
// for the object as JSON, not a Table or protobuf); nil otherwise.
func (c *requestContext) decodedAnswer() *api.Object {
	if handoff.AnswerFromContext(c.ctx()) == nil {
		return nil
	}
	if out, err := c.negotiate(); err != nil || out != asObject {
		return nil
	}
	return new(api.Object)
}

// writeAnswer answers a write whose object is out. When the registry
// decoded the stored bytes into *decoded and the client's Answer takes
// it, the answer is the status and headers with no body: the client has
// the very object its JSON would decode to, and its own (the registry
// made it for this answer alone). Otherwise the JSON, as to any client.
func (c *requestContext) writeAnswer(code int, out api.Object, decoded *api.Object) error {
	if decoded != nil && *decoded != nil {
		if a := handoff.AnswerFromContext(c.ctx()); a != nil && a.Hand(*decoded) {
			audit.LogResponseObject(c.ctx(), out)
			c.w.Header().Set("Content-Type", "application/json")
			c.w.WriteHeader(code)
			return nil
		}
	}
	return c.writeObject(code, out)
}

func (c *requestContext) get() error {
	obj, err := c.st.Get(c.ctx(), c.ns, c.name)
	if err != nil {
		return err
	}
	if c.info.Subresource == "scale" {
		scale, err := c.toScale(obj)
		if err != nil {
			return err
		}
		return c.writeScale(scale)
	}
	return c.writeObject(http.StatusOK, obj)
}

// listOptions reads selectors and paging from the query.
func (c *requestContext) listOptions() (registry.ListOptions, error) {
	q := c.r.URL.Query()
	var opts registry.ListOptions
	if s := q.Get("labelSelector"); s != "" {
		sel, err := labels.Parse(s)
		if err != nil {
			return opts, api.NewBadRequest(fmt.Sprintf("unable to parse requirement: %v", strings.TrimPrefix(err.Error(), "unable to parse requirement: ")))
		}
		opts.Labels = sel
	}
	if s := q.Get("fieldSelector"); s != "" {
		sel, err := fields.ParseSelector(s)
		if err != nil {
			return opts, api.NewBadRequest(err.Error())
		}
		known := c.st.FieldSet(c.res.New())
		for _, req := range sel.Requirements() {
			if _, ok := known[req.Field]; !ok {
				return opts, api.NewBadRequest(fmt.Sprintf("field label not supported: %s", req.Field))
			}
		}
		opts.Fields = sel
	}
	if s := q.Get("limit"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 {
			return opts, api.NewBadRequest(fmt.Sprintf("invalid limit: %q", s))
		}
		opts.Limit = n
	}
	opts.Continue = q.Get("continue")
	opts.ResourceVersion = q.Get("resourceVersion")
	opts.ResourceVersionMatch = q.Get("resourceVersionMatch")
	opts.SendInitialEvents = queryBool(q, "sendInitialEvents")
	opts.AllowWatchBookmarks = ptrTrue(queryBool(q, "allowWatchBookmarks"))
	if errs := registry.ValidateListOptions(opts, c.info.Verb == "watch"); len(errs) > 0 {
		return opts, api.NewInvalid(schema.GroupKind{Group: "meta.k8s.io", Kind: "ListOptions"}, "", errs)
	}
	if _, err := registry.ParseResourceVersion(opts.ResourceVersion); err != nil {
		return opts, err
	}
	return opts, nil
}

// queryBool reads a boolean query parameter as Kubernetes' parameter codec
// does: absent is nil, "0" and "false" (any case) are false, any other
// value, the empty one included, is true.
func queryBool(q url.Values, name string) *bool {
	vs, ok := q[name]
	if !ok {
		return nil
	}
	b := len(vs) > 0 && vs[0] != "0" && !strings.EqualFold(vs[0], "false")
	return &b
}

func ptrTrue(b *bool) bool { return b != nil && *b }

func (c *requestContext) list() error {
	opts, err := c.listOptions()
	if err != nil {
		return err
	}
	out, err := c.negotiate()
	if err != nil {
		return err
	}
	if out == asProtobuf {
		res, err := c.st.List(c.ctx(), c.ns, opts)
		if err != nil {
			return err
		}
		return c.writeProtobufList(metav1.ListMeta{ResourceVersion: res.ResourceVersion, Continue: res.Continue}, res.Items)
	}
	if out == asTable {
		res, err := c.st.ListCached(c.ctx(), c.ns, opts)
		if err != nil {
			return err
		}
		return c.writeTable(res)
	}
	if out.metadataOnly() {
		res, err := c.st.ListCached(c.ctx(), c.ns, opts)
		if err != nil {
			return err
		}
		addWarnings(c.w, res.Warnings)
		return c.writePartialObjectMetadataList(out, metav1.ListMeta{ResourceVersion: res.ResourceVersion, Continue: res.Continue}, res.Items)
	}
	res, err := c.st.ListRaw(c.ctx(), c.ns, opts)
	if err != nil {
		return err
	}
	addWarnings(c.w, res.Warnings)
	c.streamRawList(metav1.ListMeta{ResourceVersion: res.ResourceVersion, Continue: res.Continue}, res.Items)
	return nil
}

// streamRawList writes a JSON list of items already encoded (stored bytes)
// as it goes, the same bytes as encoding the rawListJSON whole: no second
// copy of the list is built, each item is let go once written, and the
// writing stops when the client has gone (its context ends, or a write
// fails), as kube-apiserver streams a large list and stops with its
// request.
func (c *requestContext) streamRawList(meta metav1.ListMeta, items []json.RawMessage) {
	head, err := jsoncodec.Marshal(rawListJSON{Kind: c.res.ListKind, APIVersion: c.res.GroupVersion().String(),
		Metadata: meta, Items: []json.RawMessage{}})
	if err != nil {
		responsewriters.WriteError(c.w, api.NewInternalError(err))
		return
	}
	c.w.Header().Set("Content-Type", "application/json")
	c.w.WriteHeader(http.StatusOK)
	bw := bufio.NewWriterSize(c.w, 32<<10)
	// head ends with the empty items' "[]}": the items go between.
	_, _ = bw.Write(head[:len(head)-2])
	ctx := c.ctx()
	for i, item := range items {
		if i > 0 {
			_ = bw.WriteByte(',')
		}
		if _, err := bw.Write(item); err != nil {
			return // the connection is gone
		}
		items[i] = nil
		if i%64 == 63 && ctx.Err() != nil {
			return
		}
	}
	_, _ = bw.WriteString("]}\n")
	_ = bw.Flush()
}

func (c *requestContext) decoder() (*decoder, error) {
	v, err := fieldValidation(c.r)
	if err != nil {
		return nil, err
	}
	return &decoder{res: c.res, validation: v, fast: &c.h.fast}, nil
}

// checkNamespace refuses a body whose namespace differs from the URL's.
func (c *requestContext) checkNamespace(obj api.Object) error {
	meta := api.Meta(obj)
	if c.res.Namespaced && meta.Namespace != "" && meta.Namespace != c.ns {
		return api.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	return nil
}

func (c *requestContext) create() error {
	if c.info.Subresource != "" {
		return c.createSubresource()
	}
	if c.res.Namespaced && c.ns == "" {
		return notFound()
	}
	dry, err := c.dryRun()
	if err != nil {
		return err
	}
	body, err := c.readRequestBody()
	if err != nil {
		return err
	}
	dec, err := c.decoder()
	if err != nil {
		return err
	}
	obj, err := c.decodeBody(dec, body)
	if err != nil {
		return err
	}
	if err := c.checkNamespace(obj); err != nil {
		return err
	}
	decoded := c.decodedAnswer()
	out, err := c.st.Create(c.ctx(), c.ns, obj, registry.CreateOptions{DryRun: dry, Admit: true, Decoded: decoded})
	if err != nil {
		return err
	}
	addWarnings(c.w, dec.warnings)
	return c.writeAnswer(http.StatusCreated, out, decoded)
}

func (c *requestContext) createSubresource() error {
	sub := c.res.CreateSubresources[c.info.Subresource]
	body, err := c.readRequestBody()
	if err != nil {
		return err
	}
	dec := &decoder{res: sub.Resource, validation: "Ignore", fast: &c.h.fast}
	obj, err := c.decodeBody(dec, body)
	if err != nil {
		return err
	}
	if err := c.checkNamespace(obj); err != nil {
		return err
	}
	dry, err := c.dryRun()
	if err != nil {
		return err
	}
	if err := admitCreateSubresource(c.ctx(), c.st, c.res, sub, c.info.Subresource, c.ns, c.name, obj, dry); err != nil {
		return err
	}
	out, err := sub.Create(c.ctx(), c.st, c.ns, c.name, obj)
	if err != nil {
		return err
	}
	enc, err := c.negotiate()
	if err != nil {
		return err
	}
	return c.writeEncoded(http.StatusCreated, enc, out)
}

func (c *requestContext) update() error {
	dry, err := c.dryRun()
	if err != nil {
		return err
	}
	body, err := c.readRequestBody()
	if err != nil {
		return err
	}
	if c.info.Subresource == "scale" {
		return c.scaleUpdate(body, dry)
	}
	dec, err := c.decoder()
	if err != nil {
		return err
	}
	obj, err := c.decodeBody(dec, body)
	if err != nil {
		return err
	}
	if err := c.checkNamespace(obj); err != nil {
		return err
	}
	if n := api.Meta(obj).Name; n != c.name {
		return api.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", n, c.name))
	}
	decoded := c.decodedAnswer()
	// The update changes the object it is given, so a retry needs a fresh
	// copy of the body. An update naming a resourceVersion is never
	// retried (a stale one is a Conflict): it takes the body itself, as
	// the kubelets' and controllers' writes, which name one, can.
	handOver := api.Meta(obj).ResourceVersion != ""
	out, created, err := c.st.Update(c.ctx(), c.ns, c.name, func(api.Object) (api.Object, error) {
		if handOver {
			handOver = false
			return obj, nil
		}
		return api.DeepCopy(obj), nil
	}, registry.UpdateOptions{DryRun: dry, Admit: true, Subresource: c.info.Subresource, Decoded: decoded, Replace: true})
	if err != nil {
		return err
	}
	addWarnings(c.w, dec.warnings)
	code := http.StatusOK
	if created {
		code = http.StatusCreated
	}
	return c.writeAnswer(code, out, decoded)
}

// deleteOptions reads DeleteOptions from the body (if any) and the query.
func (c *requestContext) deleteOptions() (*metav1.DeleteOptions, error) {
	opts := &metav1.DeleteOptions{}
	body, err := readBody(c.w, c.r, DefaultMaxBodyBytes)
	if err != nil {
		return nil, err
	}
	if len(strings.TrimSpace(string(body))) > 0 {
		if err := c.decodeDeleteOptions(body, opts); err != nil {
			return nil, err
		}
	}
	q := c.r.URL.Query()
	if s := q.Get("gracePeriodSeconds"); s != "" {
		g, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, api.NewBadRequest(fmt.Sprintf("invalid gracePeriodSeconds: %q", s))
		}
		opts.GracePeriodSeconds = &g
	}
	if s := q.Get("propagationPolicy"); s != "" {
		p := metav1.DeletionPropagation(s)
		opts.PropagationPolicy = &p
	}
	if s := q.Get("orphanDependents"); s != "" {
		b := s == "true"
		opts.OrphanDependents = &b
	}
	if s := q.Get("ignoreStoreReadErrorWithClusterBreakingPotential"); s != "" {
		b := s == "true"
		opts.IgnoreStoreReadErrorWithClusterBreakingPotential = &b
	}
	if dry, err := c.dryRun(); err != nil {
		return nil, err
	} else if dry {
		opts.DryRun = []string{"All"}
	}
	if p := opts.PropagationPolicy; p != nil {
		switch *p {
		case metav1.DeletePropagationOrphan, metav1.DeletePropagationBackground, metav1.DeletePropagationForeground:
		default:
			return nil, api.NewInvalid(schema.GroupKind{Kind: "DeleteOptions"}, "", fieldErrorsPropagation(*p))
		}
	}
	if opts.GracePeriodSeconds != nil && *opts.GracePeriodSeconds < 0 {
		zero := int64(0)
		opts.GracePeriodSeconds = &zero
	}
	return opts, nil
}

func (c *requestContext) delete() error {
	opts, err := c.deleteOptions()
	if err != nil {
		return err
	}
	res, err := c.st.Delete(c.ctx(), c.ns, c.name, opts, true)
	if err != nil {
		return err
	}
	if res.Deleted {
		// Immediate deletion answers with a Success Status, as the
		// generic registry does.
		m := api.Meta(res.Object)
		responsewriters.WriteJSON(c.w, http.StatusOK, metav1.Status{
			TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
			Status:   metav1.StatusSuccess,
			Details:  &metav1.StatusDetails{Name: m.Name, Group: c.res.Group, Kind: c.res.Name, UID: m.UID},
		})
		return nil
	}
	return c.writeObject(http.StatusOK, res.Object)
}

func (c *requestContext) deleteCollection() error {
	lopts, err := c.listOptions()
	if err != nil {
		return err
	}
	opts, err := c.deleteOptions()
	if err != nil {
		return err
	}
	items, err := c.st.DeleteCollection(c.ctx(), c.ns, lopts, opts, true)
	if err != nil {
		return err
	}
	if items == nil {
		items = []api.Object{}
	}
	if out, err := c.negotiate(); err == nil && out == asProtobuf {
		return c.writeProtobufList(metav1.ListMeta{}, items)
	} else if err == nil && out.metadataOnly() {
		return c.writePartialObjectMetadataList(out, metav1.ListMeta{}, items)
	}
	responsewriters.WriteJSON(c.w, http.StatusOK, listJSON{Kind: c.res.ListKind, APIVersion: c.res.GroupVersion().String(), Items: items})
	return nil
}

// now is the server's clock, for ages in tables.
func (c *requestContext) now() time.Time { return c.h.Clock.Now() }

func fieldErrorsPropagation(p metav1.DeletionPropagation) field.ErrorList {
	return field.ErrorList{field.NotSupported(field.NewPath("propagationPolicy"), string(p),
		[]string{"Foreground", "Background", "Orphan", "nil"})}
}

// nameSelector adds metadata.name=name to a field selector.
func nameSelector(name string, sel fields.Selector) fields.Selector {
	one := fields.OneTermEqualSelector("metadata.name", name)
	if sel == nil || sel.Empty() {
		return one
	}
	return fields.AndSelectors(one, sel)
}
