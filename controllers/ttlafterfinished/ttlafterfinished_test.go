package ttlafterfinished

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/kubesim/kubesim/api"
)

func TestTimeLeft(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	ttl := func(s int32) *int32 { return &s }
	finished := func(typ api.JobConditionType) api.JobStatus {
		return api.JobStatus{Conditions: []api.JobCondition{{Type: typ, Status: api.ConditionTrue, LastTransitionTime: api.NewTime(t0)}}}
	}
	deleting := api.NewTime(t0)
	for _, tc := range []struct {
		name string
		job  api.Job
		now  time.Duration
		left time.Duration
		ok   bool
	}{
		{"no TTL", api.Job{Status: finished(api.JobComplete)}, 0, 0, false},
		{"not finished", api.Job{Spec: api.JobSpec{TTLSecondsAfterFinished: ttl(10)}}, 0, 0, false},
		{"complete, 4s to go", api.Job{Spec: api.JobSpec{TTLSecondsAfterFinished: ttl(10)}, Status: finished(api.JobComplete)}, 6 * time.Second, 4 * time.Second, true},
		{"failed and expired", api.Job{Spec: api.JobSpec{TTLSecondsAfterFinished: ttl(10)}, Status: finished(api.JobFailed)}, 11 * time.Second, -time.Second, true},
		{"TTL 0: at once", api.Job{Spec: api.JobSpec{TTLSecondsAfterFinished: ttl(0)}, Status: finished(api.JobComplete)}, 0, 0, true},
		{"already being deleted", api.Job{ObjectMeta: api.ObjectMeta{DeletionTimestamp: &deleting}, Spec: api.JobSpec{TTLSecondsAfterFinished: ttl(0)}, Status: finished(api.JobComplete)}, 0, 0, false},
	} {
		left, ok := TimeLeft(&tc.job, t0.Add(tc.now))
		assert.Equal(t, tc.ok, ok, tc.name)
		assert.Equal(t, tc.left, left, tc.name)
	}
}
