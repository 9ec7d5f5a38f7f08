package kinds_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/apiservertest"
)

// statusResets says, per group/resource, which parts of the metadata a
// write to /status may not change, as kube-apiserver's status strategies
// (pkg/registry/<group>/<resource>/strategy.go, <kind>StatusStrategy's
// PrepareForUpdate) have it. The spec never changes through /status; the
// rest of the metadata does unless listed here.
var statusResets = map[string]struct{ labels, annotations, ownerReferences, finalizers bool }{
	"namespaces":                  {},
	"nodes":                       {},
	"pods":                        {ownerReferences: true}, // old kubelets corrupted them through pods/status
	"services":                    {},
	"persistentvolumeclaims":      {},
	"persistentvolumes":           {},
	"resourcequotas":              {},
	"replicasets.apps":            {},
	"deployments.apps":            {labels: true},
	"statefulsets.apps":           {},
	"daemonsets.apps":             {},
	"jobs.batch":                  {},
	"cronjobs.batch":              {},
	"poddisruptionbudgets.policy": {},
	"ingresses.networking.k8s.io": {},
	"replicationcontrollers":      {},
	"certificatesigningrequests.certificates.k8s.io":           {},
	"flowschemas.flowcontrol.apiserver.k8s.io":                 {},
	"prioritylevelconfigurations.flowcontrol.apiserver.k8s.io": {},
	"horizontalpodautoscalers.autoscaling":                     {},
	// metav1.ResetObjectMetaForStatus
	"validatingadmissionpolicies.admissionregistration.k8s.io": {labels: true, annotations: true, ownerReferences: true, finalizers: true},
	"volumeattachments.storage.k8s.io":                         {labels: true, annotations: true, ownerReferences: true, finalizers: true},
	// The apiextensions-apiserver's status strategy resets the new
	// metadata to itself: nothing.
	"customresourcedefinitions.apiextensions.k8s.io": {},
}

// Every kind with a status subresource splits writes as kube-apiserver's
// strategies do: a write to /status keeps the spec and, kind by kind,
// some metadata (statusResets); a write to the object keeps the status
// and moves the generation when the spec changes (and, for Deployments,
// when the annotations do).
func TestStatusStrategies(t *testing.T) {
	env := apiservertest.New(t)
	h := env.Server.LoopbackHandler()
	seen := 0
	for _, r := range env.Server.Resources() {
		if !r.StatusSubresource || notRoundTripped(r, false) != "" {
			continue
		}
		gr := r.GroupResource().String()
		resets, ok := statusResets[gr]
		if !ok {
			t.Errorf("%s has a status subresource but no row in statusResets: read its status strategy in kube-apiserver and add one", gr)
			continue
		}
		seen++
		t.Run(r.Name+"."+r.Version+"."+r.Group, func(t *testing.T) {
			rt := &roundTrip{t: t, h: h, res: r, name: "st-" + r.Version, wire: "json"}
			obj := rt.validObject()
			created := rt.decode(rt.do("POST", rt.collection(), obj, "json", ""))
			item := rt.collection() + "/" + api.Meta(created).Name

			// A /status write that changes the spec, the labels, the
			// annotations, the owner references and the finalizers.
			sent := api.DeepCopy(created)
			other := rt.fill(2)
			if spec := reflect.ValueOf(sent).Elem().FieldByName("Spec"); spec.IsValid() {
				spec.Set(reflect.ValueOf(other).Elem().FieldByName("Spec"))
			}
			m := api.Meta(sent)
			m.Labels = map[string]string{"written-through": "status"}
			m.Annotations = map[string]string{"written-through": "status"}
			m.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: types.UID("u-1")}}
			m.Finalizers = []string{"example.com/status"}
			rec := rt.do("PUT", item+"/status", sent, "json", "")
			require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
			got := rt.decode(rt.do("GET", item, nil, "", "json"))
			gm, cm := api.Meta(got), api.Meta(created)

			if spec := reflect.ValueOf(got).Elem().FieldByName("Spec"); spec.IsValid() {
				want := reflect.ValueOf(created).Elem().FieldByName("Spec").Interface()
				if !equality.Semantic.DeepEqual(spec.Interface(), want) {
					t.Errorf("a /status write changed the spec:\n%s\n%s\n%s", strings.Join(jsonDiff(want, spec.Interface(), nil), "\n"), jsonOf(cm.Annotations), jsonOf(gm.Annotations))
				}
			}
			check := func(what string, reset bool, gotV, createdV, sentV any) {
				t.Helper()
				want := sentV
				if reset {
					want = createdV
				}
				assert.Equal(t, jsonOf(want), jsonOf(gotV), "%s after a /status write (reset: %v)", what, reset)
			}
			check("labels", resets.labels, gm.Labels, cm.Labels, m.Labels)
			check("annotations", resets.annotations, gm.Annotations, cm.Annotations, m.Annotations)
			check("ownerReferences", resets.ownerReferences, gm.OwnerReferences, cm.OwnerReferences, m.OwnerReferences)
			check("finalizers", resets.finalizers, gm.Finalizers, cm.Finalizers, m.Finalizers)
			assert.Equal(t, cm.Generation, gm.Generation, "a /status write moved the generation")

			// A write to the object keeps the status, and a change of
			// annotations alone moves a Deployment's generation only.
			sent = api.DeepCopy(got)
			api.Meta(sent).Annotations = map[string]string{"written-through": "the object"}
			if st := reflect.ValueOf(sent).Elem().FieldByName("Status"); st.IsValid() {
				st.Set(reflect.ValueOf(other).Elem().FieldByName("Status"))
			}
			rec = rt.do("PUT", item, sent, "json", "")
			require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
			after := rt.decode(rt.do("GET", item, nil, "", "json"))
			if st := reflect.ValueOf(after).Elem().FieldByName("Status"); st.IsValid() {
				assert.Equal(t, jsonOf(reflect.ValueOf(got).Elem().FieldByName("Status").Interface()), jsonOf(st.Interface()), "a write to the object changed the status")
			}
			assert.Equal(t, jsonOf(api.Meta(sent).Annotations), jsonOf(api.Meta(after).Annotations))
			wantGen := gm.Generation
			if gr == "deployments.apps" {
				wantGen++
			}
			assert.Equal(t, wantGen, api.Meta(after).Generation, "generation after an annotations-only update")
		})
	}
	if seen < 15 {
		t.Fatalf("only %d kinds with a status subresource", seen)
	}
}

// validCRD is a small valid definition at version v of the API.
func validCRD(v string) api.Object {
	b := []byte(`{"metadata":{"name":"gadgets.st-` + v + `.example.com"},"spec":{"group":"st-` + v + `.example.com","scope":"Namespaced",
		"names":{"plural":"gadgets","kind":"Gadget"},
		"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`)
	var obj api.Object = &apiextensionsv1.CustomResourceDefinition{}
	if v == "v1beta1" {
		b = []byte(`{"metadata":{"name":"gadgets.st-` + v + `.example.com"},"spec":{"group":"st-` + v + `.example.com","scope":"Namespaced",
		"names":{"plural":"gadgets","kind":"Gadget"},"version":"v1","versions":[{"name":"v1","served":true,"storage":true}]}}`)
		obj = &apiextensionsv1beta1.CustomResourceDefinition{}
	}
	if err := json.Unmarshal(b, obj); err != nil {
		panic(err)
	}
	return obj
}

func jsonOf(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(err)
	}
	return string(b)
}
