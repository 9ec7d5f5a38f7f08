package rootcacertpublisher_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/controllers/rootcacertpublisher"
	"github.com/kubesim/kubesim/runmode"
	"github.com/kubesim/kubesim/stepper"
)

var bg = context.Background()

const caPEM = "-----BEGIN CERTIFICATE-----\nfake\n-----END CERTIFICATE-----\n"

func TestRootCAInEveryNamespace(t *testing.T) {
	c, err := cluster.New(cluster.Config{DetectCacheMutations: true, Mode: runmode.Step, Seed: 1, NodeCount: 1, RootCA: []byte(caPEM)})
	require.NoError(t, err)
	t.Cleanup(func() {
		if err := c.CheckCacheMutations(); err != nil {
			t.Error(err)
		}
		c.Close()
	})
	cl := c.Client("test")
	_, err = cl.Namespaces().Create(bg, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}})
	require.NoError(t, err)
	stable := func() {
		t.Helper()
		_, err := c.RunUntilStable(bg, stepper.Limits{})
		require.NoError(t, err)
	}
	stable()
	for _, ns := range []string{"default", "kube-system", "kube-public", "team"} {
		cm, err := cl.ConfigMaps().Get(bg, ns, rootcacertpublisher.ConfigMapName)
		require.NoError(t, err, ns)
		assert.Equal(t, map[string]string{"ca.crt": caPEM}, cm.Data, ns)
		assert.Contains(t, cm.Annotations["kubernetes.io/description"], "verify the kube-apiserver", ns)
	}

	// Edited, it is put back; deleted, it is made again.
	cm, err := cl.ConfigMaps().Get(bg, "team", rootcacertpublisher.ConfigMapName)
	require.NoError(t, err)
	cm.Data["ca.crt"] = "mine"
	_, err = cl.ConfigMaps().Update(bg, cm)
	require.NoError(t, err)
	stable()
	cm, err = cl.ConfigMaps().Get(bg, "team", rootcacertpublisher.ConfigMapName)
	require.NoError(t, err)
	assert.Equal(t, caPEM, cm.Data["ca.crt"])

	require.NoError(t, cl.ConfigMaps().Delete(bg, "team", rootcacertpublisher.ConfigMapName, nil))
	stable()
	_, err = cl.ConfigMaps().Get(bg, "team", rootcacertpublisher.ConfigMapName)
	require.NoError(t, err)
}

func TestNoCANoConfigMap(t *testing.T) {
	c, err := cluster.New(cluster.Config{DetectCacheMutations: true, Mode: runmode.Step, Seed: 1, NodeCount: 1})
	require.NoError(t, err)
	t.Cleanup(func() {
		if err := c.CheckCacheMutations(); err != nil {
			t.Error(err)
		}
		c.Close()
	})
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	_, err = c.Client("test").ConfigMaps().Get(bg, "default", rootcacertpublisher.ConfigMapName)
	assert.True(t, api.IsNotFound(err), "%v", err)
}
