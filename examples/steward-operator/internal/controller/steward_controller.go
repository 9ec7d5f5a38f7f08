// Package controller holds the Steward reconciler, the part
// `kubebuilder create api` scaffolds: a controller-runtime Reconciler that
// makes a Steward's Deployment and ConfigMap match its spec and reports
// what it saw in the Steward's status.
package controller

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	oamv1 "github.com/kubesim/kubesim/examples/steward-operator/api/v1"
)

// StewardReconciler reconciles a Steward object.
type StewardReconciler struct {
	client.Client
	Scheme *runtime.Scheme
}

// The RBAC markers below become config/rbac/role.yaml (controller-gen
// rbac). Least privilege: the operator never deletes what it owns — the
// garbage collector does, through the owner references — so it has no
// delete verb on Deployments or ConfigMaps.
//
// +kubebuilder:rbac:groups=oam.crd.fp.net,resources=stewards,verbs=get;list;watch
// +kubebuilder:rbac:groups=oam.crd.fp.net,resources=stewards/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=oam.crd.fp.net,resources=stewards/finalizers,verbs=update
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;update;patch
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;list;watch;create;update;patch

// Reconcile is level-triggered: whatever event woke it, it reads the
// Steward and makes the world match, so running it twice is harmless.
func (r *StewardReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	log := logf.FromContext(ctx)

	var st oamv1.Steward
	if err := r.Get(ctx, req.NamespacedName, &st); err != nil {
		// Deleted: its Deployment and ConfigMap go with it through the
		// garbage collector, so there is nothing to do.
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !st.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}

	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: st.Name + "-config", Namespace: st.Namespace}}
	op, err := controllerutil.CreateOrUpdate(ctx, r.Client, cm, func() error {
		cm.Labels = labels(&st)
		cm.Data = st.Spec.Config
		return controllerutil.SetControllerReference(&st, cm, r.Scheme)
	})
	if err != nil {
		return ctrl.Result{}, fmt.Errorf("configmap %s: %w", cm.Name, err)
	}
	if op != controllerutil.OperationResultNone {
		log.Info("configmap "+string(op), "configmap", cm.Name)
	}

	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: st.Name, Namespace: st.Namespace}}
	op, err = controllerutil.CreateOrUpdate(ctx, r.Client, dep, func() error {
		lbl := labels(&st)
		dep.Labels = lbl
		dep.Spec.Replicas = st.Spec.Replicas
		if dep.Spec.Selector == nil { // the selector is immutable: set it once
			dep.Spec.Selector = &metav1.LabelSelector{MatchLabels: lbl}
		}
		dep.Spec.Template.Labels = lbl
		dep.Spec.Template.Spec.Containers = []corev1.Container{{
			Name:  "steward",
			Image: st.Spec.Image,
			EnvFrom: []corev1.EnvFromSource{{
				ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: cm.Name}},
			}},
		}}
		return controllerutil.SetControllerReference(&st, dep, r.Scheme)
	})
	if err != nil {
		return ctrl.Result{}, fmt.Errorf("deployment %s: %w", dep.Name, err)
	}
	if op != controllerutil.OperationResultNone {
		log.Info("deployment "+string(op), "deployment", dep.Name)
	}

	want := int32(1)
	if st.Spec.Replicas != nil {
		want = *st.Spec.Replicas
	}
	st.Status.Deployment = dep.Name
	st.Status.ConfigMap = cm.Name
	st.Status.ReadyReplicas = dep.Status.ReadyReplicas
	st.Status.ObservedGeneration = st.Generation
	cond := metav1.Condition{Type: "Available", Status: metav1.ConditionFalse, Reason: "Progressing",
		Message: fmt.Sprintf("%d of %d replicas ready", dep.Status.ReadyReplicas, want), ObservedGeneration: st.Generation}
	if dep.Status.ReadyReplicas >= want && dep.Status.ObservedGeneration >= dep.Generation {
		cond.Status, cond.Reason = metav1.ConditionTrue, "ReplicasReady"
	}
	meta.SetStatusCondition(&st.Status.Conditions, cond)
	if err := r.Status().Update(ctx, &st); err != nil {
		if apierrors.IsConflict(err) {
			return ctrl.Result{Requeue: true}, nil // a newer Steward: read it again
		}
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, nil
}

func labels(st *oamv1.Steward) map[string]string {
	return map[string]string{"app.kubernetes.io/name": "steward", "app.kubernetes.io/instance": st.Name}
}

// SetupWithManager watches Stewards and the objects they own: a change to
// an owned Deployment (its ready count) wakes the reconciler for its owner.
func (r *StewardReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&oamv1.Steward{}).
		Owns(&appsv1.Deployment{}).
		Owns(&corev1.ConfigMap{}).
		Named("steward").
		Complete(r)
}
