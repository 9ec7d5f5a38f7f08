package deployment

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubesim/kubesim/api"
)

func template(image string) *corev1.PodTemplateSpec {
	return &corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: image}}}}
}

func TestEqualIgnoreHash(t *testing.T) {
	a, b := template("x"), template("x")
	b.Labels[appsv1.DefaultDeploymentUniqueLabelKey] = "abc"
	assert.True(t, EqualIgnoreHash(a, b))
	assert.False(t, EqualIgnoreHash(a, template("y")))
	empty := &corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{appsv1.DefaultDeploymentUniqueLabelKey: "h"}}}
	assert.True(t, EqualIgnoreHash(empty, &corev1.PodTemplateSpec{}))
}

func TestResolveFenceposts(t *testing.T) {
	p := func(s string) *intstr.IntOrString { v := intstr.Parse(s); return &v }
	tests := []struct {
		surge, unavailable string
		desired            int32
		wantS, wantU       int32
	}{
		{"25%", "25%", 4, 1, 1},
		{"25%", "25%", 3, 1, 0},
		{"25%", "25%", 1, 1, 0},
		{"0", "0", 3, 0, 1},
		{"0%", "0%", 10, 0, 1},
		{"2", "1", 5, 2, 1},
		{"50%", "50%", 5, 3, 2},
		{"100%", "0", 0, 0, 1},
	}
	for _, tt := range tests {
		s, u, err := ResolveFenceposts(p(tt.surge), p(tt.unavailable), tt.desired)
		require.NoError(t, err)
		assert.Equal(t, [2]int32{tt.wantS, tt.wantU}, [2]int32{s, u}, "%s/%s of %d", tt.surge, tt.unavailable, tt.desired)
	}
	_, _, err := ResolveFenceposts(p("x%"), p("1"), 3)
	assert.Error(t, err)
}

func rsOf(spec, statusReplicas, available int32) *appsv1.ReplicaSet {
	return &appsv1.ReplicaSet{Spec: appsv1.ReplicaSetSpec{Replicas: &spec},
		Status: appsv1.ReplicaSetStatus{Replicas: statusReplicas, AvailableReplicas: available}}
}

func rollingDeployment(replicas int32, surge, unavailable string) *appsv1.Deployment {
	s, u := intstr.Parse(surge), intstr.Parse(unavailable)
	return &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Replicas: &replicas, Strategy: appsv1.DeploymentStrategy{
		Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &s, MaxUnavailable: &u}}}}
}

func TestNewRSNewReplicas(t *testing.T) {
	tests := []struct {
		name     string
		d        *appsv1.Deployment
		old, new *appsv1.ReplicaSet
		want     int32
	}{
		{"first step uses the surge", rollingDeployment(4, "1", "1"), rsOf(4, 4, 4), rsOf(0, 0, 0), 1},
		{"at the ceiling", rollingDeployment(4, "1", "1"), rsOf(4, 4, 4), rsOf(1, 0, 0), 1},
		{"after old scaled down", rollingDeployment(4, "1", "1"), rsOf(2, 2, 2), rsOf(1, 1, 1), 3},
		{"old pods not yet removed count", rollingDeployment(4, "1", "1"), rsOf(2, 4, 4), rsOf(1, 1, 1), 1},
		{"never beyond replicas", rollingDeployment(4, "10", "1"), rsOf(0, 0, 0), rsOf(1, 1, 1), 4},
		{"recreate takes all", &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Replicas: ptr(int32(3)),
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}}}, rsOf(0, 0, 0), rsOf(0, 0, 0), 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := NewRSNewReplicas(tt.d, []*appsv1.ReplicaSet{tt.old, tt.new}, tt.new)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestMaxSurgeAndMaxUnavailable(t *testing.T) {
	d := rollingDeployment(10, "25%", "25%")
	assert.Equal(t, int32(3), MaxSurge(d))
	assert.Equal(t, int32(2), MaxUnavailable(d))
	d = rollingDeployment(2, "0", "5")
	assert.Equal(t, int32(2), MaxUnavailable(d), "never more than replicas")
	d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
	assert.Equal(t, int32(0), MaxSurge(d))
	assert.Equal(t, int32(0), MaxUnavailable(d))
}

func TestSetNewReplicaSetAnnotations(t *testing.T) {
	d := rollingDeployment(3, "1", "0")
	d.Annotations = map[string]string{"team": "a", api.RevisionAnnotation: "7", corev1.LastAppliedConfigAnnotation: "{}"}
	rs := &appsv1.ReplicaSet{}
	assert.True(t, SetNewReplicaSetAnnotations(d, rs, "1", false, MaxRevHistoryLengthInChars))
	assert.Equal(t, map[string]string{"team": "a", api.RevisionAnnotation: "1",
		api.DesiredReplicasAnnotation: "3", api.MaxReplicasAnnotation: "4"}, rs.Annotations)
	assert.False(t, SetNewReplicaSetAnnotations(d, rs, "1", true, MaxRevHistoryLengthInChars), "nothing new")

	// Rolled back to: the old revision goes to the history.
	assert.True(t, SetNewReplicaSetAnnotations(d, rs, "3", true, MaxRevHistoryLengthInChars))
	assert.Equal(t, "3", rs.Annotations[api.RevisionAnnotation])
	assert.Equal(t, "1", rs.Annotations[api.RevisionHistoryAnnotation])
	SetNewReplicaSetAnnotations(d, rs, "5", true, MaxRevHistoryLengthInChars)
	assert.Equal(t, "1,3", rs.Annotations[api.RevisionHistoryAnnotation])
	SetNewReplicaSetAnnotations(d, rs, "8", true, 4)
	assert.Equal(t, "3,5", rs.Annotations[api.RevisionHistoryAnnotation], "the oldest entries make room")
	assert.False(t, SetNewReplicaSetAnnotations(d, rs, "2", true, MaxRevHistoryLengthInChars), "never lowered")
}

func FuzzSetNewReplicaSetAnnotations(f *testing.F) {
	f.Add("1", "", "2", 2000)
	f.Add("x", "1,2", "3", 3)
	f.Add("9", ",,,", "10", 0)
	f.Fuzz(func(t *testing.T, old, history, next string, limit int) {
		rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{
			api.RevisionAnnotation: old, api.RevisionHistoryAnnotation: history}}}
		SetNewReplicaSetAnnotations(rollingDeployment(1, "1", "1"), rs, next, true, limit)
		if limit >= 0 && rs.Annotations[api.RevisionHistoryAnnotation] != history {
			assert.LessOrEqual(t, len(rs.Annotations[api.RevisionHistoryAnnotation]), max(limit, len(old)))
		}
	})
}

func TestCalculateStatusAndConditions(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	d := rollingDeployment(4, "1", "1")
	d.Generation = 3
	newRS := rsOf(2, 2, 1)
	newRS.Status.ReadyReplicas = 2
	old := rsOf(3, 3, 3)
	old.Status.ReadyReplicas = 3
	s := CalculateStatus([]*appsv1.ReplicaSet{old, newRS}, newRS, d, now)
	assert.Equal(t, int64(3), s.ObservedGeneration)
	assert.Equal(t, [5]int32{5, 2, 5, 4, 1}, [5]int32{s.Replicas, s.UpdatedReplicas, s.ReadyReplicas, s.AvailableReplicas, s.UnavailableReplicas})
	require.Len(t, s.Conditions, 1)
	assert.Equal(t, MinimumReplicasAvailable, s.Conditions[0].Reason)

	s = CalculateStatus([]*appsv1.ReplicaSet{rsOf(4, 4, 2)}, nil, d, now)
	assert.Equal(t, MinimumReplicasUnavailable, s.Conditions[0].Reason)

	// The same status keeps the transition time; a progress deadline runs
	// from lastUpdateTime.
	c := NewDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue, ReplicaSetUpdatedReason, "m", now)
	SetDeploymentCondition(&s, c)
	later := NewDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue, NewRSAvailableReason, "m", now.Add(time.Hour))
	SetDeploymentCondition(&s, later)
	got := GetDeploymentCondition(&s, appsv1.DeploymentProgressing)
	assert.Equal(t, now, got.LastTransitionTime.Time)
	assert.Equal(t, now.Add(time.Hour), got.LastUpdateTime.Time)
	assert.Equal(t, appsv1.DeploymentProgressing, s.Conditions[len(s.Conditions)-1].Type)

	deadline := int32(60)
	d.Spec.ProgressDeadlineSeconds = &deadline
	s.Conditions = nil
	SetDeploymentCondition(&s, c)
	assert.False(t, DeploymentTimedOut(d, &s, now.Add(60*time.Second)))
	assert.True(t, DeploymentTimedOut(d, &s, now.Add(61*time.Second)))
}
