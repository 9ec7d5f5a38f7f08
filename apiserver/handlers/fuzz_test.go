package handlers

import (
	"net/url"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/apiserver/protobuf"
)

// FuzzRequests sends arbitrary bodies (JSON, YAML and protobuf), content
// types, paths and query strings through the REST handler: it must answer every one with a Status
// or an object, never panic, and never answer 500 for a client's mistake.
func FuzzRequests(f *testing.F) {
	f.Add("POST", "/api/v1/namespaces/default/configmaps", "application/json", `{"metadata":{"name":"a"},"data":{"k":"v"}}`)
	f.Add("POST", "/api/v1/namespaces/default/configmaps?fieldValidation=Strict", "application/yaml", "metadata:\n  name: b\nspec: 1\n")
	f.Add("PATCH", "/api/v1/namespaces/default/configmaps/a", "application/json-patch+json", `[{"op":"add","path":"/data/x","value":"1"}]`)
	f.Add("PATCH", "/api/v1/namespaces/default/configmaps/a", "application/strategic-merge-patch+json", `{"metadata":{"$patch":"replace"}}`)
	f.Add("PATCH", "/api/v1/namespaces/default/configmaps/a?fieldManager=m", "application/apply-patch+yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")
	f.Add("PUT", "/apis/lab.example.com/v1/namespaces/default/widgets/w/scale", "application/json", `{"spec":{"replicas":"x"}}`)
	f.Add("GET", "/api/v1/configmaps?labelSelector=a+in+(b&fieldSelector=x%3D%5C", "", "")
	f.Add("DELETE", "/api/v1/namespaces/default/configmaps/a", "application/json", `{"propagationPolicy":7}`)
	f.Add("POST", "/apis/lab.example.com/v1/namespaces/default/widgets", "application/json", `{"spec":{"size":1e400}}`)
	f.Add("POST", "/apis/apps/v1/namespaces/default/deployments?fieldValidation=Strict", "application/json", `{"spec":{"Replicas":3,"paused":true,"paused":false}}`)
	f.Add("POST", "/api/v1/namespaces/default/configmaps", "application/yaml", "metadata:\n  name: y\n  name: z\ndata: {a: b, a: c}\n")
	// Protobuf bodies: whole, cut short, with a foreign kind, and as the
	// bodies of update, scale and DELETE.
	cm, err := protobuf.Encode(&corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: "p", Labels: map[string]string{"a": "b"}}, Data: map[string]string{"k": "v"}})
	if err != nil {
		f.Fatal(err)
	}
	dep, err := protobuf.Encode(&appsv1.Deployment{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: "d"}})
	if err != nil {
		f.Fatal(err)
	}
	scale, err := protobuf.Encode(&autoscalingv1.Scale{TypeMeta: metav1.TypeMeta{APIVersion: "autoscaling/v1", Kind: "Scale"},
		ObjectMeta: metav1.ObjectMeta{Name: "d"}, Spec: autoscalingv1.ScaleSpec{Replicas: 2}})
	if err != nil {
		f.Fatal(err)
	}
	pb := protobuf.ContentType
	f.Add("POST", "/api/v1/namespaces/default/configmaps", pb, string(cm))
	f.Add("POST", "/api/v1/namespaces/default/configmaps", pb, string(cm[:len(cm)/2]))
	f.Add("PUT", "/api/v1/namespaces/default/configmaps/p", pb, string(cm))
	f.Add("POST", "/api/v1/namespaces/default/configmaps", pb, string(dep))
	f.Add("POST", "/apis/apps/v1/namespaces/default/deployments", pb, string(dep))
	f.Add("PUT", "/apis/apps/v1/namespaces/default/deployments/d/scale", pb, string(scale))
	f.Add("DELETE", "/api/v1/namespaces/default/configmaps/p", pb, string(cm))
	f.Add("POST", "/apis/lab.example.com/v1/namespaces/default/widgets", pb, string(cm))
	f.Fuzz(func(t *testing.T, method, target, contentType, body string) {
		if !strings.HasPrefix(target, "/") || strings.ContainsAny(target, " \t\r\n#") {
			return
		}
		if _, err := url.ParseRequestURI(target); err != nil {
			return // the HTTP server itself refuses such a request line
		}
		// Any method name the HTTP layer would hand over: one of the
		// verbs, or an odd one.
		switch method {
		case "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD":
		default:
			method = "OPTIONS"
		}
		e := newEnv(t)
		r := e.do(method, target, contentType, body)
		if r.code >= 500 {
			t.Fatalf("%s %s (%s) %q answered %d: %s", method, target, contentType, body, r.code, r.body)
		}
	})
}
