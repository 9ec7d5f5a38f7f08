package controller

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	oamv1 "github.com/kubesim/kubesim/examples/steward-operator/api/v1"
	webhookv1 "github.com/kubesim/kubesim/examples/steward-operator/internal/webhook/v1"
)

// eventually polls cond until it holds or a minute passes: the tests wait
// for conditions, never for a time.
func eventually(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	var last string
	for time.Now().Before(deadline) {
		var ok bool
		if ok, last = cond(); ok {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s: not within a minute (last: %s)", what, last)
}

// TestSteward runs the operator's whole life against kubesim, through one
// envtest start: the subtests share it (and run in order) because the
// start is the cost worth sharing.
func TestSteward(t *testing.T) {
	s := setup(t)
	ctx := context.Background()
	c := s.k8s

	t.Run("webhook defaults image and replicas", func(t *testing.T) {
		st := &oamv1.Steward{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
			Spec: oamv1.StewardSpec{Owner: "team-a", Config: map[string]string{"GREETING": "hello"}}}
		if err := c.Create(ctx, st); err != nil {
			t.Fatalf("create: %v", err)
		}
		// The object the API server stored (and returned) went through
		// the mutating webhook's JSONPatch.
		if st.Spec.Image != webhookv1.DefaultImage || st.Spec.Replicas == nil || *st.Spec.Replicas != 1 {
			t.Fatalf("not defaulted: image %q replicas %v", st.Spec.Image, st.Spec.Replicas)
		}
	})

	t.Run("owned ConfigMap and Deployment", func(t *testing.T) {
		var st oamv1.Steward
		if err := c.Get(ctx, types.NamespacedName{Namespace: "default", Name: "web"}, &st); err != nil {
			t.Fatal(err)
		}
		var cm corev1.ConfigMap
		eventually(t, "configmap web-config", func() (bool, string) {
			err := c.Get(ctx, types.NamespacedName{Namespace: "default", Name: "web-config"}, &cm)
			return err == nil, errString(err)
		})
		if cm.Data["GREETING"] != "hello" {
			t.Errorf("configmap data %v, want GREETING=hello", cm.Data)
		}
		assertControlledBy(t, cm.OwnerReferences, &st)
		var dep appsv1.Deployment
		eventually(t, "deployment web", func() (bool, string) {
			err := c.Get(ctx, types.NamespacedName{Namespace: "default", Name: "web"}, &dep)
			return err == nil, errString(err)
		})
		assertControlledBy(t, dep.OwnerReferences, &st)
		if img := dep.Spec.Template.Spec.Containers[0].Image; img != webhookv1.DefaultImage {
			t.Errorf("deployment image %q", img)
		}
	})

	t.Run("status reports ready replicas", func(t *testing.T) {
		// kubesim runs the Deployment and ReplicaSet controllers, the
		// scheduler and a kubelet: the pod gets Ready and the operator
		// sees it through its watch on the owned Deployment.
		eventually(t, "steward web Available", func() (bool, string) {
			var st oamv1.Steward
			if err := c.Get(ctx, types.NamespacedName{Namespace: "default", Name: "web"}, &st); err != nil {
				return false, err.Error()
			}
			cond := meta.FindStatusCondition(st.Status.Conditions, "Available")
			ok := st.Status.ReadyReplicas == 1 && cond != nil && cond.Status == metav1.ConditionTrue &&
				st.Status.Deployment == "web" && st.Status.ConfigMap == "web-config"
			return ok, strings.TrimSpace(strings.ReplaceAll(stringify(st.Status), "\n", " "))
		})
	})

	t.Run("validating webhook refuses :latest", func(t *testing.T) {
		st := &oamv1.Steward{ObjectMeta: metav1.ObjectMeta{Name: "moving", Namespace: "default"},
			Spec: oamv1.StewardSpec{Owner: "team-a", Image: "nginx:latest"}}
		err := c.Create(ctx, st)
		if !apierrors.IsInvalid(err) {
			t.Fatalf("create with :latest: got %v, want Invalid from the webhook", err)
		}
		if !strings.Contains(err.Error(), `admission webhook "vsteward-v1.kb.io" denied the request`) ||
			!strings.Contains(err.Error(), "the :latest tag is not allowed") {
			t.Errorf("message %q", err.Error())
		}
		if err := c.Get(ctx, client.ObjectKeyFromObject(st), &oamv1.Steward{}); !apierrors.IsNotFound(err) {
			t.Errorf("refused steward stored: %v", err)
		}
	})

	t.Run("schema refuses from the markers", func(t *testing.T) {
		st := &oamv1.Steward{ObjectMeta: metav1.ObjectMeta{Name: "big", Namespace: "default"},
			Spec: oamv1.StewardSpec{Owner: "team-a", Replicas: ptr.To[int32](11)}}
		err := c.Create(ctx, st)
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.replicas") ||
			!strings.Contains(err.Error(), "should be less than or equal to 10") {
			t.Fatalf("replicas 11: %v", err)
		}
		var web oamv1.Steward
		if err := c.Get(ctx, types.NamespacedName{Namespace: "default", Name: "web"}, &web); err != nil {
			t.Fatal(err)
		}
		web.Spec.Owner = "team-b"
		err = c.Update(ctx, &web)
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "owner is immutable") {
			t.Fatalf("owner change: %v", err)
		}
	})

	t.Run("delete: garbage collector removes owned objects", func(t *testing.T) {
		if err := c.Delete(ctx, &oamv1.Steward{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"}}); err != nil {
			t.Fatal(err)
		}
		for _, obj := range []client.Object{
			&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"}},
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "web-config", Namespace: "default"}},
		} {
			eventually(t, "garbage collection of "+obj.GetName(), func() (bool, string) {
				err := c.Get(ctx, client.ObjectKeyFromObject(obj), obj)
				return apierrors.IsNotFound(err), errString(err)
			})
		}
	})

	t.Run("namespace deletion removes the steward and its objects", func(t *testing.T) {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "doomed"}}
		if err := c.Create(ctx, ns); err != nil {
			t.Fatal(err)
		}
		st := &oamv1.Steward{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "doomed"}, Spec: oamv1.StewardSpec{Owner: "x"}}
		if err := c.Create(ctx, st); err != nil {
			t.Fatal(err)
		}
		eventually(t, "deployment doomed/s", func() (bool, string) {
			err := c.Get(ctx, types.NamespacedName{Namespace: "doomed", Name: "s"}, &appsv1.Deployment{})
			return err == nil, errString(err)
		})
		if err := c.Delete(ctx, ns); err != nil {
			t.Fatal(err)
		}
		eventually(t, "namespace doomed gone", func() (bool, string) {
			err := c.Get(ctx, client.ObjectKeyFromObject(ns), &corev1.Namespace{})
			return apierrors.IsNotFound(err), errString(err)
		})
	})
}

func assertControlledBy(t *testing.T, refs []metav1.OwnerReference, st *oamv1.Steward) {
	t.Helper()
	for _, r := range refs {
		if r.UID == st.UID && r.Kind == "Steward" && r.APIVersion == oamv1.GroupVersion.String() && r.Controller != nil && *r.Controller {
			return
		}
	}
	t.Errorf("owner references %+v: no controller reference to Steward %s (%s)", refs, st.Name, st.UID)
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

func stringify(v any) string { return fmt.Sprintf("%+v", v) }
