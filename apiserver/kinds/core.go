package kinds

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
	"github.com/kubesim/kubesim/api/fields"
	"github.com/kubesim/kubesim/api/labels"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// --- namespaces (pkg/registry/core/namespace/strategy.go) ---

type namespaceStrategy struct{ registry.DefaultStrategy }

// PrepareForCreate gives every namespace the "kubernetes" finalizer, which
// the namespace controller removes once the namespace is empty.
func (namespaceStrategy) PrepareForCreate(obj api.Object) {
	ns := obj.(*corev1.Namespace)
	ns.Status = corev1.NamespaceStatus{Phase: corev1.NamespaceActive}
	if !slices.Contains(ns.Spec.Finalizers, corev1.FinalizerKubernetes) {
		ns.Spec.Finalizers = append(ns.Spec.Finalizers, corev1.FinalizerKubernetes)
	}
}

// Default implements registry.Strategy.
func (namespaceStrategy) Default(obj api.Object) {
	ns := obj.(*corev1.Namespace)
	if ns.Status.Phase == "" {
		ns.Status.Phase = corev1.NamespaceActive
	}
	// The namespace lifecycle labels every namespace with its own name.
	if ns.Labels == nil {
		ns.Labels = map[string]string{}
	}
	ns.Labels["kubernetes.io/metadata.name"] = ns.Name
}

// PrepareForUpdate keeps spec.finalizers as stored, as Kubernetes does:
// only namespaces/finalize may change them (status is kept by the status
// subresource's splice).
func (namespaceStrategy) PrepareForUpdate(obj, old api.Object) {
	obj.(*corev1.Namespace).Spec.Finalizers = old.(*corev1.Namespace).Spec.Finalizers
}

// namespaceFinalizeSubresource serves namespaces/finalize (FinalizeREST
// with namespaceFinalizeStrategy): a PUT that may change spec.finalizers
// (and, as in Kubernetes, the metadata) but not status. It is how the
// namespace controller gives up the "kubernetes" finalizer once the
// namespace is empty, and how an administrator frees a namespace stuck
// in Terminating (kubectl replace --raw /api/v1/namespaces/NAME/finalize).
// When the last spec finalizer goes from a namespace being deleted, the
// store deletes it (PendingFinalizers; ShouldDeleteNamespaceDuringUpdate
// in Kubernetes).
func namespaceFinalizeSubresource() registry.UpdateSubresource {
	return registry.UpdateSubresource{
		UpdateOnly: true,
		PrepareForUpdate: func(obj, cur api.Object) {
			ns := obj.(*corev1.Namespace)
			ns.Status = *cur.(*corev1.Namespace).Status.DeepCopy()
			// The v1 defaults run on every decoded body in Kubernetes,
			// this one's too: the name label stays.
			namespaceStrategy{}.Default(ns)
		},
		// ValidateNamespaceFinalizeUpdate: the metadata update rules (the
		// store checks them) and the finalizer names.
		ValidateUpdate: func(obj, _ api.Object) field.ErrorList {
			return validateNamespaceFinalizers(obj.(*corev1.Namespace), true)
		},
	}
}

// Validate implements registry.Strategy.
func (namespaceStrategy) Validate(obj api.Object) field.ErrorList {
	return validateNamespaceFinalizers(obj.(*corev1.Namespace), false)
}

// ValidateUpdate implements registry.Strategy.
func (namespaceStrategy) ValidateUpdate(obj, old api.Object) field.ErrorList {
	return validateNamespaceFinalizers(obj.(*corev1.Namespace), false)
}

// validateNamespaceFinalizers checks the finalizer names. ValidateNamespace
// names the list in its errors, ValidateNamespaceFinalizeUpdate (indexed)
// the entry.
func validateNamespaceFinalizers(ns *corev1.Namespace, indexed bool) field.ErrorList {
	var errs field.ErrorList
	for i, f := range ns.Spec.Finalizers {
		p := field.NewPath("spec", "finalizers")
		if indexed {
			p = p.Index(i)
		}
		s := string(f)
		if strings.Contains(s, "/") {
			for _, msg := range labels.IsQualifiedName(s) {
				errs = append(errs, field.Invalid(p, s, msg))
			}
		} else if s != string(corev1.FinalizerKubernetes) {
			errs = append(errs, field.Invalid(p, s, "name is neither a standard finalizer name nor is it fully qualified"))
		}
	}
	return errs
}

// namespacePrepareForDelete begins termination: the phase turns
// Terminating and the namespace waits for its spec finalizers.
func namespacePrepareForDelete(obj api.Object) bool {
	ns := obj.(*corev1.Namespace)
	ns.Status.Phase = corev1.NamespaceTerminating
	return len(ns.Spec.Finalizers) > 0
}

func namespacePendingFinalizers(obj api.Object) bool {
	return len(obj.(*corev1.Namespace).Spec.Finalizers) > 0
}

// --- nodes (pkg/registry/core/node/strategy.go) ---

// nodeStrategy allows status on create: the kubelet registers its node
// with status already filled.
type nodeStrategy struct{ registry.DefaultStrategy }

// Validate implements registry.Strategy.
func (nodeStrategy) Validate(obj api.Object) field.ErrorList {
	return validateNode(obj.(*corev1.Node))
}

// ValidateUpdate implements registry.Strategy.
func (nodeStrategy) ValidateUpdate(obj, old api.Object) field.ErrorList {
	n, o := obj.(*corev1.Node), old.(*corev1.Node)
	errs := validateNode(n)
	if o.Spec.PodCIDR != "" && n.Spec.PodCIDR != o.Spec.PodCIDR {
		errs = append(errs, field.Forbidden(field.NewPath("spec", "podCIDR"), "node updates may not change podCIDR except from \"\" to valid"))
	}
	if o.Spec.ProviderID != "" && n.Spec.ProviderID != o.Spec.ProviderID {
		errs = append(errs, field.Forbidden(field.NewPath("spec", "providerID"), "node updates may not change providerID except from \"\" to valid"))
	}
	return errs
}

func validateNode(n *corev1.Node) field.ErrorList {
	var errs field.ErrorList
	for i, t := range n.Spec.Taints {
		tp := field.NewPath("spec", "taints").Index(i)
		for _, msg := range labels.IsQualifiedName(t.Key) {
			errs = append(errs, field.Invalid(tp.Child("key"), t.Key, msg))
		}
		switch t.Effect {
		case corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
		case "":
			errs = append(errs, field.Required(tp.Child("effect"), ""))
		default:
			errs = append(errs, field.NotSupported(tp.Child("effect"), t.Effect,
				[]string{string(corev1.TaintEffectNoSchedule), string(corev1.TaintEffectPreferNoSchedule), string(corev1.TaintEffectNoExecute)}))
		}
	}
	return errs
}

func nodeFields(obj api.Object) fields.Set {
	if obj.(*corev1.Node).Spec.Unschedulable {
		return fields.Set{"spec.unschedulable": "true"}
	}
	return fields.Set{"spec.unschedulable": "false"}
}

// --- services (pkg/registry/core/service/strategy.go) ---

type serviceStrategy struct{ registry.DefaultStrategy }

// PrepareForCreate implements registry.Strategy.
func (serviceStrategy) PrepareForCreate(obj api.Object) {
	obj.(*corev1.Service).Status = corev1.ServiceStatus{}
}

// Default is SetDefaults_Service plus what the IP allocator settles:
// clusterIPs follows clusterIP, and a single IPv4 family.
func (serviceStrategy) Default(obj api.Object) {
	s := &obj.(*corev1.Service).Spec
	if s.SessionAffinity == "" {
		s.SessionAffinity = corev1.ServiceAffinityNone
	}
	if s.Type == "" {
		s.Type = corev1.ServiceTypeClusterIP
	}
	for i := range s.Ports {
		p := &s.Ports[i]
		if p.Protocol == "" {
			p.Protocol = corev1.ProtocolTCP
		}
		if (p.TargetPort.Type == intstr.Int && p.TargetPort.IntVal == 0) ||
			(p.TargetPort.Type == intstr.String && p.TargetPort.StrVal == "") {
			p.TargetPort = intstr.FromInt32(p.Port)
		}
	}
	if (s.Type == corev1.ServiceTypeNodePort || s.Type == corev1.ServiceTypeLoadBalancer) && s.ExternalTrafficPolicy == "" {
		s.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyCluster
	}
	if s.Type == corev1.ServiceTypeExternalName {
		return
	}
	if s.InternalTrafficPolicy == nil {
		s.InternalTrafficPolicy = ptr(corev1.ServiceInternalTrafficPolicyCluster)
	}
	if s.ClusterIP != "" && len(s.ClusterIPs) == 0 {
		s.ClusterIPs = []string{s.ClusterIP}
	} else if s.ClusterIP == "" && len(s.ClusterIPs) > 0 {
		s.ClusterIP = s.ClusterIPs[0]
	}
	if s.IPFamilyPolicy == nil {
		s.IPFamilyPolicy = ptr(corev1.IPFamilyPolicySingleStack)
	}
	if len(s.IPFamilies) == 0 {
		s.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol}
	}
}

// PrepareForUpdate keeps the allocated cluster IP and node ports when the
// new object leaves them out (patchAllocatedValues): kubectl replace of a
// manifest without clusterIP must not look like a change of it.
func (serviceStrategy) PrepareForUpdate(obj, old api.Object) {
	dropTypeDependentFields(obj.(*corev1.Service), old.(*corev1.Service))
	s, o := &obj.(*corev1.Service).Spec, &old.(*corev1.Service).Spec
	if s.Type == corev1.ServiceTypeExternalName {
		return
	}
	if s.ClusterIP == "" && len(s.ClusterIPs) == 0 && o.Type != corev1.ServiceTypeExternalName {
		s.ClusterIP, s.ClusterIPs = o.ClusterIP, append([]string(nil), o.ClusterIPs...)
	}
	if s.Type == corev1.ServiceTypeNodePort || s.Type == corev1.ServiceTypeLoadBalancer {
		for i := range s.Ports {
			for _, op := range o.Ports {
				if s.Ports[i].NodePort == 0 && op.Port == s.Ports[i].Port && op.Protocol == s.Ports[i].Protocol {
					s.Ports[i].NodePort = op.NodePort
				}
			}
		}
	}
}

// dropTypeDependentFields is kube-apiserver's of the same name: a Service
// whose new type no longer needs a field the old one had loses it, when
// the user left it as it was (it may have been given by the server, not
// asked for). A ClusterIP Service turned ExternalName thus loses its
// cluster IPs, families and policies rather than being refused for them.
func dropTypeDependentFields(svc, old *corev1.Service) {
	s, o := &svc.Spec, &old.Spec
	if o.Type != corev1.ServiceTypeExternalName && s.Type == corev1.ServiceTypeExternalName {
		if s.ClusterIP == o.ClusterIP && slices.Equal(s.ClusterIPs, o.ClusterIPs) {
			s.ClusterIP, s.ClusterIPs = "", nil
		}
		if slices.Equal(s.IPFamilies, o.IPFamilies) {
			s.IPFamilies = nil
		}
		if reflect.DeepEqual(s.IPFamilyPolicy, o.IPFamilyPolicy) {
			s.IPFamilyPolicy = nil
		}
		if reflect.DeepEqual(s.InternalTrafficPolicy, o.InternalTrafficPolicy) {
			s.InternalTrafficPolicy = nil
		}
	}
	nodePorts := func(t corev1.ServiceType) bool {
		return t == corev1.ServiceTypeNodePort || t == corev1.ServiceTypeLoadBalancer
	}
	if nodePorts(o.Type) && !nodePorts(s.Type) {
		if sameNodePorts(s.Ports, o.Ports) {
			for i := range s.Ports {
				s.Ports[i].NodePort = 0
			}
		}
		if s.ExternalTrafficPolicy == o.ExternalTrafficPolicy {
			s.ExternalTrafficPolicy = ""
		}
	}
	if o.Type == corev1.ServiceTypeLoadBalancer && s.Type != corev1.ServiceTypeLoadBalancer {
		if s.HealthCheckNodePort == o.HealthCheckNodePort {
			s.HealthCheckNodePort = 0
		}
		if s.AllocateLoadBalancerNodePorts != nil && o.AllocateLoadBalancerNodePorts != nil &&
			*s.AllocateLoadBalancerNodePorts == *o.AllocateLoadBalancerNodePorts {
			s.AllocateLoadBalancerNodePorts = nil
		}
		if reflect.DeepEqual(s.LoadBalancerClass, o.LoadBalancerClass) {
			s.LoadBalancerClass = nil
		}
	}
	if s.Type != corev1.ServiceTypeLoadBalancer {
		svc.Status.LoadBalancer = corev1.LoadBalancerStatus{}
	}
}

// sameNodePorts reports whether two port lists name the same node ports
// in the same places.
func sameNodePorts(a, b []corev1.ServicePort) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].NodePort != b[i].NodePort {
			return false
		}
	}
	return true
}

// Validate implements registry.Strategy.
func (serviceStrategy) Validate(obj api.Object) field.ErrorList {
	return validateService(obj.(*corev1.Service))
}

// ValidateUpdate implements registry.Strategy.
func (serviceStrategy) ValidateUpdate(obj, old api.Object) field.ErrorList {
	s, o := obj.(*corev1.Service), old.(*corev1.Service)
	errs := validateService(s)
	if s.Spec.Type != corev1.ServiceTypeExternalName && o.Spec.Type != corev1.ServiceTypeExternalName &&
		!(isHeadless(s) && isHeadless(o)) && len(o.Spec.ClusterIPs) == len(s.Spec.ClusterIPs) {
		for i, ip := range o.Spec.ClusterIPs {
			if ip != s.Spec.ClusterIPs[i] {
				errs = append(errs, field.Invalid(field.NewPath("spec", "clusterIPs").Index(i), s.Spec.ClusterIPs, "may not change once set"))
			}
		}
	}
	return errs
}

func isHeadless(s *corev1.Service) bool { return s.Spec.ClusterIP == corev1.ClusterIPNone }

func validateService(svc *corev1.Service) field.ErrorList {
	var errs field.ErrorList
	spec := &svc.Spec
	sp := field.NewPath("spec")
	switch spec.Type {
	case corev1.ServiceTypeClusterIP, corev1.ServiceTypeNodePort, corev1.ServiceTypeLoadBalancer:
	case corev1.ServiceTypeExternalName:
		if len(spec.ClusterIPs) > 0 || spec.ClusterIP != "" {
			errs = append(errs, field.Forbidden(sp.Child("clusterIPs"), "may not be set for ExternalName services"))
		}
		if spec.ExternalName == "" {
			errs = append(errs, field.Required(sp.Child("externalName"), ""))
		} else {
			for _, msg := range labels1123Subdomain(strings.TrimSuffix(spec.ExternalName, ".")) {
				errs = append(errs, field.Invalid(sp.Child("externalName"), spec.ExternalName, msg))
			}
		}
	case "":
		errs = append(errs, field.Required(sp.Child("type"), ""))
	default:
		errs = append(errs, field.NotSupported(sp.Child("type"), spec.Type, []string{"ClusterIP", "ExternalName", "LoadBalancer", "NodePort"}))
	}
	if len(spec.Ports) == 0 && !isHeadless(svc) && spec.Type != corev1.ServiceTypeExternalName {
		errs = append(errs, field.Required(sp.Child("ports"), ""))
	}
	names := map[string]bool{}
	for i, port := range spec.Ports {
		pp := sp.Child("ports").Index(i)
		if len(spec.Ports) > 1 && port.Name == "" {
			errs = append(errs, field.Required(pp.Child("name"), ""))
		} else if port.Name != "" {
			errs = append(errs, validateDNS1123Label(port.Name, pp.Child("name"))...)
			if names[port.Name] {
				errs = append(errs, field.Duplicate(pp.Child("name"), port.Name))
			}
			names[port.Name] = true
		}
		if !validPortNum(port.Port) {
			errs = append(errs, field.Invalid(pp.Child("port"), port.Port, portRangeErrMsg))
		}
		errs = append(errs, validateProtocol(port.Protocol, pp.Child("protocol"))...)
		switch t := port.TargetPort; t.Type {
		case intstr.Int:
			if !validPortNum(t.IntVal) {
				errs = append(errs, field.Invalid(pp.Child("targetPort"), t.IntVal, portRangeErrMsg))
			}
		case intstr.String:
			for _, msg := range IsValidPortName(t.StrVal) {
				errs = append(errs, field.Invalid(pp.Child("targetPort"), t.StrVal, msg))
			}
		}
		if port.NodePort != 0 {
			if spec.Type == corev1.ServiceTypeClusterIP || spec.Type == corev1.ServiceTypeExternalName {
				errs = append(errs, field.Forbidden(pp.Child("nodePort"), "may not be used when `type` is '"+string(spec.Type)+"'"))
			} else if !validPortNum(port.NodePort) {
				errs = append(errs, field.Invalid(pp.Child("nodePort"), port.NodePort, portRangeErrMsg))
			}
		}
	}
	switch spec.SessionAffinity {
	case corev1.ServiceAffinityNone, corev1.ServiceAffinityClientIP:
	case "":
		errs = append(errs, field.Required(sp.Child("sessionAffinity"), ""))
	default:
		errs = append(errs, field.NotSupported(sp.Child("sessionAffinity"), spec.SessionAffinity, []string{"ClientIP", "None"}))
	}
	errs = append(errs, validateLabels(spec.Selector, sp.Child("selector"))...)
	if spec.Type != corev1.ServiceTypeExternalName {
		for i, ip := range spec.ClusterIPs {
			if i == 0 && ip == corev1.ClusterIPNone {
				continue
			}
			if !validIP(ip) {
				errs = append(errs, field.Invalid(sp.Child("clusterIPs").Index(i), ip, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"))
			}
		}
		if spec.ClusterIP != "" && len(spec.ClusterIPs) > 0 && spec.ClusterIPs[0] != spec.ClusterIP {
			errs = append(errs, field.Invalid(sp.Child("clusterIPs"), spec.ClusterIPs, "first value must match `clusterIP`"))
		}
	}
	for i, ip := range spec.ExternalIPs {
		if !validIP(ip) {
			errs = append(errs, field.Invalid(sp.Child("externalIPs").Index(i), ip, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"))
		}
	}
	return errs
}

// --- endpoints ---

type endpointsStrategy struct{ registry.DefaultStrategy }

// Default implements registry.Strategy.
func (endpointsStrategy) Default(obj api.Object) {
	for i := range obj.(*corev1.Endpoints).Subsets {
		ss := &obj.(*corev1.Endpoints).Subsets[i]
		for j := range ss.Ports {
			if ss.Ports[j].Protocol == "" {
				ss.Ports[j].Protocol = corev1.ProtocolTCP
			}
		}
	}
}

// Validate implements registry.Strategy.
func (endpointsStrategy) Validate(obj api.Object) field.ErrorList {
	return validateEndpoints(obj.(*corev1.Endpoints))
}

// ValidateUpdate implements registry.Strategy.
func (endpointsStrategy) ValidateUpdate(obj, _ api.Object) field.ErrorList {
	return validateEndpoints(obj.(*corev1.Endpoints))
}

func validateEndpoints(e *corev1.Endpoints) field.ErrorList {
	var errs field.ErrorList
	for i, ss := range e.Subsets {
		sp := field.NewPath("subsets").Index(i)
		if len(ss.Addresses) == 0 && len(ss.NotReadyAddresses) == 0 {
			errs = append(errs, field.Required(sp, "must specify `addresses` or `notReadyAddresses`"))
		}
		for name, list := range map[string][]corev1.EndpointAddress{"addresses": ss.Addresses, "notReadyAddresses": ss.NotReadyAddresses} {
			for j, a := range list {
				if !validIP(a.IP) {
					errs = append(errs, field.Invalid(sp.Child(name).Index(j).Child("ip"), a.IP, "must be a valid IP address"))
				}
			}
		}
		for j, port := range ss.Ports {
			pp := sp.Child("ports").Index(j)
			if len(ss.Ports) > 1 && port.Name == "" {
				errs = append(errs, field.Required(pp.Child("name"), ""))
			}
			if !validPortNum(port.Port) {
				errs = append(errs, field.Invalid(pp.Child("port"), port.Port, portRangeErrMsg))
			}
			errs = append(errs, validateProtocol(port.Protocol, pp.Child("protocol"))...)
		}
	}
	return errs
}

// --- configmaps and secrets ---

type configMapStrategy struct{ registry.DefaultStrategy }

// Validate implements registry.Strategy.
func (configMapStrategy) Validate(obj api.Object) field.ErrorList {
	return validateConfigMap(obj.(*corev1.ConfigMap))
}

// ValidateUpdate implements registry.Strategy.
func (configMapStrategy) ValidateUpdate(obj, old api.Object) field.ErrorList {
	c, o := obj.(*corev1.ConfigMap), old.(*corev1.ConfigMap)
	errs := validateConfigMap(c)
	if o.Immutable != nil && *o.Immutable {
		if c.Immutable == nil || !*c.Immutable {
			errs = append(errs, field.Forbidden(field.NewPath("immutable"), "field is immutable when `immutable` is set"))
		}
		if !reflect.DeepEqual(c.Data, o.Data) {
			errs = append(errs, field.Forbidden(field.NewPath("data"), "field is immutable when `immutable` is set"))
		}
		if !reflect.DeepEqual(c.BinaryData, o.BinaryData) {
			errs = append(errs, field.Forbidden(field.NewPath("binaryData"), "field is immutable when `immutable` is set"))
		}
	}
	return errs
}

func validateConfigMap(c *corev1.ConfigMap) field.ErrorList {
	var errs field.ErrorList
	size := 0
	for _, k := range sortedKeys(c.Data) {
		for _, msg := range IsConfigMapKey(k) {
			errs = append(errs, field.Invalid(field.NewPath("data").Key(k), k, msg))
		}
		if _, dup := c.BinaryData[k]; dup {
			errs = append(errs, field.Invalid(field.NewPath("data").Key(k), k, "duplicate of key present in binaryData"))
		}
		size += len(c.Data[k])
	}
	for _, k := range sortedKeys(c.BinaryData) {
		for _, msg := range IsConfigMapKey(k) {
			errs = append(errs, field.Invalid(field.NewPath("binaryData").Key(k), k, msg))
		}
		if _, dup := c.Data[k]; dup {
			errs = append(errs, field.Invalid(field.NewPath("binaryData").Key(k), k, "duplicate of key present in data"))
		}
		size += len(c.BinaryData[k])
	}
	if size > maxSecretSize {
		errs = append(errs, field.TooLong(field.NewPath(""), "", maxSecretSize))
	}
	return errs
}

type secretStrategy struct{ registry.DefaultStrategy }

// Default sets type Opaque and folds the write-only stringData into data,
// as the v1 conversion does.
func (secretStrategy) Default(obj api.Object) {
	s := obj.(*corev1.Secret)
	if s.Type == "" {
		s.Type = corev1.SecretTypeOpaque
	}
	if len(s.StringData) > 0 {
		if s.Data == nil {
			s.Data = map[string][]byte{}
		}
		for k, v := range s.StringData {
			s.Data[k] = []byte(v)
		}
	}
	s.StringData = nil
}

// Validate implements registry.Strategy.
func (secretStrategy) Validate(obj api.Object) field.ErrorList {
	return validateSecret(obj.(*corev1.Secret))
}

// ValidateUpdate implements registry.Strategy.
func (secretStrategy) ValidateUpdate(obj, old api.Object) field.ErrorList {
	s, o := obj.(*corev1.Secret), old.(*corev1.Secret)
	errs := validateSecret(s)
	if s.Type != o.Type {
		errs = append(errs, field.Invalid(field.NewPath("type"), s.Type, immutableErrMsg))
	}
	if o.Immutable != nil && *o.Immutable {
		if s.Immutable == nil || !*s.Immutable {
			errs = append(errs, field.Forbidden(field.NewPath("immutable"), "field is immutable when `immutable` is set"))
		}
		if !reflect.DeepEqual(s.Data, o.Data) {
			errs = append(errs, field.Forbidden(field.NewPath("data"), "field is immutable when `immutable` is set"))
		}
	}
	return errs
}

func validateSecret(s *corev1.Secret) field.ErrorList {
	var errs field.ErrorList
	dp := field.NewPath("data")
	size := 0
	for _, k := range sortedKeys(s.Data) {
		for _, msg := range IsConfigMapKey(k) {
			errs = append(errs, field.Invalid(dp.Key(k), k, msg))
		}
		size += len(s.Data[k])
	}
	if size > maxSecretSize {
		errs = append(errs, field.TooLong(dp, "", maxSecretSize))
	}
	need := func(keys ...string) {
		for _, k := range keys {
			if _, ok := s.Data[k]; !ok {
				errs = append(errs, field.Required(dp.Key(k), ""))
			}
		}
	}
	// A docker config must be JSON: the kubelet reads its credentials.
	needJSON := func(key string) {
		raw, ok := s.Data[key]
		if !ok {
			need(key)
			return
		}
		var v map[string]any
		if err := json.Unmarshal(raw, &v); err != nil {
			errs = append(errs, field.Invalid(dp.Key(key), "<secret contents redacted>", err.Error()))
		}
	}
	switch s.Type {
	case corev1.SecretTypeTLS:
		need("tls.crt", "tls.key")
	case api.SecretTypeDockerConfigJSON:
		needJSON(corev1.DockerConfigJsonKey)
	case corev1.SecretTypeDockercfg:
		needJSON(corev1.DockerConfigKey)
	case corev1.SecretTypeSSHAuth:
		need("ssh-privatekey")
	case corev1.SecretTypeServiceAccountToken:
		if s.Annotations["kubernetes.io/service-account.name"] == "" {
			errs = append(errs, field.Required(field.NewPath("metadata", "annotations").Key("kubernetes.io/service-account.name"), ""))
		}
	case "":
		errs = append(errs, field.Required(field.NewPath("type"), ""))
	}
	return errs
}

func secretFields(obj api.Object) fields.Set {
	return fields.Set{"type": string(obj.(*corev1.Secret).Type)}
}

// --- events ---

func eventFields(obj api.Object) fields.Set {
	e := obj.(*corev1.Event)
	source := e.Source.Component
	if source == "" {
		source = e.ReportingController
	}
	return fields.Set{
		"involvedObject.kind":            e.InvolvedObject.Kind,
		"involvedObject.namespace":       e.InvolvedObject.Namespace,
		"involvedObject.name":            e.InvolvedObject.Name,
		"involvedObject.uid":             string(e.InvolvedObject.UID),
		"involvedObject.apiVersion":      e.InvolvedObject.APIVersion,
		"involvedObject.resourceVersion": e.InvolvedObject.ResourceVersion,
		"involvedObject.fieldPath":       e.InvolvedObject.FieldPath,
		"reason":                         e.Reason,
		"reportingComponent":             e.ReportingController,
		"source":                         source,
		"type":                           e.Type,
	}
}

type eventStrategy struct{ registry.DefaultStrategy }

// Validate implements registry.Strategy.
func (eventStrategy) Validate(obj api.Object) field.ErrorList {
	e := obj.(*corev1.Event)
	var errs field.ErrorList
	if e.InvolvedObject.Namespace != "" && e.InvolvedObject.Namespace != e.Namespace {
		errs = append(errs, field.Invalid(field.NewPath("involvedObject", "namespace"), e.InvolvedObject.Namespace, "does not match event.namespace"))
	}
	switch e.Type {
	case "", corev1.EventTypeNormal, corev1.EventTypeWarning:
	default:
		errs = append(errs, field.NotSupported(field.NewPath("type"), e.Type, []string{corev1.EventTypeNormal, corev1.EventTypeWarning}))
	}
	return errs
}

// ValidateUpdate implements registry.Strategy.
func (s eventStrategy) ValidateUpdate(obj, _ api.Object) field.ErrorList { return s.Validate(obj) }

// --- leases (pkg/apis/coordination/validation) ---

type leaseStrategy struct{ registry.DefaultStrategy }

// Validate implements registry.Strategy.
func (leaseStrategy) Validate(obj api.Object) field.ErrorList {
	spec := &obj.(*coordinationv1.Lease).Spec
	var errs field.ErrorList
	p := field.NewPath("spec")
	if d := spec.LeaseDurationSeconds; d != nil && *d <= 0 {
		errs = append(errs, field.Invalid(p.Child("leaseDurationSeconds"), *d, "must be greater than 0"))
	}
	if t := spec.LeaseTransitions; t != nil && *t < 0 {
		errs = append(errs, field.Invalid(p.Child("leaseTransitions"), *t, nonNegativeErrMsg))
	}
	return errs
}

// ValidateUpdate implements registry.Strategy.
func (s leaseStrategy) ValidateUpdate(obj, _ api.Object) field.ErrorList { return s.Validate(obj) }
