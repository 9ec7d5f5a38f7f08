package serviceaccount_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/runmode"
	"github.com/kubesim/kubesim/stepper"
)

var bg = context.Background()

func TestDefaultAccountInEveryNamespace(t *testing.T) {
	c, err := cluster.New(cluster.Config{DetectCacheMutations: true, Mode: runmode.Step, Seed: 1, NodeCount: 1})
	require.NoError(t, err)
	t.Cleanup(func() {
		if err := c.CheckCacheMutations(); err != nil {
			t.Error(err)
		}
		c.Close()
	})
	cl := c.Client("test")
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)

	_, err = cl.Namespaces().Create(bg, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}})
	require.NoError(t, err)
	// Before the controller runs, a pod of the namespace is refused.
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "early", Namespace: "team"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
	_, err = cl.Pods().Create(bg, pod)
	require.True(t, api.IsForbidden(err), "%v", err)

	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	sa, err := cl.ServiceAccounts().Get(bg, "team", "default")
	require.NoError(t, err)
	_, err = cl.Pods().Create(bg, pod)
	require.NoError(t, err)

	// Deleted, it comes back (a new object).
	require.NoError(t, cl.ServiceAccounts().Delete(bg, "team", "default", nil))
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	again, err := cl.ServiceAccounts().Get(bg, "team", "default")
	require.NoError(t, err)
	assert.NotEqual(t, sa.UID, again.UID)

	// Other accounts are left alone.
	_, err = cl.ServiceAccounts().Create(bg, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "robot", Namespace: "team"}})
	require.NoError(t, err)
	require.NoError(t, cl.ServiceAccounts().Delete(bg, "team", "robot", nil))
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	_, err = cl.ServiceAccounts().Get(bg, "team", "robot")
	assert.True(t, api.IsNotFound(err), "%v", err)
}
