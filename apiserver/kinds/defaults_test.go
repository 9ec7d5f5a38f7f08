package kinds

import (
	corev1 "k8s.io/api/core/v1"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/api"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func TestDefaultPullPolicy(t *testing.T) {
	for image, want := range map[string]api.PullPolicy{
		"nginx":                          api.PullAlways,
		"nginx:latest":                   api.PullAlways,
		"nginx:1.27":                     api.PullIfNotPresent,
		"registry.local:5000/app":        api.PullAlways,
		"registry.local:5000/app:v2":     api.PullIfNotPresent,
		"nginx@sha256:abcd":              api.PullIfNotPresent,
		"nginx:latest@sha256:abcd":       api.PullAlways,
		"registry.k8s.io/pause:3.10":     api.PullIfNotPresent,
		"localhost:5000/team/app:latest": api.PullAlways,
	} {
		assert.Equal(t, want, DefaultPullPolicy(image), image)
	}
}

func TestDefaultPodSpec(t *testing.T) {
	spec := api.PodSpec{
		Containers: []api.Container{{
			Name: "c", Image: "nginx",
			Ports: []api.ContainerPort{{ContainerPort: 80}, {ContainerPort: 53, Protocol: api.ProtocolUDP}},
			Resources: api.ResourceRequirements{Limits: api.ResourceList{
				api.ResourceCPU: resource.MustParse("500m"),
			}},
			ReadinessProbe: &api.Probe{ProbeHandler: api.ProbeHandler{HTTPGet: &api.HTTPGetAction{Port: intstr.FromInt32(80)}}},
		}},
		Volumes:                  []api.Volume{{Name: "scratch"}, {Name: "cfg", VolumeSource: api.VolumeSource{ConfigMap: &api.ConfigMapVolumeSource{}}}},
		DeprecatedServiceAccount: "robot",
	}
	DefaultPodSpec(&spec)
	assert.Equal(t, api.RestartPolicyAlways, spec.RestartPolicy)
	assert.Equal(t, api.DNSClusterFirst, spec.DNSPolicy)
	assert.Equal(t, "default-scheduler", spec.SchedulerName)
	assert.Equal(t, int64(30), *spec.TerminationGracePeriodSeconds)
	assert.Equal(t, &api.PodSecurityContext{}, spec.SecurityContext)
	assert.True(t, *spec.EnableServiceLinks)
	assert.Equal(t, "robot", spec.ServiceAccountName)
	assert.Equal(t, "robot", spec.DeprecatedServiceAccount)
	c := spec.Containers[0]
	assert.Equal(t, api.PullAlways, c.ImagePullPolicy)
	assert.Equal(t, "/dev/termination-log", c.TerminationMessagePath)
	assert.Equal(t, api.TerminationMessageReadFile, c.TerminationMessagePolicy)
	assert.Equal(t, api.ProtocolTCP, c.Ports[0].Protocol)
	assert.Equal(t, api.ProtocolUDP, c.Ports[1].Protocol)
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
	kept := api.PodSpec{RestartPolicy: api.RestartPolicyNever, SchedulerName: "mine", TerminationGracePeriodSeconds: ptr(int64(5)),
		Containers: []api.Container{{Name: "c", Image: "nginx", ImagePullPolicy: api.PullNever}}}
	DefaultPodSpec(&kept)
	assert.Equal(t, api.RestartPolicyNever, kept.RestartPolicy)
	assert.Equal(t, "mine", kept.SchedulerName)
	assert.Equal(t, int64(5), *kept.TerminationGracePeriodSeconds)
	assert.Equal(t, api.PullNever, kept.Containers[0].ImagePullPolicy)
}

func TestPodCreateStatus(t *testing.T) {
	pod := validPod()
	pod.Status = api.PodStatus{Phase: api.PodRunning, PodIP: "10.0.0.1", Conditions: []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue}}}
	mustNoErrors(t, create(t, "pods", pod))
	assert.Equal(t, api.PodStatus{Phase: api.PodPending, QOSClass: api.PodQOSBestEffort}, pod.Status)
}

func TestPodQOSClass(t *testing.T) {
	rl := func(kv ...string) api.ResourceList {
		l := api.ResourceList{}
		for i := 0; i < len(kv); i += 2 {
			l[api.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
		}
		return l
	}
	for _, tc := range []struct {
		name     string
		requests api.ResourceList
		limits   api.ResourceList
		want     api.PodQOSClass
	}{
		{"nothing", nil, nil, api.PodQOSBestEffort},
		{"requests only", rl("cpu", "100m"), nil, api.PodQOSBurstable},
		{"limits on both (requests defaulted)", nil, rl("cpu", "1", "memory", "1Gi"), api.PodQOSGuaranteed},
		{"requests equal limits", rl("cpu", "1", "memory", "1Gi"), rl("cpu", "1", "memory", "1Gi"), api.PodQOSGuaranteed},
		{"requests below limits", rl("cpu", "500m", "memory", "1Gi"), rl("cpu", "1", "memory", "1Gi"), api.PodQOSBurstable},
		{"cpu limit only", nil, rl("cpu", "1"), api.PodQOSBurstable},
		{"other resources do not count", rl("ephemeral-storage", "1Gi"), nil, api.PodQOSBestEffort},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := validPod()
			pod.Spec.Containers[0].Resources = api.ResourceRequirements{Requests: tc.requests, Limits: tc.limits}
			mustNoErrors(t, create(t, "pods", pod))
			assert.Equal(t, tc.want, pod.Status.QOSClass)
		})
	}
}

func TestAppsDefaults(t *testing.T) {
	d := validDeployment()
	mustNoErrors(t, create(t, "deployments", d))
	assert.Equal(t, int32(1), *d.Spec.Replicas)
	assert.Equal(t, api.RollingUpdateDeploymentStrategyType, d.Spec.Strategy.Type)
	assert.Equal(t, "25%", d.Spec.Strategy.RollingUpdate.MaxSurge.StrVal)
	assert.Equal(t, "25%", d.Spec.Strategy.RollingUpdate.MaxUnavailable.StrVal)
	assert.Equal(t, int32(10), *d.Spec.RevisionHistoryLimit)
	assert.Equal(t, int32(600), *d.Spec.ProgressDeadlineSeconds)
	assert.Equal(t, api.RestartPolicyAlways, d.Spec.Template.Spec.RestartPolicy, "templates are defaulted as pods")
	assert.Equal(t, api.PullIfNotPresent, d.Spec.Template.Spec.Containers[0].ImagePullPolicy)

	recreate := validDeployment()
	recreate.Spec.Strategy.Type = api.RecreateDeploymentStrategyType
	mustNoErrors(t, create(t, "deployments", recreate))
	assert.Nil(t, recreate.Spec.Strategy.RollingUpdate, "Recreate gets no rollingUpdate")

	rs := &api.ReplicaSet{ObjectMeta: api.ObjectMeta{Name: "web"}, Spec: api.ReplicaSetSpec{
		Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, Template: template(map[string]string{"app": "web"})}}
	mustNoErrors(t, create(t, "replicasets", rs))
	assert.Equal(t, int32(1), *rs.Spec.Replicas)
	assert.Equal(t, "default-scheduler", rs.Spec.Template.Spec.SchedulerName)

	ss := &api.StatefulSet{ObjectMeta: api.ObjectMeta{Name: "db"}, Spec: api.StatefulSetSpec{
		Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "db"}}, Template: template(map[string]string{"app": "db"})}}
	mustNoErrors(t, create(t, "statefulsets", ss))
	assert.Equal(t, int32(1), *ss.Spec.Replicas)
	assert.Equal(t, api.OrderedReadyPodManagement, ss.Spec.PodManagementPolicy)
	assert.Equal(t, api.RollingUpdateStatefulSetStrategyType, ss.Spec.UpdateStrategy.Type)
	assert.Equal(t, int32(0), *ss.Spec.UpdateStrategy.RollingUpdate.Partition)
	assert.Equal(t, int32(10), *ss.Spec.RevisionHistoryLimit)
	assert.Equal(t, api.ProtocolTCP, ss.Spec.Template.Spec.Containers[0].Ports[0].Protocol)
}

func TestCoreDefaults(t *testing.T) {
	svc := &api.Service{ObjectMeta: api.ObjectMeta{Name: "web"}, Spec: api.ServiceSpec{
		Ports:    []api.ServicePort{{Port: 80}, {Name: "named", Port: 443, TargetPort: intstr.FromString("https")}},
		Selector: map[string]string{"app": "web"},
	}}
	svc.Spec.Ports[0].Name = "http"
	svc.Status.LoadBalancer.Ingress = []api.LoadBalancerIngress{{IP: "1.2.3.4"}}
	mustNoErrors(t, create(t, "services", svc))
	assert.Equal(t, api.ServiceTypeClusterIP, svc.Spec.Type)
	assert.Equal(t, api.ServiceAffinityNone, svc.Spec.SessionAffinity)
	assert.Equal(t, api.ProtocolTCP, svc.Spec.Ports[0].Protocol)
	assert.Equal(t, intstr.FromInt32(80), svc.Spec.Ports[0].TargetPort, "targetPort defaults to port")
	assert.Equal(t, intstr.FromString("https"), svc.Spec.Ports[1].TargetPort)
	assert.Equal(t, corev1.ServiceInternalTrafficPolicyCluster, *svc.Spec.InternalTrafficPolicy)
	assert.Empty(t, svc.Status.LoadBalancer.Ingress, "status is reset on create")

	sec := &api.Secret{ObjectMeta: api.ObjectMeta{Name: "s"}, StringData: map[string]string{"user": "admin"}}
	mustNoErrors(t, create(t, "secrets", sec))
	assert.Equal(t, api.SecretTypeOpaque, sec.Type)
	assert.Equal(t, []byte("admin"), sec.Data["user"], "stringData is folded into data")
	assert.Nil(t, sec.StringData)

	ns := &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "team-a"}, Status: api.NamespaceStatus{Phase: api.NamespaceTerminating}}
	mustNoErrors(t, create(t, "namespaces", ns))
	assert.Equal(t, api.NamespaceActive, ns.Status.Phase)
	assert.Equal(t, []api.FinalizerName{api.FinalizerKubernetes}, ns.Spec.Finalizers)
	assert.Equal(t, "team-a", ns.Labels["kubernetes.io/metadata.name"])

	res := builtin(t, "namespaces")
	require.True(t, res.PrepareForDelete(ns))
	assert.Equal(t, api.NamespaceTerminating, ns.Status.Phase)
	assert.True(t, res.PendingFinalizers(ns))
	ns.Spec.Finalizers = nil
	assert.False(t, res.PendingFinalizers(ns))
}

func TestNamespaceFinalizersOnUpdate(t *testing.T) {
	old := &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "a"}, Spec: api.NamespaceSpec{Finalizers: []api.FinalizerName{"kubernetes"}}}
	alive := api.DeepCopy(old).(*api.Namespace)
	alive.Spec.Finalizers = nil
	mustNoErrors(t, update(t, "namespaces", alive, old))
	assert.Equal(t, []api.FinalizerName{"kubernetes"}, alive.Spec.Finalizers, "a live namespace keeps its finalizers")

	ts := api.NewTime(time.Now())
	old.DeletionTimestamp = &ts
	done := api.DeepCopy(old).(*api.Namespace)
	done.Spec.Finalizers = nil
	mustNoErrors(t, update(t, "namespaces", done, old))
	assert.Empty(t, done.Spec.Finalizers, "a terminating namespace may drop them")
}
