package apiserviceavailability_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/kubesim/kubesim/aggregator"
	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/runmode"
	"github.com/kubesim/kubesim/stepper"
)

// A remote APIService is rechecked every 10s forever; in step mode that
// loop is a heartbeat, so the cluster still settles.
func TestStepModeSettlesWithRemoteAPIService(t *testing.T) {
	ctx := context.Background()
	c, err := cluster.New(cluster.Config{DetectCacheMutations: true, Mode: runmode.Step, Seed: 3, NodeCount: 1})
	require.NoError(t, err)
	t.Cleanup(func() {
		if err := c.CheckCacheMutations(); err != nil {
			t.Error(err)
		}
		c.Close()
	})
	_, err = c.RunUntilStable(ctx, stepper.Limits{})
	require.NoError(t, err)

	cl := c.Client("test")
	_, err = cl.Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "wardle"}})
	require.NoError(t, err)
	port := int32(443)
	apis := cl.APIServices()
	_, err = apis.Create(ctx, &apiregistrationv1.APIService{
		ObjectMeta: metav1.ObjectMeta{Name: "v1alpha1.wardle.example.com"},
		Spec: apiregistrationv1.APIServiceSpec{Group: "wardle.example.com", Version: "v1alpha1", GroupPriorityMinimum: 1000, VersionPriority: 15,
			InsecureSkipTLSVerify: true, Service: &apiregistrationv1.ServiceReference{Namespace: "wardle", Name: "api", Port: &port}}})
	require.NoError(t, err)

	_, err = c.RunUntilStable(ctx, stepper.Limits{MaxSteps: 2000})
	require.NoError(t, err, "a remote APIService must not keep the stepper busy")
	s, err := apis.Get(ctx, "", "v1alpha1.wardle.example.com")
	require.NoError(t, err)
	assert.Equal(t, "False (ServiceNotFound)", aggregator.AvailableColumn(s))
}
