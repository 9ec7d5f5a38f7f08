package deployment

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/controllers"
)

// rolloutRecreate scales every old ReplicaSet to zero, waits until their
// pods are gone, then creates or scales up the new ReplicaSet.
func (dc *DeploymentController) rolloutRecreate(ctx context.Context, d *appsv1.Deployment, rsList []*appsv1.ReplicaSet, podMap map[types.UID][]*corev1.Pod) (controllers.Result, error) {
	// Not creating the new ReplicaSet yet: nothing may start before the
	// old pods are gone.
	newRS, oldRSs, err := dc.getAllReplicaSetsAndSyncRevision(ctx, d, rsList, false)
	if err != nil {
		return controllers.Result{}, err
	}
	allRSs := withNew(oldRSs, newRS)
	scaledDown := false
	for _, rs := range filterActive(oldRSs) {
		scaled, err := dc.scaleReplicaSetAndRecordEvent(ctx, rs, 0, d)
		if err != nil {
			return controllers.Result{}, err
		}
		scaledDown = scaledDown || scaled
	}
	if scaledDown || oldPodsRunning(newRS, oldRSs, podMap) {
		return dc.syncRolloutStatus(ctx, allRSs, newRS, d)
	}
	if newRS == nil {
		newRS, oldRSs, err = dc.getAllReplicaSetsAndSyncRevision(ctx, d, rsList, true)
		if err != nil {
			return controllers.Result{}, err
		}
		allRSs = withNew(oldRSs, newRS)
	}
	if _, err := dc.scaleReplicaSetAndRecordEvent(ctx, newRS, deploymentReplicas(d), d); err != nil {
		return controllers.Result{}, err
	}
	if DeploymentComplete(d, &d.Status) {
		if err := dc.cleanupDeployment(ctx, oldRSs, d); err != nil {
			return controllers.Result{}, err
		}
	}
	return dc.syncRolloutStatus(ctx, allRSs, newRS, d)
}

// oldPodsRunning reports whether an old ReplicaSet still counts pods or
// still has a pod that has not finished (a terminating pod counts).
func oldPodsRunning(newRS *appsv1.ReplicaSet, oldRSs []*appsv1.ReplicaSet, podMap map[types.UID][]*corev1.Pod) bool {
	if sumStatus(oldRSs, statusReplicas) > 0 {
		return true
	}
	for uid, pods := range podMap {
		if newRS != nil && newRS.UID == uid {
			continue
		}
		for _, p := range pods {
			if p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
				return true
			}
		}
	}
	return false
}
