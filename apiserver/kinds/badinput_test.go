package kinds_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/apiserver/apiservertest"
)

// Bad input through the real handler: the status code, the reason and
// kube-apiserver's words, and nothing stored (the object keeps its
// resourceVersion, or does not exist).
func TestBadInputIsRefusedAndChangesNothing(t *testing.T) {
	env := apiservertest.New(t)
	h := env.Server.LoopbackHandler()
	do := func(method, path, body string) (*httptest.ResponseRecorder, metav1.Status) {
		t.Helper()
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var st metav1.Status
		if rec.Code >= 300 {
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &st), rec.Body.String())
		}
		return rec, st
	}
	rv := func(path string) string {
		t.Helper()
		rec, _ := do("GET", path, "")
		if rec.Code == http.StatusNotFound {
			return "absent"
		}
		var m metav1.PartialObjectMetadata
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &m))
		return m.ResourceVersion
	}
	create := func(path, body string) {
		t.Helper()
		rec, _ := do("POST", path, body)
		require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	}
	const (
		deployments = "/apis/apps/v1/namespaces/default/deployments"
		jobs        = "/apis/batch/v1/namespaces/default/jobs"
		sets        = "/apis/apps/v1/namespaces/default/statefulsets"
		services    = "/api/v1/namespaces/default/services"
		claims      = "/api/v1/namespaces/default/persistentvolumeclaims"
	)
	pod := `"template":{"metadata":{"labels":{"app":"x"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}`
	job := `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j"},"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox"}]}}}}`
	create(jobs, job)
	sts := `{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"db"},"spec":{"serviceName":"db","selector":{"matchLabels":{"app":"x"}},` + pod +
		`,"volumeClaimTemplates":[{"metadata":{"name":"data"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}]}}`
	create(sets, sts)
	create(services, `{"apiVersion":"v1","kind":"Service","metadata":{"name":"web"},"spec":{"clusterIP":"10.96.0.50","ports":[{"port":80}]}}`)
	create(claims, `{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"data"},"spec":{"storageClassName":"slow","accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}`)

	// replace returns the stored object at path with its JSON changed by edit.
	replace := func(path string, edit func(map[string]any)) string {
		t.Helper()
		rec, _ := do("GET", path, "")
		require.Equal(t, http.StatusOK, rec.Code)
		var m map[string]any
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &m))
		edit(m)
		b, err := json.Marshal(m)
		require.NoError(t, err)
		return string(b)
	}
	spec := func(m map[string]any) map[string]any { return m["spec"].(map[string]any) }

	cases := []struct {
		name, method, path, item, body string
		code                           int
		reason                         metav1.StatusReason
		message                        string
	}{{
		name: "a field of the wrong type", method: "POST", path: deployments, item: deployments + "/typed",
		body: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"typed"},"spec":{"replicas":"three","selector":{"matchLabels":{"app":"x"}},` + pod + `}}`,
		code: 400, reason: metav1.StatusReasonBadRequest,
		message: `Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32`,
	}, {
		name: "an unknown field under Strict", method: "POST", path: deployments + "?fieldValidation=Strict", item: deployments + "/strict",
		body: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"strict"},"spec":{"replica":3,"selector":{"matchLabels":{"app":"x"}},` + pod + `}}`,
		code: 400, reason: metav1.StatusReasonBadRequest,
		message: `Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.replica"`,
	}, {
		name: "a Job's template", method: "PUT", path: jobs + "/j", item: jobs + "/j",
		body: replace(jobs+"/j", func(m map[string]any) {
			c := spec(m)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
			c["image"] = "busybox:2"
		}),
		code: 422, reason: metav1.StatusReasonInvalid,
		message: `Job.batch "j" is invalid: spec.template: Invalid value: field is immutable`,
	}, {
		name: "a StatefulSet's claim templates", method: "PUT", path: sets + "/db", item: sets + "/db",
		body: replace(sets+"/db", func(m map[string]any) {
			vct := spec(m)["volumeClaimTemplates"].([]any)[0].(map[string]any)
			vct["spec"].(map[string]any)["resources"] = map[string]any{"requests": map[string]any{"storage": "2Gi"}}
		}),
		code: 422, reason: metav1.StatusReasonInvalid,
		message: `StatefulSet.apps "db" is invalid: spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden`,
	}, {
		name: "a Service's cluster IP", method: "PUT", path: services + "/web", item: services + "/web",
		body: replace(services+"/web", func(m map[string]any) {
			spec(m)["clusterIP"], spec(m)["clusterIPs"] = "10.96.0.51", []any{"10.96.0.51"}
		}),
		code: 422, reason: metav1.StatusReasonInvalid,
		message: `Service "web" is invalid: spec.clusterIPs[0]: Invalid value: []string{"10.96.0.51"}: may not change once set`,
	}, {
		name: "a claim's storage class", method: "PUT", path: claims + "/data", item: claims + "/data",
		body: replace(claims+"/data", func(m map[string]any) { spec(m)["storageClassName"] = "fast" }),
		code: 422, reason: metav1.StatusReasonInvalid,
		message: `PersistentVolumeClaim "data" is invalid: spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims`,
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := rv(tc.item)
			rec, st := do(tc.method, tc.path, tc.body)
			assert.Equal(t, tc.code, rec.Code, rec.Body.String())
			assert.Equal(t, tc.reason, st.Reason)
			assert.Equal(t, tc.message, st.Message)
			assert.Equal(t, before, rv(tc.item), "nothing stored")
		})
	}
}
