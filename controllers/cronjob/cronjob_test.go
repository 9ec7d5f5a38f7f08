package cronjob

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/apiserver/apiservertest"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/runmode"
)

// A CronJob whose schedule never fires gets one InvalidSchedule warning
// per sync and is not queued again: the controller waits for the spec to
// change rather than retry for ever.
func TestInvalidScheduleIsAWarningAndNoRequeue(t *testing.T) {
	ctx := context.Background()
	e := apiservertest.New(t)
	cc, err := New(Config{Client: e.Client, Clock: e.Clock, Mode: runmode.Step})
	require.NoError(t, err)
	ctrl := cc.Controllers()[0]
	cj := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "feb30", Namespace: "default"},
		Spec: batchv1.CronJobSpec{Schedule: "0 0 30 2 *", JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{
			Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}}}}}
	_, err = e.Client.CronJobs().Create(ctx, cj)
	require.NoError(t, err, "the schedule parses: the API server takes it")
	steps := 0
	for range 10 {
		require.NoError(t, ctrl.Sync(ctx))
		info, ok := ctrl.Step(ctx)
		if !ok {
			break
		}
		require.NoError(t, info.Err)
		steps++
	}
	assert.Equal(t, 1, steps)
	_, queued := ctrl.NextDeadline()
	assert.False(t, queued, "no requeue")
	evs, err := e.Client.Events().List(ctx, "default", client.ListOptions{})
	require.NoError(t, err)
	require.Len(t, evs.Items, 1)
	assert.Equal(t, "Warning", evs.Items[0].Type)
	assert.Equal(t, "InvalidSchedule", evs.Items[0].Reason)
	assert.Equal(t, "invalid schedule: 0 0 30 2 * : time difference between two schedules is less than 1 second", evs.Items[0].Message)
	jobs, err := e.Client.Jobs().List(ctx, "default", client.ListOptions{})
	require.NoError(t, err)
	assert.Empty(t, jobs.Items)
}
