// Package kinds holds the per-kind rules of every built-in resource kubesim
// serves (pods, services, deployments...): each one a *registry.Resource that
// the generic REST storage of package registry serves.
//
// It simulates, for each kind, what Kubernetes spreads over several places:
//
//   - the strategies of kubernetes/pkg/registry/<group>/<resource>/strategy.go
//     (what a create resets, what an update carries over, graceful delete of
//     pods, the pods/binding subresource of pkg/registry/core/pod/storage,
//     and pods/eviction of its eviction.go: a policy/v1 Eviction marks the
//     pod DisruptionTarget and deletes it gracefully, eviction.go; the
//     namespaces/finalize subresource of pkg/registry/core/namespace, the
//     one write that may change a namespace's spec.finalizers, core.go);
//   - the defaults of kubernetes/pkg/apis/<group>/v1/defaults.go;
//   - the validation of kubernetes/pkg/apis/core/validation and
//     pkg/apis/apps/validation, with Kubernetes' wording and field paths;
//   - the table printers of kubernetes/pkg/printers/internalversion/printers.go
//     (the columns of kubectl get, with kubectl's pod status logic);
//   - the validation and v1 defaults of rbac.authorization.k8s.io
//     (pkg/apis/rbac/validation: rules need verbs, subjects' kinds, the
//     immutable roleRef; rbac.go); the RBAC authorization itself is in
//     apiserver/authz and apiserver/rbacregistry;
//   - the batch/v1 Jobs and CronJobs of pkg/registry/batch and
//     pkg/apis/batch (the generated selector and the
//     batch.kubernetes.io/controller-uid and job-name labels, the pod
//     failure policy's rules, a CronJob's schedule parsed by robfig/cron
//     with its messages and no TZ= in it, its time zone; batch.go);
//   - the networking.k8s.io/v1 Ingresses, IngressClasses and
//     NetworkPolicies of pkg/apis/networking (paths and pathTypes, one
//     backend each, the immutable controller of a class, peers, ports and
//     ipBlocks; networking.go);
//   - the status strategies of those strategy.go files: what a write to
//     /status may change besides the status (statusstrategy.go);
//   - the fields kubesim stores but nothing in it acts on, named in a
//     Warning header on the writes that set them, as kube-apiserver's
//     strategies warn (WarningsOnCreate); docs/fidelity.md mirrors the
//     table (fidelity.go);
//   - the cluster IP and node port allocators of the service REST storage
//     (pkg/registry/core/service/ipallocator and portallocator), one each
//     per API server (ClusterIPAllocator, clusterip.go; NodePortAllocator,
//     nodeport.go);
//   - the core group's PodTemplates and ReplicationControllers (their
//     defaults: the selector from the template's labels; replication.go);
//   - events.k8s.io/v1 Events, served from the core Events' storage with
//     pkg/apis/events/v1's conversion and that version's strict validation
//     (events.go);
//   - node.k8s.io/v1 RuntimeClasses (runtimeclass.go; the admission plugin
//     is apiserver/admission's RuntimeClass);
//   - certificates.k8s.io/v1 CertificateSigningRequests with /status and
//     /approval, pkg/registry/certificates' strategies (the requesting user
//     recorded through registry.RequestPreparer) and
//     pkg/apis/certificates/validation (certificates.go);
//   - flowcontrol.apiserver.k8s.io/v1 FlowSchemas and
//     PriorityLevelConfigurations, their v1 defaults, validation, tables
//     and kube-apiserver 1.32's bootstrap configuration
//     (flowcontrol.go, flowcontrol_bootstrap.go).
//
// Left out: most of pod validation (affinity, probes in depth, security
// contexts, resource quantities against limits), the allocators' repair
// loops and IPAddress objects, dual-stack rules, feature gates, the core/v1
// Event field checks of ValidateEventCreate (events.k8s.io/v1's are done),
// and the CSR status's lastTransitionTime from the server's clock (the
// writer's lastUpdateTime stands in: strategies have no clock). Kubernetes validates the internal types;
// kubesim validates the v1 types, so a bad value prints as api.X where
// Kubernetes prints core.X (except label selectors, which print as
// v1.LabelSelector, as in Kubernetes).
//
// Read the real ones in https://github.com/kubernetes/kubernetes under
// pkg/registry, pkg/apis/core/v1/defaults.go, pkg/apis/apps/v1/defaults.go,
// pkg/apis/core/validation/validation.go, pkg/apis/apps/validation and
// pkg/printers/internalversion/printers.go.
package kinds
