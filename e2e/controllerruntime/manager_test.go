package controllerruntime

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/kubesim/kubesim/e2e/framework"
)

const wait = 30 * time.Second

const poll = 20 * time.Millisecond

var widgetGVK = schema.GroupVersionKind{Group: framework.WidgetGroup, Version: "v1", Kind: "Widget"}

func newWidget() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(widgetGVK)
	return u
}

// widgetReconciler is a kubebuilder-style reconciler: for each Widget it
// keeps a ConfigMap NAME-config holding the widget's size, owned by the
// widget (a controller reference), and reports what it saw in the
// widget's status.
type widgetReconciler struct {
	client.Client
}

func (r *widgetReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	w := newWidget()
	if err := r.Get(ctx, req.NamespacedName, w); err != nil {
		// Gone: its ConfigMap is the garbage collector's to delete.
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !w.GetDeletionTimestamp().IsZero() {
		return ctrl.Result{}, nil
	}
	size, _, err := unstructured.NestedInt64(w.Object, "spec", "size")
	if err != nil {
		return ctrl.Result{}, err
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: w.GetName() + "-config", Namespace: w.GetNamespace()}}
	if _, err := controllerutil.CreateOrUpdate(ctx, r.Client, cm, func() error {
		cm.Data = map[string]string{"size": fmt.Sprint(size)}
		return controllerutil.SetControllerReference(w, cm, r.Scheme())
	}); err != nil {
		return ctrl.Result{}, err
	}
	observed := fmt.Sprintf("size=%d", size)
	if cur, _, _ := unstructured.NestedString(w.Object, "status", "observed"); cur != observed {
		if err := unstructured.SetNestedField(w.Object, observed, "status", "observed"); err != nil {
			return ctrl.Result{}, err
		}
		if err := r.Status().Update(ctx, w); err != nil {
			return ctrl.Result{}, err
		}
	}
	return ctrl.Result{}, nil
}

// TestManagerReconcilesAndGarbageCollects runs a controller-runtime
// manager (leader election on a Lease, metrics and probes off) with a
// reconciler for a custom resource that owns a ConfigMap per widget. The
// ConfigMap appears with its owner reference, follows the widget's spec,
// comes back when deleted by hand, and is garbage-collected once the
// widget is deleted — background and foreground.
func TestManagerReconcilesAndGarbageCollects(t *testing.T) {
	k := framework.Start(t, framework.Options{})
	k.CreateCRD(t, framework.WidgetCRD())

	scheme := runtime.NewScheme()
	require.NoError(t, clientgoscheme.AddToScheme(scheme))
	mgr, err := ctrl.NewManager(k.RestConfig(), ctrl.Options{
		Scheme:                        scheme,
		Logger:                        bufferedLogger(t),
		Metrics:                       metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress:        "0",
		LeaderElection:                true,
		LeaderElectionID:              "e2e-widget-operator",
		LeaderElectionNamespace:       "default",
		LeaderElectionReleaseOnCancel: true,
		Controller:                    config.Controller{SkipNameValidation: ptr.To(true)},
	})
	require.NoError(t, err)
	require.NoError(t, ctrl.NewControllerManagedBy(mgr).
		For(newWidget()).
		Owns(&corev1.ConfigMap{}).
		Complete(&widgetReconciler{Client: mgr.GetClient()}))

	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	defer func() {
		cancel()
		select {
		case err := <-done:
			assert.NoError(t, err, "manager stops cleanly")
		case <-time.After(wait):
			t.Errorf("manager did not stop within %v", wait)
		}
	}()
	select {
	case <-mgr.Elected():
	case err := <-done:
		t.Fatalf("manager stopped: %v", err)
	case <-time.After(wait):
		t.Fatalf("manager not elected within %v", wait)
	}

	cs, err := kubernetes.NewForConfig(k.RestConfig())
	require.NoError(t, err)
	lease, err := cs.CoordinationV1().Leases("default").Get(t.Context(), "e2e-widget-operator", metav1.GetOptions{})
	require.NoError(t, err, "the manager's leader election lease")
	require.NotNil(t, lease.Spec.HolderIdentity)
	assert.NotEmpty(t, *lease.Spec.HolderIdentity)

	dyn, err := dynamic.NewForConfig(k.RestConfig())
	require.NoError(t, err)
	widgets := dyn.Resource(widgetGVK.GroupVersion().WithResource("widgets")).Namespace("default")
	cms := cs.CoreV1().ConfigMaps("default")
	create := func(name string, size int64) *unstructured.Unstructured {
		w := newWidget()
		w.SetName(name)
		require.NoError(t, unstructured.SetNestedField(w.Object, size, "spec", "size"))
		w, err := widgets.Create(t.Context(), w, metav1.CreateOptions{})
		require.NoError(t, err)
		return w
	}
	// configMapFor waits until the widget's ConfigMap holds size.
	configMapFor := func(w *unstructured.Unstructured, size string) *corev1.ConfigMap {
		var cm *corev1.ConfigMap
		require.Eventually(t, func() bool {
			cm, err = cms.Get(t.Context(), w.GetName()+"-config", metav1.GetOptions{})
			return err == nil && cm.Data["size"] == size
		}, wait, poll, "ConfigMap of %s with size %s", w.GetName(), size)
		return cm
	}

	w1 := create("w1", 3)
	cm := configMapFor(w1, "3")
	require.Len(t, cm.OwnerReferences, 1)
	ref := cm.OwnerReferences[0]
	assert.Equal(t, metav1.OwnerReference{APIVersion: framework.WidgetGroup + "/v1", Kind: "Widget", Name: "w1", UID: w1.GetUID(),
		Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}, ref)
	require.Eventually(t, func() bool {
		w, err := widgets.Get(t.Context(), "w1", metav1.GetOptions{})
		if err != nil {
			return false
		}
		s, _, _ := unstructured.NestedString(w.Object, "status", "observed")
		return s == "size=3"
	}, wait, poll, "the reconciler writes the widget's status")

	_, err = widgets.Patch(t.Context(), "w1", types.MergePatchType, []byte(`{"spec":{"size":5}}`), metav1.PatchOptions{})
	require.NoError(t, err)
	configMapFor(w1, "5")

	// Deleting the owned ConfigMap by hand wakes the reconciler through
	// Owns, which makes it again.
	require.NoError(t, cms.Delete(t.Context(), "w1-config", metav1.DeleteOptions{}))
	again := configMapFor(w1, "5")
	assert.NotEqual(t, cm.UID, again.UID, "a new ConfigMap")

	require.NoError(t, widgets.Delete(t.Context(), "w1", metav1.DeleteOptions{}))
	require.Eventually(t, func() bool {
		_, err := cms.Get(t.Context(), "w1-config", metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	}, wait, poll, "the garbage collector deletes the ConfigMap of a deleted widget")

	// Foreground: the widget stays, with the foregroundDeletion
	// finalizer, until the ConfigMap that blocks it is gone.
	w2 := create("w2", 1)
	configMapFor(w2, "1")
	require.NoError(t, widgets.Delete(t.Context(), "w2", metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationForeground)}))
	require.Eventually(t, func() bool {
		_, errW := widgets.Get(t.Context(), "w2", metav1.GetOptions{})
		_, errC := cms.Get(t.Context(), "w2-config", metav1.GetOptions{})
		return apierrors.IsNotFound(errW) && apierrors.IsNotFound(errC)
	}, wait, poll, "foreground deletion removes the ConfigMap, then the widget")

	// The manager's cache, fed by its informers, catches up.
	require.Eventually(t, func() bool {
		var list corev1.ConfigMapList
		if err := mgr.GetClient().List(t.Context(), &list, client.InNamespace("default")); err != nil {
			return false
		}
		for _, c := range list.Items {
			if c.Name == "w1-config" || c.Name == "w2-config" {
				return false
			}
		}
		return true
	}, wait, poll, "the manager's cache forgets the collected ConfigMaps")
}
