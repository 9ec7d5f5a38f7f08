package containerenv

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/kubelet/shell"
)

type fakeSources struct {
	cms      map[string]*corev1.ConfigMap
	secrets  map[string]*corev1.Secret
	token    string
	services []corev1.Service
}

var errMissing = errors.New("not found")

func (f fakeSources) ConfigMap(_ context.Context, ns, name string) (*corev1.ConfigMap, error) {
	if cm, ok := f.cms[ns+"/"+name]; ok {
		return cm, nil
	}
	return nil, errMissing
}

func (f fakeSources) Secret(_ context.Context, ns, name string) (*corev1.Secret, error) {
	if s, ok := f.secrets[ns+"/"+name]; ok {
		return s, nil
	}
	return nil, errMissing
}

func (f fakeSources) ServiceAccountToken(_ context.Context, pod *corev1.Pod, aud string, _ *int64) (string, error) {
	if f.token == "" {
		return "", errMissing
	}
	return f.token + ":" + pod.Spec.ServiceAccountName + ":" + aud, nil
}

func (f fakeSources) Services(_ context.Context, ns string) ([]corev1.Service, error) {
	var out []corev1.Service
	for _, svc := range f.services {
		if svc.Namespace == ns {
			out = append(out, svc)
		}
	}
	return out, nil
}

func sources() fakeSources {
	return fakeSources{
		cms: map[string]*corev1.ConfigMap{
			"shop/settings":         {Data: map[string]string{"mode": "fast", "level": "3"}, BinaryData: map[string][]byte{"blob": {1, 2}}},
			"shop/kube-root-ca.crt": {Data: map[string]string{"ca.crt": "CA"}},
		},
		secrets: map[string]*corev1.Secret{"shop/db": {Data: map[string][]byte{"password": []byte("s3cret")}}},
		token:   "tok",
	}
}

func testPod() *corev1.Pod {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-0", Namespace: "shop", UID: "u-1", Labels: map[string]string{"app": "web"}}}
	pod.Spec.NodeName = "node-1"
	pod.Spec.ServiceAccountName = "default"
	pod.Status.PodIP = "10.244.0.7"
	pod.Spec.Volumes = []corev1.Volume{
		{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "settings"}}}},
		{Name: "creds", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "db",
			Items: []corev1.KeyToPath{{Key: "password", Path: "db/pass"}}}}},
		{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
		{Name: "gone", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "missing"}}}},
		{Name: "kube-api-access-abcde", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
			{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token"}},
			{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"},
				Items: []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
			{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{
				{Path: "namespace", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}}}}},
		}}}},
	}
	pod.Spec.Containers = []corev1.Container{{
		Name: "app",
		EnvFrom: []corev1.EnvFromSource{
			{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "settings"}}},
			{Prefix: "DB_", SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "db"}}},
			{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "missing"}}},
		},
		Env: []corev1.EnvVar{
			{Name: "GREETING", Value: "hi $(POD_NAME) in $(mode), $$(mode) $(NOPE)"},
			{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
			{Name: "APP", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.labels['app']"}}},
			{Name: "LEVEL", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{
				LocalObjectReference: corev1.LocalObjectReference{Name: "settings"}, Key: "level"}}},
			{Name: "PASS", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
				LocalObjectReference: corev1.LocalObjectReference{Name: "db"}, Key: "password"}}},
			{Name: "ABSENT", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
				LocalObjectReference: corev1.LocalObjectReference{Name: "nope"}, Key: "k"}}},
			{Name: "CPU", ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{Resource: "limits.cpu"}}},
			{Name: "MEM_MI", ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{Resource: "requests.memory", Divisor: resource.MustParse("1Mi")}}},
			{Name: "mode", Value: "slow"},
		},
		Resources: corev1.ResourceRequirements{
			Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1500m")},
			Requests: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("64Mi")},
		},
		VolumeMounts: []corev1.VolumeMount{
			{Name: "config", MountPath: "/etc/config"},
			{Name: "config", MountPath: "/app/mode.txt", SubPath: "mode"},
			{Name: "creds", MountPath: "/secrets/"},
			{Name: "scratch", MountPath: "/data"},
			{Name: "gone", MountPath: "/etc/gone"},
			{Name: "kube-api-access-abcde", MountPath: "/var/run/secrets/kubernetes.io/serviceaccount"},
		},
	}}
	return pod
}

func TestBuildEnv(t *testing.T) {
	pod := testPod()
	env := Build(context.Background(), pod, &pod.Spec.Containers[0], sources())
	assert.Equal(t, []shell.Var{
		v("PATH", DefaultPath),
		v("HOSTNAME", "web-0"),
		v("level", "3"),
		// A later definition wins but keeps its place.
		v("mode", "slow"),
		v("DB_password", "s3cret"),
		// $(VAR) sees only variables defined before it; $$ escapes.
		v("GREETING", "hi $(POD_NAME) in fast, $(mode) $(NOPE)"),
		v("POD_NAME", "web-0"),
		v("APP", "web"),
		v("LEVEL", "3"),
		v("PASS", "s3cret"),
		v("CPU", "2"),
		v("MEM_MI", "64"),
		v("HOME", "/root"),
	}, env.Env)
	assert.Equal(t, "web-0", env.Hostname)
}

func TestBuildFiles(t *testing.T) {
	pod := testPod()
	env := Build(context.Background(), pod, &pod.Spec.Containers[0], sources())
	want := map[string]string{
		"/etc/config/mode":  "fast",
		"/etc/config/level": "3",
		"/etc/config/blob":  "\x01\x02",
		"/app/mode.txt":     "fast",
		"/secrets/db/pass":  "s3cret",
		"/var/run/secrets/kubernetes.io/serviceaccount/token":     "tok:default:",
		"/var/run/secrets/kubernetes.io/serviceaccount/ca.crt":    "CA",
		"/var/run/secrets/kubernetes.io/serviceaccount/namespace": "shop",
		"/etc/hostname": "web-0\n",
		"/etc/hosts": "# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n" +
			"fe00::0\tip6-localnet\nfe00::0\tip6-mcastprefix\nfe00::1\tip6-allnodes\nfe00::2\tip6-allrouters\n10.244.0.7\tweb-0\n",
	}
	got := map[string]string{}
	for p, d := range env.Files {
		got[p] = string(d)
	}
	assert.Equal(t, want, got)
	assert.ElementsMatch(t, []string{"/etc/config", "/secrets", "/data", "/etc/gone", "/var/run/secrets/kubernetes.io/serviceaccount"}, env.Dirs)
}

// Without a token (no TokenRequest), the token file is absent but the
// rest of the projected volume is there.
func TestBuildNoToken(t *testing.T) {
	pod := testPod()
	src := sources()
	src.token = ""
	env := Build(context.Background(), pod, &pod.Spec.Containers[0], src)
	assert.NotContains(t, env.Files, "/var/run/secrets/kubernetes.io/serviceaccount/token")
	assert.Contains(t, env.Files, "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt")
}

func TestExpand(t *testing.T) {
	vars := map[string]string{"A": "1"}
	for in, want := range map[string]string{
		"$(A)":       "1",
		"x$(A)y":     "x1y",
		"$$(A)":      "$(A)",
		"$(B)":       "$(B)",
		"$(A":        "$(A",
		"$":          "$",
		"$x":         "$x",
		"a$$b":       "a$b",
		"$(A)$(A)$$": "11$",
	} {
		assert.Equal(t, want, Expand(in, vars), in)
	}
}

func TestFieldValue(t *testing.T) {
	pod := testPod()
	pod.Annotations = map[string]string{"a": "1", "b": "two"}
	for in, want := range map[string]string{
		"metadata.namespace":         "shop",
		"metadata.uid":               "u-1",
		"spec.nodeName":              "node-1",
		"status.podIP":               "10.244.0.7",
		"metadata.annotations['b']":  "two",
		"metadata.annotations":       "a=\"1\"\nb=\"two\"",
		"spec.serviceAccountName":    "default",
		"metadata.labels['missing']": "",
	} {
		got, ok := FieldValue(pod, in)
		assert.True(t, ok, in)
		assert.Equal(t, want, got, in)
	}
	_, ok := FieldValue(pod, "spec.bogus")
	assert.False(t, ok)
}

func v(name, value string) shell.Var { return shell.Var{Name: name, Value: value} }

// The tutorials' `kubectl exec -it shell-demo -- /bin/bash` runs on
// nginx (Debian) and fails on busybox and alpine, which have only ash.
func TestHasBash(t *testing.T) {
	for image, want := range map[string]bool{
		"nginx":                                 true,
		"nginx:1.25":                            true,
		"ubuntu:24.04":                          true,
		"docker.io/library/debian":              true,
		"bash":                                  true,
		"registry.example.com:5000/team/app:v1": true,
		"busybox":                               false,
		"busybox:1.36":                          false,
		"docker.io/library/alpine:3.20":         false,
		"alpine@sha256:abc":                     false,
		"kubesim/sleep":                         false,
	} {
		assert.Equal(t, want, hasBash(image), image)
	}
}

// The tutorials' `kubectl exec POD -- curl http://localhost:8080` runs
// in nginx, the bootcamp and curl's images, and finds no curl in busybox,
// alpine or a bare distribution.
func TestHasCurl(t *testing.T) {
	for image, want := range map[string]bool{
		"nginx":                           true,
		"registry.k8s.io/nginx-slim:0.21": true,
		"gcr.io/google-samples/kubernetes-bootcamp:v1": true,
		"curlimages/curl:8.10.1":                       true,
		"radial/busyboxplus:curl":                      true,
		"busybox:1.28":                                 false,
		"docker.io/library/alpine:3.20":                false,
		"ubuntu:24.04":                                 false,
		"debian":                                       false,
		"kubesim/sleep":                                false,
	} {
		assert.Equal(t, want, HasCurl(image), image)
	}
}

// The service links: the kubernetes Service of default in every pod, the
// Services of the pod's own namespace unless enableServiceLinks is false,
// none for a headless one; a container's own variable wins, and $(VAR)
// in a value sees them ("Connecting Applications with Services":
// printenv | grep SERVICE).
func TestServiceLinks(t *testing.T) {
	src := sources()
	svc := func(ns, name, ip string, ports ...corev1.ServicePort) corev1.Service {
		return corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: corev1.ServiceSpec{ClusterIP: ip, Ports: ports}}
	}
	src.services = []corev1.Service{
		svc("default", "kubernetes", "10.96.0.1", corev1.ServicePort{Name: "https", Port: 443, Protocol: corev1.ProtocolTCP}),
		svc("default", "elsewhere", "10.96.1.9", corev1.ServicePort{Port: 80}),
		svc("shop", "my-nginx", "10.96.1.5", corev1.ServicePort{Port: 80, Protocol: corev1.ProtocolTCP}, corev1.ServicePort{Name: "metrics", Port: 9090, Protocol: corev1.ProtocolUDP}),
		svc("shop", "headless", corev1.ClusterIPNone, corev1.ServicePort{Port: 80}),
	}
	pod := testPod()
	c := &corev1.Container{Name: "c", Image: "nginx", Env: []corev1.EnvVar{
		{Name: "MY_NGINX_SERVICE_HOST", Value: "mine"}, {Name: "API", Value: "$(KUBERNETES_SERVICE_HOST):$(KUBERNETES_SERVICE_PORT)"}}}
	env := Build(context.Background(), pod, c, src)
	var names []string
	got := map[string]string{}
	for _, e := range env.Env {
		names = append(names, e.Name)
		got[e.Name] = e.Value
	}
	assert.Equal(t, []string{"PATH", "HOSTNAME", "MY_NGINX_SERVICE_HOST", "API",
		"KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT", "KUBERNETES_SERVICE_PORT_HTTPS", "KUBERNETES_PORT",
		"KUBERNETES_PORT_443_TCP", "KUBERNETES_PORT_443_TCP_PROTO", "KUBERNETES_PORT_443_TCP_PORT", "KUBERNETES_PORT_443_TCP_ADDR",
		"MY_NGINX_SERVICE_PORT", "MY_NGINX_SERVICE_PORT_METRICS", "MY_NGINX_PORT",
		"MY_NGINX_PORT_80_TCP", "MY_NGINX_PORT_80_TCP_PROTO", "MY_NGINX_PORT_80_TCP_PORT", "MY_NGINX_PORT_80_TCP_ADDR",
		"MY_NGINX_PORT_9090_UDP", "MY_NGINX_PORT_9090_UDP_PROTO", "MY_NGINX_PORT_9090_UDP_PORT", "MY_NGINX_PORT_9090_UDP_ADDR",
		"HOME"}, names)
	assert.Equal(t, "mine", got["MY_NGINX_SERVICE_HOST"], "the container's own variable wins")
	assert.Equal(t, "10.96.0.1:443", got["API"])
	assert.Equal(t, "tcp://10.96.1.5:80", got["MY_NGINX_PORT"])
	assert.Equal(t, "udp://10.96.1.5:9090", got["MY_NGINX_PORT_9090_UDP"])
	assert.Equal(t, "9090", got["MY_NGINX_SERVICE_PORT_METRICS"])
	assert.Equal(t, "tcp", got["KUBERNETES_PORT_443_TCP_PROTO"])

	// The environment is the one the container started with: a Service
	// made after that is not in it.
	t0 := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	for i := range src.services {
		src.services[i].CreationTimestamp = metav1.NewTime(t0)
	}
	src.services[2].CreationTimestamp = metav1.NewTime(t0.Add(time.Minute)) // my-nginx
	started := pod.DeepCopy()
	started.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "c", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(t0.Add(time.Second))}}}}
	env = Build(context.Background(), started, &corev1.Container{Name: "c", Image: "nginx"}, src)
	names = nil
	for _, e := range env.Env {
		names = append(names, e.Name)
	}
	assert.Contains(t, names, "KUBERNETES_SERVICE_HOST")
	assert.NotContains(t, names, "MY_NGINX_SERVICE_HOST", "made after the container started")

	// enableServiceLinks: false keeps the kubernetes Service's alone.
	off := false
	pod.Spec.EnableServiceLinks = &off
	env = Build(context.Background(), pod, &corev1.Container{Name: "c", Image: "nginx"}, src)
	names = nil
	for _, e := range env.Env {
		names = append(names, e.Name)
	}
	assert.Contains(t, names, "KUBERNETES_SERVICE_HOST")
	assert.NotContains(t, names, "MY_NGINX_SERVICE_HOST")
}
