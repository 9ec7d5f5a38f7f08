package kinds

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api/field"
)

func ephemeralPod() *corev1.Pod {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", ResourceVersion: "5", Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{
			InitContainers: []corev1.Container{{Name: "init", Image: "busybox"}},
			Containers:     []corev1.Container{{Name: "web", Image: "nginx"}},
		},
		Status: corev1.PodStatus{Phase: corev1.PodRunning},
	}
	DefaultPodSpec(&pod.Spec)
	return pod
}

func errorStrings(errs field.ErrorList) []string {
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = e.Error()
	}
	return out
}

// validateEphemeralContainers in Kubernetes' words: names unique across
// every kind of container, a target among the pod's own containers, and
// none of the fields a pod's service relies on.
func TestValidateEphemeralContainers(t *testing.T) {
	pod := ephemeralPod()
	pod.Spec.EphemeralContainers = []corev1.EphemeralContainer{
		{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "init", Image: "busybox"}},
		{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "dbg", Image: "busybox"}, TargetContainerName: "nope"},
		{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "bad", Image: "busybox",
			Ports:          []corev1.ContainerPort{{ContainerPort: 80}},
			Resources:      corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}},
			LivenessProbe:  &corev1.Probe{},
			ReadinessProbe: &corev1.Probe{},
			VolumeMounts:   []corev1.VolumeMount{{Name: "v", MountPath: "/v", SubPath: "x"}},
		}},
	}
	pod.Spec.Volumes = []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
	DefaultPodSpec(&pod.Spec)
	assert.Equal(t, []string{
		`spec.ephemeralContainers[0].name: Duplicate value: "init"`,
		`spec.ephemeralContainers[1].targetContainerName: Not found: "nope"`,
		`spec.ephemeralContainers[2].ports: Forbidden: cannot be set for an Ephemeral Container`,
		`spec.ephemeralContainers[2].resources: Forbidden: cannot be set for an Ephemeral Container`,
		`spec.ephemeralContainers[2].livenessProbe: Forbidden: cannot be set for an Ephemeral Container`,
		`spec.ephemeralContainers[2].readinessProbe: Forbidden: cannot be set for an Ephemeral Container`,
		`spec.ephemeralContainers[2].volumeMounts[0].subPath: Forbidden: cannot be set for an Ephemeral Container`,
	}, errorStrings(ValidatePodSpec(&pod.Spec, field.NewPath("spec"))))

	// Never on create, never in a template.
	pod = ephemeralPod()
	pod.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "dbg", Image: "busybox"}}}
	DefaultPodSpec(&pod.Spec)
	assert.Equal(t, []string{"spec.ephemeralContainers: Forbidden: cannot be set on create"}, errorStrings(podStrategy{}.Validate(pod)))
	tmpl := &corev1.PodTemplateSpec{Spec: pod.Spec}
	assert.Contains(t, errorStrings(ValidatePodTemplateSpec(tmpl, field.NewPath("spec", "template"))),
		"spec.template.spec.ephemeralContainers: Forbidden: ephemeral containers not allowed in pod template")
}

// pods/ephemeralcontainers changes spec.ephemeralContainers and nothing
// else; what it added stays as it is.
func TestEphemeralContainersSubresource(t *testing.T) {
	sub := ephemeralContainersSubresource()
	old := ephemeralPod()
	obj := old.DeepCopy()
	obj.Labels["app"] = "changed"
	obj.Spec.Containers[0].Image = "httpd"
	obj.Status.Phase = corev1.PodFailed
	obj.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "dbg", Image: "busybox", Stdin: true}, TargetContainerName: "web"}}
	sub.PrepareForUpdate(obj, old)
	assert.Equal(t, "web", obj.Labels["app"])
	assert.Equal(t, "nginx", obj.Spec.Containers[0].Image)
	assert.Equal(t, corev1.PodRunning, obj.Status.Phase)
	assert.Equal(t, "dbg", obj.Spec.EphemeralContainers[0].Name)
	// Defaulted as a container is.
	assert.Equal(t, corev1.TerminationMessageReadFile, obj.Spec.EphemeralContainers[0].TerminationMessagePolicy)
	assert.Equal(t, corev1.PullAlways, obj.Spec.EphemeralContainers[0].ImagePullPolicy)
	assert.Empty(t, sub.ValidateUpdate(obj, old))

	changed := obj.DeepCopy()
	changed.Spec.EphemeralContainers[0].Image = "alpine"
	assert.Equal(t, []string{"spec.ephemeralContainers: Forbidden: existing ephemeral containers \"dbg\" may not be changed\n"},
		errorStrings(sub.ValidateUpdate(changed, obj)))
	removed := obj.DeepCopy()
	removed.Spec.EphemeralContainers = nil
	assert.Equal(t, []string{"spec.ephemeralContainers: Forbidden: existing ephemeral containers \"dbg\" may not be removed\n"},
		errorStrings(sub.ValidateUpdate(removed, obj)))

	// Through the pod itself they cannot change at all.
	viaPod := obj.DeepCopy()
	viaPod.Spec.EphemeralContainers = append(viaPod.Spec.EphemeralContainers,
		corev1.EphemeralContainer{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "dbg2", Image: "busybox"}})
	DefaultPodSpec(&viaPod.Spec)
	assert.Contains(t, errorStrings(podStrategy{}.ValidateUpdate(viaPod, obj)), "spec: Forbidden: "+podUpdatableFields)
}
