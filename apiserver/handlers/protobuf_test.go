package handlers

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protowire"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/protobuf"
)

const (
	pbType   = protobuf.ContentType
	pbAccept = "application/vnd.kubernetes.protobuf,application/json" // what kubectl v1.32 sends
	cmPath   = "/api/v1/namespaces/default/configmaps"
)

func encodePB(t *testing.T, obj api.Object) string {
	t.Helper()
	b, err := protobuf.Encode(obj)
	require.NoError(t, err)
	return string(b)
}

// envelope wraps raw message bytes as Encode does, for bodies Encode
// cannot write (DeleteOptions, broken messages).
func envelope(t *testing.T, apiVersion, kind string, raw []byte) string {
	t.Helper()
	var env protobufEnvelope
	env.TypeMeta.APIVersion, env.TypeMeta.Kind, env.Raw = apiVersion, kind, raw
	b, err := protobuf.Marshal(&env)
	require.NoError(t, err)
	return "k8s\x00" + string(b)
}

func decodePB[T any, PT interface {
	*T
	api.Object
}](t *testing.T, r *resp) PT {
	t.Helper()
	require.Equal(t, pbType, r.header.Get("Content-Type"), "%q", r.body)
	obj := PT(new(T))
	_, _, err := protobuf.Decode(r.body, obj)
	require.NoError(t, err)
	return obj
}

func configMap(name string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: metav1.ObjectMeta{Name: name}, Data: data}
}

func TestProtobufCreateGetListUpdateDelete(t *testing.T) {
	e := newEnv(t)
	accept := map[string]string{"Accept": pbAccept}
	created := decodePB[corev1.ConfigMap](t, e.doH("POST", cmPath, pbType, encodePB(t, configMap("p", map[string]string{"k": "v"})), accept).expect(201))
	assert.Equal(t, "p", created.Name)
	assert.Equal(t, "default", created.Namespace)
	assert.NotEmpty(t, created.UID)
	assert.Equal(t, map[string]string{"k": "v"}, created.Data)
	assert.Equal(t, metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, created.TypeMeta)

	got := decodePB[corev1.ConfigMap](t, e.doH("GET", cmPath+"/p", "", "", accept).expect(200))
	assert.Equal(t, created, got)
	// The same object as JSON for a JSON client.
	j := e.do("GET", cmPath+"/p", "", "").expect(200)
	assert.Equal(t, "application/json", j.header.Get("Content-Type"))
	assert.Equal(t, string(created.UID), get(j.obj(), "metadata", "uid"))

	l := e.doH("GET", cmPath, "", "", accept).expect(200)
	require.Equal(t, pbType, l.header.Get("Content-Type"))
	var list corev1.ConfigMapList
	require.NoError(t, unmarshalEnveloped(l.body, "ConfigMapList", &list))
	require.Len(t, list.Items, 1)
	assert.Equal(t, created.UID, list.Items[0].UID)
	assert.NotEmpty(t, list.ResourceVersion)

	upd := configMap("p", map[string]string{"k": "v2"})
	upd.ResourceVersion = created.ResourceVersion
	updated := decodePB[corev1.ConfigMap](t, e.doH("PUT", cmPath+"/p", pbType, encodePB(t, upd), accept).expect(200))
	assert.Equal(t, "v2", updated.Data["k"])

	// DeleteOptions come in the client's content type: a precondition
	// that does not hold proves the body was read.
	uid := types.UID("nope")
	raw, err := protobuf.Marshal(&metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	require.NoError(t, err)
	st := e.doH("DELETE", cmPath+"/p", pbType, envelope(t, "v1", "DeleteOptions", raw), accept).expect(409).status()
	assert.Contains(t, st.Message, "Precondition failed: UID in precondition: nope")
	bg := metav1.DeletePropagationBackground
	raw, err = protobuf.Marshal(&metav1.DeleteOptions{PropagationPolicy: &bg})
	require.NoError(t, err)
	e.doH("DELETE", cmPath+"/p", pbType, envelope(t, "v1", "DeleteOptions", raw), accept).expect(200)
	e.do("GET", cmPath+"/p", "", "").expect(404)
}

func TestProtobufScale(t *testing.T) {
	e := newEnv(t)
	dep := &appsv1.Deployment{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"}, ObjectMeta: metav1.ObjectMeta{Name: "web"}}
	e.do("POST", deployments, pbType, encodePB(t, dep)).expect(201)
	accept := map[string]string{"Accept": pbAccept}
	sc := decodePB[autoscalingv1.Scale](t, e.doH("GET", deployments+"/web/scale", "", "", accept).expect(200))
	assert.Equal(t, metav1.TypeMeta{APIVersion: "autoscaling/v1", Kind: "Scale"}, sc.TypeMeta)
	sc.Spec.Replicas = 4
	out := decodePB[autoscalingv1.Scale](t, e.doH("PUT", deployments+"/web/scale", pbType, encodePB(t, sc), accept).expect(200))
	assert.Equal(t, int32(4), out.Spec.Replicas)
	assert.Equal(t, int64(4), get(e.do("GET", deployments+"/web", "", "").expect(200).obj(), "spec", "replicas"))
}

func TestProtobufBadBodiesChangeNothing(t *testing.T) {
	e := newEnv(t)
	before := e.store.Revision()
	good := encodePB(t, configMap("bad", map[string]string{"k": "v"}))
	wrongVersion := configMap("bad", nil)
	wrongVersion.APIVersion = "apps/v1"
	secret := &corev1.Secret{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"}, ObjectMeta: metav1.ObjectMeta{Name: "bad"}}
	cases := []struct {
		name, body, msg string
	}{
		{"wrong magic", "k9s\x00abc", "the object provided is unrecognized (must be of type ConfigMap): provided data does not appear to be a protobuf message, expected prefix [107 56 115 0] (6b39730061626" + "3)"},
		{"json sent as protobuf", `{"metadata":{"name":"bad"}}`, `the object provided is unrecognized (must be of type ConfigMap): provided data does not appear to be a protobuf message, expected prefix [107 56 115 0] ({"metadata":{"name":"bad"}})`},
		{"truncated", good[:len(good)-5], "the object provided is unrecognized (must be of type ConfigMap): unexpected EOF (6b3873000a0f0a0276311209436f6e6669674d6170121d0a130a03626164 ...)"},
		{"wrong apiVersion", encodePB(t, wrongVersion), "the API version in the data (apps/v1) does not match the expected API version (v1)"},
		{"wrong kind", encodePB(t, secret), `the object provided is unrecognized (must be of type ConfigMap): kind "Secret" does not match`},
		{"broken message", envelope(t, "v1", "ConfigMap", []byte{0x0a, 0x05, 0x01}), `ConfigMap in version "v1" cannot be handled as a ConfigMap: unexpected EOF`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := e.do("POST", cmPath, pbType, c.body).expect(400).status()
			assert.Equal(t, metav1.StatusReasonBadRequest, st.Reason)
			assert.Equal(t, c.msg, st.Message)
		})
	}
	e.do("GET", cmPath+"/bad", "", "").expect(404)
	assert.Equal(t, before, e.store.Revision(), "bad input changed nothing")
}

// A field number the kind does not have is refused by the codec (gogo's
// generated code would skip it; the protobuf helper chose to refuse, so
// a body kubesim cannot fully read is never half-stored): 400, nothing
// stored.
func TestProtobufUnknownFieldNumbers(t *testing.T) {
	e := newEnv(t)
	before := e.store.Revision()
	raw, err := protobuf.Marshal(configMap("u", map[string]string{"k": "v"}))
	require.NoError(t, err)
	raw = protowire.AppendTag(raw, 99, protowire.VarintType)
	raw = protowire.AppendVarint(raw, 1)
	// The generated code of k8s.io/api skips a field number it does not
	// know, as kube-apiserver does: the object is stored without it.
	e.do("POST", cmPath, pbType, envelope(t, "v1", "ConfigMap", raw)).expect(201)
	got := e.do("GET", cmPath+"/u", "", "").expect(200).obj()
	assert.Equal(t, map[string]any{"k": "v"}, got["data"])
	assert.Greater(t, e.store.Revision(), before)
}

func TestProtobufNegotiation(t *testing.T) {
	e := newEnv(t)
	widgets := "/apis/lab.example.com/v1/namespaces/default/widgets"
	// Custom resources are JSON only, as unstructured objects are in
	// Kubernetes.
	st := e.do("POST", widgets, pbType, "k8s\x00abc").expect(415).status()
	assert.Equal(t, "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml", st.Message)
	assert.Equal(t, metav1.StatusReasonUnsupportedMediaType, st.Reason)
	st = e.doH("GET", widgets, "", "", map[string]string{"Accept": pbType}).expect(406).status()
	assert.Equal(t, "only the following media types are accepted: application/json, application/yaml", st.Message)
	assert.Equal(t, metav1.StatusReasonNotAcceptable, st.Reason)
	r := e.doH("GET", widgets, "", "", map[string]string{"Accept": pbAccept}).expect(200)
	assert.Equal(t, "application/json", r.header.Get("Content-Type"), "a protobuf client falls back to JSON")

	// Built-in kinds list protobuf among what they accept and serve.
	st = e.do("POST", cmPath, "text/plain", "hi").expect(415).status()
	assert.Equal(t, "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf", st.Message)
	st = e.doH("GET", cmPath, "", "", map[string]string{"Accept": "text/html"}).expect(406).status()
	assert.Equal(t, "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf", st.Message)

	// Tables stay JSON even when protobuf comes first.
	e.do("POST", cmPath, "", `{"metadata":{"name":"t"}}`).expect(201)
	tbl := e.doH("GET", cmPath, "", "", map[string]string{"Accept": "application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1;g=meta.k8s.io,application/json"}).expect(200)
	assert.Equal(t, "Table", tbl.obj()["kind"])

	// Errors stay JSON Status: client-go decodes by Content-Type.
	r = e.doH("GET", cmPath+"/missing", "", "", map[string]string{"Accept": pbAccept}).expect(404)
	assert.Equal(t, "application/json", r.header.Get("Content-Type"))
}

func TestProtobufWatch(t *testing.T) {
	e := newEnv(t)
	srv := httptest.NewServer(e.h)
	defer srv.Close()
	e.do("POST", cmPath, "", `{"metadata":{"name":"w"}}`).expect(201)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+cmPath+"?watch=true", nil)
	req.Header.Set("Accept", "application/vnd.kubernetes.protobuf;stream=watch")
	res, err := srv.Client().Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, 200, res.StatusCode)
	assert.Equal(t, "application/vnd.kubernetes.protobuf;stream=watch", res.Header.Get("Content-Type"))

	next := func() (string, *corev1.ConfigMap) {
		t.Helper()
		msg, err := protobuf.ReadFrame(res.Body)
		require.NoError(t, err)
		typ, object, err := protobuf.DecodeWatchEvent(msg)
		require.NoError(t, err)
		var cm corev1.ConfigMap
		_, _, err = protobuf.Decode(object, &cm)
		require.NoError(t, err)
		return typ, &cm
	}
	typ, cm := next()
	assert.Equal(t, "ADDED", typ)
	assert.Equal(t, "w", cm.Name)
	e.do("PATCH", cmPath+"/w", "application/merge-patch+json", `{"data":{"k":"v"}}`).expect(200)
	typ, cm = next()
	assert.Equal(t, "MODIFIED", typ)
	assert.Equal(t, "v", cm.Data["k"])

	// A watch from compacted history ends with an ERROR event carrying a
	// 410 Expired Status, in protobuf too.
	require.NoError(t, e.store.Compact(context.Background(), e.store.Revision()))
	req, _ = http.NewRequestWithContext(ctx, "GET", srv.URL+cmPath+"?watch=true&resourceVersion=1", nil)
	req.Header.Set("Accept", "application/vnd.kubernetes.protobuf;stream=watch")
	res2, err := srv.Client().Do(req)
	require.NoError(t, err)
	defer res2.Body.Close()
	msg, err := protobuf.ReadFrame(res2.Body)
	require.NoError(t, err)
	typ, object, err := protobuf.DecodeWatchEvent(msg)
	require.NoError(t, err)
	assert.Equal(t, "ERROR", typ)
	var st metav1.Status
	require.NoError(t, unmarshalEnveloped(object, "Status", &st))
	assert.Equal(t, int32(410), st.Code)
	assert.Equal(t, metav1.StatusReasonExpired, st.Reason)
}

// An Accept the server cannot satisfy is refused before anything is
// written.
func TestNotAcceptableWritesNothing(t *testing.T) {
	e := newEnv(t)
	before := e.store.Revision()
	html := map[string]string{"Accept": "text/html"}
	e.doH("POST", cmPath, "", `{"metadata":{"name":"n"}}`, html).expect(406)
	e.doH("POST", cmPath, pbType, encodePB(t, configMap("n", nil)), html).expect(406)
	assert.Equal(t, before, e.store.Revision())
	e.do("GET", cmPath+"/n", "", "").expect(404)
}
