package deployment

import (
	"context"
	"fmt"
	"sort"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/controllers"
)

// getAllReplicaSetsAndSyncRevision finds the new ReplicaSet (creating it
// when create is set) and the old ones, and brings the revision
// annotations up to date.
func (dc *DeploymentController) getAllReplicaSetsAndSyncRevision(ctx context.Context, d *appsv1.Deployment, rsList []*appsv1.ReplicaSet, create bool) (*appsv1.ReplicaSet, []*appsv1.ReplicaSet, error) {
	_, allOld := FindOldReplicaSets(d, rsList)
	newRS, err := dc.getNewReplicaSet(ctx, d, rsList, allOld, create)
	if err != nil {
		return nil, nil, err
	}
	return newRS, allOld, nil
}

// withNew is oldRSs plus newRS (when there is one), in a fresh slice.
func withNew(oldRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) []*appsv1.ReplicaSet {
	out := append([]*appsv1.ReplicaSet(nil), oldRSs...)
	if newRS != nil {
		out = append(out, newRS)
	}
	return out
}

// getNewReplicaSet returns the ReplicaSet for d's template, updating its
// annotations (a reused old ReplicaSet becomes the newest revision), or
// creates it as <deployment>-<pod-template-hash>.
func (dc *DeploymentController) getNewReplicaSet(ctx context.Context, d *appsv1.Deployment, rsList, oldRSs []*appsv1.ReplicaSet, create bool) (*appsv1.ReplicaSet, error) {
	existing := FindNewReplicaSet(d, rsList)
	newRevision := strconv.FormatInt(MaxRevision(oldRSs)+1, 10)
	now := dc.clock.Now()

	if existing != nil {
		rsCopy := existing.DeepCopy()
		annotationsUpdated := SetNewReplicaSetAnnotations(d, rsCopy, newRevision, true, MaxRevHistoryLengthInChars)
		if annotationsUpdated || rsCopy.Spec.MinReadySeconds != d.Spec.MinReadySeconds {
			rsCopy.Spec.MinReadySeconds = d.Spec.MinReadySeconds
			updated, err := dc.client.ReplicaSets().Update(ctx, rsCopy)
			if err != nil {
				return nil, err
			}
			*existing = *updated
			// The Deployment's revision follows on the next sync, which
			// this update triggers.
			return existing, nil
		}
		if err := dc.setDeploymentRevision(ctx, d, existing.Annotations[api.RevisionAnnotation]); err != nil {
			return nil, err
		}
		if hasProgressDeadline(d) && GetDeploymentCondition(&d.Status, appsv1.DeploymentProgressing) == nil {
			msg := fmt.Sprintf("Found new replica set %q", existing.Name)
			SetDeploymentCondition(&d.Status, NewDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue, FoundNewRSReason, msg, now))
			if err := dc.writeStatus(ctx, d); err != nil {
				return nil, err
			}
		}
		return existing, nil
	}
	if !create {
		return nil, nil
	}

	template := d.Spec.Template.DeepCopy()
	hash := controllers.ComputeHash(&d.Spec.Template, d.Status.CollisionCount)
	template.Labels = cloneWithHash(d.Spec.Template.Labels, hash)
	selector := d.Spec.Selector.DeepCopy()
	selector.MatchLabels = cloneWithHash(selector.MatchLabels, hash)
	zero := int32(0)
	newRS := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{
			// A name derived from the template makes a repeated create
			// (stale cache) fail instead of duplicating the ReplicaSet.
			Name:            d.Name + "-" + hash,
			Namespace:       d.Namespace,
			OwnerReferences: []metav1.OwnerReference{*api.NewControllerRef(&d.ObjectMeta, GroupVersionKind)},
			Labels:          template.Labels,
		},
		Spec: appsv1.ReplicaSetSpec{Replicas: &zero, MinReadySeconds: d.Spec.MinReadySeconds, Selector: selector, Template: *template},
	}
	count, err := NewRSNewReplicas(d, withNew(oldRSs, newRS), newRS)
	if err != nil {
		return nil, err
	}
	newRS.Spec.Replicas = &count
	SetNewReplicaSetAnnotations(d, newRS, newRevision, false, MaxRevHistoryLengthInChars)

	alreadyExists := false
	created, err := dc.client.ReplicaSets().Create(ctx, newRS)
	switch {
	case api.IsAlreadyExists(err):
		alreadyExists = true
		// The cache lags behind the server; read the one that is there.
		rs, getErr := dc.client.ReplicaSets().Get(ctx, newRS.Namespace, newRS.Name)
		if getErr != nil {
			return nil, getErr
		}
		if ref := api.GetControllerOf(&rs.ObjectMeta); ref != nil && ref.UID == d.UID && EqualIgnoreHash(&d.Spec.Template, &rs.Spec.Template) {
			created, err = rs, nil
			break
		}
		// A different template with the same hash: bump collisionCount
		// so the next sync hashes differently.
		if d.Status.CollisionCount == nil {
			d.Status.CollisionCount = new(int32)
		}
		*d.Status.CollisionCount++
		if werr := dc.writeStatus(ctx, d); werr != nil {
			return nil, werr
		}
		return nil, err
	case err != nil:
		msg := fmt.Sprintf("Failed to create new replica set %q: %v", newRS.Name, err)
		if hasProgressDeadline(d) {
			SetDeploymentCondition(&d.Status, NewDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionFalse, FailedRSCreateReason, msg, now))
			_ = dc.writeStatus(ctx, d) // the create error is the one to report
		}
		dc.event(ctx, d, "Warning", FailedRSCreateReason, "%s", msg)
		return nil, err
	}
	if !alreadyExists && count > 0 {
		dc.event(ctx, d, "Normal", "ScalingReplicaSet", "Scaled up replica set %s from 0 to %d", created.Name, count)
	}
	if err := dc.setDeploymentRevision(ctx, d, newRevision); err != nil {
		return nil, err
	}
	if !alreadyExists && hasProgressDeadline(d) {
		msg := fmt.Sprintf("Created new replica set %q", created.Name)
		SetDeploymentCondition(&d.Status, NewDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue, NewReplicaSetReason, msg, now))
		if err := dc.writeStatus(ctx, d); err != nil {
			return nil, err
		}
	}
	return created, nil
}

// scaleReplicaSetAndRecordEvent scales rs to newScale, if that changes it.
func (dc *DeploymentController) scaleReplicaSetAndRecordEvent(ctx context.Context, rs *appsv1.ReplicaSet, newScale int32, d *appsv1.Deployment) (bool, error) {
	if replicasOf(rs) == newScale {
		return false, nil
	}
	op := "down"
	if replicasOf(rs) < newScale {
		op = "up"
	}
	return dc.scaleReplicaSet(ctx, rs, newScale, d, op)
}

// scaleReplicaSet writes rs's size and replicas annotations when either
// differs, records ScalingReplicaSet for a size change, and updates rs in
// place (it is the sync's own copy).
func (dc *DeploymentController) scaleReplicaSet(ctx context.Context, rs *appsv1.ReplicaSet, newScale int32, d *appsv1.Deployment, op string) (bool, error) {
	desired, maxReplicas := deploymentReplicas(d), deploymentReplicas(d)+MaxSurge(d)
	sizeNeedsUpdate := replicasOf(rs) != newScale
	if !sizeNeedsUpdate && !ReplicasAnnotationsNeedUpdate(rs, desired, maxReplicas) {
		return false, nil
	}
	oldScale := replicasOf(rs)
	rsCopy := rs.DeepCopy()
	rsCopy.Spec.Replicas = &newScale
	SetReplicasAnnotations(rsCopy, desired, maxReplicas)
	updated, err := dc.client.ReplicaSets().Update(ctx, rsCopy)
	if err != nil {
		return false, err
	}
	*rs = *updated
	if sizeNeedsUpdate {
		dc.event(ctx, d, "Normal", "ScalingReplicaSet", "Scaled %s replica set %s from %d to %d", op, rs.Name, oldScale, newScale)
	}
	return sizeNeedsUpdate, nil
}

// isScalingEvent reports whether d's replicas differ from what its active
// ReplicaSets were sized for (their desired-replicas annotation): a resize,
// not a new template.
func (dc *DeploymentController) isScalingEvent(ctx context.Context, d *appsv1.Deployment, rsList []*appsv1.ReplicaSet) (bool, error) {
	newRS, oldRSs, err := dc.getAllReplicaSetsAndSyncRevision(ctx, d, rsList, false)
	if err != nil {
		return false, err
	}
	for _, rs := range filterActive(withNew(oldRSs, newRS)) {
		if desired, ok := desiredReplicasAnnotation(rs); ok && desired != deploymentReplicas(d) {
			return true, nil
		}
	}
	return false, nil
}

// sync handles a resize or a paused Deployment: resize the ReplicaSets,
// clean up history when paused, and report status.
func (dc *DeploymentController) sync(ctx context.Context, d *appsv1.Deployment, rsList []*appsv1.ReplicaSet) error {
	newRS, oldRSs, err := dc.getAllReplicaSetsAndSyncRevision(ctx, d, rsList, false)
	if err != nil {
		return err
	}
	if err := dc.scale(ctx, d, newRS, oldRSs); err != nil {
		return err
	}
	if d.Spec.Paused {
		if err := dc.cleanupDeployment(ctx, oldRSs, d); err != nil {
			return err
		}
	}
	return dc.syncDeploymentStatus(ctx, withNew(oldRSs, newRS), newRS, d)
}

// findActiveOrLatest returns the only active ReplicaSet, or the newest
// when none is active; nil when several are.
func findActiveOrLatest(newRS *appsv1.ReplicaSet, oldRSs []*appsv1.ReplicaSet) *appsv1.ReplicaSet {
	if newRS == nil && len(oldRSs) == 0 {
		return nil
	}
	sorted := append([]*appsv1.ReplicaSet(nil), oldRSs...)
	sortByCreation(sorted)
	for i, j := 0, len(sorted)-1; i < j; i, j = i+1, j-1 {
		sorted[i], sorted[j] = sorted[j], sorted[i]
	}
	active := filterActive(withNew(sorted, newRS))
	switch len(active) {
	case 0:
		if newRS != nil {
			return newRS
		}
		return sorted[0]
	case 1:
		return active[0]
	}
	return nil
}

func isSaturated(d *appsv1.Deployment, rs *appsv1.ReplicaSet) bool {
	if rs == nil {
		return false
	}
	desired, ok := desiredReplicasAnnotation(rs)
	return ok && desired == deploymentReplicas(d) && replicasOf(rs) == deploymentReplicas(d) &&
		rs.Status.AvailableReplicas == deploymentReplicas(d)
}

// scale resizes the ReplicaSets of a resized Deployment. With one active
// ReplicaSet it takes the new size; during a rolling update kubesim adds
// the difference to the newest ReplicaSet and takes it from the oldest
// first (Kubernetes spreads it in proportion to their sizes).
func (dc *DeploymentController) scale(ctx context.Context, d *appsv1.Deployment, newRS *appsv1.ReplicaSet, oldRSs []*appsv1.ReplicaSet) error {
	if rs := findActiveOrLatest(newRS, oldRSs); rs != nil {
		if replicasOf(rs) == deploymentReplicas(d) && !ReplicasAnnotationsNeedUpdate(rs, deploymentReplicas(d), deploymentReplicas(d)+MaxSurge(d)) {
			return nil
		}
		_, err := dc.scaleReplicaSet(ctx, rs, deploymentReplicas(d), d, scaleOp(rs, deploymentReplicas(d)))
		return err
	}
	if isSaturated(d, newRS) {
		for _, old := range filterActive(oldRSs) {
			if _, err := dc.scaleReplicaSetAndRecordEvent(ctx, old, 0, d); err != nil {
				return err
			}
		}
		return nil
	}
	if !isRollingUpdate(d) {
		return nil
	}
	active := filterActive(withNew(oldRSs, newRS))
	sortByCreation(active) // oldest first
	allowed := int32(0)
	if deploymentReplicas(d) > 0 {
		allowed = deploymentReplicas(d) + MaxSurge(d)
	}
	toAdd := allowed - sumSpec(active)
	sizes := make([]int32, len(active))
	for i, rs := range active {
		sizes[i] = replicasOf(rs)
	}
	if toAdd > 0 {
		sizes[len(sizes)-1] += toAdd
	}
	for i := 0; toAdd < 0 && i < len(sizes); i++ {
		take := min(sizes[i], -toAdd)
		sizes[i] -= take
		toAdd += take
	}
	for i, rs := range active {
		if _, err := dc.scaleReplicaSet(ctx, rs, sizes[i], d, scaleOp(rs, sizes[i])); err != nil {
			return err
		}
	}
	return nil
}

func scaleOp(rs *appsv1.ReplicaSet, to int32) string {
	if to > replicasOf(rs) {
		return "up"
	}
	return "down"
}

// cleanupDeployment deletes the oldest empty ReplicaSets beyond
// revisionHistoryLimit.
func (dc *DeploymentController) cleanupDeployment(ctx context.Context, oldRSs []*appsv1.ReplicaSet, d *appsv1.Deployment) error {
	if d.Spec.RevisionHistoryLimit == nil {
		return nil
	}
	var cleanable []*appsv1.ReplicaSet
	for _, rs := range oldRSs {
		if rs != nil && rs.DeletionTimestamp == nil {
			cleanable = append(cleanable, rs)
		}
	}
	diff := len(cleanable) - int(*d.Spec.RevisionHistoryLimit)
	if diff <= 0 {
		return nil
	}
	sortByCreation(cleanable)
	sort.SliceStable(cleanable, func(i, j int) bool { return Revision(cleanable[i]) < Revision(cleanable[j]) })
	for _, rs := range cleanable[:diff] {
		// Only a ReplicaSet whose controller has seen it scaled to zero and
		// has no pods left.
		if rs.Status.Replicas != 0 || replicasOf(rs) != 0 || rs.Generation > rs.Status.ObservedGeneration {
			continue
		}
		if err := dc.client.ReplicaSets().Delete(ctx, rs.Namespace, rs.Name, nil); err != nil && !api.IsNotFound(err) {
			return err
		}
	}
	return nil
}

// syncDeploymentStatus writes the status computed from the ReplicaSets
// when it changed.
func (dc *DeploymentController) syncDeploymentStatus(ctx context.Context, allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet, d *appsv1.Deployment) error {
	s := CalculateStatus(allRSs, newRS, d, dc.clock.Now())
	if statusEqual(&d.Status, &s) {
		return nil
	}
	d.Status = s
	return dc.writeStatus(ctx, d)
}

// syncStatusOnly only reports status (a Deployment being deleted).
func (dc *DeploymentController) syncStatusOnly(ctx context.Context, d *appsv1.Deployment, rsList []*appsv1.ReplicaSet) error {
	newRS, oldRSs, err := dc.getAllReplicaSetsAndSyncRevision(ctx, d, rsList, false)
	if err != nil {
		return err
	}
	return dc.syncDeploymentStatus(ctx, withNew(oldRSs, newRS), newRS, d)
}

// checkPausedConditions sets Progressing Unknown on pause and on resume,
// so the time spent paused never counts against the progress deadline.
func (dc *DeploymentController) checkPausedConditions(ctx context.Context, d *appsv1.Deployment) error {
	if !hasProgressDeadline(d) {
		return nil
	}
	cond := GetDeploymentCondition(&d.Status, appsv1.DeploymentProgressing)
	if cond != nil && cond.Reason == TimedOutReason {
		return nil
	}
	pausedExists := cond != nil && cond.Reason == PausedDeployReason
	now := dc.clock.Now()
	switch {
	case d.Spec.Paused && !pausedExists:
		SetDeploymentCondition(&d.Status, NewDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionUnknown, PausedDeployReason, "Deployment is paused", now))
	case !d.Spec.Paused && pausedExists:
		SetDeploymentCondition(&d.Status, NewDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionUnknown, ResumedDeployReason, "Deployment is resumed", now))
	default:
		return nil
	}
	return dc.writeStatus(ctx, d)
}

// syncRolloutStatus writes status with the Progressing condition: complete,
// progressing, or timed out; a rollout that has not finished is looked at
// again when its deadline passes.
func (dc *DeploymentController) syncRolloutStatus(ctx context.Context, allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet, d *appsv1.Deployment) (controllers.Result, error) {
	now := dc.clock.Now()
	s := CalculateStatus(allRSs, newRS, d, now)
	if !hasProgressDeadline(d) {
		RemoveDeploymentCondition(&s, appsv1.DeploymentProgressing)
	}
	cur := GetDeploymentCondition(&d.Status, appsv1.DeploymentProgressing)
	complete := s.Replicas == s.UpdatedReplicas && cur != nil && cur.Reason == NewRSAvailableReason
	if hasProgressDeadline(d) && !complete {
		switch {
		case DeploymentComplete(d, &s):
			msg := fmt.Sprintf("Deployment %q has successfully progressed.", d.Name)
			if newRS != nil {
				msg = fmt.Sprintf("ReplicaSet %q has successfully progressed.", newRS.Name)
			}
			SetDeploymentCondition(&s, NewDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue, NewRSAvailableReason, msg, now))
		case DeploymentProgressing(d, &s):
			msg := fmt.Sprintf("Deployment %q is progressing.", d.Name)
			if newRS != nil {
				msg = fmt.Sprintf("ReplicaSet %q is progressing.", newRS.Name)
			}
			c := NewDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue, ReplicaSetUpdatedReason, msg, now)
			// Progress refreshes lastUpdateTime even with the same reason,
			// which is what the deadline is measured from.
			if cur != nil {
				if cur.Status == corev1.ConditionTrue {
					c.LastTransitionTime = cur.LastTransitionTime
				}
				RemoveDeploymentCondition(&s, appsv1.DeploymentProgressing)
			}
			SetDeploymentCondition(&s, c)
		case DeploymentTimedOut(d, &s, now):
			msg := fmt.Sprintf("Deployment %q has timed out progressing.", d.Name)
			if newRS != nil {
				msg = fmt.Sprintf("ReplicaSet %q has timed out progressing.", newRS.Name)
			}
			SetDeploymentCondition(&s, NewDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionFalse, TimedOutReason, msg, now))
		}
	}
	if failure := replicaFailure(allRSs, newRS); failure != nil {
		SetDeploymentCondition(&s, *failure)
	} else {
		RemoveDeploymentCondition(&s, appsv1.DeploymentReplicaFailure)
	}
	if statusEqual(&d.Status, &s) {
		return dc.requeueStuckDeployment(d, &s), nil
	}
	d.Status = s
	return controllers.Result{}, dc.writeStatus(ctx, d)
}

// replicaFailure lifts a ReplicaSet's ReplicaFailure condition (the new
// one's first) to the Deployment.
func replicaFailure(allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) *appsv1.DeploymentCondition {
	order := allRSs
	if newRS != nil {
		order = append([]*appsv1.ReplicaSet{newRS}, allRSs...)
	}
	for _, rs := range order {
		if rs == nil {
			continue
		}
		for _, c := range rs.Status.Conditions {
			if c.Type == appsv1.ReplicaSetReplicaFailure {
				return &appsv1.DeploymentCondition{Type: appsv1.DeploymentReplicaFailure, Status: c.Status,
					LastUpdateTime: c.LastTransitionTime, LastTransitionTime: c.LastTransitionTime, Reason: c.Reason, Message: c.Message}
			}
		}
	}
	return nil
}

// requeueStuckDeployment asks to look again when an unfinished rollout's
// progress deadline passes, since no event will mark that moment.
func (dc *DeploymentController) requeueStuckDeployment(d *appsv1.Deployment, s *appsv1.DeploymentStatus) controllers.Result {
	cur := GetDeploymentCondition(&d.Status, appsv1.DeploymentProgressing)
	if !hasProgressDeadline(d) || cur == nil {
		return controllers.Result{}
	}
	if DeploymentComplete(d, s) || cur.Reason == TimedOutReason {
		return controllers.Result{}
	}
	deadline := cur.LastUpdateTime.Time.Add(secondsOf(*d.Spec.ProgressDeadlineSeconds))
	after := deadline.Sub(dc.clock.Now())
	if after < secondsOf(1) {
		return controllers.Result{Requeue: true}
	}
	return controllers.Result{RequeueAfter: after + secondsOf(1)}
}
