package admission

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
)

// The ServiceAccount admission plugin (plugin/pkg/admission/serviceaccount
// in Kubernetes): every pod runs as a service account, "default"
// unless it names one; the account must exist; and unless the pod or the
// account opts out (automountServiceAccountToken: false), the pod gets the
// projected volume from which its containers read a token of the account,
// the cluster CA and their namespace. A pod that names no image pull
// secrets gets the account's.
const (
	// DefaultServiceAccountName is the account of a pod that names none.
	DefaultServiceAccountName = "default"
	// ServiceAccountTokenMountPath is where containers find the token.
	ServiceAccountTokenMountPath = "/var/run/secrets/kubernetes.io/serviceaccount"
	// ServiceAccountVolumePrefix starts the projected volume's name; five
	// random characters follow.
	ServiceAccountVolumePrefix = "kube-api-access-"
	// ServiceAccountTokenExpirationSeconds is the projected token's
	// lifetime: an hour and seven seconds, the odd value telling the
	// kubelet's tokens from others (warnafter, in Kubernetes).
	ServiceAccountTokenExpirationSeconds = 3607
	// RootCAConfigMapName is the ConfigMap the root-ca-cert-publisher
	// keeps in every namespace; its key ca.crt is the cluster CA.
	RootCAConfigMapName = "kube-root-ca.crt"
)

// ServiceAccountGetter reads a service account from the API server's
// storage.
type ServiceAccountGetter func(ctx context.Context, namespace, name string) (*corev1.ServiceAccount, error)

// ServiceAccount is the plugin. It mutates pod creations only.
type ServiceAccount struct {
	// Get reads the pod's service account.
	Get ServiceAccountGetter
	// Suffix returns n random characters for the volume's name (the API
	// server's name generator, seeded in step mode so that traces repeat).
	Suffix func(n int) string
}

// PluginName is the name kube-apiserver gives the plugin, in the trace
// and the admission metrics.
func (*ServiceAccount) PluginName() string { return "ServiceAccount" }

// Admit implements Mutator.
func (s *ServiceAccount) Admit(ctx context.Context, a *Attributes) error {
	if a.Operation != Create || a.Resource.Group != "" || a.Resource.Resource != "pods" || a.Subresource != "" {
		return nil
	}
	pod, ok := a.Object.(*corev1.Pod)
	if !ok {
		return nil
	}
	if _, mirror := pod.Annotations[corev1.MirrorPodAnnotationKey]; mirror {
		return nil // a static pod's mirror runs as no account
	}
	if pod.Spec.ServiceAccountName == "" {
		pod.Spec.ServiceAccountName = DefaultServiceAccountName
		// The v1 field's deprecated twin follows, as defaulting keeps
		// them equal (an update would otherwise seem to change it).
		pod.Spec.DeprecatedServiceAccount = DefaultServiceAccountName
	}
	sa, err := s.Get(ctx, a.Namespace, pod.Spec.ServiceAccountName)
	if api.IsNotFound(err) {
		// Worded as the plugin's lister words it, in the singular.
		err = api.NewNotFound(schema.GroupResource{Resource: "serviceaccount"}, pod.Spec.ServiceAccountName)
	}
	if err != nil {
		return api.NewForbidden(schema.GroupResource{Resource: "pods"}, a.Name,
			fmt.Errorf("error looking up service account %s/%s: %w", a.Namespace, pod.Spec.ServiceAccountName, err))
	}
	if automount(pod, sa) {
		s.mountToken(pod)
	}
	if len(pod.Spec.ImagePullSecrets) == 0 {
		// The account's pull secrets serve its pods ("Add
		// ImagePullSecrets to a service account").
		for _, ref := range sa.ImagePullSecrets {
			pod.Spec.ImagePullSecrets = append(pod.Spec.ImagePullSecrets, corev1.LocalObjectReference{Name: ref.Name})
		}
	}
	return nil
}

// automount is the pod's choice, else the account's, else true.
func automount(pod *corev1.Pod, sa *corev1.ServiceAccount) bool {
	if pod.Spec.AutomountServiceAccountToken != nil {
		return *pod.Spec.AutomountServiceAccountToken
	}
	if sa.AutomountServiceAccountToken != nil {
		return *sa.AutomountServiceAccountToken
	}
	return true
}

// mountToken adds the kube-api-access volume and mounts it in every
// container that has nothing mounted at the token path yet.
func (s *ServiceAccount) mountToken(pod *corev1.Pod) {
	name := ""
	for _, v := range pod.Spec.Volumes {
		if strings.HasPrefix(v.Name, ServiceAccountVolumePrefix) && v.Projected != nil {
			name = v.Name // already there (a pod recreated from a copy)
		}
	}
	mount := func(cs []corev1.Container) bool {
		added := false
		for i := range cs {
			if hasMountAt(cs[i].VolumeMounts, ServiceAccountTokenMountPath) {
				continue
			}
			if name == "" {
				name = ServiceAccountVolumePrefix + s.Suffix(5)
			}
			cs[i].VolumeMounts = append(cs[i].VolumeMounts, corev1.VolumeMount{Name: name, ReadOnly: true, MountPath: ServiceAccountTokenMountPath})
			added = true
		}
		return added
	}
	initAdded := mount(pod.Spec.InitContainers)
	added := mount(pod.Spec.Containers)
	if !initAdded && !added {
		return
	}
	for _, v := range pod.Spec.Volumes {
		if v.Name == name {
			return
		}
	}
	pod.Spec.Volumes = append(pod.Spec.Volumes, TokenVolume(name))
}

func hasMountAt(mounts []corev1.VolumeMount, path string) bool {
	for _, m := range mounts {
		if m.MountPath == path {
			return true
		}
	}
	return false
}

// TokenVolume is the projected volume the plugin adds: the token, the
// cluster CA and the namespace.
func TokenVolume(name string) corev1.Volume {
	expiration, mode := int64(ServiceAccountTokenExpirationSeconds), int32(0o644)
	return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
		DefaultMode: &mode,
		Sources: []corev1.VolumeProjection{
			{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{ExpirationSeconds: &expiration, Path: "token"}},
			{ConfigMap: &corev1.ConfigMapProjection{
				LocalObjectReference: corev1.LocalObjectReference{Name: RootCAConfigMapName},
				Items:                []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}},
			}},
			{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{
				Path: "namespace", FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"},
			}}}},
		},
	}}}
}
