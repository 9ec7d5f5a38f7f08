package kinds

import (
	corev1 "k8s.io/api/core/v1"
	"reflect"
	"slices"
	"strings"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
	"github.com/kubesim/kubesim/api/fields"
	"github.com/kubesim/kubesim/api/labels"
	"github.com/kubesim/kubesim/apiserver/registry"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// --- namespaces (pkg/registry/core/namespace/strategy.go) ---

type namespaceStrategy struct{ registry.DefaultStrategy }

// PrepareForCreate gives every namespace the "kubernetes" finalizer, which
// the namespace controller removes once the namespace is empty.
func (namespaceStrategy) PrepareForCreate(obj api.Object) {
	ns := obj.(*api.Namespace)
	ns.Status = api.NamespaceStatus{Phase: api.NamespaceActive}
	if !slices.Contains(ns.Spec.Finalizers, api.FinalizerKubernetes) {
		ns.Spec.Finalizers = append(ns.Spec.Finalizers, api.FinalizerKubernetes)
	}
}

// Default implements registry.Strategy.
func (namespaceStrategy) Default(obj api.Object) {
	ns := obj.(*api.Namespace)
	if ns.Status.Phase == "" {
		ns.Status.Phase = api.NamespaceActive
	}
	// The namespace lifecycle labels every namespace with its own name.
	if ns.Labels == nil {
		ns.Labels = map[string]string{}
	}
	ns.Labels["kubernetes.io/metadata.name"] = ns.Name
}

// PrepareForUpdate keeps spec.finalizers while the namespace is alive, as
// Kubernetes does (only namespaces/finalize may change them). kubesim has
// no finalize subresource, so once deletion began an update may remove
// finalizers: that is how the namespace controller finishes.
func (namespaceStrategy) PrepareForUpdate(obj, old api.Object) {
	ns, oldNS := obj.(*api.Namespace), old.(*api.Namespace)
	if oldNS.DeletionTimestamp == nil {
		ns.Spec.Finalizers = oldNS.Spec.Finalizers
	}
}

// Validate implements registry.Strategy.
func (namespaceStrategy) Validate(obj api.Object) field.ErrorList {
	return validateNamespaceFinalizers(obj.(*api.Namespace))
}

// ValidateUpdate implements registry.Strategy.
func (namespaceStrategy) ValidateUpdate(obj, old api.Object) field.ErrorList {
	return validateNamespaceFinalizers(obj.(*api.Namespace))
}

func validateNamespaceFinalizers(ns *api.Namespace) field.ErrorList {
	var errs field.ErrorList
	p := field.NewPath("spec", "finalizers")
	for _, f := range ns.Spec.Finalizers {
		s := string(f)
		if strings.Contains(s, "/") {
			for _, msg := range labels.IsQualifiedName(s) {
				errs = append(errs, field.Invalid(p, s, msg))
			}
		} else if s != string(api.FinalizerKubernetes) {
			errs = append(errs, field.Invalid(p, s, "name is neither a standard finalizer name nor is it fully qualified"))
		}
	}
	return errs
}

// namespacePrepareForDelete begins termination: the phase turns
// Terminating and the namespace waits for its spec finalizers.
func namespacePrepareForDelete(obj api.Object) bool {
	ns := obj.(*api.Namespace)
	ns.Status.Phase = api.NamespaceTerminating
	return len(ns.Spec.Finalizers) > 0
}

func namespacePendingFinalizers(obj api.Object) bool {
	return len(obj.(*api.Namespace).Spec.Finalizers) > 0
}

// --- nodes (pkg/registry/core/node/strategy.go) ---

// nodeStrategy allows status on create: the kubelet registers its node
// with status already filled.
type nodeStrategy struct{ registry.DefaultStrategy }

// Validate implements registry.Strategy.
func (nodeStrategy) Validate(obj api.Object) field.ErrorList {
	return validateNode(obj.(*api.Node))
}

// ValidateUpdate implements registry.Strategy.
func (nodeStrategy) ValidateUpdate(obj, old api.Object) field.ErrorList {
	n, o := obj.(*api.Node), old.(*api.Node)
	errs := validateNode(n)
	if o.Spec.PodCIDR != "" && n.Spec.PodCIDR != o.Spec.PodCIDR {
		errs = append(errs, field.Forbidden(field.NewPath("spec", "podCIDR"), "node updates may not change podCIDR except from \"\" to valid"))
	}
	if o.Spec.ProviderID != "" && n.Spec.ProviderID != o.Spec.ProviderID {
		errs = append(errs, field.Forbidden(field.NewPath("spec", "providerID"), "node updates may not change providerID except from \"\" to valid"))
	}
	return errs
}

func validateNode(n *api.Node) field.ErrorList {
	var errs field.ErrorList
	for i, t := range n.Spec.Taints {
		tp := field.NewPath("spec", "taints").Index(i)
		for _, msg := range labels.IsQualifiedName(t.Key) {
			errs = append(errs, field.Invalid(tp.Child("key"), t.Key, msg))
		}
		switch t.Effect {
		case api.TaintEffectNoSchedule, api.TaintEffectPreferNoSchedule, api.TaintEffectNoExecute:
		case "":
			errs = append(errs, field.Required(tp.Child("effect"), ""))
		default:
			errs = append(errs, field.NotSupported(tp.Child("effect"), t.Effect,
				[]string{string(api.TaintEffectNoSchedule), string(api.TaintEffectPreferNoSchedule), string(api.TaintEffectNoExecute)}))
		}
	}
	return errs
}

func nodeFields(obj api.Object) fields.Set {
	if obj.(*api.Node).Spec.Unschedulable {
		return fields.Set{"spec.unschedulable": "true"}
	}
	return fields.Set{"spec.unschedulable": "false"}
}

// --- services (pkg/registry/core/service/strategy.go) ---

type serviceStrategy struct{ registry.DefaultStrategy }

// PrepareForCreate implements registry.Strategy.
func (serviceStrategy) PrepareForCreate(obj api.Object) {
	obj.(*api.Service).Status = api.ServiceStatus{}
}

// Default is SetDefaults_Service plus what the IP allocator settles:
// clusterIPs follows clusterIP, and a single IPv4 family.
func (serviceStrategy) Default(obj api.Object) {
	s := &obj.(*api.Service).Spec
	if s.SessionAffinity == "" {
		s.SessionAffinity = api.ServiceAffinityNone
	}
	if s.Type == "" {
		s.Type = api.ServiceTypeClusterIP
	}
	for i := range s.Ports {
		p := &s.Ports[i]
		if p.Protocol == "" {
			p.Protocol = api.ProtocolTCP
		}
		if (p.TargetPort.Type == intstr.Int && p.TargetPort.IntVal == 0) ||
			(p.TargetPort.Type == intstr.String && p.TargetPort.StrVal == "") {
			p.TargetPort = intstr.FromInt32(p.Port)
		}
	}
	if (s.Type == api.ServiceTypeNodePort || s.Type == api.ServiceTypeLoadBalancer) && s.ExternalTrafficPolicy == "" {
		s.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyCluster
	}
	if s.Type == api.ServiceTypeExternalName {
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
		s.IPFamilyPolicy = ptr(api.IPFamilyPolicySingleStack)
	}
	if len(s.IPFamilies) == 0 {
		s.IPFamilies = []api.IPFamily{api.IPv4Protocol}
	}
}

// PrepareForUpdate keeps the allocated cluster IP and node ports when the
// new object leaves them out (patchAllocatedValues): kubectl replace of a
// manifest without clusterIP must not look like a change of it.
func (serviceStrategy) PrepareForUpdate(obj, old api.Object) {
	s, o := &obj.(*api.Service).Spec, &old.(*api.Service).Spec
	if s.Type == api.ServiceTypeExternalName {
		return
	}
	if s.ClusterIP == "" && len(s.ClusterIPs) == 0 && o.Type != api.ServiceTypeExternalName {
		s.ClusterIP, s.ClusterIPs = o.ClusterIP, append([]string(nil), o.ClusterIPs...)
	}
	if oldNeeds := o.Type == api.ServiceTypeNodePort || o.Type == api.ServiceTypeLoadBalancer; oldNeeds &&
		s.Type != api.ServiceTypeNodePort && s.Type != api.ServiceTypeLoadBalancer && sameNodePorts(s.Ports, o.Ports) {
		// dropTypeDependentFields: a Service that stops being NodePort
		// loses the node ports the user left as they were.
		for i := range s.Ports {
			s.Ports[i].NodePort = 0
		}
	}
	if s.Type == api.ServiceTypeNodePort || s.Type == api.ServiceTypeLoadBalancer {
		for i := range s.Ports {
			for _, op := range o.Ports {
				if s.Ports[i].NodePort == 0 && op.Port == s.Ports[i].Port && op.Protocol == s.Ports[i].Protocol {
					s.Ports[i].NodePort = op.NodePort
				}
			}
		}
	}
}

// sameNodePorts reports whether two port lists name the same node ports
// in the same places.
func sameNodePorts(a, b []api.ServicePort) bool {
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
	return validateService(obj.(*api.Service))
}

// ValidateUpdate implements registry.Strategy.
func (serviceStrategy) ValidateUpdate(obj, old api.Object) field.ErrorList {
	s, o := obj.(*api.Service), old.(*api.Service)
	errs := validateService(s)
	if s.Spec.Type != api.ServiceTypeExternalName && o.Spec.Type != api.ServiceTypeExternalName &&
		!(isHeadless(s) && isHeadless(o)) && len(o.Spec.ClusterIPs) == len(s.Spec.ClusterIPs) {
		for i, ip := range o.Spec.ClusterIPs {
			if ip != s.Spec.ClusterIPs[i] {
				errs = append(errs, field.Invalid(field.NewPath("spec", "clusterIPs").Index(i), s.Spec.ClusterIPs, "may not change once set"))
			}
		}
	}
	return errs
}

func isHeadless(s *api.Service) bool { return s.Spec.ClusterIP == api.ClusterIPNone }

func validateService(svc *api.Service) field.ErrorList {
	var errs field.ErrorList
	spec := &svc.Spec
	sp := field.NewPath("spec")
	switch spec.Type {
	case api.ServiceTypeClusterIP, api.ServiceTypeNodePort, api.ServiceTypeLoadBalancer:
	case api.ServiceTypeExternalName:
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
	if len(spec.Ports) == 0 && !isHeadless(svc) && spec.Type != api.ServiceTypeExternalName {
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
			if spec.Type == api.ServiceTypeClusterIP || spec.Type == api.ServiceTypeExternalName {
				errs = append(errs, field.Forbidden(pp.Child("nodePort"), "may not be used when `type` is '"+string(spec.Type)+"'"))
			} else if !validPortNum(port.NodePort) {
				errs = append(errs, field.Invalid(pp.Child("nodePort"), port.NodePort, portRangeErrMsg))
			}
		}
	}
	switch spec.SessionAffinity {
	case api.ServiceAffinityNone, api.ServiceAffinityClientIP:
	case "":
		errs = append(errs, field.Required(sp.Child("sessionAffinity"), ""))
	default:
		errs = append(errs, field.NotSupported(sp.Child("sessionAffinity"), spec.SessionAffinity, []string{"ClientIP", "None"}))
	}
	errs = append(errs, validateLabels(spec.Selector, sp.Child("selector"))...)
	if spec.Type != api.ServiceTypeExternalName {
		for i, ip := range spec.ClusterIPs {
			if i == 0 && ip == api.ClusterIPNone {
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
	for i := range obj.(*api.Endpoints).Subsets {
		ss := &obj.(*api.Endpoints).Subsets[i]
		for j := range ss.Ports {
			if ss.Ports[j].Protocol == "" {
				ss.Ports[j].Protocol = api.ProtocolTCP
			}
		}
	}
}

// Validate implements registry.Strategy.
func (endpointsStrategy) Validate(obj api.Object) field.ErrorList {
	return validateEndpoints(obj.(*api.Endpoints))
}

// ValidateUpdate implements registry.Strategy.
func (endpointsStrategy) ValidateUpdate(obj, _ api.Object) field.ErrorList {
	return validateEndpoints(obj.(*api.Endpoints))
}

func validateEndpoints(e *api.Endpoints) field.ErrorList {
	var errs field.ErrorList
	for i, ss := range e.Subsets {
		sp := field.NewPath("subsets").Index(i)
		if len(ss.Addresses) == 0 && len(ss.NotReadyAddresses) == 0 {
			errs = append(errs, field.Required(sp, "must specify `addresses` or `notReadyAddresses`"))
		}
		for name, list := range map[string][]api.EndpointAddress{"addresses": ss.Addresses, "notReadyAddresses": ss.NotReadyAddresses} {
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
	return validateConfigMap(obj.(*api.ConfigMap))
}

// ValidateUpdate implements registry.Strategy.
func (configMapStrategy) ValidateUpdate(obj, old api.Object) field.ErrorList {
	c, o := obj.(*api.ConfigMap), old.(*api.ConfigMap)
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

func validateConfigMap(c *api.ConfigMap) field.ErrorList {
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
	s := obj.(*api.Secret)
	if s.Type == "" {
		s.Type = api.SecretTypeOpaque
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
	return validateSecret(obj.(*api.Secret))
}

// ValidateUpdate implements registry.Strategy.
func (secretStrategy) ValidateUpdate(obj, old api.Object) field.ErrorList {
	s, o := obj.(*api.Secret), old.(*api.Secret)
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

func validateSecret(s *api.Secret) field.ErrorList {
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
	switch s.Type {
	case api.SecretTypeTLS:
		need("tls.crt", "tls.key")
	case api.SecretTypeDockerConfigJSON:
		need(".dockerconfigjson")
	case api.SecretTypeDockercfg:
		need(".dockercfg")
	case api.SecretTypeSSHAuth:
		need("ssh-privatekey")
	case api.SecretTypeServiceAccountToken:
		if s.Annotations["kubernetes.io/service-account.name"] == "" {
			errs = append(errs, field.Required(field.NewPath("metadata", "annotations").Key("kubernetes.io/service-account.name"), ""))
		}
	case "":
		errs = append(errs, field.Required(field.NewPath("type"), ""))
	}
	return errs
}

func secretFields(obj api.Object) fields.Set {
	return fields.Set{"type": string(obj.(*api.Secret).Type)}
}

// --- events ---

func eventFields(obj api.Object) fields.Set {
	e := obj.(*api.Event)
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
	e := obj.(*api.Event)
	var errs field.ErrorList
	if e.InvolvedObject.Namespace != "" && e.InvolvedObject.Namespace != e.Namespace {
		errs = append(errs, field.Invalid(field.NewPath("involvedObject", "namespace"), e.InvolvedObject.Namespace, "does not match event.namespace"))
	}
	switch e.Type {
	case "", api.EventTypeNormal, api.EventTypeWarning:
	default:
		errs = append(errs, field.NotSupported(field.NewPath("type"), e.Type, []string{api.EventTypeNormal, api.EventTypeWarning}))
	}
	return errs
}

// ValidateUpdate implements registry.Strategy.
func (s eventStrategy) ValidateUpdate(obj, _ api.Object) field.ErrorList { return s.Validate(obj) }

// --- leases (pkg/apis/coordination/validation) ---

type leaseStrategy struct{ registry.DefaultStrategy }

// Validate implements registry.Strategy.
func (leaseStrategy) Validate(obj api.Object) field.ErrorList {
	spec := &obj.(*api.Lease).Spec
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
