package kinds

import (
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubesim/kubesim/api"
)

func TestDefaultPullPolicy(t *testing.T) {
	for image, want := range map[string]corev1.PullPolicy{
		"nginx":                          corev1.PullAlways,
		"nginx:latest":                   corev1.PullAlways,
		"nginx:1.27":                     corev1.PullIfNotPresent,
		"registry.local:5000/app":        corev1.PullAlways,
		"registry.local:5000/app:v2":     corev1.PullIfNotPresent,
		"nginx@sha256:abcd":              corev1.PullIfNotPresent,
		"nginx:latest@sha256:abcd":       corev1.PullAlways,
		"registry.k8s.io/pause:3.10":     corev1.PullIfNotPresent,
		"localhost:5000/team/app:latest": corev1.PullAlways,
	} {
		assert.Equal(t, want, DefaultPullPolicy(image), image)
	}
}

func TestDefaultPodSpec(t *testing.T) {
	spec := corev1.PodSpec{
		Containers: []corev1.Container{{
			Name: "c", Image: "nginx",
			Ports: []corev1.ContainerPort{{ContainerPort: 80}, {ContainerPort: 53, Protocol: corev1.ProtocolUDP}},
			Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse("500m"),
			}},
			ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Port: intstr.FromInt32(80)}}},
		}},
		Volumes:                  []corev1.Volume{{Name: "scratch"}, {Name: "cfg", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{}}}},
		DeprecatedServiceAccount: "robot",
	}
	DefaultPodSpec(&spec)
	assert.Equal(t, corev1.RestartPolicyAlways, spec.RestartPolicy)
	assert.Equal(t, corev1.DNSClusterFirst, spec.DNSPolicy)
	assert.Equal(t, "default-scheduler", spec.SchedulerName)
	assert.Equal(t, int64(30), *spec.TerminationGracePeriodSeconds)
	assert.Equal(t, &corev1.PodSecurityContext{}, spec.SecurityContext)
	assert.True(t, *spec.EnableServiceLinks)
	assert.Equal(t, "robot", spec.ServiceAccountName)
	assert.Equal(t, "robot", spec.DeprecatedServiceAccount)
	c := spec.Containers[0]
	assert.Equal(t, corev1.PullAlways, c.ImagePullPolicy)
	assert.Equal(t, "/dev/termination-log", c.TerminationMessagePath)
	assert.Equal(t, corev1.TerminationMessageReadFile, c.TerminationMessagePolicy)
	assert.Equal(t, corev1.ProtocolTCP, c.Ports[0].Protocol)
	assert.Equal(t, corev1.ProtocolUDP, c.Ports[1].Protocol)
	assert.Equal(t, "500m", c.Resources.Requests.Cpu().String(), "limits without requests request the limits")
	assert.Equal(t, "/", c.ReadinessProbe.HTTPGet.Path)
	assert.Equal(t, int32(10), c.ReadinessProbe.PeriodSeconds)
	assert.Equal(t, int32(3), c.ReadinessProbe.FailureThreshold)
	assert.NotNil(t, spec.Volumes[0].EmptyDir, "a volume without a source is an emptyDir")
	assert.Equal(t, int32(0o644), *spec.Volumes[1].ConfigMap.DefaultMode)

	// Defaulting twice changes nothing (updates default again).
	again := *spec.DeepCopy()
	DefaultPodSpec(&again)
	assert.True(t, reflect.DeepEqual(spec, again))

	// Explicit values stay.
	kept := corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, SchedulerName: "mine", TerminationGracePeriodSeconds: ptr(int64(5)),
		Containers: []corev1.Container{{Name: "c", Image: "nginx", ImagePullPolicy: corev1.PullNever}}}
	DefaultPodSpec(&kept)
	assert.Equal(t, corev1.RestartPolicyNever, kept.RestartPolicy)
	assert.Equal(t, "mine", kept.SchedulerName)
	assert.Equal(t, int64(5), *kept.TerminationGracePeriodSeconds)
	assert.Equal(t, corev1.PullNever, kept.Containers[0].ImagePullPolicy)
}

func TestPodCreateStatus(t *testing.T) {
	pod := validPod()
	pod.Status = corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.0.0.1", Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}
	mustNoErrors(t, create(t, "pods", pod))
	assert.Equal(t, corev1.PodStatus{Phase: corev1.PodPending, QOSClass: corev1.PodQOSBestEffort}, pod.Status)
}

func TestPodQOSClass(t *testing.T) {
	rl := func(kv ...string) corev1.ResourceList {
		l := corev1.ResourceList{}
		for i := 0; i < len(kv); i += 2 {
			l[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
		}
		return l
	}
	for _, tc := range []struct {
		name     string
		requests corev1.ResourceList
		limits   corev1.ResourceList
		want     corev1.PodQOSClass
	}{
		{"nothing", nil, nil, corev1.PodQOSBestEffort},
		{"requests only", rl("cpu", "100m"), nil, corev1.PodQOSBurstable},
		{"limits on both (requests defaulted)", nil, rl("cpu", "1", "memory", "1Gi"), corev1.PodQOSGuaranteed},
		{"requests equal limits", rl("cpu", "1", "memory", "1Gi"), rl("cpu", "1", "memory", "1Gi"), corev1.PodQOSGuaranteed},
		{"requests below limits", rl("cpu", "500m", "memory", "1Gi"), rl("cpu", "1", "memory", "1Gi"), corev1.PodQOSBurstable},
		{"cpu limit only", nil, rl("cpu", "1"), corev1.PodQOSBurstable},
		{"other resources do not count", rl("ephemeral-storage", "1Gi"), nil, corev1.PodQOSBestEffort},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := validPod()
			pod.Spec.Containers[0].Resources = corev1.ResourceRequirements{Requests: tc.requests, Limits: tc.limits}
			mustNoErrors(t, create(t, "pods", pod))
			assert.Equal(t, tc.want, pod.Status.QOSClass)
		})
	}
}

func TestAppsDefaults(t *testing.T) {
	d := validDeployment()
	mustNoErrors(t, create(t, "deployments", d))
	assert.Equal(t, int32(1), *d.Spec.Replicas)
	assert.Equal(t, appsv1.RollingUpdateDeploymentStrategyType, d.Spec.Strategy.Type)
	assert.Equal(t, "25%", d.Spec.Strategy.RollingUpdate.MaxSurge.StrVal)
	assert.Equal(t, "25%", d.Spec.Strategy.RollingUpdate.MaxUnavailable.StrVal)
	assert.Equal(t, int32(10), *d.Spec.RevisionHistoryLimit)
	assert.Equal(t, int32(600), *d.Spec.ProgressDeadlineSeconds)
	assert.Equal(t, corev1.RestartPolicyAlways, d.Spec.Template.Spec.RestartPolicy, "templates are defaulted as pods")
	assert.Equal(t, corev1.PullIfNotPresent, d.Spec.Template.Spec.Containers[0].ImagePullPolicy)

	recreate := validDeployment()
	recreate.Spec.Strategy.Type = appsv1.RecreateDeploymentStrategyType
	mustNoErrors(t, create(t, "deployments", recreate))
	assert.Nil(t, recreate.Spec.Strategy.RollingUpdate, "Recreate gets no rollingUpdate")

	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: appsv1.ReplicaSetSpec{
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, Template: template(map[string]string{"app": "web"})}}
	mustNoErrors(t, create(t, "replicasets", rs))
	assert.Equal(t, int32(1), *rs.Spec.Replicas)
	assert.Equal(t, "default-scheduler", rs.Spec.Template.Spec.SchedulerName)

	ss := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "db"}, Spec: appsv1.StatefulSetSpec{
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}, Template: template(map[string]string{"app": "db"})}}
	mustNoErrors(t, create(t, "statefulsets", ss))
	assert.Equal(t, int32(1), *ss.Spec.Replicas)
	assert.Equal(t, appsv1.OrderedReadyPodManagement, ss.Spec.PodManagementPolicy)
	assert.Equal(t, appsv1.RollingUpdateStatefulSetStrategyType, ss.Spec.UpdateStrategy.Type)
	assert.Equal(t, int32(0), *ss.Spec.UpdateStrategy.RollingUpdate.Partition)
	assert.Equal(t, int32(10), *ss.Spec.RevisionHistoryLimit)
	assert.Equal(t, corev1.ProtocolTCP, ss.Spec.Template.Spec.Containers[0].Ports[0].Protocol)
}

func TestCoreDefaults(t *testing.T) {
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: corev1.ServiceSpec{
		Ports:    []corev1.ServicePort{{Port: 80}, {Name: "named", Port: 443, TargetPort: intstr.FromString("https")}},
		Selector: map[string]string{"app": "web"},
	}}
	svc.Spec.Ports[0].Name = "http"
	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "1.2.3.4"}}
	mustNoErrors(t, create(t, "services", svc))
	assert.Equal(t, corev1.ServiceTypeClusterIP, svc.Spec.Type)
	assert.Equal(t, corev1.ServiceAffinityNone, svc.Spec.SessionAffinity)
	assert.Equal(t, corev1.ProtocolTCP, svc.Spec.Ports[0].Protocol)
	assert.Equal(t, intstr.FromInt32(80), svc.Spec.Ports[0].TargetPort, "targetPort defaults to port")
	assert.Equal(t, intstr.FromString("https"), svc.Spec.Ports[1].TargetPort)
	assert.Equal(t, corev1.ServiceInternalTrafficPolicyCluster, *svc.Spec.InternalTrafficPolicy)
	assert.Empty(t, svc.Status.LoadBalancer.Ingress, "status is reset on create")

	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s"}, StringData: map[string]string{"user": "admin"}}
	mustNoErrors(t, create(t, "secrets", sec))
	assert.Equal(t, corev1.SecretTypeOpaque, sec.Type)
	assert.Equal(t, []byte("admin"), sec.Data["user"], "stringData is folded into data")
	assert.Nil(t, sec.StringData)

	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}, Status: corev1.NamespaceStatus{Phase: corev1.NamespaceTerminating}}
	mustNoErrors(t, create(t, "namespaces", ns))
	assert.Equal(t, corev1.NamespaceActive, ns.Status.Phase)
	assert.Equal(t, []corev1.FinalizerName{corev1.FinalizerKubernetes}, ns.Spec.Finalizers)
	assert.Equal(t, "team-a", ns.Labels["kubernetes.io/metadata.name"])

	res := builtin(t, "namespaces")
	require.True(t, res.PrepareForDelete(ns))
	assert.Equal(t, corev1.NamespaceTerminating, ns.Status.Phase)
	assert.True(t, res.PendingFinalizers(ns))
	ns.Spec.Finalizers = nil
	assert.False(t, res.PendingFinalizers(ns))
}

func TestNamespaceFinalizersOnUpdate(t *testing.T) {
	old := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "a"}, Spec: corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{"kubernetes"}},
		Status: corev1.NamespaceStatus{Phase: corev1.NamespaceActive}}
	alive := api.DeepCopy(old).(*corev1.Namespace)
	alive.Spec.Finalizers = nil
	mustNoErrors(t, update(t, "namespaces", alive, old))
	assert.Equal(t, []corev1.FinalizerName{"kubernetes"}, alive.Spec.Finalizers, "a live namespace keeps its finalizers")

	ts := metav1.NewTime(time.Now())
	old.DeletionTimestamp = &ts
	old.Status.Phase = corev1.NamespaceTerminating
	done := api.DeepCopy(old).(*corev1.Namespace)
	done.Spec.Finalizers = nil
	mustNoErrors(t, update(t, "namespaces", done, old))
	assert.Equal(t, []corev1.FinalizerName{"kubernetes"}, done.Spec.Finalizers, "only namespaces/finalize may drop them")

	// namespaces/finalize: the finalizers and the metadata change, the
	// status stays; the name label is defaulted back.
	fin := builtin(t, "namespaces").UpdateSubresources["finalize"]
	require.True(t, fin.UpdateOnly)
	body := api.DeepCopy(old).(*corev1.Namespace)
	body.Spec.Finalizers = []corev1.FinalizerName{"example.com/hold"}
	body.Labels = map[string]string{"team": "a"}
	body.Status = corev1.NamespaceStatus{Phase: corev1.NamespaceActive}
	fin.PrepareForUpdate(body, old)
	assert.Empty(t, messages(fin.ValidateUpdate(body, old)))
	assert.Equal(t, []corev1.FinalizerName{"example.com/hold"}, body.Spec.Finalizers)
	assert.Equal(t, corev1.NamespaceTerminating, body.Status.Phase, "finalize cannot change status")
	assert.Equal(t, map[string]string{"team": "a", "kubernetes.io/metadata.name": "a"}, body.Labels)

	body.Spec.Finalizers = []corev1.FinalizerName{"kubernetes", "bogus", "example.com/ok"}
	assert.Equal(t, []string{`spec.finalizers[1]: Invalid value: "bogus": name is neither a standard finalizer name nor is it fully qualified`},
		messages(fin.ValidateUpdate(body, old)))
}
