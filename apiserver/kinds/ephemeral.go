package kinds

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// This file is pods/ephemeralcontainers: the subresource kubectl debug
// patches to add a container to a running pod (pkg/registry/core/pod's
// EphemeralContainersREST and podEphemeralContainersStrategy), and the
// validation of ephemeral containers (validateEphemeralContainers and
// ValidatePodEphemeralContainersUpdate in pkg/apis/core/validation).
// Left out: the diff Kubernetes prints after "may not be changed", and
// the static-pod check (kubesim has no static pods).

// ephemeralForbidden is the wording for a field an ephemeral container
// may not set (validateFieldAllowList's errorText).
const ephemeralForbidden = "cannot be set for an Ephemeral Container"

// ephemeralContainersSubresource serves pods/ephemeralcontainers: a write
// may change spec.ephemeralContainers and nothing else.
func ephemeralContainersSubresource() registry.UpdateSubresource {
	return registry.UpdateSubresource{
		PrepareForUpdate: func(obj, cur api.Object) {
			pod, old := obj.(*corev1.Pod), cur.(*corev1.Pod)
			ecs, rv := pod.Spec.EphemeralContainers, pod.ResourceVersion
			// dropNonEphemeralContainerUpdates: everything else, metadata
			// included (ResetObjectMetaForStatus), stays as stored.
			*pod = *old.DeepCopy()
			pod.ResourceVersion = rv
			pod.Spec.EphemeralContainers = ecs
			defaultEphemeralContainers(&pod.Spec)
		},
		ValidateUpdate: func(obj, cur api.Object) field.ErrorList {
			pod, old := obj.(*corev1.Pod), cur.(*corev1.Pod)
			errs := ValidatePodSpec(&pod.Spec, field.NewPath("spec"))
			return append(errs, validateEphemeralContainersUpdate(&pod.Spec, &old.Spec)...)
		},
	}
}

// defaultEphemeralContainers applies SetDefaults_Container to each one,
// as the v1 defaulting does (pull policy, termination message).
func defaultEphemeralContainers(spec *corev1.PodSpec) {
	for i := range spec.EphemeralContainers {
		ec := &spec.EphemeralContainers[i]
		c := api.EphemeralAsContainer(ec)
		defaultContainer(&c, spec.HostNetwork)
		ec.EphemeralContainerCommon = corev1.EphemeralContainerCommon(c)
	}
}

// validateEphemeralContainersUpdate: ephemeral containers once added are
// neither removed nor changed (patch does not keep their order, so each
// is looked up by name).
func validateEphemeralContainersUpdate(spec, old *corev1.PodSpec) field.ErrorList {
	var errs field.ErrorList
	p := field.NewPath("spec", "ephemeralContainers")
	byName := map[string]*corev1.EphemeralContainer{}
	for i := range spec.EphemeralContainers {
		byName[spec.EphemeralContainers[i].Name] = &spec.EphemeralContainers[i]
	}
	for _, o := range old.EphemeralContainers {
		n, ok := byName[o.Name]
		switch {
		case !ok:
			errs = append(errs, field.Forbidden(p, fmt.Sprintf("existing ephemeral containers %q may not be removed\n", o.Name)))
		case !jsonEqual(&o, n):
			errs = append(errs, field.Forbidden(p, fmt.Sprintf("existing ephemeral containers %q may not be changed\n", o.Name)))
		}
	}
	return errs
}

// validateEphemeralContainers checks spec.ephemeralContainers at p: each is
// a valid container whose name no other container of the pod has, whose
// target is one of the pod's (non-ephemeral) containers, and which sets
// none of the fields a pod's services rely on (ports, resources, probes,
// restartPolicy) nor a subPath.
func validateEphemeralContainers(spec *corev1.PodSpec, volumes map[string]bool, p *field.Path) field.ErrorList {
	if len(spec.EphemeralContainers) == 0 {
		return nil
	}
	names, others := map[string]bool{}, map[string]bool{}
	for _, c := range append(append([]corev1.Container{}, spec.Containers...), spec.InitContainers...) {
		names[c.Name], others[c.Name] = true, true
	}
	ctrs := make([]corev1.Container, len(spec.EphemeralContainers))
	for i := range spec.EphemeralContainers {
		ctrs[i] = api.EphemeralAsContainer(&spec.EphemeralContainers[i])
		// The allow list below reports these, once.
		ctrs[i].RestartPolicy, ctrs[i].Ports = nil, nil
	}
	errs := validateContainers(ctrs, volumes, names, p, false)
	for i := range spec.EphemeralContainers {
		ec := &spec.EphemeralContainers[i]
		ip := p.Index(i)
		if ec.TargetContainerName != "" && !others[ec.TargetContainerName] {
			errs = append(errs, field.NotFound(ip.Child("targetContainerName"), ec.TargetContainerName))
		}
		// The fields outside allowedEphemeralContainerFields, in the
		// order of the Kubernetes type.
		forbidden := []struct {
			name string
			set  bool
		}{
			{"ports", len(ec.Ports) > 0},
			{"resources", len(ec.Resources.Limits) > 0 || len(ec.Resources.Requests) > 0},
			{"restartPolicy", ec.RestartPolicy != nil},
			{"livenessProbe", ec.LivenessProbe != nil},
			{"readinessProbe", ec.ReadinessProbe != nil},
			{"startupProbe", ec.StartupProbe != nil},
		}
		for _, f := range forbidden {
			if f.set {
				errs = append(errs, field.Forbidden(ip.Child(f.name), ephemeralForbidden))
			}
		}
		for j, m := range ec.VolumeMounts {
			if m.SubPath != "" {
				errs = append(errs, field.Forbidden(ip.Child("volumeMounts").Index(j).Child("subPath"), ephemeralForbidden))
			}
		}
	}
	return errs
}
