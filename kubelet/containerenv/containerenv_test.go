package containerenv

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/kubelet/shell"
)

type fakeSources struct {
	cms     map[string]*api.ConfigMap
	secrets map[string]*api.Secret
	token   string
}

var errMissing = errors.New("not found")

func (f fakeSources) ConfigMap(_ context.Context, ns, name string) (*api.ConfigMap, error) {
	if cm, ok := f.cms[ns+"/"+name]; ok {
		return cm, nil
	}
	return nil, errMissing
}

func (f fakeSources) Secret(_ context.Context, ns, name string) (*api.Secret, error) {
	if s, ok := f.secrets[ns+"/"+name]; ok {
		return s, nil
	}
	return nil, errMissing
}

func (f fakeSources) ServiceAccountToken(_ context.Context, pod *api.Pod, aud string, _ *int64) (string, error) {
	if f.token == "" {
		return "", errMissing
	}
	return f.token + ":" + pod.Spec.ServiceAccountName + ":" + aud, nil
}

func sources() fakeSources {
	return fakeSources{
		cms: map[string]*api.ConfigMap{
			"shop/settings":         {Data: map[string]string{"mode": "fast", "level": "3"}, BinaryData: map[string][]byte{"blob": {1, 2}}},
			"shop/kube-root-ca.crt": {Data: map[string]string{"ca.crt": "CA"}},
		},
		secrets: map[string]*api.Secret{"shop/db": {Data: map[string][]byte{"password": []byte("s3cret")}}},
		token:   "tok",
	}
}

func testPod() *api.Pod {
	pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "web-0", Namespace: "shop", UID: "u-1", Labels: map[string]string{"app": "web"}}}
	pod.Spec.NodeName = "node-1"
	pod.Spec.ServiceAccountName = "default"
	pod.Status.PodIP = "10.244.0.7"
	pod.Spec.Volumes = []api.Volume{
		{Name: "config", VolumeSource: api.VolumeSource{ConfigMap: &api.ConfigMapVolumeSource{LocalObjectReference: api.LocalObjectReference{Name: "settings"}}}},
		{Name: "creds", VolumeSource: api.VolumeSource{Secret: &api.SecretVolumeSource{SecretName: "db",
			Items: []api.KeyToPath{{Key: "password", Path: "db/pass"}}}}},
		{Name: "scratch", VolumeSource: api.VolumeSource{EmptyDir: &api.EmptyDirVolumeSource{}}},
		{Name: "gone", VolumeSource: api.VolumeSource{ConfigMap: &api.ConfigMapVolumeSource{LocalObjectReference: api.LocalObjectReference{Name: "missing"}}}},
		{Name: "kube-api-access-abcde", VolumeSource: api.VolumeSource{Projected: &api.ProjectedVolumeSource{Sources: []api.VolumeProjection{
			{ServiceAccountToken: &api.ServiceAccountTokenProjection{Path: "token"}},
			{ConfigMap: &api.ConfigMapProjection{LocalObjectReference: api.LocalObjectReference{Name: "kube-root-ca.crt"},
				Items: []api.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
			{DownwardAPI: &api.DownwardAPIProjection{Items: []api.DownwardAPIVolumeFile{
				{Path: "namespace", FieldRef: &api.ObjectFieldSelector{FieldPath: "metadata.namespace"}}}}},
		}}}},
	}
	pod.Spec.Containers = []api.Container{{
		Name: "app",
		EnvFrom: []api.EnvFromSource{
			{ConfigMapRef: &api.ConfigMapEnvSource{LocalObjectReference: api.LocalObjectReference{Name: "settings"}}},
			{Prefix: "DB_", SecretRef: &api.SecretEnvSource{LocalObjectReference: api.LocalObjectReference{Name: "db"}}},
			{ConfigMapRef: &api.ConfigMapEnvSource{LocalObjectReference: api.LocalObjectReference{Name: "missing"}}},
		},
		Env: []api.EnvVar{
			{Name: "GREETING", Value: "hi $(POD_NAME) in $(mode), $$(mode) $(NOPE)"},
			{Name: "POD_NAME", ValueFrom: &api.EnvVarSource{FieldRef: &api.ObjectFieldSelector{FieldPath: "metadata.name"}}},
			{Name: "APP", ValueFrom: &api.EnvVarSource{FieldRef: &api.ObjectFieldSelector{FieldPath: "metadata.labels['app']"}}},
			{Name: "LEVEL", ValueFrom: &api.EnvVarSource{ConfigMapKeyRef: &api.ConfigMapKeySelector{
				LocalObjectReference: api.LocalObjectReference{Name: "settings"}, Key: "level"}}},
			{Name: "PASS", ValueFrom: &api.EnvVarSource{SecretKeyRef: &api.SecretKeySelector{
				LocalObjectReference: api.LocalObjectReference{Name: "db"}, Key: "password"}}},
			{Name: "ABSENT", ValueFrom: &api.EnvVarSource{SecretKeyRef: &api.SecretKeySelector{
				LocalObjectReference: api.LocalObjectReference{Name: "nope"}, Key: "k"}}},
			{Name: "CPU", ValueFrom: &api.EnvVarSource{ResourceFieldRef: &api.ResourceFieldSelector{Resource: "limits.cpu"}}},
			{Name: "MEM_MI", ValueFrom: &api.EnvVarSource{ResourceFieldRef: &api.ResourceFieldSelector{Resource: "requests.memory", Divisor: resource.MustParse("1Mi")}}},
			{Name: "mode", Value: "slow"},
		},
		Resources: api.ResourceRequirements{
			Limits:   api.ResourceList{api.ResourceCPU: resource.MustParse("1500m")},
			Requests: api.ResourceList{api.ResourceMemory: resource.MustParse("64Mi")},
		},
		VolumeMounts: []api.VolumeMount{
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
