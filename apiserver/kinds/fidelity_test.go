package kinds_test

import (
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/apiservertest"
	"github.com/kubesim/kubesim/apiserver/kinds"
)

func plainPod(name string) *corev1.Pod {
	return &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
}

// A write that sets fields kubesim stores without simulating is answered
// with one Warning header naming them all, in kube-apiserver's format; a
// plain pod, and a pod whose defaults the server fills, get none.
func TestNotSimulatedWarning(t *testing.T) {
	env := apiservertest.New(t)
	h := env.Server.LoopbackHandler()
	pods := &roundTrip{t: t, h: h, res: env.Server.Resources()[0], wire: "json"}
	for _, r := range env.Server.Resources() {
		if r.Name == "pods" {
			pods.res = r
		}
	}
	warnings := func(method, path string, obj api.Object) []string {
		t.Helper()
		rec := pods.do(method, path, obj, "json", "")
		require.Less(t, rec.Code, 300, rec.Body.String())
		return rec.Header().Values("Warning")
	}

	assert.Empty(t, warnings("POST", "/api/v1/namespaces/default/pods", plainPod("plain")))
	// What the defaults fill in (an empty securityContext, dnsPolicy,
	// enableServiceLinks) is no reason to warn.
	defaulted := plainPod("defaulted")
	defaulted.Spec.SecurityContext = &corev1.PodSecurityContext{}
	defaulted.Spec.DNSPolicy = corev1.DNSClusterFirst
	defaulted.Spec.EnableServiceLinks = ptr(true)
	assert.Empty(t, warnings("POST", "/api/v1/namespaces/default/pods", defaulted))

	pod := plainPod("confined")
	pod.Spec.SecurityContext = &corev1.PodSecurityContext{SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
		Sysctls: []corev1.Sysctl{{Name: "net.core.somaxconn", Value: "1024"}}}
	pod.Spec.HostAliases = []corev1.HostAlias{{IP: "10.1.2.3", Hostnames: []string{"db"}}}
	// Acted on by other parts of kubesim: not named.
	pod.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "kubernetes.io/hostname",
		WhenUnsatisfiable: corev1.ScheduleAnyway, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}}}}
	pod.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "example.com/gate"}}
	pod.Spec.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: "example.com/ready"}}
	got := warnings("POST", "/api/v1/namespaces/default/pods", pod)
	require.Len(t, got, 1, "one Warning header per request")
	assert.Equal(t, `299 - "stored but not simulated by kubesim (nothing in it acts on them; see docs/fidelity.md): `+
		`spec.securityContext.seccompProfile, spec.securityContext.sysctls, spec.hostAliases"`, got[0])
	for _, acted := range []string{"topologySpreadConstraints", "schedulingGates", "readinessGates", "runtimeClassName", "affinity"} {
		assert.NotContains(t, got[0], acted)
	}

	// Pod templates are pod specs too, and an update warns as a create.
	d := &appsv1.Deployment{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"}, ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}}, Spec: plainPod("").Spec}}}
	assert.Empty(t, warnings("POST", "/apis/apps/v1/namespaces/default/deployments", d))
	cur, err := env.Client.Deployments().Get(t.Context(), "default", "web")
	require.NoError(t, err)
	cur.TypeMeta = d.TypeMeta
	cur.Spec.Template.Spec.DNSConfig = &corev1.PodDNSConfig{Nameservers: []string{"1.1.1.1"}}
	got = warnings("PUT", "/apis/apps/v1/namespaces/default/deployments/web", cur)
	require.Len(t, got, 1)
	assert.Contains(t, got[0], ": spec.template.spec.dnsConfig\"")

	// A Service's default session affinity is simulated; ClientIP is not.
	svc := &corev1.Service{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Service"}, ObjectMeta: metav1.ObjectMeta{Name: "db"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 5432}}, SessionAffinity: corev1.ServiceAffinityNone}}
	assert.Empty(t, warnings("POST", "/api/v1/namespaces/default/services", svc))
	svc.Name, svc.Spec.SessionAffinity = "db2", corev1.ServiceAffinityClientIP
	got = warnings("POST", "/api/v1/namespaces/default/services", svc)
	require.Len(t, got, 1)
	assert.Contains(t, got[0], "spec.sessionAffinity")

	// A write to /status is not warned about.
	p, err := env.Client.Pods().Get(t.Context(), "default", "confined")
	require.NoError(t, err)
	p.TypeMeta = pod.TypeMeta
	rec := pods.do("PUT", "/api/v1/namespaces/default/pods/confined/status", p, "json", "")
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	assert.Empty(t, rec.Header().Values("Warning"))
}

// docs/fidelity.md names every field of the table, so the page and the
// code say the same.
func TestFidelityDocMirrorsTable(t *testing.T) {
	doc, err := os.ReadFile("../../docs/fidelity.md")
	require.NoError(t, err)
	for _, f := range kinds.NotSimulatedPodSpec {
		assert.Contains(t, string(doc), "`"+f.Path+"`", "docs/fidelity.md does not name %s", f.Path)
	}
	for _, f := range kinds.NotSimulatedObjectFields() {
		assert.Contains(t, string(doc), "`"+f.Path+"`", "docs/fidelity.md does not name %s", f.Path)
	}
	assert.True(t, strings.Contains(string(doc), "| field |"), "the table of fields")
}

// BenchmarkNotSimulatedWarning is the price every pod create and update
// pays for the warning: the table's walk over a pod with two containers.
//
//	go test -run '^$' -bench NotSimulatedWarning ./apiserver/kinds/
func BenchmarkNotSimulatedWarning(b *testing.B) {
	pod := plainPod("web")
	pod.Spec.Containers = append(pod.Spec.Containers, pod.Spec.Containers[0])
	pod.Spec.Containers[1].Name = "sidecar"
	var warnings func(api.Object) []string
	for _, r := range kinds.Builtin() {
		if r.Name == "pods" {
			warnings = r.Warnings
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if warnings(pod) != nil {
			b.Fatal("a plain pod warns")
		}
	}
}
