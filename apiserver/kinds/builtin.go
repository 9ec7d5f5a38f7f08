package kinds

import (
	"reflect"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/fields"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/schema"
)

// Builtin returns every built-in resource kubesim serves, freshly built on
// each call so that callers may change what they get. Each call has its
// own cluster IP allocator: one per API server.
func Builtin() []*registry.Resource {
	// One generator for every kind: a struct met in several kinds (a
	// PodSpec, an ObjectMeta) is described once and shared.
	gen := schema.NewGenerator()
	ips, err := NewClusterIPAllocator(ServiceClusterIPRange)
	if err != nil {
		panic(err) // the range is a constant
	}
	services := serviceAllocators{ips: ips, ports: NewNodePortAllocator(NodePortRangeBase, NodePortRangeSize)}
	scale := func() *registry.ScaleSubresource {
		return &registry.ScaleSubresource{
			SpecReplicasPath:   ".spec.replicas",
			StatusReplicasPath: ".status.replicas",
			LabelSelectorPath:  ".spec.selector",
		}
	}
	resources := []*registry.Resource{
		{
			Version: "v1", Name: "namespaces", SingularName: "namespace", Kind: "Namespace", ListKind: "NamespaceList",
			ShortNames: []string{"ns"}, Namespaced: false,
			New:                 func() api.Object { return &corev1.Namespace{} },
			StrategicMergePatch: true,
			Strategy:            namespaceStrategy{},
			Schema:              gen.FromGoType(reflect.TypeOf(corev1.Namespace{})),
			StatusSubresource:   true,
			UpdateSubresources:  map[string]registry.UpdateSubresource{"finalize": namespaceFinalizeSubresource()},
			Table:               namespaceTable(),
			ValidateName:        IsDNS1123Label,
			PrepareForDelete:    namespacePrepareForDelete,
			PendingFinalizers:   namespacePendingFinalizers,
			Fields: func(obj api.Object) fields.Set {
				return fields.Set{"status.phase": string(obj.(*corev1.Namespace).Status.Phase)}
			},
		},
		{
			Version: "v1", Name: "nodes", SingularName: "node", Kind: "Node", ListKind: "NodeList",
			ShortNames: []string{"no"}, Namespaced: false,
			New:                 func() api.Object { return &corev1.Node{} },
			StrategicMergePatch: true,
			Strategy:            nodeStrategy{},
			Schema:              gen.FromGoType(reflect.TypeOf(corev1.Node{})),
			StatusSubresource:   true,
			KeepStatusOnCreate:  true,
			Table:               nodeTable(),
			Fields:              nodeFields,
		},
		{
			Version: "v1", Name: "pods", SingularName: "pod", Kind: "Pod", ListKind: "PodList",
			ShortNames: []string{"po"}, Categories: []string{"all"}, Namespaced: true,
			New:                  func() api.Object { return &corev1.Pod{} },
			StrategicMergePatch:  true,
			Strategy:             podStrategy{},
			ValidateStatusUpdate: validatePodStatusUpdate,
			Schema:               gen.FromGoType(reflect.TypeOf(corev1.Pod{})),
			StatusSubresource:    true,
			Table:                podTable(),
			Fields:               func(obj api.Object) fields.Set { return podFields(obj) },
			GracePeriod:          podGracePeriod,
			UpdateSubresources:   map[string]registry.UpdateSubresource{"ephemeralcontainers": ephemeralContainersSubresource()},
			CreateSubresources: map[string]registry.CreateSubresource{
				"binding": {
					Resource: &registry.Resource{
						Version: "v1", Name: "bindings", SingularName: "binding", Kind: "Binding", ListKind: "BindingList",
						Namespaced: true,
						New:        func() api.Object { return &corev1.Binding{} },
						Schema:     gen.FromGoType(reflect.TypeOf(corev1.Binding{})),
					},
					Create: bindPod,
				},
				"eviction": {Resource: evictionResource(), Create: evictPod},
			},
		},
		{
			Version: "v1", Name: "services", SingularName: "service", Kind: "Service", ListKind: "ServiceList",
			ShortNames: []string{"svc"}, Categories: []string{"all"}, Namespaced: true,
			New:                 func() api.Object { return &corev1.Service{} },
			StrategicMergePatch: true,
			Strategy:            serviceStrategy{},
			Schema:              gen.FromGoType(reflect.TypeOf(corev1.Service{})),
			StatusSubresource:   true,
			Table:               serviceTable(),
			ValidateName:        IsDNS1035Label,
			DecorateStorage:     services.decorate,
			BeginCreate:         services.BeginCreate,
			BeginUpdate:         services.BeginUpdate,
		},
		{
			Version: "v1", Name: "endpoints", SingularName: "endpoints", Kind: "Endpoints", ListKind: "EndpointsList",
			ShortNames: []string{"ep"}, Namespaced: true,
			New:                 func() api.Object { return &corev1.Endpoints{} },
			StrategicMergePatch: true,
			Strategy:            endpointsStrategy{},
			Schema:              gen.FromGoType(reflect.TypeOf(corev1.Endpoints{})),
			Table:               endpointsTable(),
		},
		{
			Version: "v1", Name: "configmaps", SingularName: "configmap", Kind: "ConfigMap", ListKind: "ConfigMapList",
			ShortNames: []string{"cm"}, Namespaced: true,
			New:                 func() api.Object { return &corev1.ConfigMap{} },
			StrategicMergePatch: true,
			Strategy:            configMapStrategy{},
			Schema:              gen.FromGoType(reflect.TypeOf(corev1.ConfigMap{})),
			Table:               configMapTable(),
		},
		{
			Version: "v1", Name: "secrets", SingularName: "secret", Kind: "Secret", ListKind: "SecretList",
			Namespaced:          true,
			New:                 func() api.Object { return &corev1.Secret{} },
			StrategicMergePatch: true,
			Strategy:            secretStrategy{},
			Schema:              gen.FromGoType(reflect.TypeOf(corev1.Secret{})),
			Table:               secretTable(),
			Fields:              secretFields,
		},
		serviceAccountResource(gen),
		{
			Version: "v1", Name: "events", SingularName: "event", Kind: "Event", ListKind: "EventList",
			ShortNames: []string{"ev"}, Namespaced: true,
			New:                 func() api.Object { return &corev1.Event{} },
			StrategicMergePatch: true,
			Strategy:            eventStrategy{},
			Schema:              gen.FromGoType(reflect.TypeOf(corev1.Event{})),
			Table:               eventTable(),
			Fields:              eventFields,
		},
		{
			Group: "apps", Version: "v1", Name: "replicasets", SingularName: "replicaset", Kind: "ReplicaSet", ListKind: "ReplicaSetList",
			ShortNames: []string{"rs"}, Categories: []string{"all"}, Namespaced: true,
			New:                 func() api.Object { return &appsv1.ReplicaSet{} },
			StrategicMergePatch: true,
			Strategy:            replicaSetStrategy{},
			Schema:              gen.FromGoType(reflect.TypeOf(appsv1.ReplicaSet{})),
			StatusSubresource:   true,
			Scale:               scale(),
			Table:               replicaSetTable(),
			Fields:              replicaSetFields,
		},
		{
			Group: "apps", Version: "v1", Name: "deployments", SingularName: "deployment", Kind: "Deployment", ListKind: "DeploymentList",
			ShortNames: []string{"deploy"}, Categories: []string{"all"}, Namespaced: true,
			New:                 func() api.Object { return &appsv1.Deployment{} },
			StrategicMergePatch: true,
			Strategy:            deploymentStrategy{},
			Schema:              gen.FromGoType(reflect.TypeOf(appsv1.Deployment{})),
			StatusSubresource:   true,
			Scale:               scale(),
			Table:               deploymentTable(),
		},
		{
			Group: "apps", Version: "v1", Name: "statefulsets", SingularName: "statefulset", Kind: "StatefulSet", ListKind: "StatefulSetList",
			ShortNames: []string{"sts"}, Categories: []string{"all"}, Namespaced: true,
			New:                 func() api.Object { return &appsv1.StatefulSet{} },
			StrategicMergePatch: true,
			Strategy:            statefulSetStrategy{},
			Schema:              gen.FromGoType(reflect.TypeOf(appsv1.StatefulSet{})),
			StatusSubresource:   true,
			Scale:               scale(),
			Table:               statefulSetTable(),
			ValidateName:        IsDNS1123Label,
		},
		{
			Group: "apps", Version: "v1", Name: "controllerrevisions", SingularName: "controllerrevision", Kind: "ControllerRevision", ListKind: "ControllerRevisionList",
			Namespaced:          true,
			New:                 func() api.Object { return &appsv1.ControllerRevision{} },
			StrategicMergePatch: true,
			Strategy:            controllerRevisionStrategy{},
			Schema:              gen.FromGoType(reflect.TypeOf(appsv1.ControllerRevision{})),
			Table:               controllerRevisionTable(),
		},
		{
			Group: "coordination.k8s.io", Version: "v1", Name: "leases", SingularName: "lease", Kind: "Lease", ListKind: "LeaseList",
			Namespaced:          true,
			New:                 func() api.Object { return &coordinationv1.Lease{} },
			StrategicMergePatch: true,
			Strategy:            leaseStrategy{},
			Schema:              gen.FromGoType(reflect.TypeOf(coordinationv1.Lease{})),
			Table:               leaseTable(),
		},
		// --- rbac.authorization.k8s.io/v1 ---
		{
			Group: api.RBACGroupName, Version: "v1", Name: "roles", SingularName: "role", Kind: "Role", ListKind: "RoleList",
			Namespaced:          true,
			New:                 func() api.Object { return &rbacv1.Role{} },
			StrategicMergePatch: true,
			Strategy:            roleStrategy{},
			Schema:              gen.FromGoType(reflect.TypeOf(rbacv1.Role{})),
			Table:               roleTable(),
			ValidateName:        IsValidPathSegmentName,
		},
		{
			Group: api.RBACGroupName, Version: "v1", Name: "clusterroles", SingularName: "clusterrole", Kind: "ClusterRole", ListKind: "ClusterRoleList",
			New:                 func() api.Object { return &rbacv1.ClusterRole{} },
			StrategicMergePatch: true,
			Strategy:            clusterRoleStrategy{},
			Schema:              gen.FromGoType(reflect.TypeOf(rbacv1.ClusterRole{})),
			Table:               roleTable(),
			ValidateName:        IsValidPathSegmentName,
		},
		{
			Group: api.RBACGroupName, Version: "v1", Name: "rolebindings", SingularName: "rolebinding", Kind: "RoleBinding", ListKind: "RoleBindingList",
			Namespaced:          true,
			New:                 func() api.Object { return &rbacv1.RoleBinding{} },
			StrategicMergePatch: true,
			Strategy:            roleBindingStrategy{},
			Schema:              gen.FromGoType(reflect.TypeOf(rbacv1.RoleBinding{})),
			Table:               bindingTable(roleBindingParts),
			ValidateName:        IsValidPathSegmentName,
		},
		{
			Group: api.RBACGroupName, Version: "v1", Name: "clusterrolebindings", SingularName: "clusterrolebinding", Kind: "ClusterRoleBinding", ListKind: "ClusterRoleBindingList",
			New:                 func() api.Object { return &rbacv1.ClusterRoleBinding{} },
			StrategicMergePatch: true,
			Strategy:            clusterRoleBindingStrategy{},
			Schema:              gen.FromGoType(reflect.TypeOf(rbacv1.ClusterRoleBinding{})),
			Table:               bindingTable(clusterRoleBindingParts),
			ValidateName:        IsValidPathSegmentName,
		},
		// --- end rbac ---
	}
	// The other API groups, each in a file of its own, one line each.
	resources = append(resources, admissionPolicyResources(gen)...)      // ValidatingAdmissionPolicy and its binding
	resources = append(resources, webhookConfigurationResources(gen)...) // the admission webhook configurations
	resources = append(resources, batchResources(gen)...)                // Job, CronJob
	resources = append(resources, daemonSetResources(gen)...)            // DaemonSet
	resources = append(resources, storageResources(gen)...)              // PersistentVolumeClaim, PersistentVolume, StorageClass
	resources = append(resources, csiResources(gen)...)                  // CSIDriver, CSINode, VolumeAttachment
	resources = append(resources, policyResources(gen)...)               // PodDisruptionBudget
	resources = append(resources, quotaResources(gen)...)                // ResourceQuota, LimitRange
	resources = append(resources, schedulingResources(gen)...)           // PriorityClass
	resources = append(resources, discoveryResources(gen)...)            // EndpointSlice
	resources = append(resources, autoscalingResources(gen)...)          // HorizontalPodAutoscaler at autoscaling/v2 and v1
	resources = append(resources, networkingResources(gen)...)           // Ingress, IngressClass, NetworkPolicy
	resources = append(resources, replicationResources(gen)...)          // PodTemplate, ReplicationController
	resources = append(resources, eventsResources(gen)...)               // events.k8s.io/v1 Event, stored with core/v1 Events
	resources = append(resources, runtimeClassResources(gen)...)         // node.k8s.io/v1 RuntimeClass
	resources = append(resources, certificateResources(gen)...)          // certificates.k8s.io/v1 CertificateSigningRequest
	resources = append(resources, flowControlResources(gen)...)          // flowcontrol.apiserver.k8s.io/v1 FlowSchema, PriorityLevelConfiguration
	setStatusStrategies(resources)                                       // what a write to /status may change (statusstrategy.go)
	notSimulatedWarnings(resources)                                      // the fields stored but not simulated (fidelity.go)
	withGenerations(resources)                                           // which kinds have a metadata.generation (generation.go)
	return resources
}
