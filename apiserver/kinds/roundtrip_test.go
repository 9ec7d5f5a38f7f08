package kinds_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/randfill"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
	"github.com/kubesim/kubesim/api/jsoncodec"
	"github.com/kubesim/kubesim/api/unstructured"
	"github.com/kubesim/kubesim/apiserver/admission"
	"github.com/kubesim/kubesim/apiserver/apiservertest"
	"github.com/kubesim/kubesim/apiserver/protobuf"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// TestEveryFieldRoundTrips is kube-apiserver's promise that nothing a client
// sends is lost, checked for every built-in kind the server serves (taken
// from the server's own registry, so a kind added later is checked too):
// an object with every field set by sigs.k8s.io/randfill (the filler
// apimachinery's round-trip tests use), made valid, is created through the
// real HTTP handler — once as JSON, once as protobuf — and read back as
// JSON, as protobuf and inside a Table (includeObject=Object); each must
// equal what was sent (equality.Semantic), apart from what the server
// itself owns, which serverSets lists kind by kind with the reason.
//
// Making an object valid is done by asking the server: a dry-run create
// answers 422 with causes, and each cause is repaired (repair) — an
// unsupported value becomes the first supported one, any other refused
// field is dropped — until the dry run passes. So the fields validation
// cares for hold values it accepts, and every other field keeps its random
// value. The fields repair had to drop are covered by
// TestEveryFieldRoundTripsUnvalidated, which skips validation.
func TestEveryFieldRoundTrips(t *testing.T) {
	env := apiservertest.New(t)
	roundTripAll(t, env, true)
}

// TestEveryFieldRoundTripsUnvalidated is TestEveryFieldRoundTrips with
// each kind's validation turned off, so that every field keeps its random
// value (makeValid removes those validation refuses): the decoders,
// pruning, defaulting, storage and encoders must still lose nothing. The
// admission plugins still run, so validFixes still applies.
func TestEveryFieldRoundTripsUnvalidated(t *testing.T) {
	env := apiservertest.New(t)
	for _, r := range env.Server.Resources() {
		r.Strategy = unvalidated{r.Strategy}
	}
	roundTripAll(t, env, false)
}

// unvalidated is a strategy with its checks turned off.
type unvalidated struct{ registry.Strategy }

func (u unvalidated) PrepareForCreate(obj api.Object) {
	if u.Strategy != nil {
		u.Strategy.PrepareForCreate(obj)
	}
}

func (u unvalidated) Default(obj api.Object) {
	if u.Strategy != nil {
		u.Strategy.Default(obj)
	}
}

func (u unvalidated) PrepareForUpdate(obj, old api.Object) {
	if u.Strategy != nil {
		u.Strategy.PrepareForUpdate(obj, old)
	}
}

func (unvalidated) Validate(api.Object) field.ErrorList { return nil }

func (unvalidated) ValidateUpdate(api.Object, api.Object) field.ErrorList { return nil }

// fillSeeds is how many random objects each kind gets (each sent once as
// JSON and once as protobuf).
const fillSeeds = 2

func roundTripAll(t *testing.T, env *apiservertest.Env, validated bool) {
	h := env.Server.LoopbackHandler()
	kinds := 0
	for _, r := range env.Server.Resources() {
		if reason := notRoundTripped(r, validated); reason != "" {
			t.Logf("%s: not round-tripped: %s", r.GroupVersionKind(), reason)
			continue
		}
		kinds++
		t.Run(strings.TrimSuffix(r.Name+"."+r.Version+"."+r.Group, "."), func(t *testing.T) {
			for seed := range fillSeeds {
				for _, wire := range []string{"json", "protobuf"} {
					// Versions of one resource share its storage: the
					// version is in the name.
					rt := &roundTrip{t: t, h: h, res: r, name: fmt.Sprintf("rt-%s%s-%s-%d", groupPrefix(r.Group), r.Version, wire, seed), wire: wire}
					sent := rt.fill(int64(seed))
					if fix, ok := validFixes[r.GroupResource().String()]; ok {
						fix(sent)
					}
					if validated {
						sent = rt.makeValid(sent)
					}
					rt.check(sent)
				}
			}
		})
	}
	if kinds < 30 {
		t.Fatalf("only %d kinds round-tripped: the registry lists fewer kinds than it should", kinds)
	}
}

// notRoundTripped says why a served resource is not round-tripped: it
// stores nothing, or it is not a typed kind.
func notRoundTripped(r *registry.Resource, validated bool) string {
	if validated && r.Group == "apiextensions.k8s.io" {
		// A random schema is refused for a hundred reasons, each about
		// another schema; TestEveryFieldRoundTripsUnvalidated keeps all.
		return "its schemas are round-tripped without validation"
	}
	if r.CreateOnly != nil {
		return "a question answered on create and never stored (the access reviews)"
	}
	if _, ok := r.New().(*unstructured.Unstructured); ok {
		return "a custom resource: its fields are its schema's, checked by the CRD tests"
	}
	return ""
}

// roundTrip is one object's trip through the server.
type roundTrip struct {
	t    *testing.T
	h    http.Handler
	res  *registry.Resource
	name string
	// wire is how the object is sent: "json" or "protobuf".
	wire string
	// removed are the fields makeValid took out (as jsonDiff writes
	// paths): the client sends nothing there, so the server may fill
	// them with its defaults, as kube-apiserver's defaulting does.
	removed map[string]bool
}

// clearNestedTypeMeta clears every TypeMeta below the top one.
func clearNestedTypeMeta(v reflect.Value, top bool) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			clearNestedTypeMeta(v.Elem(), false)
		}
	case reflect.Slice:
		for i := range v.Len() {
			clearNestedTypeMeta(v.Index(i), false)
		}
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[metav1.TypeMeta]() {
			if !top {
				v.Set(reflect.Zero(v.Type()))
			}
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				clearNestedTypeMeta(v.Field(i), top && v.Type().Field(i).Anonymous)
			}
		}
	}
}

// diffPath writes a field path as jsonDiff does: .spec.ports[0].name.
func diffPath(path []any) string {
	var b strings.Builder
	for _, step := range path {
		switch s := step.(type) {
		case int:
			fmt.Fprintf(&b, "[%d]", s)
		case string:
			b.WriteString("." + s)
		}
	}
	return b.String()
}

// defaulted reports whether a difference at path, where nothing was
// sent, is the server's default for a field makeValid removed.
func (rt *roundTrip) defaulted(path string, sent any) bool {
	if sent != nil {
		return false
	}
	for p := path; p != ""; p = p[:max(strings.LastIndexAny(p, ".["), 0)] {
		if rt.removed[p] {
			return true
		}
	}
	return false
}

func (rt *roundTrip) namespace() string {
	if rt.res.Namespaced {
		return "default"
	}
	return ""
}

func (rt *roundTrip) collection() string {
	r := rt.res
	p := "/api/" + r.Version
	if r.Group != "" {
		p = "/apis/" + r.Group + "/" + r.Version
	}
	if r.Namespaced {
		p += "/namespaces/" + rt.namespace()
	}
	return p + "/" + r.Name
}

// fill returns a new object of the kind with every field set.
func (rt *roundTrip) fill(seed int64) api.Object {
	obj := rt.res.New()
	f := randfill.NewWithSeed(seed).NilChance(0).NumElements(1, 2).MaxDepth(40).Funcs(fillFuncs(reflect.TypeOf(obj).Elem())...)
	f.Fill(obj)
	obj.GetObjectKind().SetGroupVersionKind(rt.res.GroupVersionKind())
	m := api.Meta(obj)
	m.Name, m.GenerateName, m.Namespace = rt.name, "", rt.namespace()
	return obj
}

// check creates sent and reads it back every way.
func (rt *roundTrip) check(sent api.Object) {
	t := rt.t
	t.Helper()
	rec := rt.do("POST", rt.collection(), sent, rt.wire, "")
	if rec.Code != http.StatusCreated {
		t.Fatalf("%s create of %s: %d %s\n%s", rt.wire, rt.name, rec.Code, rec.Body.String(), asJSON(sent))
	}
	created := rt.decode(rec)
	want := api.DeepCopy(sent)
	rt.serverSets(want, created)
	reads := []struct {
		how string
		got api.Object
	}{{"the create's answer", created}}

	item := rt.collection() + "/" + api.Meta(sent).Name
	for _, accept := range []string{"json", "protobuf"} {
		reads = append(reads, struct {
			how string
			got api.Object
		}{"a get as " + accept, rt.decode(rt.do("GET", item, nil, "", accept))})
	}
	rec = rt.do("GET", item+"?includeObject=Object", nil, "", "application/json;as=Table;v=v1;g=meta.k8s.io")
	var table metav1.Table
	if err := json.Unmarshal(rec.Body.Bytes(), &table); err != nil || len(table.Rows) != 1 {
		t.Fatalf("table of %s: %v %s", rt.name, err, rec.Body.String())
	}
	got := rt.res.New()
	if err := jsoncodec.Unmarshal(table.Rows[0].Object.Raw, got); err != nil {
		t.Fatalf("table object: %v", err)
	}
	reads = append(reads, struct {
		how string
		got api.Object
	}{"a Table's object", got})

	// Protobuf has no field for the apiVersion and kind of an object
	// inside another (a StatefulSet's claim templates): kube-apiserver's
	// protobuf answers leave them out too.
	wantPB := api.DeepCopy(want)
	clearNestedTypeMeta(reflect.ValueOf(wantPB).Elem(), true)

	// One message per distinct difference, naming the reads that show it.
	var order []string
	shown := map[string][]string{}
	for _, r := range reads {
		want := want
		if r.how == "a get as protobuf" {
			want = wantPB
		}
		if equality.Semantic.DeepEqual(want, r.got) {
			continue
		}
		diffs := jsonDiff(want, r.got, nil)
		if !strings.HasPrefix(diffs[0], "  (equal as JSON") {
			if diffs = jsonDiff(want, r.got, rt.defaulted); len(diffs) == 0 {
				continue
			}
		}
		d := strings.Join(diffs, "\n")
		if _, ok := shown[d]; !ok {
			order = append(order, d)
		}
		shown[d] = append(shown[d], r.how)
	}
	for _, d := range order {
		t.Errorf("%s sent as %s: %s differ from what was sent:\n%s", rt.name, rt.wire, strings.Join(shown[d], ", "), d)
	}
}

// do sends one request: body encoded as contentType ("json", "protobuf"),
// the answer asked as accept ("json", "protobuf" or a media type).
func (rt *roundTrip) do(method, path string, body api.Object, contentType, accept string) *httptest.ResponseRecorder {
	rt.t.Helper()
	var data []byte
	var err error
	switch contentType {
	case "json":
		data, err = json.Marshal(body)
		contentType = "application/json"
	case "protobuf":
		data, err = protobuf.Encode(body)
		contentType = protobuf.ContentType
	}
	if err != nil {
		rt.t.Fatalf("encoding %s: %v", rt.name, err)
	}
	switch accept {
	case "", "json":
		accept = "application/json"
	case "protobuf":
		accept = protobuf.ContentType
	}
	req := httptest.NewRequest(method, path, bytes.NewReader(data))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", accept)
	rec := httptest.NewRecorder()
	rt.h.ServeHTTP(rec, req)
	return rec
}

// decode reads an answer as its Content-Type says.
func (rt *roundTrip) decode(rec *httptest.ResponseRecorder) api.Object {
	rt.t.Helper()
	if rec.Code >= 300 {
		rt.t.Fatalf("%s: %d %s", rt.name, rec.Code, rec.Body.String())
	}
	obj := rt.res.New()
	if rec.Header().Get("Content-Type") == protobuf.ContentType {
		if _, _, err := protobuf.Decode(rec.Body.Bytes(), obj); err != nil {
			rt.t.Fatalf("protobuf answer for %s: %v", rt.name, err)
		}
		return obj
	}
	if err := json.Unmarshal(rec.Body.Bytes(), obj); err != nil {
		rt.t.Fatalf("JSON answer for %s: %v", rt.name, err)
	}
	return obj
}

// testCSR is a PEM certificate request for CN=rt.
func testCSR() []byte {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: "rt"}}, key)
	if err != nil {
		panic(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der})
}

// groupPrefix keeps the names of two resources served from one storage
// apart (core/v1 and events.k8s.io/v1 Events are the same objects).
func groupPrefix(group string) string {
	if group == "" {
		return ""
	}
	return strings.ReplaceAll(group, ".", "-") + "-"
}

// serverSets puts into want what the server owns in a created object,
// taken from got where the value is the server's choice. Each line is
// what kube-apiserver's generic registry (BeforeCreate,
// FillObjectMetaSystemFields) or the kind's strategy (PrepareForCreate)
// does too.
func (rt *roundTrip) serverSets(want, got api.Object) {
	wm, gm := api.Meta(want), api.Meta(got)
	// rest.FillObjectMetaSystemFields: the uid and the creation time are
	// the server's; the storage sets resourceVersion.
	wm.UID, wm.CreationTimestamp, wm.ResourceVersion = gm.UID, gm.CreationTimestamp, gm.ResourceVersion
	// BeforeCreate: only a delete sets deletionTimestamp and its grace
	// period; the strategies that count generations start at 1
	// (TestGenerationOnlyWhereTheStrategySetsIt).
	wm.DeletionTimestamp, wm.DeletionGracePeriodSeconds = nil, nil
	wm.Generation = gm.Generation
	// The field manager records who set what; kube-apiserver replaces
	// what a create sends by its own entry.
	wm.ManagedFields = gm.ManagedFields
	// selfLink is no longer set or kept (since 1.20, and cleared on write).
	wm.SelfLink = gm.SelfLink
	if rt.res.StatusSubresource && !rt.res.KeepStatusOnCreate {
		// Kinds with a status subresource start without status: their
		// PrepareForCreate resets it (the strategies say "status is
		// set by the controllers").
		resetStatusField(want, got)
	}
	if fix, ok := createResets[rt.res.GroupResource().String()]; ok {
		fix(want, got)
	}
	if defaultsAdd[rt.res.GroupResource().String()] {
		rt.res.Strategy.Default(want)
	}
}

// podTemplateResets are the v1 defaults and conversions of a pod spec
// (every pod template's too): serviceAccount is the deprecated alias of
// serviceAccountName, which wins (the v1 conversion); a container's
// requests default to its limits (SetDefaults_ResourceList via
// SetDefaults_Pod, and the template defaults alike).
func podTemplateResets(spec *corev1.PodSpec) {
	spec.DeprecatedServiceAccount = spec.ServiceAccountName
	for _, list := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
		for i := range list {
			limitsAsRequests(&list[i].Resources)
		}
	}
	for i := range spec.EphemeralContainers {
		limitsAsRequests(&spec.EphemeralContainers[i].Resources)
	}
}

func limitsAsRequests(r *corev1.ResourceRequirements) {
	for k, v := range r.Limits {
		if r.Requests == nil {
			r.Requests = corev1.ResourceList{}
		}
		if _, ok := r.Requests[k]; !ok {
			r.Requests[k] = v.DeepCopy()
		}
	}
}

func addFinalizer(obj api.Object, f string) {
	if m := api.Meta(obj); !slices.Contains(m.Finalizers, f) {
		m.Finalizers = append(m.Finalizers, f)
	}
}

// resetStatusField sets want's Status to got's.
func resetStatusField(want, got api.Object) {
	w := reflect.ValueOf(want).Elem().FieldByName("Status")
	if w.IsValid() {
		w.Set(reflect.ValueOf(got).Elem().FieldByName("Status"))
	}
}

// createResets are, per group/resource, what the kind's PrepareForCreate
// or its admission plugins set beyond the generic ones: the value is taken
// from the answer, which the other reads must then agree with.
var createResets = map[string]func(want, got api.Object){
	// namespaceStrategy.PrepareForCreate adds the "kubernetes"
	// finalizer to those sent; the v1 defaults label every namespace
	// with its name (kubernetes.io/metadata.name).
	"namespaces": func(want, got api.Object) {
		ns := want.(*corev1.Namespace)
		if !slices.Contains(ns.Spec.Finalizers, corev1.FinalizerKubernetes) {
			ns.Spec.Finalizers = append(ns.Spec.Finalizers, corev1.FinalizerKubernetes)
		}
		if ns.Labels == nil {
			ns.Labels = map[string]string{}
		}
		ns.Labels[corev1.LabelMetadataName] = ns.Name
	},
	// pods: the v1 field serviceAccount is the deprecated alias of
	// serviceAccountName, which wins (the v1 conversion); a container's
	// requests default to its limits (SetDefaults_ResourceList for
	// pods).
	// The DefaultTolerationSeconds admission plugin adds the not-ready
	// and unreachable tolerations a pod lacks.
	"pods": func(want, got api.Object) {
		podTemplateResets(&want.(*corev1.Pod).Spec)
		a := &admission.Attributes{Operation: admission.Create, Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, Object: want}
		if err := (&admission.DefaultTolerationSeconds{}).Admit(context.Background(), a); err != nil {
			panic(err)
		}
	},
	// The conversion to apps/v1 writes every claim template as a v1
	// PersistentVolumeClaim (Convert_apps_StatefulSetSpec_To_v1_StatefulSetSpec).
	"statefulsets.apps": func(want, got api.Object) {
		ss := want.(*appsv1.StatefulSet)
		podTemplateResets(&ss.Spec.Template.Spec)
		for i := range ss.Spec.VolumeClaimTemplates {
			ss.Spec.VolumeClaimTemplates[i].APIVersion, ss.Spec.VolumeClaimTemplates[i].Kind = "v1", "PersistentVolumeClaim"
		}
	},
	"replicasets.apps": func(want, got api.Object) { podTemplateResets(&want.(*appsv1.ReplicaSet).Spec.Template.Spec) },
	"deployments.apps": func(want, got api.Object) { podTemplateResets(&want.(*appsv1.Deployment).Spec.Template.Spec) },
	// The CSR strategy's PrepareForCreate sets the requestor from the
	// user who made the request.
	"certificatesigningrequests.certificates.k8s.io": func(want, got api.Object) {
		w, g := want.(*certificatesv1.CertificateSigningRequest), got.(*certificatesv1.CertificateSigningRequest)
		w.Spec.Username, w.Spec.UID, w.Spec.Groups, w.Spec.Extra = g.Spec.Username, g.Spec.UID, g.Spec.Groups, g.Spec.Extra
	},
	"podtemplates": func(want, got api.Object) { podTemplateResets(&want.(*corev1.PodTemplate).Template.Spec) },
	"replicationcontrollers": func(want, got api.Object) {
		if t := want.(*corev1.ReplicationController).Spec.Template; t != nil {
			podTemplateResets(&t.Spec)
		}
	},
	"daemonsets.apps": func(want, got api.Object) { podTemplateResets(&want.(*appsv1.DaemonSet).Spec.Template.Spec) },
	"jobs.batch":      func(want, got api.Object) { podTemplateResets(&want.(*batchv1.Job).Spec.Template.Spec) },
	"cronjobs.batch": func(want, got api.Object) {
		podTemplateResets(&want.(*batchv1.CronJob).Spec.JobTemplate.Spec.Template.Spec)
	},
	// The StorageObjectInUseProtection admission plugin adds its
	// finalizer to every new claim and volume.
	"persistentvolumeclaims": func(want, got api.Object) { addFinalizer(want, "kubernetes.io/pvc-protection") },
	"persistentvolumes":      func(want, got api.Object) { addFinalizer(want, "kubernetes.io/pv-protection") },
	// stringData is write-only: the v1 conversion merges it into data.
	"secrets": func(want, got api.Object) {
		s := want.(*corev1.Secret)
		for k, v := range s.StringData {
			if s.Data == nil {
				s.Data = map[string][]byte{}
			}
			s.Data[k] = []byte(v)
		}
		s.StringData = nil
	},
	// The allocators give the cluster IPs and the node ports a create
	// leaves empty (validFixes empties the cluster IPs).
	"services": func(want, got api.Object) {
		w, g := &want.(*corev1.Service).Spec, got.(*corev1.Service).Spec
		w.ClusterIP, w.ClusterIPs = g.ClusterIP, g.ClusterIPs
		for i := range w.Ports {
			if w.Ports[i].NodePort == 0 && i < len(g.Ports) {
				w.Ports[i].NodePort = g.Ports[i].NodePort
			}
		}
		// A port's targetPort defaults to the port itself.
		for i := range w.Ports {
			if w.Ports[i].TargetPort == (intstr.IntOrString{}) {
				w.Ports[i].TargetPort = intstr.FromInt32(w.Ports[i].Port)
			}
		}
		if w.HealthCheckNodePort == 0 {
			w.HealthCheckNodePort = g.HealthCheckNodePort
		}
	},
}

// defaultsAdd are the kinds whose strategy's Default adds to what a
// create sends even when every field is set: want gets the same defaults
// from the served strategy itself. LimitRange's (SetDefaults_LimitRangeItem)
// fills a container item's default limit from max and its default request
// from the default limit and min, key by key.
var defaultsAdd = map[string]bool{"limitranges": true}

// asJSON is obj's JSON, for messages.
func asJSON(obj any) string {
	b, _ := json.Marshal(obj)
	return string(b)
}

// jsonDiff lists the JSON paths where a and b differ, with both values.
// Differences for which skip reports true (given the path and a's value)
// are left out.
func jsonDiff(a, b any, skip func(path string, x any) bool) []string {
	var av, bv any
	_ = json.Unmarshal([]byte(asJSON(a)), &av)
	_ = json.Unmarshal([]byte(asJSON(b)), &bv)
	var out []string
	var walk func(path string, x, y any)
	walk = func(path string, x, y any) {
		switch xv := x.(type) {
		case map[string]any:
			if yv, ok := y.(map[string]any); ok {
				keys := map[string]bool{}
				for k := range xv {
					keys[k] = true
				}
				for k := range yv {
					keys[k] = true
				}
				sorted := make([]string, 0, len(keys))
				for k := range keys {
					sorted = append(sorted, k)
				}
				sort.Strings(sorted)
				for _, k := range sorted {
					walk(path+"."+k, xv[k], yv[k])
				}
				return
			}
		case []any:
			if yv, ok := y.([]any); ok && len(xv) == len(yv) {
				for i := range xv {
					walk(path+"["+strconv.Itoa(i)+"]", xv[i], yv[i])
				}
				return
			}
		}
		if !reflect.DeepEqual(x, y) && (skip == nil || !skip(path, x)) {
			out = append(out, fmt.Sprintf("  %s: sent %s, got %s", path, asJSON(x), asJSON(y)))
		}
	}
	walk("", av, bv)
	if len(out) == 0 && skip == nil {
		out = append(out, "  (equal as JSON: a difference JSON does not show) "+strings.Join(goDiff("", reflect.ValueOf(a), reflect.ValueOf(b)), "; "))
	}
	return out
}

// goDiff finds the Go values that differ where JSON shows no difference
// (nil against empty).
func goDiff(path string, a, b reflect.Value) []string {
	if !a.IsValid() || !b.IsValid() || a.Type() != b.Type() {
		return []string{path + ": types differ"}
	}
	if equality.Semantic.DeepEqual(a.Interface(), b.Interface()) {
		return nil
	}
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			break
		}
		return goDiff(path, a.Elem(), b.Elem())
	case reflect.Struct:
		var out []string
		for i := range a.NumField() {
			if a.Type().Field(i).IsExported() {
				out = append(out, goDiff(path+"."+a.Type().Field(i).Name, a.Field(i), b.Field(i))...)
			}
		}
		if len(out) > 0 {
			return out
		}
	case reflect.Slice:
		if a.Len() == b.Len() && !a.IsNil() && !b.IsNil() {
			var out []string
			for i := range a.Len() {
				out = append(out, goDiff(fmt.Sprintf("%s[%d]", path, i), a.Index(i), b.Index(i))...)
			}
			if len(out) > 0 {
				return out
			}
		}
	case reflect.Map:
		if a.Len() == b.Len() && !a.IsNil() && !b.IsNil() {
			var out []string
			for _, k := range a.MapKeys() {
				if bv := b.MapIndex(k); bv.IsValid() {
					out = append(out, goDiff(fmt.Sprintf("%s[%v]", path, k), a.MapIndex(k), bv)...)
				}
			}
			if len(out) > 0 {
				return out
			}
		}
	}
	return []string{fmt.Sprintf("%s: sent %#v, got %#v", path, a.Interface(), b.Interface())}
}

// makeValid repairs sent until a dry-run create of it passes.
func (rt *roundTrip) makeValid(sent api.Object) api.Object {
	t := rt.t
	t.Helper()
	var last []string
	for range 400 {
		rec := rt.do("POST", rt.collection()+"?dryRun=All", sent, "json", "")
		if rec.Code == http.StatusCreated {
			return sent
		}
		var status metav1.Status
		if err := json.Unmarshal(rec.Body.Bytes(), &status); err != nil || status.Details == nil || len(status.Details.Causes) == 0 {
			t.Fatalf("dry-run create of %s: %d %s (no causes to repair)\n%s", rt.name, rec.Code, rec.Body.String(), asJSON(sent))
		}
		c := status.Details.Causes[0]
		again := len(last) > 0 && last[len(last)-1] == c.Field+": "+c.Message
		if last = append(last, c.Field+": "+c.Message); len(last) > 6 {
			last = last[1:]
		}
		if again {
			// The repair did not take (the field was already gone and
			// validation words its absence as an invalid value): the
			// element or object that holds the field goes instead.
			if i := max(strings.LastIndexAny(c.Field, ".["), 0); i > 0 {
				c.Field = c.Field[:i]
			}
			c.Type = metav1.CauseTypeFieldValueInvalid
		}
		sent = rt.repair(sent, c)
	}
	t.Fatalf("%s: still invalid after 400 repairs; the last ones:\n%s\n%s", rt.name, strings.Join(last, "\n"), asJSON(sent))
	return nil
}

var supportedValues = regexp.MustCompile(`supported values: "([^"]*)"`)

// repair changes sent so that cause no longer applies: an unsupported
// value becomes the first supported one; any other refused field is
// removed (its parent keeps its other fields).
func (rt *roundTrip) repair(sent api.Object, cause metav1.StatusCause) api.Object {
	t := rt.t
	t.Helper()
	var m map[string]any
	d := json.NewDecoder(strings.NewReader(asJSON(sent)))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		t.Fatal(err)
	}
	path := parseFieldPath(cause.Field)
	if len(path) == 0 {
		t.Fatalf("%s: cannot repair %q (%s): no field", rt.name, cause.Message, cause.Type)
	}
	var value any
	remove := true
	if v, ok := hint(m, path); ok {
		value, remove = v, false
		if v == removeIt {
			remove = true
		}
	} else if cause.Type == metav1.CauseTypeFieldValueRequired {
		t.Fatalf("%s: cannot repair %s: %s (add a hint)\n%s", rt.name, cause.Field, cause.Message, asJSON(sent))
	} else if cause.Type == metav1.CauseTypeFieldValueNotSupported {
		if s := supportedValues.FindStringSubmatch(cause.Message); s != nil {
			value, remove = s[1], false
			switch v := valueAt(m, path).(type) {
			case []any:
				value = []any{s[1]} // a list of enum values
			case map[string]any:
				// A strategy refused as a whole (spec.strategy): its
				// type is what is not supported.
				if _, ok := v["type"]; ok {
					path = append(path, "type")
				}
			}
		}
	}
	if value == removeIt && len(path) > 1 {
		path = path[:len(path)-1] // the element that holds the field
	}
	if !setPath(m, path, value, remove) {
		t.Fatalf("%s: cannot repair %s: %s: no such field\n%s", rt.name, cause.Field, cause.Message, asJSON(sent))
	}
	if remove {
		if rt.removed == nil {
			rt.removed = map[string]bool{}
		}
		rt.removed[diffPath(path)] = true
	}
	out := rt.res.New()
	if err := json.Unmarshal([]byte(asJSON(m)), out); err != nil {
		t.Fatalf("%s: repaired object: %v", rt.name, err)
	}
	return out
}

// parseFieldPath splits "spec.containers[0].ports[1].name" into its steps:
// names, and [i] as ints (other bracketed keys as strings).
func parseFieldPath(p string) []any {
	var out []any
	for _, part := range strings.Split(p, ".") {
		for part != "" {
			i := strings.IndexByte(part, '[')
			if i < 0 {
				out = append(out, part)
				break
			}
			if i > 0 {
				out = append(out, part[:i])
			}
			j := strings.IndexByte(part, ']')
			if j < i {
				return nil
			}
			key := part[i+1 : j]
			if n, err := strconv.Atoi(key); err == nil {
				out = append(out, n)
			} else {
				out = append(out, key)
			}
			part = part[j+1:]
		}
	}
	return out
}

// setPath sets (or removes) the value at path in m.
func setPath(m map[string]any, path []any, value any, remove bool) bool {
	_, ok := setIn(m, path, value, remove)
	return ok
}

// setIn sets (or removes) the value at path in cur, and returns cur
// changed: a list that lost an element is a new slice.
func setIn(cur any, path []any, value any, remove bool) (any, bool) {
	step, last := path[0], len(path) == 1
	switch c := cur.(type) {
	case map[string]any:
		k, ok := step.(string)
		if !ok {
			k = strconv.Itoa(step.(int))
		}
		child, has := c[k]
		if !has && (remove || !last) {
			return cur, false
		}
		if last {
			if remove {
				delete(c, k)
			} else {
				c[k] = value
			}
			return c, true
		}
		v, ok := setIn(child, path[1:], value, remove)
		c[k] = v
		return c, ok
	case []any:
		n, ok := step.(int)
		if !ok || n >= len(c) {
			return cur, false
		}
		if last {
			if remove {
				// Only the first cause is repaired each round, so
				// removing shifts no index another cause names.
				return append(append([]any(nil), c[:n]...), c[n+1:]...), true
			}
			c[n] = value
			return c, true
		}
		v, ok := setIn(c[n], path[1:], value, remove)
		c[n] = v
		return c, ok
	}
	return cur, false
}

// valueAt is the value at path in m (nil when there is none).
func valueAt(m map[string]any, path []any) any {
	var cur any = m
	for _, step := range path {
		switch c := cur.(type) {
		case map[string]any:
			k, ok := step.(string)
			if !ok {
				k = strconv.Itoa(step.(int))
			}
			cur = c[k]
		case []any:
			n, ok := step.(int)
			if !ok || n >= len(c) {
				return nil
			}
			cur = c[n]
		default:
			return nil
		}
	}
	return cur
}

// removeIt is the hint that says: remove the field.
var removeIt = new(int)

// hints are values validation accepts for fields that a random label
// does not satisfy and that cannot simply be left out: they are
// required, or refer to another field. A pattern is matched against the
// path with every index written [*].
var hints = []struct {
	pattern *regexp.Regexp
	value   func(m map[string]any, path []any) any
}{
	{regexp.MustCompile(`^webhooks\[\*\]\.name$`), func(m map[string]any, path []any) any {
		return fmt.Sprintf("w%d.kubesim.example.com", path[1])
	}},
	{regexp.MustCompile(`\.schedule$`), constant("*/5 * * * *")},
	{regexp.MustCompile(`\.http\.paths\[\*\]\.path$`), constant("/")},
	{regexp.MustCompile(`\.http\.paths$`), constant([]any{map[string]any{"path": "/", "pathType": "Prefix",
		"backend": map[string]any{"service": map[string]any{"name": "web", "port": map[string]any{"number": 80}}}}})},
	{regexp.MustCompile(`^spec\.controller$`), constant("example.com/ingress-controller")},
	{regexp.MustCompile(`ipBlock\.cidr$`), constant("10.0.0.0/16")},
	{regexp.MustCompile(`(messageExpression|valueExpression)$`), constant("'refused'")},
	{regexp.MustCompile(`terminationMessagePolicy$`), constant("File")},
	{regexp.MustCompile(`^spec\.podManagementPolicy$`), constant("OrderedReady")},
	{regexp.MustCompile(`timeoutSeconds$`), constant(5)},
	{regexp.MustCompile(`rules\[\*\]\.operations$`), constant([]any{"CREATE"})},
	{regexp.MustCompile(`scaleTargetRef\.name$`), constant("web")},
	{regexp.MustCompile(`accessModes$`), constant([]any{"ReadWriteOnce"})},
	{regexp.MustCompile(`accessModes\[\*\]$`), constant("ReadWriteOnce")},
	{regexp.MustCompile(`scaleTargetRef\.kind$`), constant("Deployment")},
	{regexp.MustCompile(`scaleTargetRef\.apiVersion$`), constant("apps/v1")},
	{regexp.MustCompile(`(expression|\.condition)$`), constant("true")},
	{regexp.MustCompile(`matchExpressions\[\*\]\.operator$`), constant("In")},
	{regexp.MustCompile(`(^|\.)ip$`), constant("10.1.2.3")},
	{regexp.MustCompile(`^spec\.maxReplicas$`), constant(10)},
	{regexp.MustCompile(`admissionReviewVersions$`), constant([]any{"v1"})},
	{regexp.MustCompile(`^spec\.capacity$`), constant(map[string]any{"storage": "1Gi"})},
	{regexp.MustCompile(`^spec\.source$`), constant(map[string]any{"persistentVolumeName": "pv-1"})},
	{regexp.MustCompile(`\.target\.type$`), constant("Utilization")},
	// A mount names one of its pod's volumes; without one, it goes.
	{regexp.MustCompile(`ontainers\[\*\]\.volumeMounts\[\*\]\.name$`), func(m map[string]any, path []any) any {
		spec := path[:len(path)-5]
		if vols, ok := valueAt(m, append(append([]any(nil), spec...), "volumes")).([]any); ok && len(vols) > 0 {
			if name, ok := vols[0].(map[string]any)["name"]; ok {
				return name
			}
		}
		return removeIt
	}},
}

func constant(v any) func(map[string]any, []any) any {
	return func(map[string]any, []any) any { return v }
}

// hint finds the hint for path.
func hint(m map[string]any, path []any) (any, bool) {
	var b strings.Builder
	for _, step := range path {
		switch s := step.(type) {
		case int:
			b.WriteString("[*]")
		case string:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s)
		}
	}
	for _, h := range hints {
		if h.pattern.MatchString(b.String()) {
			return h.value(m, path), true
		}
	}
	return nil, false
}

// validFixes set, per group/resource, what repair cannot find alone:
// values validation requires to agree with each other.
var validFixes = map[string]func(obj api.Object){
	// The Priority admission plugin resolves priorityClassName and
	// refuses a priority or preemptionPolicy other than the class's:
	// name a class that exists, with its own values.
	"pods": func(obj api.Object) {
		spec := &obj.(*corev1.Pod).Spec
		spec.PriorityClassName = "system-node-critical"
		spec.Priority = ptr(int32(2000001000))
		spec.PreemptionPolicy = ptr(corev1.PreemptLowerPriority)
		// The RuntimeClass admission plugin refuses a class that does
		// not exist, and an overhead no class defined.
		spec.RuntimeClassName, spec.Overhead = nil, nil
	},
	// A controller's selector must select its template's labels.
	"replicationcontrollers": func(obj api.Object) {
		rc := obj.(*corev1.ReplicationController)
		if rc.Spec.Template != nil {
			rc.Spec.Selector = map[string]string{"app": "rt"}
			rc.Spec.Template.Labels = map[string]string{"app": "rt"}
		}
	},
	// A CSR's request must be a PEM certificate request.
	"certificatesigningrequests.certificates.k8s.io": func(obj api.Object) {
		spec := &obj.(*certificatesv1.CertificateSigningRequest).Spec
		spec.Request, spec.SignerName = testCSR(), certificatesv1.KubeAPIServerClientSignerName
		spec.Usages = []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature, certificatesv1.UsageClientAuth}
		spec.ExpirationSeconds = ptr(int32(3600))
	},
	// Only the level named exempt may be Exempt.
	"prioritylevelconfigurations.flowcontrol.apiserver.k8s.io": func(obj api.Object) {
		spec := &obj.(*flowcontrolv1.PriorityLevelConfiguration).Spec
		spec.Type, spec.Exempt = flowcontrolv1.PriorityLevelEnablementLimited, nil
	},
	// events.k8s.io/v1 Events are Normal or Warning.
	"events.events.k8s.io": func(obj api.Object) { obj.(*eventsv1.Event).Type = corev1.EventTypeNormal },
	// An address is the allocator's to give (one it did not give is
	// refused as outside the range or taken).
	"services": func(obj api.Object) {
		spec := &obj.(*corev1.Service).Spec
		spec.ClusterIP, spec.ClusterIPs = "", nil
	},
	"replicasets.apps": func(obj api.Object) {
		rs := obj.(*appsv1.ReplicaSet)
		matchTemplate(rs.Spec.Selector, &rs.Spec.Template)
	},
	"deployments.apps": func(obj api.Object) {
		d := obj.(*appsv1.Deployment)
		matchTemplate(d.Spec.Selector, &d.Spec.Template)
	},
	"statefulsets.apps": func(obj api.Object) {
		ss := obj.(*appsv1.StatefulSet)
		matchTemplate(ss.Spec.Selector, &ss.Spec.Template)
	},
	"daemonsets.apps": func(obj api.Object) {
		ds := obj.(*appsv1.DaemonSet)
		matchTemplate(ds.Spec.Selector, &ds.Spec.Template)
	},
	// A Job's own selector is allowed with manualSelector only, and its
	// pod failure policy needs restartPolicy Never.
	"jobs.batch": func(obj api.Object) {
		j := obj.(*batchv1.Job)
		j.Spec.ManualSelector = ptr(true)
		matchTemplate(j.Spec.Selector, &j.Spec.Template)
		j.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyNever
	},
	// A CronJob's Jobs get their selectors when they are made.
	"cronjobs.batch": func(obj api.Object) {
		j := obj.(*batchv1.CronJob)
		j.Spec.JobTemplate.Spec.ManualSelector, j.Spec.JobTemplate.Spec.Selector = nil, nil
		j.Spec.JobTemplate.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyNever
	},
	// A volume has one source.
	"persistentvolumes": func(obj api.Object) {
		pv := obj.(*corev1.PersistentVolume)
		pv.Spec.PersistentVolumeSource = corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/data"}}
	},
	// A claim asks for storage.
	"persistentvolumeclaims": func(obj api.Object) {
		pvc := obj.(*corev1.PersistentVolumeClaim)
		pvc.Spec.Resources.Requests[corev1.ResourceStorage] = resource.MustParse("1Gi")
	},
	// A webhook is reached by URL or by Service, not both.
	"mutatingwebhookconfigurations.admissionregistration.k8s.io": func(obj api.Object) {
		for i := range obj.(*admissionregistrationv1.MutatingWebhookConfiguration).Webhooks {
			obj.(*admissionregistrationv1.MutatingWebhookConfiguration).Webhooks[i].ClientConfig.URL = nil
		}
	},
	"validatingwebhookconfigurations.admissionregistration.k8s.io": func(obj api.Object) {
		for i := range obj.(*admissionregistrationv1.ValidatingWebhookConfiguration).Webhooks {
			obj.(*admissionregistrationv1.ValidatingWebhookConfiguration).Webhooks[i].ClientConfig.URL = nil
		}
	},
	// A definition is named <plural>.<group>. A v1beta1 definition names its schema, columns, subresources and
	// selectable fields either once for all versions or per version,
	// not both (the conversion to v1 would have to drop one).
	"customresourcedefinitions.apiextensions.k8s.io": func(obj api.Object) {
		switch crd := obj.(type) {
		case *apiextensionsv1.CustomResourceDefinition:
			crd.Spec.Group = crd.Name + ".example.com"
			crd.Spec.Names.Plural = "things"
			crd.Name = "things." + crd.Spec.Group
		case *apiextensionsv1beta1.CustomResourceDefinition:
			crd.Spec.Group = crd.Name + ".example.com"
			crd.Spec.Names.Plural = "things"
			crd.Name = "things." + crd.Spec.Group
			crd.Spec.Version = crd.Spec.Versions[0].Name
			for i := range crd.Spec.Versions {
				v := &crd.Spec.Versions[i]
				v.Schema, v.Subresources, v.AdditionalPrinterColumns, v.SelectableFields = nil, nil, nil, nil
			}
		}
	},
	// Only one class may be the global default.
	"priorityclasses.scheduling.k8s.io": func(obj api.Object) {
		obj.(*schedulingv1.PriorityClass).GlobalDefault = false
	},
}

// matchTemplate makes a template's labels match its controller's
// selector: every matchLabels pair is a template label, and every
// expression asks for a label the template has.
func matchTemplate(sel *metav1.LabelSelector, t *corev1.PodTemplateSpec) {
	if t.Labels == nil {
		t.Labels = map[string]string{}
	}
	for k, v := range sel.MatchLabels {
		t.Labels[k] = v
	}
	for i := range sel.MatchExpressions {
		e := &sel.MatchExpressions[i]
		e.Operator = metav1.LabelSelectorOpIn
		if len(e.Values) == 0 {
			e.Values = []string{"x"}
		}
		t.Labels[e.Key] = e.Values[0]
	}
}

// fillFuncs returns randfill functions for the leaves of t: strings that
// are DNS labels (so names, label keys and values pass), small positive
// numbers, and well-formed values for the types with a form of their own
// (times at the precision the wire keeps, quantities, int-or-strings,
// embedded JSON).
func fillFuncs(t reflect.Type) []any {
	funcs := []any{
		func(tm *metav1.Time, c randfill.Continue) {
			*tm = metav1.NewTime(time.Unix(1e9+c.Int63n(1e9), 0).UTC())
		},
		func(tm *metav1.MicroTime, c randfill.Continue) {
			*tm = metav1.NewMicroTime(time.UnixMicro(1e15 + c.Int63n(1e15)).UTC())
		},
		func(d *metav1.Duration, c randfill.Continue) {
			d.Duration = time.Duration(1+c.Int63n(3600)) * time.Second
		},
		func(q *resource.Quantity, c randfill.Continue) {
			*q = *resource.NewQuantity(1+c.Int63n(1000), resource.DecimalSI)
		},
		func(v *intstr.IntOrString, c randfill.Continue) {
			if c.Bool() {
				*v = intstr.FromInt32(1 + c.Int31n(99))
			} else {
				*v = intstr.FromString(strconv.Itoa(1+c.Intn(99)) + "%")
			}
		},
		func(r *runtime.RawExtension, c randfill.Continue) {
			*r = runtime.RawExtension{Raw: []byte(fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","data":{"k":"%s"}}`, label(c)))}
		},
		func(n *corev1.ResourceName, c randfill.Continue) {
			names := []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage, "example.com/gadget"}
			*n = names[c.Intn(len(names))]
		},
		func(j *apiextensionsv1.JSON, c randfill.Continue) {
			j.Raw = []byte(fmt.Sprintf(`{"k":"%s"}`, label(c)))
		},
		func(j *apiextensionsv1beta1.JSON, c randfill.Continue) {
			j.Raw = []byte(fmt.Sprintf(`{"k":"%s"}`, label(c)))
		},
		// The schema's unions hold one branch: JSON writes only one.
		func(u *apiextensionsv1.JSONSchemaPropsOrArray, c randfill.Continue) {
			if c.Bool() {
				u.Schema = &apiextensionsv1.JSONSchemaProps{}
				c.Fill(u.Schema)
			} else {
				c.Fill(&u.JSONSchemas)
			}
		},
		func(u *apiextensionsv1.JSONSchemaPropsOrBool, c randfill.Continue) {
			if u.Allows = true; c.Bool() {
				u.Schema = &apiextensionsv1.JSONSchemaProps{}
				c.Fill(u.Schema)
			} else {
				u.Allows = c.Bool()
			}
		},
		func(u *apiextensionsv1.JSONSchemaPropsOrStringArray, c randfill.Continue) {
			if c.Bool() {
				u.Schema = &apiextensionsv1.JSONSchemaProps{}
				c.Fill(u.Schema)
			} else {
				u.Property = []string{label(c), label(c)}
			}
		},
		func(u *apiextensionsv1beta1.JSONSchemaPropsOrArray, c randfill.Continue) {
			if c.Bool() {
				u.Schema = &apiextensionsv1beta1.JSONSchemaProps{}
				c.Fill(u.Schema)
			} else {
				c.Fill(&u.JSONSchemas)
			}
		},
		func(u *apiextensionsv1beta1.JSONSchemaPropsOrBool, c randfill.Continue) {
			if u.Allows = true; c.Bool() {
				u.Schema = &apiextensionsv1beta1.JSONSchemaProps{}
				c.Fill(u.Schema)
			} else {
				u.Allows = c.Bool()
			}
		},
		func(u *apiextensionsv1beta1.JSONSchemaPropsOrStringArray, c randfill.Continue) {
			if c.Bool() {
				u.Schema = &apiextensionsv1beta1.JSONSchemaProps{}
				c.Fill(u.Schema)
			} else {
				u.Property = []string{label(c), label(c)}
			}
		},
		func(f *metav1.FieldsV1, c randfill.Continue) {
			*f = metav1.FieldsV1{Raw: []byte(fmt.Sprintf(`{"f:%s":{}}`, label(c)))}
		},
	}
	seen := map[reflect.Type]bool{}
	onPath := map[reflect.Type]bool{}
	recursive := map[reflect.Type]bool{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		if onPath[t] {
			recursive[t] = true
		}
		if seen[t] {
			return
		}
		seen[t] = true
		onPath[t] = true
		defer delete(onPath, t)
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array:
			walk(t.Elem())
		case reflect.Map:
			walk(t.Key())
			walk(t.Elem())
		case reflect.Struct:
			for i := range t.NumField() {
				if t.Field(i).IsExported() {
					walk(t.Field(i).Type)
				}
			}
		case reflect.String:
			funcs = append(funcs, leafFunc(t, func(v reflect.Value, c randfill.Continue) { v.SetString(label(c)) }))
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			funcs = append(funcs, leafFunc(t, func(v reflect.Value, c randfill.Continue) { v.SetInt(1 + c.Int63n(99)) }))
		case reflect.Uint16, reflect.Uint32, reflect.Uint64:
			funcs = append(funcs, leafFunc(t, func(v reflect.Value, c randfill.Continue) { v.SetUint(1 + uint64(c.Int63n(99))) }))
		case reflect.Float32, reflect.Float64:
			funcs = append(funcs, leafFunc(t, func(v reflect.Value, c randfill.Continue) { v.SetFloat(float64(1 + c.Int63n(99))) }))
		}
	}
	walk(t)
	custom := map[reflect.Type]bool{}
	for _, f := range funcs {
		custom[reflect.TypeOf(f).In(0).Elem()] = true
	}
	for t := range recursive {
		if !custom[t] {
			funcs = append(funcs, nestedOnce(t))
		}
	}
	return funcs
}

// nestedOnce makes a randfill function for a type that holds itself
// (a CRD's JSONSchemaProps holds JSONSchemaProps in a dozen fields): it is
// filled two levels deep and left empty below, which reaches every field
// without a tree of a dozen branches per level.
func nestedOnce(t reflect.Type) any {
	depth := 0
	ft := reflect.FuncOf([]reflect.Type{reflect.PointerTo(t), reflect.TypeFor[randfill.Continue]()}, nil, false)
	return reflect.MakeFunc(ft, func(args []reflect.Value) []reflect.Value {
		if depth < 2 {
			depth++
			args[1].Interface().(randfill.Continue).FillNoCustom(args[0].Interface())
			depth--
		}
		return nil
	}).Interface()
}

// leafFunc makes a randfill function func(*T, randfill.Continue) for a
// leaf type T (every named string type of the API has its own).
func leafFunc(t reflect.Type, set func(reflect.Value, randfill.Continue)) any {
	ft := reflect.FuncOf([]reflect.Type{reflect.PointerTo(t), reflect.TypeFor[randfill.Continue]()}, nil, false)
	return reflect.MakeFunc(ft, func(args []reflect.Value) []reflect.Value {
		set(args[0].Elem(), args[1].Interface().(randfill.Continue))
		return nil
	}).Interface()
}

// label is a random DNS label: a name, a label key and a label value.
func label(c randfill.Continue) string {
	const letters = "abcdefghijklmnopqrstuvwxyz"
	const alnum = letters + "0123456789"
	n := 3 + c.Intn(6)
	b := make([]byte, n)
	b[0] = letters[c.Intn(len(letters))]
	for i := 1; i < n; i++ {
		b[i] = alnum[c.Intn(len(alnum))]
	}
	return string(b)
}
