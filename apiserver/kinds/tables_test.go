package kinds

import (
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	"maps"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/api"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"
)

var tableNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func ago(d time.Duration) api.Time { return api.NewTime(tableNow.Add(-d)) }

func running(name string, ready bool) api.ContainerStatus {
	return api.ContainerStatus{Name: name, Ready: ready, State: api.ContainerState{Running: &api.ContainerStateRunning{StartedAt: ago(time.Hour)}}}
}

func waiting(name, reason string) api.ContainerStatus {
	return api.ContainerStatus{Name: name, State: api.ContainerState{Waiting: &api.ContainerStateWaiting{Reason: reason}}}
}

func terminated(name, reason string, code int32) api.ContainerStatus {
	return api.ContainerStatus{Name: name, State: api.ContainerState{Terminated: &api.ContainerStateTerminated{Reason: reason, ExitCode: code}}}
}

func TestPodStatusCells(t *testing.T) {
	deleting := ago(0)
	for _, tc := range []struct {
		name     string
		pod      func(p *api.Pod)
		ready    string
		status   string
		restarts string
		ip, node string
	}{
		{"new pod", func(p *api.Pod) { p.Status.Phase = api.PodPending }, "0/1", "Pending", "0", "<none>", "<none>"},
		{"creating", func(p *api.Pod) {
			p.Spec.NodeName = "node-1"
			p.Status.Phase = api.PodPending
			p.Status.ContainerStatuses = []api.ContainerStatus{waiting("nginx", "ContainerCreating")}
		}, "0/1", "ContainerCreating", "0", "<none>", "node-1"},
		{"running", func(p *api.Pod) {
			p.Spec.NodeName = "node-1"
			p.Status.Phase = api.PodRunning
			p.Status.PodIP = "10.244.0.5"
			p.Status.PodIPs = []api.PodIP{{IP: "10.244.0.5"}}
			p.Status.ContainerStatuses = []api.ContainerStatus{running("nginx", true)}
		}, "1/1", "Running", "0", "10.244.0.5", "node-1"},
		{"running, not ready", func(p *api.Pod) {
			p.Status.Phase = api.PodRunning
			p.Status.ContainerStatuses = []api.ContainerStatus{running("nginx", false)}
		}, "0/1", "Running", "0", "<none>", "<none>"},
		{"crash loop with restarts", func(p *api.Pod) {
			p.Status.Phase = api.PodRunning
			cs := waiting("nginx", "CrashLoopBackOff")
			cs.RestartCount = 2
			cs.LastTerminationState.Terminated = &api.ContainerStateTerminated{Reason: "Error", ExitCode: 1, FinishedAt: ago(5 * time.Minute)}
			p.Status.ContainerStatuses = []api.ContainerStatus{cs}
		}, "0/1", "CrashLoopBackOff", "2 (5m ago)", "<none>", "<none>"},
		{"completed", func(p *api.Pod) {
			p.Status.Phase = api.PodSucceeded
			p.Status.ContainerStatuses = []api.ContainerStatus{terminated("nginx", "Completed", 0)}
		}, "0/1", "Completed", "0", "<none>", "<none>"},
		{"error", func(p *api.Pod) {
			p.Status.Phase = api.PodFailed
			p.Status.ContainerStatuses = []api.ContainerStatus{terminated("nginx", "Error", 1)}
		}, "0/1", "Error", "0", "<none>", "<none>"},
		{"exit code without reason", func(p *api.Pod) {
			p.Status.Phase = api.PodFailed
			p.Status.ContainerStatuses = []api.ContainerStatus{terminated("nginx", "", 137)}
		}, "0/1", "ExitCode:137", "0", "<none>", "<none>"},
		{"image pull", func(p *api.Pod) {
			p.Status.Phase = api.PodPending
			p.Status.ContainerStatuses = []api.ContainerStatus{waiting("nginx", "ErrImagePull")}
		}, "0/1", "ErrImagePull", "0", "<none>", "<none>"},
		{"init containers running", func(p *api.Pod) {
			p.Spec.InitContainers = []api.Container{{Name: "init-a", Image: "busybox"}, {Name: "init-b", Image: "busybox"}}
			p.Status.Phase = api.PodPending
			p.Status.InitContainerStatuses = []api.ContainerStatus{terminated("init-a", "Completed", 0), running("init-b", false)}
			p.Status.ContainerStatuses = []api.ContainerStatus{waiting("nginx", "PodInitializing")}
		}, "0/1", "Init:1/2", "0", "<none>", "<none>"},
		{"init container crashing", func(p *api.Pod) {
			p.Spec.InitContainers = []api.Container{{Name: "init-a", Image: "busybox"}}
			p.Status.Phase = api.PodPending
			cs := waiting("init-a", "CrashLoopBackOff")
			cs.RestartCount = 3
			p.Status.InitContainerStatuses = []api.ContainerStatus{cs}
		}, "0/1", "Init:CrashLoopBackOff", "3", "<none>", "<none>"},
		{"evicted", func(p *api.Pod) {
			p.Status.Phase = api.PodFailed
			p.Status.Reason = "Evicted"
		}, "0/1", "Evicted", "0", "<none>", "<none>"},
		{"terminating", func(p *api.Pod) {
			p.DeletionTimestamp = &deleting
			p.Status.Phase = api.PodRunning
			p.Status.ContainerStatuses = []api.ContainerStatus{running("nginx", true)}
		}, "1/1", "Terminating", "0", "<none>", "<none>"},
		{"finished pods do not show Terminating", func(p *api.Pod) {
			p.DeletionTimestamp = &deleting
			p.Status.Phase = api.PodSucceeded
			p.Status.ContainerStatuses = []api.ContainerStatus{terminated("nginx", "Completed", 0)}
		}, "0/1", "Completed", "0", "<none>", "<none>"},
		{"sidecar-like completed with a running one", func(p *api.Pod) {
			p.Spec.Containers = append(p.Spec.Containers, api.Container{Name: "job", Image: "busybox"})
			p.Status.Phase = api.PodRunning
			p.Status.ContainerStatuses = []api.ContainerStatus{running("nginx", true), terminated("job", "Completed", 0)}
		}, "1/2", "NotReady", "0", "<none>", "<none>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := validPod()
			p.CreationTimestamp = ago(90 * time.Second)
			tc.pod(p)
			table := podTable()
			cells := table.Cells(p, tableNow)
			require.Len(t, cells, len(table.Columns))
			assert.Equal(t, []any{"web", tc.ready, tc.status, tc.restarts, "90s", tc.ip, tc.node, "<none>", "<none>"}, cells)
		})
	}
}

func TestNodeStatus(t *testing.T) {
	n := &api.Node{}
	assert.Equal(t, "Unknown", NodeStatus(n))
	n.Status.Conditions = []api.NodeCondition{{Type: api.NodeMemoryPressure, Status: api.ConditionFalse}, {Type: api.NodeReady, Status: api.ConditionTrue}}
	assert.Equal(t, "Ready", NodeStatus(n))
	n.Status.Conditions[1].Status = api.ConditionUnknown
	assert.Equal(t, "NotReady", NodeStatus(n))
	n.Spec.Unschedulable = true
	assert.Equal(t, "NotReady,SchedulingDisabled", NodeStatus(n))
}

// sampleObjects has one object of each built-in kind, with enough set to
// exercise the printers.
func sampleObjects() map[string]api.Object {
	created := ago(3 * time.Hour)
	meta := api.ObjectMeta{Name: "x", Namespace: "default", CreationTimestamp: created}
	d := validDeployment()
	d.CreationTimestamp = created
	d.Spec.Replicas = ptr(int32(3))
	d.Status = api.DeploymentStatus{ReadyReplicas: 2, UpdatedReplicas: 3, AvailableReplicas: 2}
	return map[string]api.Object{
		"namespaces": &api.Namespace{ObjectMeta: meta, Status: api.NamespaceStatus{Phase: api.NamespaceActive}},
		"nodes": &api.Node{ObjectMeta: api.ObjectMeta{Name: "node-1", CreationTimestamp: created,
			Labels: map[string]string{"node-role.kubernetes.io/control-plane": "", "node-role.kubernetes.io/worker": ""}},
			Status: api.NodeStatus{
				Conditions: []api.NodeCondition{{Type: api.NodeReady, Status: api.ConditionTrue}},
				Addresses:  []api.NodeAddress{{Type: api.NodeInternalIP, Address: "172.18.0.2"}},
				NodeInfo:   api.NodeSystemInfo{KubeletVersion: "v1.32.0", OSImage: "kubesim"},
			}},
		"pods": validPod(),
		"services": &api.Service{ObjectMeta: meta, Spec: api.ServiceSpec{Type: api.ServiceTypeNodePort,
			ClusterIPs: []string{"10.96.0.10"}, Selector: map[string]string{"app": "web", "tier": "fe"},
			Ports: []api.ServicePort{{Port: 80, NodePort: 30080, Protocol: api.ProtocolTCP}, {Port: 53, Protocol: api.ProtocolUDP, TargetPort: intstr.FromInt32(53)}}}},
		"endpoints": &api.Endpoints{ObjectMeta: meta, Subsets: []api.EndpointSubset{{
			Addresses: []api.EndpointAddress{{IP: "10.0.0.1"}, {IP: "10.0.0.2"}, {IP: "fd00::1"}, {IP: "10.0.0.4"}},
			Ports:     []api.EndpointPort{{Port: 8080}}}}},
		"configmaps":      &api.ConfigMap{ObjectMeta: meta, Data: map[string]string{"a": "1"}, BinaryData: map[string][]byte{"b": nil}},
		"serviceaccounts": &api.ServiceAccount{ObjectMeta: meta},
		"secrets":         &api.Secret{ObjectMeta: meta, Type: api.SecretTypeOpaque, Data: map[string][]byte{"a": nil}},
		"events": &api.Event{ObjectMeta: meta, Type: "Normal", Reason: "Scheduled", Message: "Successfully assigned default/web to node-1",
			InvolvedObject: api.ObjectReference{Kind: "Pod", Name: "web"}, ReportingController: "default-scheduler",
			EventTime: api.NewMicroTime(tableNow.Add(-time.Minute))},
		"replicasets": &api.ReplicaSet{ObjectMeta: meta, Spec: api.ReplicaSetSpec{Replicas: ptr(int32(2)),
			Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, Template: template(map[string]string{"app": "web"})},
			Status: api.ReplicaSetStatus{Replicas: 2, ReadyReplicas: 1}},
		"deployments": d,
		"statefulsets": &api.StatefulSet{ObjectMeta: meta, Spec: api.StatefulSetSpec{Replicas: ptr(int32(2)),
			Template: template(nil)}, Status: api.StatefulSetStatus{ReadyReplicas: 2}},
		"leases": &api.Lease{ObjectMeta: meta, Spec: api.LeaseSpec{HolderIdentity: ptr("node-1")}},
		"controllerrevisions": &api.ControllerRevision{ObjectMeta: api.ObjectMeta{Name: "web-7bfc888dd5", Namespace: "default", CreationTimestamp: created,
			OwnerReferences: []api.OwnerReference{{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "web", UID: "u", Controller: ptr(true)}}},
			Revision: 2},
		"daemonsets":          validDaemonSet(),
		"roles":               &api.Role{ObjectMeta: meta},
		"clusterroles":        &api.ClusterRole{ObjectMeta: meta},
		"rolebindings":        &api.RoleBinding{ObjectMeta: meta, RoleRef: api.RoleRef{Kind: "Role", Name: "r"}},
		"clusterrolebindings": &api.ClusterRoleBinding{ObjectMeta: meta, RoleRef: api.RoleRef{Kind: "ClusterRole", Name: "r"}},
		// admission policies
		"validatingadmissionpolicies": &api.ValidatingAdmissionPolicy{ObjectMeta: meta, Spec: api.ValidatingAdmissionPolicySpec{
			ParamKind: &api.ParamKind{APIVersion: "v1", Kind: "ConfigMap"}, Validations: []api.Validation{{Expression: "true"}}}},
		"validatingadmissionpolicybindings": &api.ValidatingAdmissionPolicyBinding{ObjectMeta: meta, Spec: api.ValidatingAdmissionPolicyBindingSpec{
			PolicyName: "p", ParamRef: &api.ParamRef{Name: "limits", Namespace: "default"}}},
		// storage
		"persistentvolumeclaims": samplePVC(meta), "persistentvolumes": samplePV(meta), "storageclasses": sampleStorageClass(meta),
		"mutatingwebhookconfigurations":   &api.MutatingWebhookConfiguration{ObjectMeta: meta, Webhooks: []api.MutatingWebhook{{Name: "a.example.com"}}},
		"validatingwebhookconfigurations": &api.ValidatingWebhookConfiguration{ObjectMeta: meta},
		// budgets, quotas, limit ranges, priority classes, endpoint slices
		"poddisruptionbudgets": &api.PodDisruptionBudget{ObjectMeta: meta, Spec: api.PodDisruptionBudgetSpec{MinAvailable: ptr(intstr.FromString("50%"))},
			Status: api.PodDisruptionBudgetStatus{DisruptionsAllowed: 1}},
		"resourcequotas": &api.ResourceQuota{ObjectMeta: meta, Status: api.ResourceQuotaStatus{
			Hard: api.ResourceList{"pods": resource.MustParse("2"), "limits.cpu": resource.MustParse("2")},
			Used: api.ResourceList{"pods": resource.MustParse("1")}}},
		"limitranges":     &api.LimitRange{ObjectMeta: meta},
		"priorityclasses": &api.PriorityClass{ObjectMeta: meta, Value: 1000, PreemptionPolicy: ptr(api.PreemptLowerPriority)},
		"endpointslices": &api.EndpointSlice{ObjectMeta: meta, AddressType: api.AddressTypeIPv4,
			Ports:     []api.EndpointSlicePort{{Port: ptr(int32(80))}},
			Endpoints: []api.EndpointSliceEndpoint{{Addresses: []string{"10.0.0.1"}}, {Addresses: []string{"10.0.0.2"}}}},
		// autoscaling: one resource at two versions
		"horizontalpodautoscalers": &api.HorizontalPodAutoscaler{ObjectMeta: meta, Spec: api.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: api.CrossVersionObjectReference{Kind: "Deployment", Name: "web"}, MinReplicas: ptr(int32(2)), MaxReplicas: 6,
			Metrics: []api.MetricSpec{{Type: api.ResourceMetricSourceType, Resource: &api.ResourceMetricSource{Name: api.ResourceCPU,
				Target: api.MetricTarget{Type: api.UtilizationMetricType, AverageUtilization: ptr(int32(50))}}}}},
			Status: api.HorizontalPodAutoscalerStatus{CurrentReplicas: 2}},
		"horizontalpodautoscalers.v1": &api.HorizontalPodAutoscalerV1{ObjectMeta: meta, Spec: api.HorizontalPodAutoscalerSpecV1{
			ScaleTargetRef: autoscalingv1.CrossVersionObjectReference{Kind: "Deployment", Name: "web"}, MaxReplicas: 6}},
	}
}

func TestEveryTableRowFitsItsColumns(t *testing.T) {
	objs := sampleObjects()
	maps.Copy(objs, batchSamples())
	for _, r := range Builtin() {
		require.NotNil(t, r.Table, r.Name)
		obj, ok := objs[r.Name+"."+r.Version]
		if !ok {
			obj, ok = objs[r.Name]
		}
		require.True(t, ok, "no sample for %s", r.Name)
		cells := r.Table.Cells(obj, tableNow)
		assert.Len(t, cells, len(r.Table.Columns), r.Name)
		// An empty object must print too (kubectl get on a fresh object).
		assert.Len(t, r.Table.Cells(r.New(), tableNow), len(r.Table.Columns), r.Name)
	}
}

func TestTableCells(t *testing.T) {
	objs := sampleObjects()
	cells := func(name string) []any { return builtin(t, name).Table.Cells(objs[name], tableNow) }
	assert.Equal(t, []any{"x", "Active", "3h"}, cells("namespaces"))
	assert.Equal(t, []any{"node-1", "Ready", "control-plane,worker", "3h", "v1.32.0", "172.18.0.2", "<none>", "kubesim", "<unknown>", "<unknown>"}, cells("nodes"))
	assert.Equal(t, []any{"x", "NodePort", "10.96.0.10", "<none>", "80:30080/TCP,53/UDP", "3h", "app=web,tier=fe"}, cells("services"))
	assert.Equal(t, []any{"x", "10.0.0.1:8080,10.0.0.2:8080,[fd00::1]:8080 + 1 more...", "3h"}, cells("endpoints"))
	assert.Equal(t, []any{"x", int64(2), "3h"}, cells("configmaps"))
	assert.Equal(t, []any{"x", "Opaque", int64(1), "3h"}, cells("secrets"))
	assert.Equal(t, []any{"60s", "Normal", "Scheduled", "pod/web", "", "default-scheduler", "Successfully assigned default/web to node-1", "60s", int64(1), "x"}, cells("events"))
	assert.Equal(t, []any{"x", int64(2), int64(2), int64(1), "3h", "nginx", "nginx:1.27", "app=web"}, cells("replicasets"))
	assert.Equal(t, []any{"web", "2/3", int64(3), int64(2), "3h", "nginx", "nginx:1.27", "app=web"}, cells("deployments"))
	assert.Equal(t, []any{"x", "2/2", "3h", "nginx", "nginx:1.27"}, cells("statefulsets"))
	assert.Equal(t, []any{"x", "node-1", "3h"}, cells("leases"))
	assert.Equal(t, []any{"web-7bfc888dd5", "statefulset.apps/web", int64(2), "3h"}, cells("controllerrevisions"))
	assert.Equal(t, []any{"", "<none>", int64(0), "<unknown>"}, builtin(t, "controllerrevisions").Table.Cells(&api.ControllerRevision{}, tableNow))

	events := builtin(t, "events").Table
	assert.Equal(t, "Last Seen", events.Columns[0].Name, "events have no NAME column first")

	lb := &api.Service{Spec: api.ServiceSpec{Type: api.ServiceTypeLoadBalancer}}
	assert.Equal(t, "<pending>", serviceExternalIP(lb))
	lb.Status.LoadBalancer.Ingress = []api.LoadBalancerIngress{{IP: "1.2.3.4"}}
	assert.Equal(t, "1.2.3.4", serviceExternalIP(lb))
	assert.Equal(t, "db.example.com", serviceExternalIP(&api.Service{Spec: api.ServiceSpec{Type: api.ServiceTypeExternalName, ExternalName: "db.example.com"}}))
	assert.Equal(t, "<none>", formatEndpoints(&api.Endpoints{}))
}
