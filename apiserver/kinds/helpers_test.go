package kinds

import (
	"testing"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// resource returns the built-in resource with the plural name.
func builtin(t testing.TB, name string) *registry.Resource {
	t.Helper()
	for _, r := range Builtin() {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("no resource %q", name)
	return nil
}

// create runs a resource's create steps as the registry does:
// PrepareForCreate, Default, Validate. It returns the messages.
func create(t testing.TB, name string, obj api.Object) []string {
	t.Helper()
	st := builtin(t, name).Strategy
	st.PrepareForCreate(obj)
	st.Default(obj)
	return messages(st.Validate(obj))
}

// update runs the update steps on copies: PrepareForUpdate, Default,
// ValidateUpdate.
func update(t testing.TB, name string, obj, old api.Object) []string {
	t.Helper()
	st := builtin(t, name).Strategy
	st.PrepareForUpdate(obj, old)
	st.Default(obj)
	return messages(st.ValidateUpdate(obj, old))
}

func messages(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

func validPod() *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "nginx", Image: "nginx:1.27",
			Ports: []corev1.ContainerPort{{ContainerPort: 80}},
		}}},
	}
}

func template(labels map[string]string) corev1.PodTemplateSpec {
	p := validPod()
	return corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: p.Spec}
}

func validDeployment() *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: template(map[string]string{"app": "web"}),
		},
	}
}

func mustNoErrors(t *testing.T, msgs []string) {
	t.Helper()
	require.Empty(t, msgs)
}
