package kinds

import (
	"reflect"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/fields"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/schema"
)

// Builtin returns every built-in resource kubesim serves, freshly built on
// each call so that callers may change what they get. Each call has its
// own cluster IP allocator: one per API server.
func Builtin() []*registry.Resource {
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
			New:                 func() api.Object { return &api.Namespace{} },
			StrategicMergePatch: true,
			Strategy:            namespaceStrategy{},
			Schema:              schema.FromGoType(reflect.TypeOf(api.Namespace{})),
			StatusSubresource:   true,
			Table:               namespaceTable(),
			ValidateName:        IsDNS1123Label,
			PrepareForDelete:    namespacePrepareForDelete,
			PendingFinalizers:   namespacePendingFinalizers,
			Fields: func(obj api.Object) fields.Set {
				return fields.Set{"status.phase": string(obj.(*api.Namespace).Status.Phase)}
			},
		},
		{
			Version: "v1", Name: "nodes", SingularName: "node", Kind: "Node", ListKind: "NodeList",
			ShortNames: []string{"no"}, Namespaced: false,
			New:                 func() api.Object { return &api.Node{} },
			StrategicMergePatch: true,
			Strategy:            nodeStrategy{},
			Schema:              schema.FromGoType(reflect.TypeOf(api.Node{})),
			StatusSubresource:   true,
			KeepStatusOnCreate:  true,
			Table:               nodeTable(),
			Fields:              nodeFields,
		},
		{
			Version: "v1", Name: "pods", SingularName: "pod", Kind: "Pod", ListKind: "PodList",
			ShortNames: []string{"po"}, Categories: []string{"all"}, Namespaced: true,
			New:                 func() api.Object { return &api.Pod{} },
			StrategicMergePatch: true,
			Strategy:            podStrategy{},
			Schema:              schema.FromGoType(reflect.TypeOf(api.Pod{})),
			StatusSubresource:   true,
			Table:               podTable(),
			Fields:              func(obj api.Object) fields.Set { return podFields(obj) },
			GracePeriod:         podGracePeriod,
			UpdateSubresources:  map[string]registry.UpdateSubresource{"ephemeralcontainers": ephemeralContainersSubresource()},
			CreateSubresources: map[string]registry.CreateSubresource{
				"binding": {
					Resource: &registry.Resource{
						Version: "v1", Name: "bindings", SingularName: "binding", Kind: "Binding", ListKind: "BindingList",
						Namespaced: true,
						New:        func() api.Object { return &api.Binding{} },
						Schema:     schema.FromGoType(reflect.TypeOf(api.Binding{})),
					},
					Create: bindPod,
				},
				"eviction": {Resource: evictionResource(), Create: evictPod},
			},
		},
		{
			Version: "v1", Name: "services", SingularName: "service", Kind: "Service", ListKind: "ServiceList",
			ShortNames: []string{"svc"}, Categories: []string{"all"}, Namespaced: true,
			New:                 func() api.Object { return &api.Service{} },
			StrategicMergePatch: true,
			Strategy:            serviceStrategy{},
			Schema:              schema.FromGoType(reflect.TypeOf(api.Service{})),
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
			New:                 func() api.Object { return &api.Endpoints{} },
			StrategicMergePatch: true,
			Strategy:            endpointsStrategy{},
			Schema:              schema.FromGoType(reflect.TypeOf(api.Endpoints{})),
			Table:               endpointsTable(),
		},
		{
			Version: "v1", Name: "configmaps", SingularName: "configmap", Kind: "ConfigMap", ListKind: "ConfigMapList",
			ShortNames: []string{"cm"}, Namespaced: true,
			New:                 func() api.Object { return &api.ConfigMap{} },
			StrategicMergePatch: true,
			Strategy:            configMapStrategy{},
			Schema:              schema.FromGoType(reflect.TypeOf(api.ConfigMap{})),
			Table:               configMapTable(),
		},
		{
			Version: "v1", Name: "secrets", SingularName: "secret", Kind: "Secret", ListKind: "SecretList",
			Namespaced:          true,
			New:                 func() api.Object { return &api.Secret{} },
			StrategicMergePatch: true,
			Strategy:            secretStrategy{},
			Schema:              schema.FromGoType(reflect.TypeOf(api.Secret{})),
			Table:               secretTable(),
			Fields:              secretFields,
		},
		serviceAccountResource(),
		{
			Version: "v1", Name: "events", SingularName: "event", Kind: "Event", ListKind: "EventList",
			ShortNames: []string{"ev"}, Namespaced: true,
			New:                 func() api.Object { return &api.Event{} },
			StrategicMergePatch: true,
			Strategy:            eventStrategy{},
			Schema:              schema.FromGoType(reflect.TypeOf(api.Event{})),
			Table:               eventTable(),
			Fields:              eventFields,
		},
		{
			Group: "apps", Version: "v1", Name: "replicasets", SingularName: "replicaset", Kind: "ReplicaSet", ListKind: "ReplicaSetList",
			ShortNames: []string{"rs"}, Categories: []string{"all"}, Namespaced: true,
			New:                 func() api.Object { return &api.ReplicaSet{} },
			StrategicMergePatch: true,
			Strategy:            replicaSetStrategy{},
			Schema:              schema.FromGoType(reflect.TypeOf(api.ReplicaSet{})),
			StatusSubresource:   true,
			Scale:               scale(),
			Table:               replicaSetTable(),
			Fields:              replicaSetFields,
		},
		{
			Group: "apps", Version: "v1", Name: "deployments", SingularName: "deployment", Kind: "Deployment", ListKind: "DeploymentList",
			ShortNames: []string{"deploy"}, Categories: []string{"all"}, Namespaced: true,
			New:                 func() api.Object { return &api.Deployment{} },
			StrategicMergePatch: true,
			Strategy:            deploymentStrategy{},
			Schema:              schema.FromGoType(reflect.TypeOf(api.Deployment{})),
			StatusSubresource:   true,
			Scale:               scale(),
			Table:               deploymentTable(),
		},
		{
			Group: "apps", Version: "v1", Name: "statefulsets", SingularName: "statefulset", Kind: "StatefulSet", ListKind: "StatefulSetList",
			ShortNames: []string{"sts"}, Categories: []string{"all"}, Namespaced: true,
			New:                 func() api.Object { return &api.StatefulSet{} },
			StrategicMergePatch: true,
			Strategy:            statefulSetStrategy{},
			Schema:              schema.FromGoType(reflect.TypeOf(api.StatefulSet{})),
			StatusSubresource:   true,
			Scale:               scale(),
			Table:               statefulSetTable(),
			ValidateName:        IsDNS1123Label,
		},
		{
			Group: "apps", Version: "v1", Name: "controllerrevisions", SingularName: "controllerrevision", Kind: "ControllerRevision", ListKind: "ControllerRevisionList",
			Namespaced:          true,
			New:                 func() api.Object { return &api.ControllerRevision{} },
			StrategicMergePatch: true,
			Strategy:            controllerRevisionStrategy{},
			Schema:              schema.FromGoType(reflect.TypeOf(api.ControllerRevision{})),
			Table:               controllerRevisionTable(),
		},
		{
			Group: "coordination.k8s.io", Version: "v1", Name: "leases", SingularName: "lease", Kind: "Lease", ListKind: "LeaseList",
			Namespaced:          true,
			New:                 func() api.Object { return &api.Lease{} },
			StrategicMergePatch: true,
			Strategy:            leaseStrategy{},
			Schema:              schema.FromGoType(reflect.TypeOf(api.Lease{})),
			Table:               leaseTable(),
		},
		// --- rbac.authorization.k8s.io/v1 ---
		{
			Group: api.RBACGroupName, Version: "v1", Name: "roles", SingularName: "role", Kind: "Role", ListKind: "RoleList",
			Namespaced:          true,
			New:                 func() api.Object { return &api.Role{} },
			StrategicMergePatch: true,
			Strategy:            roleStrategy{},
			Schema:              schema.FromGoType(reflect.TypeOf(api.Role{})),
			Table:               roleTable(),
			ValidateName:        IsValidPathSegmentName,
		},
		{
			Group: api.RBACGroupName, Version: "v1", Name: "clusterroles", SingularName: "clusterrole", Kind: "ClusterRole", ListKind: "ClusterRoleList",
			New:                 func() api.Object { return &api.ClusterRole{} },
			StrategicMergePatch: true,
			Strategy:            clusterRoleStrategy{},
			Schema:              schema.FromGoType(reflect.TypeOf(api.ClusterRole{})),
			Table:               roleTable(),
			ValidateName:        IsValidPathSegmentName,
		},
		{
			Group: api.RBACGroupName, Version: "v1", Name: "rolebindings", SingularName: "rolebinding", Kind: "RoleBinding", ListKind: "RoleBindingList",
			Namespaced:          true,
			New:                 func() api.Object { return &api.RoleBinding{} },
			StrategicMergePatch: true,
			Strategy:            roleBindingStrategy{},
			Schema:              schema.FromGoType(reflect.TypeOf(api.RoleBinding{})),
			Table:               bindingTable(roleBindingParts),
			ValidateName:        IsValidPathSegmentName,
		},
		{
			Group: api.RBACGroupName, Version: "v1", Name: "clusterrolebindings", SingularName: "clusterrolebinding", Kind: "ClusterRoleBinding", ListKind: "ClusterRoleBindingList",
			New:                 func() api.Object { return &api.ClusterRoleBinding{} },
			StrategicMergePatch: true,
			Strategy:            clusterRoleBindingStrategy{},
			Schema:              schema.FromGoType(reflect.TypeOf(api.ClusterRoleBinding{})),
			Table:               bindingTable(clusterRoleBindingParts),
			ValidateName:        IsValidPathSegmentName,
		},
		// --- end rbac ---
	}
	// The other API groups, each in a file of its own, one line each.
	resources = append(resources, admissionPolicyResources()...)      // ValidatingAdmissionPolicy and its binding
	resources = append(resources, webhookConfigurationResources()...) // the admission webhook configurations
	resources = append(resources, batchResources()...)                // Job, CronJob
	resources = append(resources, daemonSetResources()...)            // DaemonSet
	resources = append(resources, storageResources()...)              // PersistentVolumeClaim, PersistentVolume, StorageClass
	resources = append(resources, policyResources()...)               // PodDisruptionBudget
	resources = append(resources, quotaResources()...)                // ResourceQuota, LimitRange
	resources = append(resources, schedulingResources()...)           // PriorityClass
	resources = append(resources, discoveryResources()...)            // EndpointSlice
	resources = append(resources, autoscalingResources()...)          // HorizontalPodAutoscaler at autoscaling/v2 and v1
	return resources
}
