package replicaset

import (
	"context"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/randfill"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/apiservertest"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/runmode"
)

func newRC(name string, n int32) *corev1.ReplicationController {
	return &corev1.ReplicationController{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: corev1.ReplicationControllerSpec{
			Replicas: &n,
			// No selector: the API server defaults it to the template's labels.
			Template: &corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
			},
		},
	}
}

// The RC manager is the ReplicaSet controller's own code over RCs: it
// creates the pods with RC controller references, reports the status on
// the RC, follows a scale, and replaces a deleted pod.
func TestReplicationManagerKeepsReplicationControllers(t *testing.T) {
	env := apiservertest.New(t)
	ctx := context.Background()
	rcm, err := NewReplicationManager(Config{Client: env.Client, Informers: detectingInformers(t), Clock: env.Clock, Mode: runmode.Step})
	require.NoError(t, err)
	h := &harness{t: t, ctx: ctx, env: env, rsc: rcm, c: rcm.Controllers()[0]}
	assert.Equal(t, ReplicationControllerName, h.c.Name())

	rc, err := env.Client.ReplicationControllers().Create(ctx, newRC("web", 3))
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"app": "web"}, rc.Spec.Selector, "defaulted from the template")
	h.settle()

	pods := h.pods(true)
	require.Len(t, pods, 3)
	for _, p := range pods {
		ref := api.GetControllerOf(&p.ObjectMeta)
		require.NotNil(t, ref)
		assert.Equal(t, "v1", ref.APIVersion)
		assert.Equal(t, "ReplicationController", ref.Kind)
		assert.Equal(t, rc.UID, ref.UID)
	}
	got, err := env.Client.ReplicationControllers().Get(ctx, "default", "web")
	require.NoError(t, err)
	assert.Equal(t, corev1.ReplicationControllerStatus{Replicas: 3, FullyLabeledReplicas: 3, ObservedGeneration: 1}, got.Status)
	assert.Len(t, h.events(SuccessfulCreatePodReason), 3)
	evs, err := env.Client.Events().List(ctx, "default", client.ListOptions{FieldSelector: "reason=SuccessfulCreate"})
	require.NoError(t, err)
	require.NotEmpty(t, evs.Items)
	assert.Equal(t, "ReplicationController", evs.Items[0].InvolvedObject.Kind)
	assert.Equal(t, ReplicationComponent, evs.Items[0].Source.Component)

	// A deleted pod comes back.
	require.NoError(t, env.Client.Pods().Delete(ctx, "default", pods[0].Name, nil))
	h.settle()
	after := h.pods(true)
	require.Len(t, after, 3)
	assert.NotContains(t, names(after), pods[0].Name)

	// Scaling the RC down deletes the surplus.
	got, err = env.Client.ReplicationControllers().Get(ctx, "default", "web")
	require.NoError(t, err)
	got.Spec.Replicas = ptrTo(int32(1))
	_, err = env.Client.ReplicationControllers().Update(ctx, got)
	require.NoError(t, err)
	h.settle()
	assert.Len(t, h.pods(true), 1)
	got, err = env.Client.ReplicationControllers().Get(ctx, "default", "web")
	require.NoError(t, err)
	assert.Equal(t, int32(1), got.Status.Replicas)
	assert.Equal(t, int64(2), got.Status.ObservedGeneration)
}

func ptrTo[T any](v T) *T { return &v }

// The conversion keeps everything an RC says, both ways.
func TestReplicaSetFromRCRoundTrips(t *testing.T) {
	rc := newRC("web", 2)
	rc.Spec.Selector = map[string]string{"app": "web"}
	rc.Spec.MinReadySeconds = 5
	rc.ResourceVersion = "7"
	rc.Status = corev1.ReplicationControllerStatus{Replicas: 2, FullyLabeledReplicas: 2, ReadyReplicas: 1, AvailableReplicas: 1,
		ObservedGeneration: 3, Conditions: []corev1.ReplicationControllerCondition{{Type: corev1.ReplicationControllerReplicaFailure,
			Status: corev1.ConditionTrue, Reason: FailedCreatePodReason, Message: "quota"}}}
	rs := ReplicaSetFromRC(rc)
	assert.Equal(t, &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, rs.Spec.Selector)
	assert.Equal(t, appsv1.ReplicaSetReplicaFailure, rs.Status.Conditions[0].Type)
	back := RCFromReplicaSet(rs)
	back.TypeMeta = rc.TypeMeta
	assert.Equal(t, rc, back)
	// The copy shares nothing.
	rs.Spec.Selector.MatchLabels["app"] = "changed"
	rs.Spec.Template.Labels["app"] = "changed"
	assert.Equal(t, "web", rc.Spec.Selector["app"])
	assert.Equal(t, "web", rc.Spec.Template.Labels["app"])
}

// Every field of an RC survives the way through a ReplicaSet and back:
// an RC with every field set (sigs.k8s.io/randfill) is what it was. A
// field the mapping leaves out, or converts one way only, fails here.
func TestRCMappingKeepsEveryField(t *testing.T) {
	for seed := range int64(5) {
		f := randfill.NewWithSeed(seed).NilChance(0).NumElements(1, 2).Funcs(
			// No string or number left at its zero value by chance.
			func(s *string, c randfill.Continue) { *s = "s" + c.String(8) },
			func(n *int32, c randfill.Continue) { *n = 1 + c.Int31n(1000) },
			func(n *int64, c randfill.Continue) { *n = 1 + c.Int63n(1000) },
		)
		var rc corev1.ReplicationController
		f.Fill(&rc)
		rc.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "ReplicationController"}
		for _, part := range []any{rc.Spec, rc.Status} {
			v := reflect.ValueOf(part)
			for i := range v.NumField() {
				require.False(t, v.Field(i).IsZero(), "%s.%s is not set", v.Type().Name(), v.Type().Field(i).Name)
			}
		}
		assert.Equal(t, &rc, RCFromReplicaSet(ReplicaSetFromRC(&rc)), "seed %d", seed)
	}
}
