package stepper

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/apiservertest"
	"github.com/kubesim/kubesim/client"
)

func TestRecorderNotesWritesBetweenStartAndStop(t *testing.T) {
	env := apiservertest.New(t)
	rec := NewRecorder(&client.InProcessTransport{Handler: env.Server.Handler()})
	cl, err := client.New(client.Config{Server: "http://in-process", Transport: rec, UserAgent: "test"})
	require.NoError(t, err)
	cm := func(name string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}}
	}

	_, err = cl.ConfigMaps().Create(bg, cm("before"))
	require.NoError(t, err)
	rec.Start()
	created, err := cl.ConfigMaps().Create(bg, cm("a"))
	require.NoError(t, err)
	_, err = cl.ConfigMaps().Create(bg, cm("a"))
	require.True(t, api.IsAlreadyExists(err))
	_, err = cl.ConfigMaps().Get(bg, "default", "a")
	require.NoError(t, err)
	writes := rec.Stop()
	assert.Equal(t, []Write{
		{Verb: "create", Path: "/api/v1/namespaces/default/configmaps", Code: 201, ResourceVersion: created.ResourceVersion, Name: "a"},
		{Verb: "create", Path: "/api/v1/namespaces/default/configmaps", Code: 409},
	}, writes, "reads are not writes; a Status answer has no resourceVersion or name; nothing before Start")
	assert.Equal(t, "create /api/v1/namespaces/default/configmaps 201 rv="+created.ResourceVersion, writes[0].String())

	_, err = cl.ConfigMaps().Create(bg, cm("after"))
	require.NoError(t, err)
	assert.Empty(t, rec.Stop(), "nothing after Stop")
}

func TestRecorderShowsAdmissionSteps(t *testing.T) {
	env := apiservertest.New(t)
	rec := NewRecorder(&client.InProcessTransport{Handler: env.Server.Handler()})
	cl, err := client.New(client.Config{Server: "http://in-process", Transport: rec, UserAgent: "test"})
	require.NoError(t, err)
	rec.Start()
	_, err = cl.ConfigMaps().Create(bg, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "nowhere"}})
	require.Error(t, err)
	writes := rec.Stop()
	require.Len(t, writes, 1)
	assert.Equal(t, []string{`admission validating NamespaceLifecycle create configmaps nowhere/a: denied: namespaces "nowhere" not found`}, writes[0].Admission)
	e := Entry{Actor: "user", Key: "k", Writes: writes}
	assert.Equal(t, "[   0.000s]  user                   k\n"+
		"               -> create /api/v1/namespaces/nowhere/configmaps 404\n"+
		"                     admission validating NamespaceLifecycle create configmaps nowhere/a: denied: namespaces \"nowhere\" not found",
		e.String())
}

// An entry with writes names who made them; one without does not.
func TestEntryNamesItsUser(t *testing.T) {
	e := Entry{Actor: "replicaset-controller", Key: "default/web", User: "system:serviceaccount:kube-system:replicaset-controller",
		Writes: []Write{{Verb: "create", Path: "/api/v1/namespaces/default/pods", Code: 201, ResourceVersion: "7"}}}
	assert.Equal(t, "[   0.000s]  replicaset-controller  default/web  as system:serviceaccount:kube-system:replicaset-controller\n"+
		"               -> create /api/v1/namespaces/default/pods 201 rv=7", e.String())
	e.Writes = nil
	assert.Equal(t, "[   0.000s]  replicaset-controller  default/web  (no change)", e.String())
}
