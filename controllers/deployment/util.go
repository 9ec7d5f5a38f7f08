package deployment

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubesim/kubesim/api"
)

// The reasons of the deployment conditions (deployment_util.go).
const (
	// NewReplicaSetReason: Progressing after the new ReplicaSet is created.
	NewReplicaSetReason = "NewReplicaSetCreated"
	// FoundNewRSReason: Progressing when an existing ReplicaSet is the new one.
	FoundNewRSReason = "FoundNewReplicaSet"
	// ReplicaSetUpdatedReason: Progressing while the rollout advances.
	ReplicaSetUpdatedReason = "ReplicaSetUpdated"
	// NewRSAvailableReason: Progressing once the rollout is complete.
	NewRSAvailableReason = "NewReplicaSetAvailable"
	// TimedOutReason: Progressing False after progressDeadlineSeconds
	// without progress.
	TimedOutReason = "ProgressDeadlineExceeded"
	// FailedRSCreateReason: the new ReplicaSet could not be created.
	FailedRSCreateReason = "ReplicaSetCreateError"
	// PausedDeployReason: Progressing Unknown while paused.
	PausedDeployReason = "DeploymentPaused"
	// ResumedDeployReason: Progressing Unknown after a resume.
	ResumedDeployReason = "DeploymentResumed"
	// MinimumReplicasAvailable: Available True.
	MinimumReplicasAvailable = "MinimumReplicasAvailable"
	// MinimumReplicasUnavailable: Available False.
	MinimumReplicasUnavailable = "MinimumReplicasUnavailable"
)

// MaxRevHistoryLengthInChars bounds the revision-history annotation.
const MaxRevHistoryLengthInChars = 2000

// annotationsToSkip are the annotations not copied from a Deployment to
// its ReplicaSets: they are the controller's own, or kubectl's.
var annotationsToSkip = map[string]bool{
	corev1.LastAppliedConfigAnnotation:  true,
	api.RevisionAnnotation:              true,
	api.RevisionHistoryAnnotation:       true,
	api.DesiredReplicasAnnotation:       true,
	api.MaxReplicasAnnotation:           true,
	"deprecated.deployment.rollback.to": true,
}

// EqualIgnoreHash compares two templates ignoring the pod-template-hash
// label: a ReplicaSet's template is its Deployment's plus that label.
func EqualIgnoreHash(a, b *corev1.PodTemplateSpec) bool {
	ca, cb := a.DeepCopy(), b.DeepCopy()
	for _, t := range []*corev1.PodTemplateSpec{ca, cb} {
		delete(t.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
		if len(t.Labels) == 0 {
			t.Labels = nil
		}
	}
	ja, err1 := json.Marshal(ca)
	jb, err2 := json.Marshal(cb)
	return err1 == nil && err2 == nil && string(ja) == string(jb)
}

// sortByCreation orders ReplicaSets oldest first, ties by name
// (ReplicaSetsByCreationTimestamp).
func sortByCreation(rss []*appsv1.ReplicaSet) {
	sort.SliceStable(rss, func(i, j int) bool {
		a, b := rss[i], rss[j]
		if !a.CreationTimestamp.Time.Equal(b.CreationTimestamp.Time) {
			return a.CreationTimestamp.Before(&b.CreationTimestamp)
		}
		return a.Name < b.Name
	})
}

// FindNewReplicaSet returns the ReplicaSet whose template is the
// Deployment's, the oldest if several are.
func FindNewReplicaSet(d *appsv1.Deployment, rsList []*appsv1.ReplicaSet) *appsv1.ReplicaSet {
	sorted := append([]*appsv1.ReplicaSet(nil), rsList...)
	sortByCreation(sorted)
	for _, rs := range sorted {
		if EqualIgnoreHash(&rs.Spec.Template, &d.Spec.Template) {
			return rs
		}
	}
	return nil
}

// FindOldReplicaSets returns the ReplicaSets other than the new one: those
// with replicas, and all.
func FindOldReplicaSets(d *appsv1.Deployment, rsList []*appsv1.ReplicaSet) (withReplicas, all []*appsv1.ReplicaSet) {
	newRS := FindNewReplicaSet(d, rsList)
	for _, rs := range rsList {
		if newRS != nil && rs.UID == newRS.UID {
			continue
		}
		all = append(all, rs)
		if replicasOf(rs) != 0 {
			withReplicas = append(withReplicas, rs)
		}
	}
	return withReplicas, all
}

func replicasOf(rs *appsv1.ReplicaSet) int32 {
	if rs == nil || rs.Spec.Replicas == nil {
		return 0
	}
	return *rs.Spec.Replicas
}

func deploymentReplicas(d *appsv1.Deployment) int32 {
	if d.Spec.Replicas == nil {
		return 1
	}
	return *d.Spec.Replicas
}

// Revision reads a ReplicaSet's revision annotation (0 when absent or
// malformed).
func Revision(rs *appsv1.ReplicaSet) int64 {
	v, err := strconv.ParseInt(rs.Annotations[api.RevisionAnnotation], 10, 64)
	if err != nil {
		return 0
	}
	return v
}

// MaxRevision is the highest revision among rss.
func MaxRevision(rss []*appsv1.ReplicaSet) int64 {
	var m int64
	for _, rs := range rss {
		m = max(m, Revision(rs))
	}
	return m
}

// SetNewReplicaSetAnnotations gives the new ReplicaSet the Deployment's
// annotations (but the controller's and kubectl's own), raises its
// revision to newRevision, remembering the one it replaces in
// revision-history (a rollback to an old template), and, for a ReplicaSet
// about to be created, the replicas annotations. It reports whether
// anything changed.
func SetNewReplicaSetAnnotations(d *appsv1.Deployment, rs *appsv1.ReplicaSet, newRevision string, exists bool, revHistoryLimitInChars int) bool {
	changed := copyDeploymentAnnotationsToReplicaSet(d, rs)
	if rs.Annotations == nil {
		rs.Annotations = map[string]string{}
	}
	oldRevision, had := rs.Annotations[api.RevisionAnnotation]
	oldInt, err := strconv.ParseInt(oldRevision, 10, 64)
	if err != nil {
		if oldRevision != "" {
			return false
		}
		oldInt = 0
	}
	newInt, err := strconv.ParseInt(newRevision, 10, 64)
	if err != nil {
		return false
	}
	if oldInt < newInt {
		rs.Annotations[api.RevisionAnnotation] = newRevision
		changed = true
	}
	if had && oldInt < newInt {
		history := rs.Annotations[api.RevisionHistoryAnnotation]
		old := strings.Split(history, ",")
		if len(old[0]) == 0 {
			rs.Annotations[api.RevisionHistoryAnnotation] = oldRevision
		} else {
			total := len(history) + len(oldRevision) + 1
			start := 0
			for total > revHistoryLimitInChars && start < len(old) {
				total -= len(old[start]) + 1
				start++
			}
			if total <= revHistoryLimitInChars {
				rs.Annotations[api.RevisionHistoryAnnotation] = strings.Join(append(old[start:], oldRevision), ",")
			}
		}
	}
	if !exists && SetReplicasAnnotations(rs, deploymentReplicas(d), deploymentReplicas(d)+MaxSurge(d)) {
		changed = true
	}
	return changed
}

func copyDeploymentAnnotationsToReplicaSet(d *appsv1.Deployment, rs *appsv1.ReplicaSet) bool {
	changed := false
	keys := slices.Sorted(maps.Keys(d.Annotations))
	for _, k := range keys {
		if annotationsToSkip[k] {
			continue
		}
		if rs.Annotations == nil {
			rs.Annotations = map[string]string{}
		}
		if v, ok := rs.Annotations[k]; ok && v == d.Annotations[k] {
			continue
		}
		rs.Annotations[k] = d.Annotations[k]
		changed = true
	}
	return changed
}

// SetReplicasAnnotations sets desired-replicas and max-replicas, reporting
// whether they changed.
func SetReplicasAnnotations(rs *appsv1.ReplicaSet, desired, maxReplicas int32) bool {
	if rs.Annotations == nil {
		rs.Annotations = map[string]string{}
	}
	d, m := strconv.Itoa(int(desired)), strconv.Itoa(int(maxReplicas))
	if rs.Annotations[api.DesiredReplicasAnnotation] == d && rs.Annotations[api.MaxReplicasAnnotation] == m {
		return false
	}
	rs.Annotations[api.DesiredReplicasAnnotation] = d
	rs.Annotations[api.MaxReplicasAnnotation] = m
	return true
}

// ReplicasAnnotationsNeedUpdate reports whether SetReplicasAnnotations
// would change rs.
func ReplicasAnnotationsNeedUpdate(rs *appsv1.ReplicaSet, desired, maxReplicas int32) bool {
	return rs.Annotations[api.DesiredReplicasAnnotation] != strconv.Itoa(int(desired)) ||
		rs.Annotations[api.MaxReplicasAnnotation] != strconv.Itoa(int(maxReplicas))
}

// desiredReplicasAnnotation reads desired-replicas.
func desiredReplicasAnnotation(rs *appsv1.ReplicaSet) (int32, bool) {
	v, ok := rs.Annotations[api.DesiredReplicasAnnotation]
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return 0, false
	}
	return int32(n), true
}

// ResolveFenceposts turns maxSurge and maxUnavailable into numbers for
// desired replicas: surge rounds up, unavailable down, and both zero
// becomes unavailable 1 so a rollout can move.
func ResolveFenceposts(maxSurge, maxUnavailable *intstr.IntOrString, desired int32) (int32, int32, error) {
	surge, err := intstr.GetScaledValueFromIntOrPercent(intstr.ValueOrDefault(maxSurge, intstr.FromInt32(0)), int(desired), true)
	if err != nil {
		return 0, 0, err
	}
	unavailable, err := intstr.GetScaledValueFromIntOrPercent(intstr.ValueOrDefault(maxUnavailable, intstr.FromInt32(0)), int(desired), false)
	if err != nil {
		return 0, 0, err
	}
	if surge == 0 && unavailable == 0 {
		unavailable = 1
	}
	return int32(surge), int32(unavailable), nil
}

func isRollingUpdate(d *appsv1.Deployment) bool {
	return d.Spec.Strategy.Type == appsv1.RollingUpdateDeploymentStrategyType
}

func rollingParams(d *appsv1.Deployment) (*intstr.IntOrString, *intstr.IntOrString) {
	if ru := d.Spec.Strategy.RollingUpdate; ru != nil {
		return ru.MaxSurge, ru.MaxUnavailable
	}
	def := intstr.FromString("25%")
	return &def, &def
}

// MaxSurge is how many pods above replicas a rolling update may run.
func MaxSurge(d *appsv1.Deployment) int32 {
	if !isRollingUpdate(d) {
		return 0
	}
	s, u := rollingParams(d)
	surge, _, _ := ResolveFenceposts(s, u, deploymentReplicas(d))
	return surge
}

// MaxUnavailable is how many of replicas may be unavailable during a
// rolling update (never more than replicas).
func MaxUnavailable(d *appsv1.Deployment) int32 {
	if !isRollingUpdate(d) || deploymentReplicas(d) == 0 {
		return 0
	}
	s, u := rollingParams(d)
	_, unavailable, _ := ResolveFenceposts(s, u, deploymentReplicas(d))
	return min(unavailable, deploymentReplicas(d))
}

// countedReplicas is the number of pods rs may be running: its spec, or
// its status while its controller has not yet removed pods it no longer
// wants (kubesim's conservative reading; see doc.go).
func countedReplicas(rs *appsv1.ReplicaSet) int32 {
	if rs == nil {
		return 0
	}
	return max(replicasOf(rs), rs.Status.Replicas)
}

// countedAvailable is the available pods rs will keep: no more than its
// spec, whatever a stale status says.
func countedAvailable(rs *appsv1.ReplicaSet) int32 {
	if rs == nil {
		return 0
	}
	return min(rs.Status.AvailableReplicas, replicasOf(rs))
}

// NewRSNewReplicas is the size the new ReplicaSet may grow to now:
// RollingUpdate stays within replicas+maxSurge pods, Recreate takes all.
func NewRSNewReplicas(d *appsv1.Deployment, allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) (int32, error) {
	switch d.Spec.Strategy.Type {
	case appsv1.RollingUpdateDeploymentStrategyType:
		s, u := rollingParams(d)
		surge, _, err := ResolveFenceposts(s, u, deploymentReplicas(d))
		if err != nil {
			return 0, err
		}
		var current int32
		for _, rs := range allRSs {
			current += countedReplicas(rs)
		}
		maxTotal := deploymentReplicas(d) + surge
		if current >= maxTotal {
			return replicasOf(newRS), nil
		}
		up := min(maxTotal-current, deploymentReplicas(d)-replicasOf(newRS))
		return replicasOf(newRS) + max(up, 0), nil
	case appsv1.RecreateDeploymentStrategyType:
		return deploymentReplicas(d), nil
	}
	return 0, fmt.Errorf("deployment type %v isn't supported", d.Spec.Strategy.Type)
}

// Sums over ReplicaSets (GetReplicaCountForReplicaSets and friends).
func sumSpec(rss []*appsv1.ReplicaSet) int32 {
	var n int32
	for _, rs := range rss {
		n += replicasOf(rs)
	}
	return n
}

func sumStatus(rss []*appsv1.ReplicaSet, f func(*appsv1.ReplicaSetStatus) int32) int32 {
	var n int32
	for _, rs := range rss {
		if rs != nil {
			n += f(&rs.Status)
		}
	}
	return n
}

func statusReplicas(s *appsv1.ReplicaSetStatus) int32  { return s.Replicas }
func statusReady(s *appsv1.ReplicaSetStatus) int32     { return s.ReadyReplicas }
func statusAvailable(s *appsv1.ReplicaSetStatus) int32 { return s.AvailableReplicas }

// filterActive keeps the ReplicaSets with replicas.
func filterActive(rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
	var out []*appsv1.ReplicaSet
	for _, rs := range rss {
		if rs != nil && replicasOf(rs) > 0 {
			out = append(out, rs)
		}
	}
	return out
}

// --- conditions ---

// GetDeploymentCondition returns the condition of type t, or nil.
func GetDeploymentCondition(s *appsv1.DeploymentStatus, t appsv1.DeploymentConditionType) *appsv1.DeploymentCondition {
	for i := range s.Conditions {
		if s.Conditions[i].Type == t {
			return &s.Conditions[i]
		}
	}
	return nil
}

// NewDeploymentCondition builds a condition updated and transitioned at
// now.
func NewDeploymentCondition(t appsv1.DeploymentConditionType, status corev1.ConditionStatus, reason, message string, now time.Time) appsv1.DeploymentCondition {
	ts := metav1.NewTime(now.UTC().Truncate(time.Second))
	return appsv1.DeploymentCondition{Type: t, Status: status, LastUpdateTime: ts, LastTransitionTime: ts, Reason: reason, Message: message}
}

// SetDeploymentCondition sets c unless a condition of its type already has
// its status and reason; the transition time is kept when the status does
// not change. The condition moves to the end, as in Kubernetes.
func SetDeploymentCondition(s *appsv1.DeploymentStatus, c appsv1.DeploymentCondition) {
	cur := GetDeploymentCondition(s, c.Type)
	if cur != nil && cur.Status == c.Status && cur.Reason == c.Reason {
		return
	}
	if cur != nil && cur.Status == c.Status {
		c.LastTransitionTime = cur.LastTransitionTime
	}
	RemoveDeploymentCondition(s, c.Type)
	s.Conditions = append(s.Conditions, c)
}

// RemoveDeploymentCondition drops the condition of type t.
func RemoveDeploymentCondition(s *appsv1.DeploymentStatus, t appsv1.DeploymentConditionType) {
	var out []appsv1.DeploymentCondition
	for _, c := range s.Conditions {
		if c.Type != t {
			out = append(out, c)
		}
	}
	s.Conditions = out
}

func hasProgressDeadline(d *appsv1.Deployment) bool {
	return d.Spec.ProgressDeadlineSeconds != nil && *d.Spec.ProgressDeadlineSeconds != int32(^uint32(0)>>1)
}

// DeploymentComplete: every replica updated and available, and the spec
// observed.
func DeploymentComplete(d *appsv1.Deployment, s *appsv1.DeploymentStatus) bool {
	r := deploymentReplicas(d)
	return s.UpdatedReplicas == r && s.Replicas == r && s.AvailableReplicas == r && s.ObservedGeneration >= d.Generation
}

// DeploymentProgressing: compared with the status the Deployment shows,
// more pods are updated, ready or available, or fewer old pods remain.
func DeploymentProgressing(d *appsv1.Deployment, s *appsv1.DeploymentStatus) bool {
	old := d.Status
	oldOld := old.Replicas - old.UpdatedReplicas
	newOld := s.Replicas - s.UpdatedReplicas
	return s.UpdatedReplicas > old.UpdatedReplicas || newOld < oldOld ||
		s.ReadyReplicas > old.ReadyReplicas || s.AvailableReplicas > old.AvailableReplicas
}

// DeploymentTimedOut: the Progressing condition was last updated more than
// progressDeadlineSeconds before now.
func DeploymentTimedOut(d *appsv1.Deployment, s *appsv1.DeploymentStatus, now time.Time) bool {
	if !hasProgressDeadline(d) {
		return false
	}
	c := GetDeploymentCondition(s, appsv1.DeploymentProgressing)
	if c == nil || c.Reason == NewRSAvailableReason {
		return false
	}
	if c.Reason == TimedOutReason {
		return true
	}
	deadline := time.Duration(*d.Spec.ProgressDeadlineSeconds) * time.Second
	return c.LastUpdateTime.Add(deadline).Before(now)
}

// CalculateStatus derives the Deployment's status from its ReplicaSets
// and sets Available by whether replicas-maxUnavailable pods are
// available (calculateStatus).
func CalculateStatus(allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet, d *appsv1.Deployment, now time.Time) appsv1.DeploymentStatus {
	available := sumStatus(allRSs, statusAvailable)
	unavailable := max(sumSpec(allRSs)-available, 0)
	var updated int32
	if newRS != nil {
		updated = newRS.Status.Replicas
	}
	s := appsv1.DeploymentStatus{
		ObservedGeneration:  d.Generation,
		Replicas:            sumStatus(allRSs, statusReplicas),
		UpdatedReplicas:     updated,
		ReadyReplicas:       sumStatus(allRSs, statusReady),
		AvailableReplicas:   available,
		UnavailableReplicas: unavailable,
		CollisionCount:      d.Status.CollisionCount,
	}
	s.Conditions = append(s.Conditions, d.Status.Conditions...)
	if available >= deploymentReplicas(d)-MaxUnavailable(d) {
		SetDeploymentCondition(&s, NewDeploymentCondition(appsv1.DeploymentAvailable, corev1.ConditionTrue, MinimumReplicasAvailable, "Deployment has minimum availability.", now))
	} else {
		SetDeploymentCondition(&s, NewDeploymentCondition(appsv1.DeploymentAvailable, corev1.ConditionFalse, MinimumReplicasUnavailable, "Deployment does not have minimum availability.", now))
	}
	return s
}

// cloneWithHash returns labels plus the pod-template-hash label.
func cloneWithHash(labels map[string]string, hash string) map[string]string {
	out := maps.Clone(labels)
	if out == nil {
		out = map[string]string{}
	}
	out[appsv1.DefaultDeploymentUniqueLabelKey] = hash
	return out
}
