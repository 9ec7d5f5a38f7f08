package kinds

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubesim/kubesim/api"
)

func TestPodValidation(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(p *corev1.Pod)
		want   []string
	}{
		{"valid", func(*corev1.Pod) {}, nil},
		{"no containers", func(p *corev1.Pod) { p.Spec.Containers = nil },
			[]string{"spec.containers: Required value"}},
		{"no image", func(p *corev1.Pod) { p.Spec.Containers[0].Image = "" },
			[]string{"spec.containers[0].image: Required value"}},
		{"image with spaces", func(p *corev1.Pod) { p.Spec.Containers[0].Image = " nginx" },
			[]string{`spec.containers[0].image: Invalid value: " nginx": must not have leading or trailing whitespace`}},
		{"no name", func(p *corev1.Pod) { p.Spec.Containers[0].Name = "" },
			[]string{"spec.containers[0].name: Required value"}},
		{"bad name", func(p *corev1.Pod) { p.Spec.Containers[0].Name = "Web_1" },
			[]string{`spec.containers[0].name: Invalid value: "Web_1": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`}},
		{"duplicate names", func(p *corev1.Pod) {
			p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "nginx", Image: "busybox"})
		}, []string{`spec.containers[1].name: Duplicate value: "nginx"`}},
		{"init container sharing a name", func(p *corev1.Pod) {
			p.Spec.InitContainers = []corev1.Container{{Name: "nginx", Image: "busybox"}}
		}, []string{`spec.containers[0].name: Duplicate value: "nginx"`}},
		{"port zero", func(p *corev1.Pod) { p.Spec.Containers[0].Ports[0].ContainerPort = 0 },
			[]string{"spec.containers[0].ports[0].containerPort: Required value"}},
		{"port too big", func(p *corev1.Pod) { p.Spec.Containers[0].Ports[0].ContainerPort = 70000 },
			[]string{"spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive"}},
		{"host port", func(p *corev1.Pod) { p.Spec.Containers[0].Ports[0].HostPort = -1 },
			[]string{"spec.containers[0].ports[0].hostPort: Invalid value: -1: must be between 1 and 65535, inclusive"}},
		{"bad protocol", func(p *corev1.Pod) { p.Spec.Containers[0].Ports[0].Protocol = "HTTP" },
			[]string{`spec.containers[0].ports[0].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"`}},
		{"bad port name", func(p *corev1.Pod) { p.Spec.Containers[0].Ports[0].Name = "123" },
			[]string{`spec.containers[0].ports[0].name: Invalid value: "123": must contain at least one letter (a-z)`}},
		{"duplicate port names", func(p *corev1.Pod) {
			p.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "http", ContainerPort: 80}, {Name: "http", ContainerPort: 81}}
		}, []string{`spec.containers[0].ports[1].name: Duplicate value: "http"`}},
		{"bad restart policy", func(p *corev1.Pod) { p.Spec.RestartPolicy = "Sometimes" },
			[]string{`spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"`}},
		{"restartPolicy on a container", func(p *corev1.Pod) {
			always := corev1.ContainerRestartPolicyAlways
			p.Spec.Containers[0].RestartPolicy = &always
		}, []string{"spec.containers[0].restartPolicy: Forbidden: may not be set for non-init containers"}},
		{"init container restartPolicy other than Always", func(p *corev1.Pod) {
			never := corev1.ContainerRestartPolicy("Never")
			p.Spec.InitContainers = []corev1.Container{{Name: "side", Image: "busybox", RestartPolicy: &never}}
		}, []string{`spec.initContainers[0].restartPolicy: Unsupported value: "Never": supported values: "Always"`}},
		{"bad pull policy", func(p *corev1.Pod) { p.Spec.Containers[0].ImagePullPolicy = "Maybe" },
			[]string{`spec.containers[0].imagePullPolicy: Unsupported value: "Maybe": supported values: "Always", "IfNotPresent", "Never"`}},
		{"bad dns policy", func(p *corev1.Pod) { p.Spec.DNSPolicy = "Google" },
			[]string{`spec.dnsPolicy: Unsupported value: "Google": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"`}},
		{"env without name", func(p *corev1.Pod) { p.Spec.Containers[0].Env = []corev1.EnvVar{{Value: "x"}} },
			[]string{"spec.containers[0].env[0].name: Required value"}},
		{"env name with =", func(p *corev1.Pod) { p.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "A=B"}} },
			[]string{`spec.containers[0].env[0].name: Invalid value: "A=B": a valid environment variable name must consist only of printable ASCII characters other than '='`}},
		{"mount of a missing volume", func(p *corev1.Pod) {
			p.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "data", MountPath: "/data"}}
		}, []string{`spec.containers[0].volumeMounts[0].name: Not found: "data"`}},
		{"duplicate volumes", func(p *corev1.Pod) { p.Spec.Volumes = []corev1.Volume{{Name: "a"}, {Name: "a"}} },
			[]string{`spec.volumes[1].name: Duplicate value: "a"`}},
		{"bad active deadline", func(p *corev1.Pod) { p.Spec.ActiveDeadlineSeconds = ptr(int64(0)) },
			[]string{"spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := validPod()
			tc.mutate(p)
			assert.Equal(t, tc.want, create(t, "pods", p))
		})
	}
}

func TestPodUpdateValidation(t *testing.T) {
	old := validPod()
	mustNoErrors(t, create(t, "pods", old))
	forbidden := "spec: Forbidden: " + podUpdatableFields
	for _, tc := range []struct {
		name   string
		mutate func(p *corev1.Pod)
		want   []string
	}{
		{"image may change", func(p *corev1.Pod) { p.Spec.Containers[0].Image = "nginx:1.28" }, nil},
		{"labels may change", func(p *corev1.Pod) { p.Labels = map[string]string{"a": "b"} }, nil},
		{"tolerations may be added", func(p *corev1.Pod) {
			p.Spec.Tolerations = append(p.Spec.Tolerations, corev1.Toleration{Key: "k", Operator: corev1.TolerationOpExists})
		}, nil},
		{"ports may not change", func(p *corev1.Pod) { p.Spec.Containers[0].Ports[0].ContainerPort = 8080 }, []string{forbidden}},
		{"containers may not be added", func(p *corev1.Pod) {
			p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "side", Image: "busybox"})
		}, []string{forbidden}},
		{"nodeName may not be set by update", func(p *corev1.Pod) { p.Spec.NodeName = "node-1" }, []string{forbidden}},
		{"restartPolicy may not change", func(p *corev1.Pod) { p.Spec.RestartPolicy = corev1.RestartPolicyNever }, []string{forbidden}},
		{"activeDeadlineSeconds may be set", func(p *corev1.Pod) { p.Spec.ActiveDeadlineSeconds = ptr(int64(60)) }, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := api.DeepCopy(old).(*corev1.Pod)
			tc.mutate(p)
			assert.Equal(t, tc.want, update(t, "pods", p, old))
		})
	}
	assert.True(t, strings.HasPrefix(forbidden, "spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`"))

	// Only pods/binding sets spec.nodeName, with its own checks and not
	// the strategy's (TestPodBindingDoesNotRevalidateTheStoredSpec).
	bound := api.DeepCopy(old).(*corev1.Pod)
	bound.Spec.NodeName = "node-1"
	bound.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}}
	assert.Equal(t, []string{forbidden}, update(t, "pods", bound, old), "the strategy never lets nodeName be set")

	moved := api.DeepCopy(bound).(*corev1.Pod)
	moved.Spec.NodeName = "node-2"
	moved.Status.Conditions = nil
	assert.Equal(t, []string{forbidden}, update(t, "pods", moved, bound), "a bound pod never moves")
}

func TestWorkloadValidation(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(d *appsv1.Deployment)
		want   []string
	}{
		{"valid", func(*appsv1.Deployment) {}, nil},
		// A nil selector selects nothing, so Kubernetes reports the
		// mismatch as well: the well-known two-error message.
		{"no selector", func(d *appsv1.Deployment) { d.Spec.Selector = nil },
			[]string{"spec.selector: Required value", "spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"web\"}: `selector` does not match template `labels`"}},
		{"empty selector", func(d *appsv1.Deployment) { d.Spec.Selector = &metav1.LabelSelector{} },
			[]string{"spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for deployment"}},
		{"selector does not match", func(d *appsv1.Deployment) { d.Spec.Template.Labels = map[string]string{"app": "other"} },
			[]string{"spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"other\"}: `selector` does not match template `labels`"}},
		{"negative replicas", func(d *appsv1.Deployment) { d.Spec.Replicas = ptr(int32(-1)) },
			[]string{"spec.replicas: Invalid value: -1: must be greater than or equal to 0"}},
		{"template pod spec", func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "" },
			[]string{"spec.template.spec.containers[0].image: Required value"}},
		{"template restartPolicy", func(d *appsv1.Deployment) { d.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyNever },
			[]string{`spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"`}},
		{"bad strategy", func(d *appsv1.Deployment) { d.Spec.Strategy.Type = "BlueGreen" },
			[]string{`spec.strategy: Unsupported value: v1.DeploymentStrategy{Type:"BlueGreen", RollingUpdate:(*v1.RollingUpdateDeployment)(nil)}: supported values: "Recreate", "RollingUpdate"`}},
		{"surge and unavailable both 0", func(d *appsv1.Deployment) {
			d.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{MaxSurge: ptr(intstr.FromInt32(0)), MaxUnavailable: ptr(intstr.FromString("0%"))}
		}, []string{"spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:\"0%\"}: may not be 0 when `maxSurge` is 0"}},
		{"bad percent", func(d *appsv1.Deployment) {
			d.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{MaxSurge: ptr(intstr.FromString("lots"))}
		}, []string{"spec.strategy.rollingUpdate.maxSurge: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:\"lots\"}: a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"}},
		{"rollingUpdate with Recreate", func(d *appsv1.Deployment) {
			d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{}}
		}, []string{"spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'"}},
		{"bad selector operator", func(d *appsv1.Deployment) {
			d.Spec.Selector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "tier", Operator: "Maybe"}}
		}, []string{`spec.selector.matchExpressions[0].operator: Invalid value: "Maybe": not a valid selector operator`,
			`spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"web"}, MatchExpressions:[]v1.LabelSelectorRequirement{v1.LabelSelectorRequirement{Key:"tier", Operator:"Maybe", Values:[]string(nil)}}}: invalid label selector`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := validDeployment()
			tc.mutate(d)
			assert.Equal(t, tc.want, create(t, "deployments", d))
		})
	}

	// The same rules hold for ReplicaSets, with Kubernetes' own wording.
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: appsv1.ReplicaSetSpec{
		Selector: &metav1.LabelSelector{}, Template: template(map[string]string{"app": "web"})}}
	assert.Equal(t, []string{"spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for deployment"},
		create(t, "replicasets", rs))

	// StatefulSets check the template's labels, not its pod spec.
	ss := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "db"}, Spec: appsv1.StatefulSetSpec{
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}, Template: template(map[string]string{"app": "x"})}}
	ss.Spec.Template.Spec.Containers[0].Image = ""
	assert.Equal(t, []string{"spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"x\"}: `selector` does not match template `labels`"},
		create(t, "statefulsets", ss))
	assert.Equal(t, []string{`metadata.name: Invalid value: "web.v1": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`},
		nameErrs(t, "statefulsets", "web.v1"))
}

func nameErrs(t *testing.T, resource, name string) []string {
	var out []string
	for _, msg := range builtin(t, resource).ValidateName(name) {
		out = append(out, `metadata.name: Invalid value: "`+name+`": `+msg)
	}
	return out
}

func TestWorkloadUpdateValidation(t *testing.T) {
	old := validDeployment()
	mustNoErrors(t, create(t, "deployments", old))
	d := api.DeepCopy(old).(*appsv1.Deployment)
	d.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web", "v": "2"}}
	d.Spec.Template.Labels = map[string]string{"app": "web", "v": "2"}
	assert.Equal(t, []string{`spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"web", "v":"2"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable`},
		update(t, "deployments", d, old))
	scaled := api.DeepCopy(old).(*appsv1.Deployment)
	scaled.Spec.Replicas = ptr(int32(5))
	assert.Empty(t, update(t, "deployments", scaled, old))

	oldRS := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: appsv1.ReplicaSetSpec{
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, Template: template(map[string]string{"app": "web", "x": "1"})}}
	mustNoErrors(t, create(t, "replicasets", oldRS))
	rs := api.DeepCopy(oldRS).(*appsv1.ReplicaSet)
	rs.Spec.Selector.MatchLabels["x"] = "1"
	assert.Equal(t, []string{`spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"web", "x":"1"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable`},
		update(t, "replicasets", rs, oldRS))

	oldSS := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "db"}, Spec: appsv1.StatefulSetSpec{
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}, Template: template(map[string]string{"app": "db"})}}
	mustNoErrors(t, create(t, "statefulsets", oldSS))
	ss := api.DeepCopy(oldSS).(*appsv1.StatefulSet)
	ss.Spec.ServiceName = "other"
	assert.Equal(t, []string{"spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"},
		update(t, "statefulsets", ss, oldSS))
	ss = api.DeepCopy(oldSS).(*appsv1.StatefulSet)
	ss.Spec.Replicas = ptr(int32(3))
	ss.Spec.Template.Spec.Containers[0].Image = "postgres:17"
	assert.Empty(t, update(t, "statefulsets", ss, oldSS))
}

func TestServiceValidation(t *testing.T) {
	valid := func() *corev1.Service {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: corev1.ServiceSpec{
			Ports: []corev1.ServicePort{{Port: 80}}, Selector: map[string]string{"app": "web"}}}
	}
	for _, tc := range []struct {
		name   string
		mutate func(s *corev1.Service)
		want   []string
	}{
		{"valid", func(*corev1.Service) {}, nil},
		{"no ports", func(s *corev1.Service) { s.Spec.Ports = nil }, []string{"spec.ports: Required value"}},
		{"headless needs no ports", func(s *corev1.Service) { s.Spec.Ports = nil; s.Spec.ClusterIP = "None" }, nil},
		{"external name needs no ports", func(s *corev1.Service) {
			s.Spec.Ports = nil
			s.Spec.Type = corev1.ServiceTypeExternalName
			s.Spec.ExternalName = "db.example.com"
		}, nil},
		{"port out of range", func(s *corev1.Service) { s.Spec.Ports[0].Port = 0 },
			[]string{"spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive", "spec.ports[0].targetPort: Invalid value: 0: must be between 1 and 65535, inclusive"}},
		{"names required with two ports", func(s *corev1.Service) { s.Spec.Ports = append(s.Spec.Ports, corev1.ServicePort{Name: "b", Port: 81}) },
			[]string{"spec.ports[0].name: Required value"}},
		{"bad type", func(s *corev1.Service) { s.Spec.Type = "Ingress" },
			[]string{`spec.type: Unsupported value: "Ingress": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"`}},
		{"bad cluster IP", func(s *corev1.Service) { s.Spec.ClusterIP = "10.0.0.300" },
			[]string{`spec.clusterIPs[0]: Invalid value: "10.0.0.300": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`}},
		{"nodePort on ClusterIP", func(s *corev1.Service) { s.Spec.Ports[0].NodePort = 30080 },
			[]string{"spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := valid()
			tc.mutate(s)
			assert.Equal(t, tc.want, create(t, "services", s))
		})
	}
	assert.Equal(t, []string{`metadata.name: Invalid value: "1web": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`},
		nameErrs(t, "services", "1web"))

	old := valid()
	old.Spec.ClusterIP = "10.96.0.10"
	mustNoErrors(t, create(t, "services", old))
	kept := valid() // a replace without clusterIP keeps the allocated one
	mustNoErrors(t, update(t, "services", kept, old))
	assert.Equal(t, "10.96.0.10", kept.Spec.ClusterIP)
	changed := valid()
	changed.Spec.ClusterIP = "10.96.0.11"
	assert.Equal(t, []string{`spec.clusterIPs[0]: Invalid value: []string{"10.96.0.11"}: may not change once set`},
		update(t, "services", changed, old))
}

func TestConfigValidation(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}, Data: map[string]string{"good.key": "1", "bad/key": "2", "..x": "3"}}
	assert.Equal(t, []string{
		`data[..x]: Invalid value: "..x": must not start with '..'`,
		`data[bad/key]: Invalid value: "bad/key": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`,
	}, create(t, "configmaps", cm))

	dup := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}, Data: map[string]string{"a": "1"}, BinaryData: map[string][]byte{"a": {1}}}
	assert.Equal(t, []string{
		`data[a]: Invalid value: "a": duplicate of key present in binaryData`,
		`binaryData[a]: Invalid value: "a": duplicate of key present in data`,
	}, create(t, "configmaps", dup))

	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s"}, Data: map[string][]byte{"a b": nil}}
	assert.Equal(t, []string{`data[a b]: Invalid value: "a b": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`},
		create(t, "secrets", sec))

	tls := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s"}, Type: corev1.SecretTypeTLS, Data: map[string][]byte{"tls.crt": {1}}}
	assert.Equal(t, []string{"data[tls.key]: Required value"}, create(t, "secrets", tls))

	docker := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s"}, Type: corev1.SecretTypeDockerConfigJson,
		Data: map[string][]byte{".dockerconfigjson": []byte(`{"auths":`)}}
	assert.Equal(t, []string{`data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": unexpected end of JSON input`},
		create(t, "secrets", docker))
	docker.Data[".dockerconfigjson"] = []byte(`{"auths":{}}`)
	mustNoErrors(t, create(t, "secrets", docker))
	cfg := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s"}, Type: corev1.SecretTypeDockercfg}
	assert.Equal(t, []string{"data[.dockercfg]: Required value"}, create(t, "secrets", cfg))

	old := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s"}, Immutable: ptr(true), Data: map[string][]byte{"a": {1}}}
	mustNoErrors(t, create(t, "secrets", old))
	s := api.DeepCopy(old).(*corev1.Secret)
	s.Data["a"] = []byte{2}
	s.Type = corev1.SecretTypeBasicAuth
	assert.Equal(t, []string{
		`type: Invalid value: "kubernetes.io/basic-auth": field is immutable`,
		"data: Forbidden: field is immutable when `immutable` is set",
	}, update(t, "secrets", s, old))
}

func TestMiscValidation(t *testing.T) {
	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "n"}, Spec: coordinationv1.LeaseSpec{LeaseDurationSeconds: ptr(int32(0))}}
	assert.Equal(t, []string{"spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0"}, create(t, "leases", lease))

	ep := &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Subsets: []corev1.EndpointSubset{{
		Addresses: []corev1.EndpointAddress{{IP: "nope"}}, Ports: []corev1.EndpointPort{{Port: 80}}}}}
	assert.Equal(t, []string{`subsets[0].addresses[0].ip: Invalid value: "nope": must be a valid IP address`}, create(t, "endpoints", ep))

	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n"}, Spec: corev1.NodeSpec{Taints: []corev1.Taint{{Key: "k", Effect: "Sometimes"}}}}
	assert.Equal(t, []string{`spec.taints[0].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`}, create(t, "nodes", node))

	assert.Equal(t, []string{`metadata.name: Invalid value: "Team": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`},
		nameErrs(t, "namespaces", "Team"))
	assert.Equal(t, []string{"must be no more than 63 characters"}, IsDNS1123Label(strings.Repeat("a", 64)))
	assert.Nil(t, IsDNS1123Label("a-1"))
	assert.Nil(t, IsDNS1035Label("web-1"))
	assert.Equal(t, []string{"must not be '.'"}, IsConfigMapKey("."))
	assert.Equal(t, []string{"must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)", "must not contain consecutive hyphens"}, IsValidPortName("a--B"))
}
