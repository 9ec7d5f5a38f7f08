package app

import (
	"context"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/client/cache"
	"github.com/kubesim/kubesim/pki"
	"github.com/kubesim/kubesim/store/etcdstore/etcdtest"
)

// etcd is lost (killed) under a running API server and comes back with
// its data: a client's informer, which was watching through the outage,
// ends up holding exactly what the server serves after the restart — the
// writes made after it included — whether its watch resumed from its
// resourceVersion or was answered 410 Gone and relisted. The test asserts
// the objects, not how or when.
func TestInformerConsistentAfterEtcdRestart(t *testing.T) {
	e, err := etcdtest.Start()
	require.NoError(t, err)
	defer e.Stop()
	s, err := Start(context.Background(), Options{DataDir: t.TempDir(), Addr: "127.0.0.1:0", APIServerOnly: true,
		Etcd: EtcdOptions{Servers: []string{e.URL}, RequestTimeout: time.Second}})
	require.NoError(t, err)
	defer s.Shutdown(5 * time.Second)
	kc, err := pki.LoadKubeconfig(s.Kubeconfig)
	require.NoError(t, err)
	tlsCfg, err := kc.TLSConfig()
	require.NoError(t, err)
	cl, err := client.New(client.Config{Server: s.URL, Token: kc.Token, TLS: tlsCfg, UserAgent: "informer-test"})
	require.NoError(t, err)
	cms := cl.ConfigMaps()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	create := func(name, v string) error {
		_, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}, Data: map[string]string{"v": v}})
		return err
	}
	require.NoError(t, create("kept", "1"))
	require.NoError(t, create("deleted-later", "1"))

	inf := cache.New(cms, "default", client.ListOptions{}, nil)
	go inf.Run(ctx)
	// cached is what the informer holds: name=value@resourceVersion.
	cached := func() []string {
		var out []string
		for _, cm := range inf.List() {
			out = append(out, cm.Name+"="+cm.Data["v"]+"@"+cm.ResourceVersion)
		}
		slices.Sort(out)
		return out
	}
	served := func() []string {
		l, err := cms.List(ctx, "default", client.ListOptions{})
		require.NoError(t, err)
		var out []string
		for _, cm := range l.Items {
			out = append(out, cm.Name+"="+cm.Data["v"]+"@"+cm.ResourceVersion)
		}
		slices.Sort(out)
		return out
	}
	eventually(t, 30*time.Second, "the informer to sync", func() bool { return len(inf.List()) == 2 })

	e.Kill()
	code, body := do(t, s, http.MethodPost, "/api/v1/namespaces/default/configmaps",
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"lost"}}`)
	assert.Contains(t, []int{http.StatusServiceUnavailable, http.StatusGatewayTimeout}, code, "etcd down: %s", body)

	require.NoError(t, e.Restart())
	// The first write after the restart may still meet the server's
	// reconnecting etcd client: retry until it lands.
	eventually(t, 60*time.Second, "writes to succeed after the restart", func() bool {
		err := create("after", "1")
		return err == nil || api.IsAlreadyExists(err)
	})
	kept, err := cms.Get(ctx, "default", "kept")
	require.NoError(t, err)
	kept.Data["v"] = "2"
	_, err = cms.Update(ctx, kept)
	require.NoError(t, err)
	require.NoError(t, cms.Delete(ctx, "default", "deleted-later", nil))
	_, err = cms.Get(ctx, "default", "lost")
	assert.True(t, api.IsNotFound(err), "the write refused while etcd was down was not half-done: %v", err)

	want := served()
	require.Len(t, want, 2, "kept and after")
	var got []string
	deadline := time.Now().Add(60 * time.Second)
	for {
		if got = cached(); slices.Equal(got, want) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the informer never caught up:\n got  %v\n want %v", got, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
	assert.Equal(t, "2", kept.Data["v"])
	assert.Equal(t, []string{"after", "kept"}, names(inf.List()))
}

func names(cms []*corev1.ConfigMap) []string {
	var out []string
	for _, cm := range cms {
		out = append(out, cm.Name)
	}
	slices.Sort(out)
	return out
}
