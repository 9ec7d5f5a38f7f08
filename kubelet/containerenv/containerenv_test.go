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
	services []corev1.Service
	token    string
}

func (f fakeSources) NodeAllocatable() corev1.ResourceList {
	return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("8Gi")}
}

func (f fakeSources) Service(_ context.Context, ns, name string) (*corev1.Service, error) {
	for i := range f.services {
		if f.services[i].Namespace == ns && f.services[i].Name == name {
			return &f.services[i], nil
		}
	}
	return nil, errMissing
}

func (f fakeSources) Services(_ context.Context, ns string) ([]*corev1.Service, error) {
	var out []*corev1.Service
	for i := range f.services {
		if f.services[i].Namespace == ns {
			out = append(out, &f.services[i])
		}
	}
	return out, nil
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
			// No memory limit: the node's allocatable.
			{Name: "MEM_LIMIT", ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{Resource: "limits.memory"}}},
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
		v("MEM_LIMIT", "8589934592"),
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
// nginx (Debian) and fails on busybox and alpine, which have only ash;
// their `curl localhost` runs in nginx's images and curl's, not in
// busybox. What an image has is package programs' list; an image it does
// not know is taken to be built on Debian, without curl.
func TestImageShellAndCurl(t *testing.T) {
	for image, want := range map[string][2]bool{
		"nginx":                                 {true, true},
		"nginx:1.25":                            {true, true},
		"nginx:1.27-alpine":                     {false, true},
		"registry.k8s.io/nginx-slim:0.21":       {true, true},
		"ubuntu:24.04":                          {true, false},
		"docker.io/library/debian":              {true, false},
		"bash":                                  {true, false},
		"registry.example.com:5000/team/app:v1": {true, false},
		"busybox":                               {false, false},
		"busybox:1.36":                          {false, false},
		"docker.io/library/alpine:3.20":         {false, false},
		"alpine@sha256:abc":                     {false, false},
		"kubesim/sleep":                         {false, false},
	} {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"}}
		env := Build(context.Background(), pod, &corev1.Container{Name: "c", Image: image}, fakeSources{})
		assert.Equal(t, want, [2]bool{env.Bash, env.Curl}, image)
	}
}

// The Services' variables, as the kubelet makes them: default/kubernetes's
// always, the pod's namespace's unless enableServiceLinks is false; none
// for a Service without a cluster IP; a variable the container sets
// itself wins; $(VAR) in env may name them.
func TestBuildServiceEnv(t *testing.T) {
	svc := func(ns, name, ip string, ports ...corev1.ServicePort) corev1.Service {
		return corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: corev1.ServiceSpec{ClusterIP: ip, Ports: ports}}
	}
	src := fakeSources{services: []corev1.Service{
		svc("default", "kubernetes", "10.96.0.1", corev1.ServicePort{Name: "https", Port: 443, Protocol: corev1.ProtocolTCP}),
		svc("default", "other", "10.96.0.9", corev1.ServicePort{Port: 80}),
		svc("shop", "redis-primary", "10.96.1.2", corev1.ServicePort{Port: 6379}, corev1.ServicePort{Name: "metrics", Port: 9121, Protocol: corev1.ProtocolUDP}),
		svc("shop", "headless", "None", corev1.ServicePort{Port: 80}),
	}}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "shop"}}
	pod.Spec.Containers = []corev1.Container{{Name: "c", Env: []corev1.EnvVar{
		{Name: "API", Value: "https://$(KUBERNETES_SERVICE_HOST):$(KUBERNETES_SERVICE_PORT)"},
		{Name: "REDIS_PRIMARY_SERVICE_PORT", Value: "mine"},
	}}}
	get := func(env []shell.Var) map[string]string {
		m := map[string]string{}
		for _, v := range env {
			m[v.Name] = v.Value
		}
		return m
	}
	env := Build(context.Background(), pod, &pod.Spec.Containers[0], src)
	vars := get(env.Env)
	for name, want := range map[string]string{
		"KUBERNETES_SERVICE_HOST":            "10.96.0.1",
		"KUBERNETES_SERVICE_PORT":            "443",
		"KUBERNETES_SERVICE_PORT_HTTPS":      "443",
		"KUBERNETES_PORT":                    "tcp://10.96.0.1:443",
		"KUBERNETES_PORT_443_TCP":            "tcp://10.96.0.1:443",
		"KUBERNETES_PORT_443_TCP_PROTO":      "tcp",
		"KUBERNETES_PORT_443_TCP_PORT":       "443",
		"KUBERNETES_PORT_443_TCP_ADDR":       "10.96.0.1",
		"REDIS_PRIMARY_SERVICE_HOST":         "10.96.1.2",
		"REDIS_PRIMARY_SERVICE_PORT":         "mine",
		"REDIS_PRIMARY_SERVICE_PORT_METRICS": "9121",
		"REDIS_PRIMARY_PORT":                 "tcp://10.96.1.2:6379",
		"REDIS_PRIMARY_PORT_9121_UDP":        "udp://10.96.1.2:9121",
		"REDIS_PRIMARY_PORT_9121_UDP_PROTO":  "udp",
		"API":                                "https://10.96.0.1:443",
	} {
		assert.Equal(t, want, vars[name], name)
	}
	assert.NotContains(t, vars, "OTHER_SERVICE_HOST", "another namespace's Service")
	assert.NotContains(t, vars, "HEADLESS_SERVICE_HOST", "no cluster IP")
	assert.Equal(t, "HOME", env.Env[len(env.Env)-1].Name)

	off := false
	pod.Spec.EnableServiceLinks = &off
	vars = get(Build(context.Background(), pod, &pod.Spec.Containers[0], src).Env)
	assert.Equal(t, "10.96.0.1", vars["KUBERNETES_SERVICE_HOST"], "the API server's, whatever enableServiceLinks")
	assert.NotContains(t, vars, "REDIS_PRIMARY_SERVICE_HOST")

	// In namespace default, every Service of it.
	pod.Namespace, pod.Spec.EnableServiceLinks = "default", nil
	vars = get(Build(context.Background(), pod, &pod.Spec.Containers[0], src).Env)
	assert.Equal(t, "10.96.0.1", vars["KUBERNETES_SERVICE_HOST"])
	assert.Equal(t, "10.96.0.9", vars["OTHER_SERVICE_HOST"])

	// The environment is the one the container started with: a Service
	// made after that is not in it ("Connecting Applications with
	// Services": printenv in a pod older than the Service shows none).
	t0 := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	for i := range src.services {
		src.services[i].CreationTimestamp = metav1.NewTime(t0)
	}
	src.services[2].CreationTimestamp = metav1.NewTime(t0.Add(time.Minute)) // redis-primary
	started := pod.DeepCopy()
	started.Namespace = "shop"
	started.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "c", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(t0.Add(time.Second))}}}}
	vars = get(Build(context.Background(), started, &started.Spec.Containers[0], src).Env)
	assert.Equal(t, "10.96.0.1", vars["KUBERNETES_SERVICE_HOST"])
	assert.NotContains(t, vars, "REDIS_PRIMARY_SERVICE_HOST", "made after the container started")
}
