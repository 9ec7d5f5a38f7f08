package v1

import (
	"context"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	oamv1 "github.com/kubesim/kubesim/examples/steward-operator/api/v1"
)

// The webhooks as plain Go; the envtest suite in internal/controller
// checks them through the API server.

func TestDefaultFillsOnlyWhatIsEmpty(t *testing.T) {
	st := &oamv1.Steward{}
	if err := (&StewardCustomDefaulter{}).Default(context.Background(), st); err != nil {
		t.Fatal(err)
	}
	if st.Spec.Image != DefaultImage || st.Spec.Replicas == nil || *st.Spec.Replicas != 1 {
		t.Fatalf("defaults: image %q replicas %v", st.Spec.Image, st.Spec.Replicas)
	}
	three := int32(3)
	st = &oamv1.Steward{Spec: oamv1.StewardSpec{Image: "busybox:1.36", Replicas: &three}}
	if err := (&StewardCustomDefaulter{}).Default(context.Background(), st); err != nil {
		t.Fatal(err)
	}
	if st.Spec.Image != "busybox:1.36" || *st.Spec.Replicas != 3 {
		t.Fatalf("defaulter overwrote the user's values: %+v", st.Spec)
	}
}

func TestValidateRefusesLatestAndWarnsOnZero(t *testing.T) {
	v := &StewardCustomValidator{}
	bad := &oamv1.Steward{ObjectMeta: metav1.ObjectMeta{Name: "x"}, Spec: oamv1.StewardSpec{Image: "nginx:latest"}}
	_, err := v.ValidateCreate(context.Background(), bad)
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), `Steward.oam.crd.fp.net "x" is invalid: spec.image`) {
		t.Fatalf("create nginx:latest: %v", err)
	}
	if _, err := v.ValidateUpdate(context.Background(), &oamv1.Steward{}, bad); !apierrors.IsInvalid(err) {
		t.Fatalf("update to nginx:latest: %v", err)
	}
	zero := int32(0)
	warnings, err := v.ValidateCreate(context.Background(), &oamv1.Steward{ObjectMeta: metav1.ObjectMeta{Name: "idle"},
		Spec: oamv1.StewardSpec{Image: "nginx:1.27", Replicas: &zero}})
	if err != nil || len(warnings) != 1 || !strings.Contains(warnings[0], "0 replicas") {
		t.Fatalf("zero replicas: warnings %v err %v", warnings, err)
	}
}
