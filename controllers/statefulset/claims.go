package statefulset

import (
	"context"
	"fmt"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
)

// The claims of a StatefulSet's pods: each pod gets one
// PersistentVolumeClaim per volumeClaimTemplate, named
// <template>-<set>-<ordinal>, created before the pod and never deleted
// with it, so that a pod made again under the same name mounts the same
// claim — the set's "stable storage" (stateful_set_utils.go).

// ClaimName is getPersistentVolumeClaimName: <template>-<set>-<ordinal>.
func ClaimName(set *appsv1.StatefulSet, template *corev1.PersistentVolumeClaim, ord int) string {
	return template.Name + "-" + set.Name + "-" + strconv.Itoa(ord)
}

// NewClaims are the claims of ordinal ord, in template order: each
// template's copy named for the ordinal, in the set's namespace, labelled
// with the set's selector labels as well as its own. A set whose policy
// deletes claims with it owns them (not as their controller), so that the
// garbage collector removes them after it.
func NewClaims(set *appsv1.StatefulSet, ord int) []*corev1.PersistentVolumeClaim {
	var out []*corev1.PersistentVolumeClaim
	for i := range set.Spec.VolumeClaimTemplates {
		t := &set.Spec.VolumeClaimTemplates[i]
		c := &corev1.PersistentVolumeClaim{
			ObjectMeta: metav1.ObjectMeta{Name: ClaimName(set, t, ord), Namespace: set.Namespace,
				Labels: map[string]string{}, Annotations: t.Annotations},
			Spec: *t.Spec.DeepCopy(),
		}
		for k, v := range t.Labels {
			c.Labels[k] = v
		}
		if set.Spec.Selector != nil {
			for k, v := range set.Spec.Selector.MatchLabels {
				c.Labels[k] = v
			}
		}
		if p := set.Spec.PersistentVolumeClaimRetentionPolicy; p != nil && p.WhenDeleted == appsv1.DeletePersistentVolumeClaimRetentionPolicyType {
			ref := api.NewControllerRef(&set.ObjectMeta, GroupVersionKind)
			ref.Controller, ref.BlockOwnerDeletion = nil, nil
			c.OwnerReferences = []metav1.OwnerReference{*ref}
		}
		out = append(out, c)
	}
	return out
}

// UpdateStorage is updateStorage: the pod's volume named like each
// template points at the ordinal's claim (replacing a template volume of
// that name); the pod's other volumes follow.
func UpdateStorage(set *appsv1.StatefulSet, pod *corev1.Pod, ord int) {
	if len(set.Spec.VolumeClaimTemplates) == 0 {
		return
	}
	templates := map[string]bool{}
	var vols []corev1.Volume
	for i := range set.Spec.VolumeClaimTemplates {
		t := &set.Spec.VolumeClaimTemplates[i]
		templates[t.Name] = true
		vols = append(vols, corev1.Volume{Name: t.Name, VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: ClaimName(set, t, ord)}}})
	}
	for _, v := range pod.Spec.Volumes {
		if !templates[v.Name] {
			vols = append(vols, v)
		}
	}
	pod.Spec.Volumes = vols
}

// createClaims is createPersistentVolumeClaims: every claim of the
// ordinal that does not exist yet is created; one being deleted stops the
// pod's creation until it is gone.
func (ssc *StatefulSetController) createClaims(ctx context.Context, set *appsv1.StatefulSet, pod *corev1.Pod, ord int) error {
	claims := ssc.Client().PersistentVolumeClaims()
	for _, c := range NewClaims(set, ord) {
		cur, err := claims.Get(ctx, c.Namespace, c.Name)
		switch {
		case err == nil && cur.DeletionTimestamp != nil:
			return fmt.Errorf("pvc %s is being deleted", c.Name)
		case err == nil:
			continue
		case !api.IsNotFound(err):
			return err
		}
		if _, err := claims.Create(ctx, c); err != nil && !api.IsAlreadyExists(err) {
			ssc.Eventf(ctx, set, corev1.EventTypeWarning, FailedCreateReason, "create Claim %s for Pod %s in StatefulSet %s failed error: %v", c.Name, pod.Name, set.Name, err)
			return err
		}
		ssc.Eventf(ctx, set, corev1.EventTypeNormal, SuccessfulCreateReason, "create Claim %s for Pod %s in StatefulSet %s success", c.Name, pod.Name, set.Name)
	}
	return nil
}

// CondemnedClaimOwner is the owner reference a claim of ordinal ord gets
// before its pod is deleted by a scale-down under whenScaled: Delete
// (updateClaimOwnerRefForSetAndPod): the pod, so that the garbage
// collector removes the claim after it. Nil when the claim stays.
func CondemnedClaimOwner(set *appsv1.StatefulSet, pod *corev1.Pod, ord int) *metav1.OwnerReference {
	p := set.Spec.PersistentVolumeClaimRetentionPolicy
	if p == nil || p.WhenScaled != appsv1.DeletePersistentVolumeClaimRetentionPolicyType || pod == nil {
		return nil
	}
	if set.Spec.Replicas != nil && ord < int(*set.Spec.Replicas) {
		return nil // not a scale-down: the pod comes back and wants its claim
	}
	return &metav1.OwnerReference{APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: pod.UID}
}

// giveClaimsToPod puts CondemnedClaimOwner on the ordinal's claims.
func (ssc *StatefulSetController) giveClaimsToPod(ctx context.Context, set *appsv1.StatefulSet, pod *corev1.Pod, ord int) error {
	ref := CondemnedClaimOwner(set, pod, ord)
	if ref == nil {
		return nil
	}
	claims := ssc.Client().PersistentVolumeClaims()
	for _, want := range NewClaims(set, ord) {
		cur, err := claims.Get(ctx, want.Namespace, want.Name)
		if api.IsNotFound(err) {
			continue
		}
		if err != nil {
			return err
		}
		owned := false
		for _, r := range cur.OwnerReferences {
			owned = owned || r.UID == ref.UID
		}
		if owned {
			continue
		}
		upd := cur.DeepCopy()
		upd.OwnerReferences = append(upd.OwnerReferences, *ref)
		if _, err := claims.Update(ctx, upd); err != nil {
			return err
		}
	}
	return nil
}

func podNamed(pods []*corev1.Pod, name string) *corev1.Pod {
	for _, p := range pods {
		if p.Name == name {
			return p
		}
	}
	return nil
}
