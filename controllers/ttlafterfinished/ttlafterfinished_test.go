package ttlafterfinished

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestTimeLeft(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	ttl := func(s int32) *int32 { return &s }
	finished := func(typ batchv1.JobConditionType) batchv1.JobStatus {
		return batchv1.JobStatus{Conditions: []batchv1.JobCondition{{Type: typ, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(t0)}}}
	}
	deleting := metav1.NewTime(t0)
	for _, tc := range []struct {
		name string
		job  batchv1.Job
		now  time.Duration
		left time.Duration
		ok   bool
	}{
		{"no TTL", batchv1.Job{Status: finished(batchv1.JobComplete)}, 0, 0, false},
		{"not finished", batchv1.Job{Spec: batchv1.JobSpec{TTLSecondsAfterFinished: ttl(10)}}, 0, 0, false},
		{"complete, 4s to go", batchv1.Job{Spec: batchv1.JobSpec{TTLSecondsAfterFinished: ttl(10)}, Status: finished(batchv1.JobComplete)}, 6 * time.Second, 4 * time.Second, true},
		{"failed and expired", batchv1.Job{Spec: batchv1.JobSpec{TTLSecondsAfterFinished: ttl(10)}, Status: finished(batchv1.JobFailed)}, 11 * time.Second, -time.Second, true},
		{"TTL 0: at once", batchv1.Job{Spec: batchv1.JobSpec{TTLSecondsAfterFinished: ttl(0)}, Status: finished(batchv1.JobComplete)}, 0, 0, true},
		{"already being deleted", batchv1.Job{ObjectMeta: metav1.ObjectMeta{DeletionTimestamp: &deleting}, Spec: batchv1.JobSpec{TTLSecondsAfterFinished: ttl(0)}, Status: finished(batchv1.JobComplete)}, 0, 0, false},
	} {
		left, ok := TimeLeft(&tc.job, t0.Add(tc.now))
		assert.Equal(t, tc.ok, ok, tc.name)
		assert.Equal(t, tc.left, left, tc.name)
	}
}
