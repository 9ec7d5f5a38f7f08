package deployment

import (
	"context"
	"time"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/kubesim/kubesim/controllers"
)

func secondsOf(n int32) time.Duration { return time.Duration(n) * time.Second }

// rolloutRolling advances a RollingUpdate by one move: grow the new
// ReplicaSet within maxSurge, or else shrink old ones within
// maxUnavailable; when complete, clean up history. Status follows.
func (dc *DeploymentController) rolloutRolling(ctx context.Context, d *appsv1.Deployment, rsList []*appsv1.ReplicaSet) (controllers.Result, error) {
	newRS, oldRSs, err := dc.getAllReplicaSetsAndSyncRevision(ctx, d, rsList, true)
	if err != nil {
		return controllers.Result{}, err
	}
	allRSs := withNew(oldRSs, newRS)
	scaledUp, err := dc.reconcileNewReplicaSet(ctx, allRSs, newRS, d)
	if err != nil {
		return controllers.Result{}, err
	}
	if scaledUp {
		return dc.syncRolloutStatus(ctx, allRSs, newRS, d)
	}
	scaledDown, err := dc.reconcileOldReplicaSets(ctx, allRSs, filterActive(oldRSs), newRS, d)
	if err != nil {
		return controllers.Result{}, err
	}
	if scaledDown {
		return dc.syncRolloutStatus(ctx, allRSs, newRS, d)
	}
	if DeploymentComplete(d, &d.Status) {
		if err := dc.cleanupDeployment(ctx, oldRSs, d); err != nil {
			return controllers.Result{}, err
		}
	}
	return dc.syncRolloutStatus(ctx, allRSs, newRS, d)
}

// reconcileNewReplicaSet grows (or trims) the new ReplicaSet.
func (dc *DeploymentController) reconcileNewReplicaSet(ctx context.Context, allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet, d *appsv1.Deployment) (bool, error) {
	if replicasOf(newRS) == deploymentReplicas(d) {
		return false, nil
	}
	if replicasOf(newRS) > deploymentReplicas(d) {
		return dc.scaleReplicaSetAndRecordEvent(ctx, newRS, deploymentReplicas(d), d)
	}
	count, err := NewRSNewReplicas(d, allRSs, newRS)
	if err != nil {
		return false, err
	}
	return dc.scaleReplicaSetAndRecordEvent(ctx, newRS, count, d)
}

// reconcileOldReplicaSets shrinks old ReplicaSets as far as
// maxUnavailable allows: their unavailable pods first, then available ones.
func (dc *DeploymentController) reconcileOldReplicaSets(ctx context.Context, allRSs, oldRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet, d *appsv1.Deployment) (bool, error) {
	if sumSpec(oldRSs) == 0 {
		return false, nil
	}
	minAvailable := deploymentReplicas(d) - MaxUnavailable(d)
	newUnavailable := replicasOf(newRS) - countedAvailable(newRS)
	maxScaledDown := sumSpec(allRSs) - minAvailable - newUnavailable
	if maxScaledDown <= 0 {
		return false, nil
	}
	cleaned, err := dc.cleanupUnhealthyReplicas(ctx, oldRSs, d, maxScaledDown)
	if err != nil {
		return false, err
	}
	scaled, err := dc.scaleDownOldReplicaSetsForRollingUpdate(ctx, withNew(oldRSs, newRS), oldRSs, d)
	if err != nil {
		return false, err
	}
	return cleaned+scaled > 0, nil
}

// cleanupUnhealthyReplicas removes old pods that are not available, oldest
// ReplicaSet first: they would otherwise block the rollout.
func (dc *DeploymentController) cleanupUnhealthyReplicas(ctx context.Context, oldRSs []*appsv1.ReplicaSet, d *appsv1.Deployment, maxCleanup int32) (int32, error) {
	sorted := append([]*appsv1.ReplicaSet(nil), oldRSs...)
	sortByCreation(sorted)
	var total int32
	for _, rs := range sorted {
		if total >= maxCleanup {
			break
		}
		if replicasOf(rs) == 0 || replicasOf(rs) == rs.Status.AvailableReplicas {
			continue
		}
		n := min(maxCleanup-total, replicasOf(rs)-rs.Status.AvailableReplicas)
		if n <= 0 {
			continue
		}
		if _, err := dc.scaleReplicaSetAndRecordEvent(ctx, rs, replicasOf(rs)-n, d); err != nil {
			return total, err
		}
		total += n
	}
	return total, nil
}

// scaleDownOldReplicaSetsForRollingUpdate removes available old pods while
// more than replicas-maxUnavailable stay available, oldest ReplicaSet first.
func (dc *DeploymentController) scaleDownOldReplicaSetsForRollingUpdate(ctx context.Context, allRSs, oldRSs []*appsv1.ReplicaSet, d *appsv1.Deployment) (int32, error) {
	minAvailable := deploymentReplicas(d) - MaxUnavailable(d)
	var available int32
	for _, rs := range allRSs {
		available += countedAvailable(rs)
	}
	if available <= minAvailable {
		return 0, nil
	}
	sorted := append([]*appsv1.ReplicaSet(nil), oldRSs...)
	sortByCreation(sorted)
	want := available - minAvailable
	var total int32
	for _, rs := range sorted {
		if total >= want {
			break
		}
		if replicasOf(rs) == 0 {
			continue
		}
		n := min(replicasOf(rs), want-total)
		if _, err := dc.scaleReplicaSetAndRecordEvent(ctx, rs, replicasOf(rs)-n, d); err != nil {
			return total, err
		}
		total += n
	}
	return total, nil
}
