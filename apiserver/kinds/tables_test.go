package kinds

import (
	"maps"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubesim/kubesim/api"
)

var tableNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func ago(d time.Duration) metav1.Time { return metav1.NewTime(tableNow.Add(-d)) }

func running(name string, ready bool) corev1.ContainerStatus {
	return corev1.ContainerStatus{Name: name, Ready: ready, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: ago(time.Hour)}}}
}

func waiting(name, reason string) corev1.ContainerStatus {
	return corev1.ContainerStatus{Name: name, State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason}}}
}

func terminated(name, reason string, code int32) corev1.ContainerStatus {
	return corev1.ContainerStatus{Name: name, State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: reason, ExitCode: code}}}
}

func TestPodStatusCells(t *testing.T) {
	deleting := ago(0)
	for _, tc := range []struct {
		name     string
		pod      func(p *corev1.Pod)
		ready    string
		status   string
		restarts string
		ip, node string
	}{
		{"new pod", func(p *corev1.Pod) { p.Status.Phase = corev1.PodPending }, "0/1", "Pending", "0", "<none>", "<none>"},
		{"creating", func(p *corev1.Pod) {
			p.Spec.NodeName = "node-1"
			p.Status.Phase = corev1.PodPending
			p.Status.ContainerStatuses = []corev1.ContainerStatus{waiting("nginx", "ContainerCreating")}
		}, "0/1", "ContainerCreating", "0", "<none>", "node-1"},
		{"running", func(p *corev1.Pod) {
			p.Spec.NodeName = "node-1"
			p.Status.Phase = corev1.PodRunning
			p.Status.PodIP = "10.244.0.5"
			p.Status.PodIPs = []corev1.PodIP{{IP: "10.244.0.5"}}
			p.Status.ContainerStatuses = []corev1.ContainerStatus{running("nginx", true)}
		}, "1/1", "Running", "0", "10.244.0.5", "node-1"},
		{"running, not ready", func(p *corev1.Pod) {
			p.Status.Phase = corev1.PodRunning
			p.Status.ContainerStatuses = []corev1.ContainerStatus{running("nginx", false)}
		}, "0/1", "Running", "0", "<none>", "<none>"},
		{"crash loop with restarts", func(p *corev1.Pod) {
			p.Status.Phase = corev1.PodRunning
			cs := waiting("nginx", "CrashLoopBackOff")
			cs.RestartCount = 2
			cs.LastTerminationState.Terminated = &corev1.ContainerStateTerminated{Reason: "Error", ExitCode: 1, FinishedAt: ago(5 * time.Minute)}
			p.Status.ContainerStatuses = []corev1.ContainerStatus{cs}
		}, "0/1", "CrashLoopBackOff", "2 (5m ago)", "<none>", "<none>"},
		{"completed", func(p *corev1.Pod) {
			p.Status.Phase = corev1.PodSucceeded
			p.Status.ContainerStatuses = []corev1.ContainerStatus{terminated("nginx", "Completed", 0)}
		}, "0/1", "Completed", "0", "<none>", "<none>"},
		{"error", func(p *corev1.Pod) {
			p.Status.Phase = corev1.PodFailed
			p.Status.ContainerStatuses = []corev1.ContainerStatus{terminated("nginx", "Error", 1)}
		}, "0/1", "Error", "0", "<none>", "<none>"},
		{"exit code without reason", func(p *corev1.Pod) {
			p.Status.Phase = corev1.PodFailed
			p.Status.ContainerStatuses = []corev1.ContainerStatus{terminated("nginx", "", 137)}
		}, "0/1", "ExitCode:137", "0", "<none>", "<none>"},
		{"image pull", func(p *corev1.Pod) {
			p.Status.Phase = corev1.PodPending
			p.Status.ContainerStatuses = []corev1.ContainerStatus{waiting("nginx", "ErrImagePull")}
		}, "0/1", "ErrImagePull", "0", "<none>", "<none>"},
		{"init containers running", func(p *corev1.Pod) {
			p.Spec.InitContainers = []corev1.Container{{Name: "init-a", Image: "busybox"}, {Name: "init-b", Image: "busybox"}}
			p.Status.Phase = corev1.PodPending
			p.Status.InitContainerStatuses = []corev1.ContainerStatus{terminated("init-a", "Completed", 0), running("init-b", false)}
			p.Status.ContainerStatuses = []corev1.ContainerStatus{waiting("nginx", "PodInitializing")}
		}, "0/1", "Init:1/2", "0", "<none>", "<none>"},
		{"init container crashing", func(p *corev1.Pod) {
			p.Spec.InitContainers = []corev1.Container{{Name: "init-a", Image: "busybox"}}
			p.Status.Phase = corev1.PodPending
			cs := waiting("init-a", "CrashLoopBackOff")
			cs.RestartCount = 3
			p.Status.InitContainerStatuses = []corev1.ContainerStatus{cs}
		}, "0/1", "Init:CrashLoopBackOff", "3", "<none>", "<none>"},
		{"evicted", func(p *corev1.Pod) {
			p.Status.Phase = corev1.PodFailed
			p.Status.Reason = "Evicted"
		}, "0/1", "Evicted", "0", "<none>", "<none>"},
		{"terminating", func(p *corev1.Pod) {
			p.DeletionTimestamp = &deleting
			p.Status.Phase = corev1.PodRunning
			p.Status.ContainerStatuses = []corev1.ContainerStatus{running("nginx", true)}
		}, "1/1", "Terminating", "0", "<none>", "<none>"},
		{"finished pods do not show Terminating", func(p *corev1.Pod) {
			p.DeletionTimestamp = &deleting
			p.Status.Phase = corev1.PodSucceeded
			p.Status.ContainerStatuses = []corev1.ContainerStatus{terminated("nginx", "Completed", 0)}
		}, "0/1", "Completed", "0", "<none>", "<none>"},
		{"sidecar-like completed with a running one", func(p *corev1.Pod) {
			p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "job", Image: "busybox"})
			p.Status.Phase = corev1.PodRunning
			p.Status.ContainerStatuses = []corev1.ContainerStatus{running("nginx", true), terminated("job", "Completed", 0)}
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
	n := &corev1.Node{}
	assert.Equal(t, "Unknown", NodeStatus(n))
	n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse}, {Type: corev1.NodeReady, Status: corev1.ConditionTrue}}
	assert.Equal(t, "Ready", NodeStatus(n))
	n.Status.Conditions[1].Status = corev1.ConditionUnknown
	assert.Equal(t, "NotReady", NodeStatus(n))
	n.Spec.Unschedulable = true
	assert.Equal(t, "NotReady,SchedulingDisabled", NodeStatus(n))
}

// sampleObjects has one object of each built-in kind, with enough set to
// exercise the printers.
func sampleObjects() map[string]api.Object {
	created := ago(3 * time.Hour)
	meta := metav1.ObjectMeta{Name: "x", Namespace: "default", CreationTimestamp: created}
	d := validDeployment()
	d.CreationTimestamp = created
	d.Spec.Replicas = ptr(int32(3))
	d.Status = appsv1.DeploymentStatus{ReadyReplicas: 2, UpdatedReplicas: 3, AvailableReplicas: 2}
	return map[string]api.Object{
		"namespaces": &corev1.Namespace{ObjectMeta: meta, Status: corev1.NamespaceStatus{Phase: corev1.NamespaceActive}},
		"nodes": &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1", CreationTimestamp: created,
			Labels: map[string]string{"node-role.kubernetes.io/control-plane": "", "node-role.kubernetes.io/worker": ""}},
			Status: corev1.NodeStatus{
				Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}},
				Addresses:  []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "172.18.0.2"}},
				NodeInfo:   corev1.NodeSystemInfo{KubeletVersion: "v1.32.0", OSImage: "kubesim"},
			}},
		"pods": validPod(),
		"services": &corev1.Service{ObjectMeta: meta, Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort,
			ClusterIPs: []string{"10.96.0.10"}, Selector: map[string]string{"app": "web", "tier": "fe"},
			Ports: []corev1.ServicePort{{Port: 80, NodePort: 30080, Protocol: corev1.ProtocolTCP}, {Port: 53, Protocol: corev1.ProtocolUDP, TargetPort: intstr.FromInt32(53)}}}},
		"endpoints": &corev1.Endpoints{ObjectMeta: meta, Subsets: []corev1.EndpointSubset{{
			Addresses: []corev1.EndpointAddress{{IP: "10.0.0.1"}, {IP: "10.0.0.2"}, {IP: "fd00::1"}, {IP: "10.0.0.4"}},
			Ports:     []corev1.EndpointPort{{Port: 8080}}}}},
		"configmaps":      &corev1.ConfigMap{ObjectMeta: meta, Data: map[string]string{"a": "1"}, BinaryData: map[string][]byte{"b": nil}},
		"serviceaccounts": &corev1.ServiceAccount{ObjectMeta: meta},
		"secrets":         &corev1.Secret{ObjectMeta: meta, Type: corev1.SecretTypeOpaque, Data: map[string][]byte{"a": nil}},
		"events": &corev1.Event{ObjectMeta: meta, Type: "Normal", Reason: "Scheduled", Message: "Successfully assigned default/web to node-1",
			InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "web"}, ReportingController: "default-scheduler",
			EventTime: metav1.NewMicroTime(tableNow.Add(-time.Minute))},
		"replicasets": &appsv1.ReplicaSet{ObjectMeta: meta, Spec: appsv1.ReplicaSetSpec{Replicas: ptr(int32(2)),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, Template: template(map[string]string{"app": "web"})},
			Status: appsv1.ReplicaSetStatus{Replicas: 2, ReadyReplicas: 1}},
		"deployments": d,
		"statefulsets": &appsv1.StatefulSet{ObjectMeta: meta, Spec: appsv1.StatefulSetSpec{Replicas: ptr(int32(2)),
			Template: template(nil)}, Status: appsv1.StatefulSetStatus{ReadyReplicas: 2}},
		"leases": &coordinationv1.Lease{ObjectMeta: meta, Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr("node-1")}},
		"controllerrevisions": &appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Name: "web-7bfc888dd5", Namespace: "default", CreationTimestamp: created,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "web", UID: "u", Controller: ptr(true)}}},
			Revision: 2},
		"daemonsets":          validDaemonSet(),
		"roles":               &rbacv1.Role{ObjectMeta: meta},
		"clusterroles":        &rbacv1.ClusterRole{ObjectMeta: meta},
		"rolebindings":        &rbacv1.RoleBinding{ObjectMeta: meta, RoleRef: rbacv1.RoleRef{Kind: "Role", Name: "r"}},
		"clusterrolebindings": &rbacv1.ClusterRoleBinding{ObjectMeta: meta, RoleRef: rbacv1.RoleRef{Kind: "ClusterRole", Name: "r"}},
		// admission policies
		"validatingadmissionpolicies": &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: meta, Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			ParamKind: &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"}, Validations: []admissionregistrationv1.Validation{{Expression: "true"}}}},
		"validatingadmissionpolicybindings": &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: meta, Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName: "p", ParamRef: &admissionregistrationv1.ParamRef{Name: "limits", Namespace: "default"}}},
		// storage
		"persistentvolumeclaims": samplePVC(meta), "persistentvolumes": samplePV(meta), "storageclasses": sampleStorageClass(meta),
		"csidrivers": &storagev1.CSIDriver{ObjectMeta: meta, Spec: storagev1.CSIDriverSpec{AttachRequired: ptr(false)}},
		"csinodes":   &storagev1.CSINode{ObjectMeta: meta, Spec: storagev1.CSINodeSpec{Drivers: []storagev1.CSINodeDriver{{Name: "example.csi.kubesim.io", NodeID: "node-1"}}}},
		"volumeattachments": &storagev1.VolumeAttachment{ObjectMeta: meta, Spec: storagev1.VolumeAttachmentSpec{Attacher: "example.csi.kubesim.io", NodeName: "node-1",
			Source: storagev1.VolumeAttachmentSource{PersistentVolumeName: ptr("pv-1")}}, Status: storagev1.VolumeAttachmentStatus{Attached: true}},
		"mutatingwebhookconfigurations":   &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: meta, Webhooks: []admissionregistrationv1.MutatingWebhook{{Name: "a.example.com"}}},
		"validatingwebhookconfigurations": &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: meta},
		// budgets, quotas, limit ranges, priority classes, endpoint slices
		"poddisruptionbudgets": &policyv1.PodDisruptionBudget{ObjectMeta: meta, Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: ptr(intstr.FromString("50%"))},
			Status: policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: 1}},
		"resourcequotas": &corev1.ResourceQuota{ObjectMeta: meta, Status: corev1.ResourceQuotaStatus{
			Hard: corev1.ResourceList{"pods": resource.MustParse("2"), "limits.cpu": resource.MustParse("2")},
			Used: corev1.ResourceList{"pods": resource.MustParse("1")}}},
		"limitranges":     &corev1.LimitRange{ObjectMeta: meta},
		"priorityclasses": &schedulingv1.PriorityClass{ObjectMeta: meta, Value: 1000, PreemptionPolicy: ptr(corev1.PreemptLowerPriority)},
		"endpointslices": &discoveryv1.EndpointSlice{ObjectMeta: meta, AddressType: discoveryv1.AddressTypeIPv4,
			Ports:     []discoveryv1.EndpointPort{{Port: ptr(int32(80))}},
			Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.0.0.1"}}, {Addresses: []string{"10.0.0.2"}}}},
		// autoscaling: one resource at two versions
		"horizontalpodautoscalers": &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: meta, Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{Kind: "Deployment", Name: "web"}, MinReplicas: ptr(int32(2)), MaxReplicas: 6,
			Metrics: []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{Name: corev1.ResourceCPU,
				Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr(int32(50))}}}}},
			Status: autoscalingv2.HorizontalPodAutoscalerStatus{CurrentReplicas: 2}},
		"horizontalpodautoscalers.v1": &autoscalingv1.HorizontalPodAutoscaler{ObjectMeta: meta, Spec: autoscalingv1.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv1.CrossVersionObjectReference{Kind: "Deployment", Name: "web"}, MaxReplicas: 6}},
	}
}

func TestEveryTableRowFitsItsColumns(t *testing.T) {
	objs := sampleObjects()
	maps.Copy(objs, batchSamples())
	maps.Copy(objs, networkingSamples())
	maps.Copy(objs, groupsSamples())
	for _, r := range Builtin() {
		require.NotNil(t, r.Table, r.Name)
		obj, ok := objs[r.Group+"/"+r.Name]
		if !ok {
			obj, ok = objs[r.Name+"."+r.Version]
		}
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
	assert.Equal(t, []any{"", "<none>", int64(0), "<unknown>"}, builtin(t, "controllerrevisions").Table.Cells(&appsv1.ControllerRevision{}, tableNow))

	events := builtin(t, "events").Table
	assert.Equal(t, "Last Seen", events.Columns[0].Name, "events have no NAME column first")

	lb := &corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer}}
	assert.Equal(t, "<pending>", serviceExternalIP(lb))
	lb.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "1.2.3.4"}}
	assert.Equal(t, "1.2.3.4", serviceExternalIP(lb))
	assert.Equal(t, "db.example.com", serviceExternalIP(&corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "db.example.com"}}))
	assert.Equal(t, "<none>", formatEndpoints(&corev1.Endpoints{}))
}
