package kinds

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/labels"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// The printers below follow pkg/printers/internalversion/printers.go of
// Kubernetes 1.32. The server always prints the wide form; kubectl hides
// the Priority 1 columns unless asked for -o wide.

// age is translateTimestampSince: "<unknown>" for an unset time.
func age(t time.Time, now time.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return registry.HumanDuration(now.Sub(t))
}

func col(name, typ, desc string) metav1.TableColumnDefinition {
	return metav1.TableColumnDefinition{Name: name, Type: typ, Description: desc}
}

func wide(c metav1.TableColumnDefinition) metav1.TableColumnDefinition {
	c.Priority = 1
	return c
}

func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

// --- pods ---

func podTable() *registry.Table {
	return &registry.Table{
		Columns: []metav1.TableColumnDefinition{
			registry.NameColumn,
			col("Ready", "string", "The aggregate readiness state of this pod for accepting traffic."),
			col("Status", "string", "The aggregate status of the containers in this pod."),
			col("Restarts", "string", "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted."),
			registry.AgeColumn,
			wide(col("IP", "string", "podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.")),
			wide(col("Node", "string", "NodeName indicates in which node this pod is scheduled.")),
			wide(col("Nominated Node", "string", "nominatedNodeName is set only when this pod preempts other pods on the node.")),
			wide(col("Readiness Gates", "string", "If specified, all readiness gates will be evaluated for pod readiness.")),
		},
		Cells: func(obj api.Object, now time.Time) []any {
			pod := obj.(*corev1.Pod)
			ready, total, status, restarts := PodStatusCells(pod, now)
			ip := pod.Status.PodIP
			if len(pod.Status.PodIPs) > 0 {
				ip = pod.Status.PodIPs[0].IP
			}
			return []any{pod.Name, fmt.Sprintf("%d/%d", ready, total), status, restarts,
				age(pod.CreationTimestamp.Time, now),
				orNone(ip), orNone(pod.Spec.NodeName), orNone(pod.Status.NominatedNodeName), readinessGatesCell(pod)}
		},
	}
}

// readinessGatesCell is the READINESS GATES column: how many of the pod's
// readiness gates have their condition True, "1/2", or <none>.
func readinessGatesCell(pod *corev1.Pod) string {
	if len(pod.Spec.ReadinessGates) == 0 {
		return "<none>"
	}
	met := 0
	for _, g := range pod.Spec.ReadinessGates {
		for _, c := range pod.Status.Conditions {
			if c.Type == g.ConditionType {
				if c.Status == corev1.ConditionTrue {
					met++
				}
				break
			}
		}
	}
	return fmt.Sprintf("%d/%d", met, len(pod.Spec.ReadinessGates))
}

// PodStatusCells computes the READY counts, the STATUS word and the
// RESTARTS cell of kubectl get pods, with kubectl's logic: the pod's
// reason or phase, overridden by init container progress ("Init:0/1"),
// by container waiting or terminated reasons (ContainerCreating,
// CrashLoopBackOff, Completed, Error), and by "Terminating" once deletion
// began. Restarts read "2 (5m ago)" when the last restart is known.
func PodStatusCells(pod *corev1.Pod, now time.Time) (ready, total int, status, restarts string) {
	total = len(pod.Spec.Containers)
	reason := string(pod.Status.Phase)
	if pod.Status.Reason != "" {
		reason = pod.Status.Reason
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Reason == corev1.PodReasonSchedulingGated {
			reason = corev1.PodReasonSchedulingGated
		}
	}
	count := 0
	var lastRestart time.Time
	noteRestart := func(cs corev1.ContainerStatus) {
		count += int(cs.RestartCount)
		if t := cs.LastTerminationState.Terminated; t != nil && t.FinishedAt.Time.After(lastRestart) {
			lastRestart = t.FinishedAt.Time
		}
	}
	initializing := false
	for i, cs := range pod.Status.InitContainerStatuses {
		noteRestart(cs)
		switch {
		case cs.State.Terminated != nil && cs.State.Terminated.ExitCode == 0:
			continue
		case cs.State.Terminated != nil:
			t := cs.State.Terminated
			switch {
			case t.Reason != "":
				reason = "Init:" + t.Reason
			case t.Signal != 0:
				reason = fmt.Sprintf("Init:Signal:%d", t.Signal)
			default:
				reason = fmt.Sprintf("Init:ExitCode:%d", t.ExitCode)
			}
		case cs.State.Waiting != nil && cs.State.Waiting.Reason != "" && cs.State.Waiting.Reason != "PodInitializing":
			reason = "Init:" + cs.State.Waiting.Reason
		default:
			reason = fmt.Sprintf("Init:%d/%d", i, len(pod.Spec.InitContainers))
		}
		initializing = true
		break
	}
	if !initializing || podConditionTrue(pod, corev1.PodInitialized) {
		// Restarts of (non-sidecar) init containers no longer count once
		// the pod is initialized.
		count, lastRestart = 0, time.Time{}
		hasRunning := false
		for i := len(pod.Status.ContainerStatuses) - 1; i >= 0; i-- {
			cs := pod.Status.ContainerStatuses[i]
			noteRestart(cs)
			switch {
			case cs.State.Waiting != nil && cs.State.Waiting.Reason != "":
				reason = cs.State.Waiting.Reason
			case cs.State.Terminated != nil && cs.State.Terminated.Reason != "":
				reason = cs.State.Terminated.Reason
			case cs.State.Terminated != nil && cs.State.Terminated.Signal != 0:
				reason = fmt.Sprintf("Signal:%d", cs.State.Terminated.Signal)
			case cs.State.Terminated != nil:
				reason = fmt.Sprintf("ExitCode:%d", cs.State.Terminated.ExitCode)
			case cs.Ready && cs.State.Running != nil:
				hasRunning = true
				ready++
			}
		}
		if reason == "Completed" && hasRunning {
			if podConditionTrue(pod, corev1.PodReady) {
				reason = "Running"
			} else {
				reason = "NotReady"
			}
		}
	}
	terminal := pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed
	if pod.DeletionTimestamp != nil && pod.Status.Reason == "NodeLost" {
		reason = "Unknown"
	} else if pod.DeletionTimestamp != nil && !terminal {
		reason = "Terminating"
	}
	restarts = strconv.Itoa(count)
	if count != 0 && !lastRestart.IsZero() {
		restarts = fmt.Sprintf("%d (%s ago)", count, age(lastRestart, now))
	}
	return ready, total, reason, restarts
}

func podConditionTrue(pod *corev1.Pod, t corev1.PodConditionType) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == t {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// --- namespaces and nodes ---

func namespaceTable() *registry.Table {
	return &registry.Table{
		Columns: []metav1.TableColumnDefinition{
			registry.NameColumn,
			col("Status", "string", "The status of the namespace"),
			registry.AgeColumn,
		},
		Cells: func(obj api.Object, now time.Time) []any {
			ns := obj.(*corev1.Namespace)
			return []any{ns.Name, string(ns.Status.Phase), age(ns.CreationTimestamp.Time, now)}
		},
	}
}

func nodeTable() *registry.Table {
	return &registry.Table{
		Columns: []metav1.TableColumnDefinition{
			registry.NameColumn,
			col("Status", "string", "The status of the node"),
			col("Roles", "string", "The roles of the node"),
			registry.AgeColumn,
			col("Version", "string", "Kubelet Version reported by the node."),
			wide(col("Internal-IP", "string", "List of addresses reachable to the node. Queried from cloud provider, if available.")),
			wide(col("External-IP", "string", "List of addresses reachable to the node. Queried from cloud provider, if available.")),
			wide(col("OS-Image", "string", "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).")),
			wide(col("Kernel-Version", "string", "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).")),
			wide(col("Container-Runtime", "string", "ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).")),
		},
		Cells: func(obj api.Object, now time.Time) []any {
			n := obj.(*corev1.Node)
			info := n.Status.NodeInfo
			unknown := func(s string) string {
				if s == "" {
					return "<unknown>"
				}
				return s
			}
			return []any{n.Name, NodeStatus(n), orNone(strings.Join(nodeRoles(n), ",")),
				age(n.CreationTimestamp.Time, now), info.KubeletVersion,
				nodeAddress(n, corev1.NodeInternalIP), nodeAddress(n, corev1.NodeExternalIP),
				unknown(info.OSImage), unknown(info.KernelVersion), unknown(info.ContainerRuntimeVersion)}
		},
	}
}

// NodeStatus is the STATUS cell of kubectl get nodes: Ready, NotReady or
// Unknown (no Ready condition), plus ",SchedulingDisabled" when cordoned.
func NodeStatus(n *corev1.Node) string {
	var status []string
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			if c.Status == corev1.ConditionTrue {
				status = []string{"Ready"}
			} else {
				status = []string{"NotReady"}
			}
		}
	}
	if len(status) == 0 {
		status = append(status, "Unknown")
	}
	if n.Spec.Unschedulable {
		status = append(status, "SchedulingDisabled")
	}
	return strings.Join(status, ",")
}

// nodeRoles reads node-role.kubernetes.io/<role> and kubernetes.io/role.
func nodeRoles(n *corev1.Node) []string {
	set := map[string]bool{}
	for k, v := range n.Labels {
		switch {
		case strings.HasPrefix(k, "node-role.kubernetes.io/"):
			if role := strings.TrimPrefix(k, "node-role.kubernetes.io/"); role != "" {
				set[role] = true
			}
		case k == "kubernetes.io/role" && v != "":
			set[v] = true
		}
	}
	return sortedKeys(set)
}

func nodeAddress(n *corev1.Node, t corev1.NodeAddressType) string {
	for _, a := range n.Status.Addresses {
		if a.Type == t {
			return a.Address
		}
	}
	return "<none>"
}

// --- services and endpoints ---

func serviceTable() *registry.Table {
	return &registry.Table{
		Columns: []metav1.TableColumnDefinition{
			registry.NameColumn,
			col("Type", "string", "type determines how the Service is exposed."),
			col("Cluster-IP", "string", "clusterIP is the IP address of the service and is usually assigned randomly."),
			col("External-IP", "string", "externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service."),
			col("Port(s)", "string", "The list of ports that are exposed by this service."),
			registry.AgeColumn,
			wide(col("Selector", "string", "Route service traffic to pods with label keys and values matching this selector.")),
		},
		Cells: func(obj api.Object, now time.Time) []any {
			s := obj.(*corev1.Service)
			clusterIP := "<none>"
			if len(s.Spec.ClusterIPs) > 0 {
				clusterIP = s.Spec.ClusterIPs[0]
			}
			return []any{s.Name, string(s.Spec.Type), clusterIP, serviceExternalIP(s),
				orNone(servicePorts(s.Spec.Ports)), age(s.CreationTimestamp.Time, now),
				orNone(labels.Set(s.Spec.Selector).String())}
		},
	}
}

func serviceExternalIP(s *corev1.Service) string {
	switch s.Spec.Type {
	case corev1.ServiceTypeClusterIP, corev1.ServiceTypeNodePort:
		if len(s.Spec.ExternalIPs) > 0 {
			return strings.Join(s.Spec.ExternalIPs, ",")
		}
		return "<none>"
	case corev1.ServiceTypeLoadBalancer:
		var ips []string
		for _, in := range s.Status.LoadBalancer.Ingress {
			if in.IP != "" {
				ips = append(ips, in.IP)
			} else if in.Hostname != "" {
				ips = append(ips, in.Hostname)
			}
		}
		ips = append(ips, s.Spec.ExternalIPs...)
		if len(ips) == 0 {
			return "<pending>"
		}
		return strings.Join(ips, ",")
	case corev1.ServiceTypeExternalName:
		return s.Spec.ExternalName
	}
	return "<unknown>"
}

func servicePorts(ports []corev1.ServicePort) string {
	pieces := make([]string, len(ports))
	for i, p := range ports {
		if p.NodePort > 0 {
			pieces[i] = fmt.Sprintf("%d:%d/%s", p.Port, p.NodePort, p.Protocol)
		} else {
			pieces[i] = fmt.Sprintf("%d/%s", p.Port, p.Protocol)
		}
	}
	return strings.Join(pieces, ",")
}

func endpointsTable() *registry.Table {
	return &registry.Table{
		Columns: []metav1.TableColumnDefinition{
			registry.NameColumn,
			col("Endpoints", "string", "Endpoints is the list of IP and port pairs that constitute a service."),
			registry.AgeColumn,
		},
		Cells: func(obj api.Object, now time.Time) []any {
			e := obj.(*corev1.Endpoints)
			return []any{e.Name, formatEndpoints(e), age(e.CreationTimestamp.Time, now)}
		},
	}
}

// formatEndpoints lists up to three ip:port pairs and says how many more.
func formatEndpoints(e *corev1.Endpoints) string {
	const max = 3
	var list []string
	more, count := false, 0
	addAll := func(addrs []corev1.EndpointAddress, port *corev1.EndpointPort) {
		count += len(addrs)
		for _, a := range addrs {
			if len(list) == max {
				more = true
				return
			}
			if port == nil {
				list = append(list, a.IP)
			} else {
				list = append(list, net.JoinHostPort(a.IP, strconv.Itoa(int(port.Port))))
			}
		}
	}
	for i := range e.Subsets {
		ss := &e.Subsets[i]
		if len(ss.Ports) == 0 {
			addAll(ss.Addresses, nil)
			continue
		}
		for j := range ss.Ports {
			addAll(ss.Addresses, &ss.Ports[j])
		}
	}
	s := strings.Join(list, ",")
	if more {
		return fmt.Sprintf("%s + %d more...", s, count-max)
	}
	return orNone(s)
}

// --- configmaps, secrets, events, leases ---

func configMapTable() *registry.Table {
	return &registry.Table{
		Columns: []metav1.TableColumnDefinition{
			registry.NameColumn,
			col("Data", "string", "Data contains the configuration data."),
			registry.AgeColumn,
		},
		Cells: func(obj api.Object, now time.Time) []any {
			c := obj.(*corev1.ConfigMap)
			return []any{c.Name, int64(len(c.Data) + len(c.BinaryData)), age(c.CreationTimestamp.Time, now)}
		},
	}
}

func secretTable() *registry.Table {
	return &registry.Table{
		Columns: []metav1.TableColumnDefinition{
			registry.NameColumn,
			col("Type", "string", "Used to facilitate programmatic handling of secret data."),
			col("Data", "string", "Data contains the secret data."),
			registry.AgeColumn,
		},
		Cells: func(obj api.Object, now time.Time) []any {
			s := obj.(*corev1.Secret)
			return []any{s.Name, string(s.Type), int64(len(s.Data)), age(s.CreationTimestamp.Time, now)}
		},
	}
}

func eventTable() *registry.Table {
	return &registry.Table{
		Columns: []metav1.TableColumnDefinition{
			col("Last Seen", "string", "The time at which the most recent occurrence of this event was recorded."),
			col("Type", "string", "Type of this event (Normal, Warning), new types could be added in the future"),
			col("Reason", "string", "This should be a short, machine understandable string that gives the reason for the transition into the object's current status."),
			col("Object", "string", "The object that this event is about."),
			wide(col("Subobject", "string", "If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement.")),
			wide(col("Source", "string", "The component reporting this event. Should be a short machine understandable string.")),
			col("Message", "string", "A human-readable description of the status of this operation."),
			wide(col("First Seen", "string", "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)")),
			wide(col("Count", "string", "The number of times this event has occurred.")),
			wide(metav1.TableColumnDefinition{Name: "Name", Type: "string", Format: "name", Description: registry.NameColumn.Description}),
		},
		Cells: func(obj api.Object, now time.Time) []any {
			e := obj.(*corev1.Event)
			first := age(e.FirstTimestamp.Time, now)
			if e.FirstTimestamp.IsZero() {
				first = age(e.EventTime.Time, now)
			}
			last := age(e.LastTimestamp.Time, now)
			if e.LastTimestamp.IsZero() {
				last = first
			}
			count := e.Count
			if e.Series != nil {
				last = age(e.Series.LastObservedTime.Time, now)
				count = e.Series.Count
			} else if count == 0 {
				count = 1
			}
			target := strings.ToLower(e.InvolvedObject.Kind)
			if e.InvolvedObject.Name != "" {
				target += "/" + e.InvolvedObject.Name
			}
			component := firstNonEmpty(e.Source.Component, e.ReportingController)
			if instance := firstNonEmpty(e.Source.Host, e.ReportingInstance); instance != "" {
				component += ", " + instance
			}
			return []any{last, e.Type, e.Reason, target, e.InvolvedObject.FieldPath, component,
				e.Message, first, int64(count), e.Name}
		},
	}
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

func leaseTable() *registry.Table {
	return &registry.Table{
		Columns: []metav1.TableColumnDefinition{
			registry.NameColumn,
			col("Holder", "string", "The holder of the lease."),
			registry.AgeColumn,
		},
		Cells: func(obj api.Object, now time.Time) []any {
			l := obj.(*coordinationv1.Lease)
			holder := ""
			if l.Spec.HolderIdentity != nil {
				holder = *l.Spec.HolderIdentity
			}
			return []any{l.Name, holder, age(l.CreationTimestamp.Time, now)}
		},
	}
}

// --- apps ---

func containerCells(spec *corev1.PodSpec) (names, images string) {
	var n, i []string
	for _, c := range spec.Containers {
		n = append(n, c.Name)
		i = append(i, c.Image)
	}
	return strings.Join(n, ","), strings.Join(i, ",")
}

func replicas(r *int32) int64 {
	if r == nil {
		return 0
	}
	return int64(*r)
}

// containerColumns are the CONTAINERS and IMAGES columns of a pod
// template's containers (containerCells).
func containerColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		col("Containers", "string", "Names of each container in the template."),
		col("Images", "string", "Images referenced by each container in the template."),
	}
}

// templateColumns are the wide CONTAINERS, IMAGES (and SELECTOR) columns
// of the workload kinds.
func templateColumns(selector bool) []metav1.TableColumnDefinition {
	var cols []metav1.TableColumnDefinition
	for _, c := range containerColumns() {
		cols = append(cols, wide(c))
	}
	if selector {
		cols = append(cols, wide(col("Selector", "string", "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.")))
	}
	return cols
}

// replicasRow is what a row of replicasTable shows of one object.
type replicasRow struct {
	meta           *metav1.ObjectMeta
	desired        *int32
	current, ready int32
	template       *corev1.PodSpec // nil when there is none
	selector       string
}

// replicasTable prints ReplicaSets and ReplicationControllers alike
// (printReplicaSet, printReplicationController): NAME DESIRED CURRENT
// READY AGE, and CONTAINERS IMAGES SELECTOR with -o wide. kind names the
// kind in READY's description; row reads one object.
func replicasTable(kind string, row func(api.Object) replicasRow) *registry.Table {
	return &registry.Table{
		Columns: append([]metav1.TableColumnDefinition{
			registry.NameColumn,
			col("Desired", "integer", "Replicas is the number of desired replicas."),
			col("Current", "integer", "Replicas is the most recently observed number of replicas."),
			col("Ready", "integer", "The number of ready replicas for this "+kind+"."),
			registry.AgeColumn,
		}, templateColumns(true)...),
		Cells: func(obj api.Object, now time.Time) []any {
			r := row(obj)
			var names, images string
			if r.template != nil {
				names, images = containerCells(r.template)
			}
			return []any{r.meta.Name, replicas(r.desired), int64(r.current), int64(r.ready),
				age(r.meta.CreationTimestamp.Time, now), names, images, r.selector}
		},
	}
}

func replicaSetTable() *registry.Table {
	return replicasTable("replica set", func(obj api.Object) replicasRow {
		rs := obj.(*appsv1.ReplicaSet)
		return replicasRow{&rs.ObjectMeta, rs.Spec.Replicas, rs.Status.Replicas, rs.Status.ReadyReplicas,
			&rs.Spec.Template.Spec, formatLabelSelector(rs.Spec.Selector)}
	})
}

func deploymentTable() *registry.Table {
	return &registry.Table{
		Columns: append([]metav1.TableColumnDefinition{
			registry.NameColumn,
			col("Ready", "string", "Number of the pod with ready state"),
			col("Up-to-date", "string", "Total number of non-terminated pods targeted by this deployment that have the desired template spec."),
			col("Available", "string", "Total number of available pods (ready for at least minReadySeconds) targeted by this deployment."),
			registry.AgeColumn,
		}, templateColumns(true)...),
		Cells: func(obj api.Object, now time.Time) []any {
			d := obj.(*appsv1.Deployment)
			names, images := containerCells(&d.Spec.Template.Spec)
			selector := "<invalid>"
			if s, err := api.LabelSelectorAsSelector(d.Spec.Selector); err == nil {
				selector = s.String()
			}
			return []any{d.Name, fmt.Sprintf("%d/%d", d.Status.ReadyReplicas, replicas(d.Spec.Replicas)),
				int64(d.Status.UpdatedReplicas), int64(d.Status.AvailableReplicas),
				age(d.CreationTimestamp.Time, now), names, images, selector}
		},
	}
}

func statefulSetTable() *registry.Table {
	return &registry.Table{
		Columns: append([]metav1.TableColumnDefinition{
			registry.NameColumn,
			col("Ready", "string", "Number of the pod with ready state"),
			registry.AgeColumn,
		}, templateColumns(false)...),
		Cells: func(obj api.Object, now time.Time) []any {
			s := obj.(*appsv1.StatefulSet)
			names, images := containerCells(&s.Spec.Template.Spec)
			return []any{s.Name, fmt.Sprintf("%d/%d", s.Status.ReadyReplicas, replicas(s.Spec.Replicas)),
				age(s.CreationTimestamp.Time, now), names, images}
		},
	}
}

// controllerRevisionTable is printControllerRevision: the controller as
// kind.group/name ("statefulset.apps/web") and the revision number.
func controllerRevisionTable() *registry.Table {
	return &registry.Table{
		Columns: []metav1.TableColumnDefinition{
			registry.NameColumn,
			col("Controller", "string", "Controller of the object"),
			col("Revision", "number", "Revision of the ControllerRevision"),
			registry.AgeColumn,
		},
		Cells: func(obj api.Object, now time.Time) []any {
			cr := obj.(*appsv1.ControllerRevision)
			controller := "<none>"
			if ref := api.GetControllerOf(&cr.ObjectMeta); ref != nil {
				group, _, _ := strings.Cut(ref.APIVersion, "/")
				if !strings.Contains(ref.APIVersion, "/") {
					group = ""
				}
				kind := strings.ToLower(ref.Kind)
				if group != "" {
					kind += "." + group
				}
				controller = kind + "/" + ref.Name
			}
			return []any{cr.Name, controller, cr.Revision, age(cr.CreationTimestamp.Time, now)}
		},
	}
}
