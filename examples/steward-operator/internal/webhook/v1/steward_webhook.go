// Package v1 holds the Steward's admission webhooks, the part
// `kubebuilder create webhook --group oam --version v1 --kind Steward
// --defaulting --programmatic-validation` scaffolds: a Defaulter and a
// Validator that controller-runtime's webhook server serves as
// AdmissionReview v1 endpoints (/mutate-oam-crd-fp-net-v1-steward and
// /validate-oam-crd-fp-net-v1-steward).
package v1

import (
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	oamv1 "github.com/kubesim/kubesim/examples/steward-operator/api/v1"
)

// DefaultImage is what the defaulting webhook puts in an empty spec.image.
const DefaultImage = "nginx:1.27"

// SetupStewardWebhookWithManager registers both webhooks with the
// manager's webhook server.
func SetupStewardWebhookWithManager(mgr ctrl.Manager) error {
	return ctrl.NewWebhookManagedBy(mgr, &oamv1.Steward{}).
		WithDefaulter(&StewardCustomDefaulter{}).
		WithValidator(&StewardCustomValidator{}).
		Complete()
}

// The webhook markers become config/webhook/manifests.yaml (controller-gen
// webhook): a MutatingWebhookConfiguration and a
// ValidatingWebhookConfiguration whose clientConfig names a Service; envtest
// (and the lab) rewrite it to a url: on the host.
//
// +kubebuilder:webhook:path=/mutate-oam-crd-fp-net-v1-steward,mutating=true,failurePolicy=fail,sideEffects=None,groups=oam.crd.fp.net,resources=stewards,verbs=create;update,versions=v1,name=msteward-v1.kb.io,admissionReviewVersions=v1

// StewardCustomDefaulter fills in what a user may leave out.
type StewardCustomDefaulter struct{}

// Default sets spec.image and spec.replicas when they are empty; the
// webhook server turns the change into a JSONPatch.
func (d *StewardCustomDefaulter) Default(_ context.Context, st *oamv1.Steward) error {
	if st.Spec.Image == "" {
		st.Spec.Image = DefaultImage
	}
	if st.Spec.Replicas == nil {
		one := int32(1)
		st.Spec.Replicas = &one
	}
	return nil
}

// +kubebuilder:webhook:path=/validate-oam-crd-fp-net-v1-steward,mutating=false,failurePolicy=fail,sideEffects=None,groups=oam.crd.fp.net,resources=stewards,verbs=create;update,versions=v1,name=vsteward-v1.kb.io,admissionReviewVersions=v1

// StewardCustomValidator refuses what the OpenAPI schema cannot express.
type StewardCustomValidator struct{}

// ValidateCreate checks a new Steward.
func (v *StewardCustomValidator) ValidateCreate(_ context.Context, st *oamv1.Steward) (admission.Warnings, error) {
	return validate(st)
}

// ValidateUpdate checks a changed Steward.
func (v *StewardCustomValidator) ValidateUpdate(_ context.Context, _, st *oamv1.Steward) (admission.Warnings, error) {
	return validate(st)
}

// ValidateDelete allows every delete (the webhook is not registered for
// DELETE anyway).
func (v *StewardCustomValidator) ValidateDelete(context.Context, *oamv1.Steward) (admission.Warnings, error) {
	return nil, nil
}

// validate refuses an image pinned to the moving ":latest" tag (a rollout
// could not tell two versions apart), and warns when a Steward has no
// replicas, the two checks the schema cannot make.
func validate(st *oamv1.Steward) (admission.Warnings, error) {
	var warnings admission.Warnings
	var errs field.ErrorList
	if strings.HasSuffix(st.Spec.Image, ":latest") {
		errs = append(errs, field.Invalid(field.NewPath("spec", "image"), st.Spec.Image, "the :latest tag is not allowed; pin a version"))
	}
	if st.Spec.Replicas != nil && *st.Spec.Replicas == 0 {
		warnings = append(warnings, fmt.Sprintf("steward %s has 0 replicas: nothing will run", st.Name))
	}
	if len(errs) == 0 {
		return warnings, nil
	}
	return warnings, apierrors.NewInvalid(schema.GroupKind{Group: oamv1.GroupVersion.Group, Kind: "Steward"}, st.Name, errs)
}
