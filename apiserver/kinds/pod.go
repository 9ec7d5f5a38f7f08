package kinds

import (
	"context"
	"errors"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
	"github.com/kubesim/kubesim/api/labels"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// --- defaults (pkg/apis/core/v1/defaults.go) ---

// DefaultPodSpec fills what SetDefaults_PodSpec, SetDefaults_Container and
// their neighbours fill, for a pod or a pod template.
func DefaultPodSpec(spec *corev1.PodSpec) {
	if spec.DNSPolicy == "" {
		spec.DNSPolicy = corev1.DNSClusterFirst
	}
	if spec.RestartPolicy == "" {
		spec.RestartPolicy = corev1.RestartPolicyAlways
	}
	if spec.SecurityContext == nil {
		spec.SecurityContext = &corev1.PodSecurityContext{}
	}
	if spec.TerminationGracePeriodSeconds == nil {
		spec.TerminationGracePeriodSeconds = ptr(int64(30))
	}
	if spec.SchedulerName == "" {
		spec.SchedulerName = corev1.DefaultSchedulerName
	}
	if spec.EnableServiceLinks == nil {
		spec.EnableServiceLinks = ptr(true)
	}
	// v1 conversion keeps the deprecated serviceAccount in step with
	// serviceAccountName, so both show in kubectl get -o yaml.
	if spec.ServiceAccountName == "" {
		spec.ServiceAccountName = spec.DeprecatedServiceAccount
	}
	spec.DeprecatedServiceAccount = spec.ServiceAccountName
	for i := range spec.InitContainers {
		defaultContainer(&spec.InitContainers[i], spec.HostNetwork)
	}
	for i := range spec.Containers {
		defaultContainer(&spec.Containers[i], spec.HostNetwork)
	}
	for i := range spec.Volumes {
		defaultVolume(&spec.Volumes[i])
	}
	defaultEphemeralContainers(spec)
}

func defaultContainer(c *corev1.Container, hostNetwork bool) {
	if c.ImagePullPolicy == "" {
		c.ImagePullPolicy = DefaultPullPolicy(c.Image)
	}
	if c.TerminationMessagePath == "" {
		c.TerminationMessagePath = "/dev/termination-log"
	}
	if c.TerminationMessagePolicy == "" {
		c.TerminationMessagePolicy = corev1.TerminationMessageReadFile
	}
	for i := range c.Ports {
		p := &c.Ports[i]
		if p.Protocol == "" {
			p.Protocol = corev1.ProtocolTCP
		}
		// With the host's network the container port is the host port.
		if hostNetwork && p.HostPort == 0 {
			p.HostPort = p.ContainerPort
		}
	}
	// Limits without requests request the limits (SetDefaults_Pod).
	for name, q := range c.Resources.Limits {
		if c.Resources.Requests == nil {
			c.Resources.Requests = corev1.ResourceList{}
		}
		if _, ok := c.Resources.Requests[name]; !ok {
			c.Resources.Requests[name] = q
		}
	}
	for i := range c.Env {
		if ref := c.Env[i].ValueFrom; ref != nil && ref.FieldRef != nil && ref.FieldRef.APIVersion == "" {
			ref.FieldRef.APIVersion = "v1"
		}
	}
	for _, pr := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe} {
		defaultProbe(pr)
	}
}

func defaultProbe(p *corev1.Probe) {
	if p == nil {
		return
	}
	if p.TimeoutSeconds == 0 {
		p.TimeoutSeconds = 1
	}
	if p.PeriodSeconds == 0 {
		p.PeriodSeconds = 10
	}
	if p.SuccessThreshold == 0 {
		p.SuccessThreshold = 1
	}
	if p.FailureThreshold == 0 {
		p.FailureThreshold = 3
	}
	if h := p.HTTPGet; h != nil {
		if h.Path == "" {
			h.Path = "/"
		}
		if h.Scheme == "" {
			h.Scheme = "HTTP"
		}
	}
}

func defaultVolume(v *corev1.Volume) {
	s := &v.VolumeSource
	if s.HostPath == nil && s.EmptyDir == nil && s.Secret == nil && s.PersistentVolumeClaim == nil &&
		s.DownwardAPI == nil && s.ConfigMap == nil && s.Projected == nil {
		s.EmptyDir = &corev1.EmptyDirVolumeSource{}
	}
	mode := int32(0o644)
	if s.Secret != nil && s.Secret.DefaultMode == nil {
		s.Secret.DefaultMode = ptr(mode)
	}
	if s.ConfigMap != nil && s.ConfigMap.DefaultMode == nil {
		s.ConfigMap.DefaultMode = ptr(mode)
	}
	if s.DownwardAPI != nil && s.DownwardAPI.DefaultMode == nil {
		s.DownwardAPI.DefaultMode = ptr(mode)
	}
	if s.Projected != nil && s.Projected.DefaultMode == nil {
		s.Projected.DefaultMode = ptr(mode)
	}
	if s.HostPath != nil && s.HostPath.Type == nil {
		s.HostPath.Type = ptr(corev1.HostPathUnset)
	}
}

// DefaultPullPolicy is the imagePullPolicy of an image that names none:
// Always for :latest or no tag, IfNotPresent otherwise (a digest without a
// tag pins the image, so it is IfNotPresent too).
func DefaultPullPolicy(image string) corev1.PullPolicy {
	name, digest, _ := strings.Cut(image, "@")
	tag := ""
	if i := strings.LastIndex(name, ":"); i > strings.LastIndex(name, "/") {
		tag = name[i+1:]
	}
	if tag == "" && digest == "" {
		tag = "latest"
	}
	if tag == "latest" {
		return corev1.PullAlways
	}
	return corev1.PullIfNotPresent
}

// --- validation (pkg/apis/core/validation) ---

// The supported values, in the order Kubernetes lists them (a literal
// list for restart and DNS policies, a sorted set for the others).
func restartPolicies() []string { return []string{"Always", "OnFailure", "Never"} }
func dnsPolicies() []string {
	return []string{"ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"}
}
func pullPolicies() []string { return []string{"Always", "IfNotPresent", "Never"} }
func protocols() []string    { return []string{"SCTP", "TCP", "UDP"} }

// ValidatePodSpec checks a pod's spec (or a template's) at p.
func ValidatePodSpec(spec *corev1.PodSpec, p *field.Path) field.ErrorList {
	volumes, errs := validateVolumes(spec.Volumes, p.Child("volumes"))
	names := map[string]bool{}
	errs = append(errs, validateContainers(spec.InitContainers, volumes, names, p.Child("initContainers"), false)...)
	errs = append(errs, validateContainers(spec.Containers, volumes, names, p.Child("containers"), true)...)
	errs = append(errs, validateEphemeralContainers(spec, volumes, p.Child("ephemeralContainers"))...)
	switch spec.RestartPolicy {
	case "":
		errs = append(errs, field.Required(p.Child("restartPolicy"), ""))
	case corev1.RestartPolicyAlways, corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever:
	default:
		errs = append(errs, field.NotSupported(p.Child("restartPolicy"), spec.RestartPolicy, restartPolicies()))
	}
	switch spec.DNSPolicy {
	case "":
		errs = append(errs, field.Required(p.Child("dnsPolicy"), ""))
	case "ClusterFirst", "ClusterFirstWithHostNet", "Default", "None":
	default:
		errs = append(errs, field.NotSupported(p.Child("dnsPolicy"), spec.DNSPolicy, dnsPolicies()))
	}
	errs = append(errs, validateLabels(spec.NodeSelector, p.Child("nodeSelector"))...)
	errs = append(errs, validateAffinity(spec.Affinity, p.Child("affinity"))...)
	errs = append(errs, validateTopologySpreadConstraints(spec.TopologySpreadConstraints, p.Child("topologySpreadConstraints"))...)
	errs = append(errs, validateSchedulingGates(spec.SchedulingGates, p.Child("schedulingGates"))...)
	errs = append(errs, validateReadinessGates(spec.ReadinessGates, p.Child("readinessGates"))...)
	if spec.ServiceAccountName != "" {
		for _, msg := range labels1123Subdomain(spec.ServiceAccountName) {
			errs = append(errs, field.Invalid(p.Child("serviceAccountName"), spec.ServiceAccountName, msg))
		}
	}
	if spec.NodeName != "" {
		for _, msg := range labels1123Subdomain(spec.NodeName) {
			errs = append(errs, field.Invalid(p.Child("nodeName"), spec.NodeName, msg))
		}
	}
	if d := spec.ActiveDeadlineSeconds; d != nil && (*d < 1 || *d > 2147483647) {
		errs = append(errs, field.Invalid(p.Child("activeDeadlineSeconds"), *d, "must be between 1 and 2147483647, inclusive"))
	}
	if spec.Hostname != "" {
		errs = append(errs, validateDNS1123Label(spec.Hostname, p.Child("hostname"))...)
	}
	if spec.Subdomain != "" {
		errs = append(errs, validateDNS1123Label(spec.Subdomain, p.Child("subdomain"))...)
	}
	errs = append(errs, validateTolerations(spec.Tolerations, p.Child("tolerations"))...)
	if name := spec.RuntimeClassName; name != nil {
		for _, msg := range labels1123Subdomain(*name) {
			errs = append(errs, field.Invalid(p.Child("runtimeClassName"), *name, msg))
		}
	}
	for _, name := range sortedKeys(spec.Overhead) {
		if q := spec.Overhead[corev1.ResourceName(name)]; q.Sign() < 0 {
			errs = append(errs, field.Invalid(p.Child("overhead").Key(name), q.String(), nonNegativeErrMsg))
		}
	}
	return errs
}

// validateTolerations checks the operators of tolerations at p (a pod's,
// a RuntimeClass's scheduling).
func validateTolerations(tolerations []corev1.Toleration, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, t := range tolerations {
		tp := p.Index(i)
		switch t.Operator {
		case "", corev1.TolerationOpEqual:
		case corev1.TolerationOpExists:
			if t.Value != "" {
				errs = append(errs, field.Invalid(tp.Child("operator"), t.Value, "value must be empty when `operator` is 'Exists'"))
			}
		default:
			errs = append(errs, field.NotSupported(tp.Child("operator"), t.Operator, []string{string(corev1.TolerationOpEqual), string(corev1.TolerationOpExists)}))
		}
	}
	return errs
}

func labels1123Subdomain(s string) []string {
	var errs []string
	if len(s) > subdomainMaxLength {
		errs = append(errs, maxLenError(subdomainMaxLength))
	}
	ok := s != ""
	for _, l := range strings.Split(s, ".") {
		if !matchesLabel(l, isLowerAlnum) {
			ok = false
		}
	}
	if !ok {
		errs = append(errs, labels.RegexError("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
			dns1123LabelFmt+"(\\."+dns1123LabelFmt+")*", "example.com"))
	}
	return errs
}

func validateVolumes(vols []corev1.Volume, p *field.Path) (map[string]bool, field.ErrorList) {
	var errs field.ErrorList
	names := map[string]bool{}
	for i, v := range vols {
		vp := p.Index(i)
		switch {
		case v.Name == "":
			errs = append(errs, field.Required(vp.Child("name"), ""))
		case names[v.Name]:
			errs = append(errs, field.Duplicate(vp.Child("name"), v.Name))
		default:
			errs = append(errs, validateDNS1123Label(v.Name, vp.Child("name"))...)
		}
		names[v.Name] = true
	}
	return names, errs
}

func validateContainers(ctrs []corev1.Container, volumes, names map[string]bool, p *field.Path, required bool) field.ErrorList {
	var errs field.ErrorList
	if required && len(ctrs) == 0 {
		return append(errs, field.Required(p, ""))
	}
	for i := range ctrs {
		c := &ctrs[i]
		cp := p.Index(i)
		switch {
		case c.Name == "":
			errs = append(errs, field.Required(cp.Child("name"), ""))
		case names[c.Name]:
			errs = append(errs, field.Duplicate(cp.Child("name"), c.Name))
		default:
			errs = append(errs, validateDNS1123Label(c.Name, cp.Child("name"))...)
		}
		names[c.Name] = true
		if c.Image == "" {
			errs = append(errs, field.Required(cp.Child("image"), ""))
		} else if strings.TrimSpace(c.Image) != c.Image {
			errs = append(errs, field.Invalid(cp.Child("image"), c.Image, "must not have leading or trailing whitespace"))
		}
		errs = append(errs, validateContainerPorts(c.Ports, cp.Child("ports"))...)
		errs = append(errs, validateEnv(c.Env, cp.Child("env"))...)
		for j, m := range c.VolumeMounts {
			mp := cp.Child("volumeMounts").Index(j)
			if m.Name == "" {
				errs = append(errs, field.Required(mp.Child("name"), ""))
			} else if !volumes[m.Name] {
				errs = append(errs, field.NotFound(mp.Child("name"), m.Name))
			}
			if m.MountPath == "" {
				errs = append(errs, field.Required(mp.Child("mountPath"), ""))
			}
		}
		switch c.TerminationMessagePolicy {
		case corev1.TerminationMessageReadFile, corev1.TerminationMessageFallbackToLogsOnError:
		case "":
			errs = append(errs, field.Required(cp.Child("terminationMessagePolicy"), "must be 'File' or 'FallbackToLogsOnError'"))
		default:
			errs = append(errs, field.Invalid(cp.Child("terminationMessagePolicy"), c.TerminationMessagePolicy, "must be 'File' or 'FallbackToLogsOnError'"))
		}
		switch c.ImagePullPolicy {
		case corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever:
		case "":
			errs = append(errs, field.Required(cp.Child("imagePullPolicy"), ""))
		default:
			errs = append(errs, field.NotSupported(cp.Child("imagePullPolicy"), c.ImagePullPolicy, pullPolicies()))
		}
		errs = append(errs, validateResources(&c.Resources, cp.Child("resources"))...)
		if rp := c.RestartPolicy; rp != nil {
			// Only an init container may have one, and only Always: a
			// sidecar (required is true for the pod's containers).
			if required {
				errs = append(errs, field.Forbidden(cp.Child("restartPolicy"), "may not be set for non-init containers"))
			} else if *rp != corev1.ContainerRestartPolicyAlways {
				errs = append(errs, field.NotSupported(cp.Child("restartPolicy"), *rp, []string{string(corev1.ContainerRestartPolicyAlways)}))
			}
		}
	}
	return errs
}

func validateContainerPorts(ports []corev1.ContainerPort, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := map[string]bool{}
	for i, port := range ports {
		pp := p.Index(i)
		if port.Name != "" {
			for _, msg := range IsValidPortName(port.Name) {
				errs = append(errs, field.Invalid(pp.Child("name"), port.Name, msg))
			}
			if names[port.Name] {
				errs = append(errs, field.Duplicate(pp.Child("name"), port.Name))
			}
			names[port.Name] = true
		}
		if port.ContainerPort == 0 {
			errs = append(errs, field.Required(pp.Child("containerPort"), ""))
		} else if !validPortNum(port.ContainerPort) {
			errs = append(errs, field.Invalid(pp.Child("containerPort"), port.ContainerPort, portRangeErrMsg))
		}
		if port.HostPort != 0 && !validPortNum(port.HostPort) {
			errs = append(errs, field.Invalid(pp.Child("hostPort"), port.HostPort, portRangeErrMsg))
		}
		errs = append(errs, validateProtocol(port.Protocol, pp.Child("protocol"))...)
	}
	return errs
}

func validateProtocol(proto corev1.Protocol, p *field.Path) field.ErrorList {
	switch proto {
	case "":
		return field.ErrorList{field.Required(p, "")}
	case corev1.ProtocolTCP, corev1.ProtocolUDP, corev1.ProtocolSCTP:
		return nil
	}
	return field.ErrorList{field.NotSupported(p, proto, protocols())}
}

// validateEnv follows the relaxed rule of Kubernetes 1.32 (the
// RelaxedEnvironmentVariableValidation gate is on): any printable ASCII
// but '='.
func validateEnv(env []corev1.EnvVar, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, e := range env {
		ep := p.Index(i)
		if e.Name == "" {
			errs = append(errs, field.Required(ep.Child("name"), ""))
			continue
		}
		for j := 0; j < len(e.Name); j++ {
			if c := e.Name[j]; c < 32 || c > 126 || c == '=' {
				errs = append(errs, field.Invalid(ep.Child("name"), e.Name, "a valid environment variable name must consist only of printable ASCII characters other than '='"))
				break
			}
		}
		if e.Value != "" && e.ValueFrom != nil {
			errs = append(errs, field.Invalid(ep.Child("valueFrom"), "", "may not be specified when `value` is not empty"))
		}
	}
	return errs
}

func validateResources(r *corev1.ResourceRequirements, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, name := range sortedKeys(r.Limits) {
		q := r.Limits[corev1.ResourceName(name)]
		if q.Sign() < 0 {
			errs = append(errs, field.Invalid(p.Child("limits").Key(name), q.String(), nonNegativeErrMsg))
		}
	}
	for _, name := range sortedKeys(r.Requests) {
		q := r.Requests[corev1.ResourceName(name)]
		if q.Sign() < 0 {
			errs = append(errs, field.Invalid(p.Child("requests").Key(name), q.String(), nonNegativeErrMsg))
		}
		if lim, ok := r.Limits[corev1.ResourceName(name)]; ok && q.Cmp(lim) > 0 {
			errs = append(errs, field.Invalid(p.Child("requests").Key(name), q.String(), "must be less than or equal to "+name+" limit of "+lim.String()))
		}
	}
	return errs
}

// ValidatePodTemplateSpec checks the template of a ReplicaSet or
// Deployment at p (spec.template).
func ValidatePodTemplateSpec(t *corev1.PodTemplateSpec, p *field.Path) field.ErrorList {
	errs := validateLabels(t.Labels, p.Child("labels"))
	if len(t.Spec.EphemeralContainers) > 0 {
		errs = append(errs, field.Forbidden(p.Child("spec", "ephemeralContainers"), "ephemeral containers not allowed in pod template"))
	}
	return append(errs, ValidatePodSpec(&t.Spec, p.Child("spec"))...)
}

// podUpdatableFields is the list Kubernetes 1.32 prints when a pod update
// touches anything else.
const podUpdatableFields = "pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)"

// validatePodSpecUpdate reports changes to the immutable part of a pod's
// spec. Like ValidatePodUpdate it copies the mutable fields from the new
// spec onto the old one and compares what is left.
func validatePodSpecUpdate(spec, old *corev1.PodSpec) field.ErrorList {
	munged := *old.DeepCopy()
	if len(munged.Containers) == len(spec.Containers) {
		for i := range munged.Containers {
			munged.Containers[i].Image = spec.Containers[i].Image
		}
	}
	if len(munged.InitContainers) == len(spec.InitContainers) {
		for i := range munged.InitContainers {
			munged.InitContainers[i].Image = spec.InitContainers[i].Image
		}
	}
	munged.ActiveDeadlineSeconds = spec.ActiveDeadlineSeconds
	// Scheduling gates may be removed, never added: checked below.
	munged.SchedulingGates = spec.SchedulingGates
	if tolerationsAdded(old.Tolerations, spec.Tolerations) {
		munged.Tolerations = spec.Tolerations
	}
	if g, og := spec.TerminationGracePeriodSeconds, old.TerminationGracePeriodSeconds; og != nil && *og < 0 && g != nil && *g == 1 {
		munged.TerminationGracePeriodSeconds = g
	}
	errs := validateOnlyDeletedSchedulingGates(spec.SchedulingGates, old.SchedulingGates, field.NewPath("spec", "schedulingGates"))
	if !jsonEqual(&munged, spec) {
		errs = append(errs, field.Forbidden(field.NewPath("spec"), podUpdatableFields))
	}
	if d, od := spec.ActiveDeadlineSeconds, old.ActiveDeadlineSeconds; od != nil {
		if d == nil {
			errs = append(errs, field.Invalid(field.NewPath("spec", "activeDeadlineSeconds"), nil, "must not update from a positive integer to nil value"))
		} else if *d > *od {
			errs = append(errs, field.Invalid(field.NewPath("spec", "activeDeadlineSeconds"), *d, "must be less than or equal to previous value"))
		}
	}
	return errs
}

// tolerationsAdded reports whether every old toleration is still there.
func tolerationsAdded(old, cur []corev1.Toleration) bool {
	for _, o := range old {
		found := false
		for _, c := range cur {
			if jsonEqual(o, c) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// --- QoS (pkg/apis/core/helper/qos) ---

// PodQOSClass computes a pod's quality-of-service class from the requests
// and limits of its containers (cpu and memory only): BestEffort without
// any, Guaranteed when every container limits both and requests equal
// limits, Burstable otherwise.
func PodQOSClass(spec *corev1.PodSpec) corev1.PodQOSClass {
	requests, limits := corev1.ResourceList{}, corev1.ResourceList{}
	guaranteed := true
	add := func(list corev1.ResourceList, name corev1.ResourceName, q resource.Quantity) {
		if cur, ok := list[name]; ok {
			q.Add(cur)
		}
		list[name] = q
	}
	all := append(append([]corev1.Container{}, spec.InitContainers...), spec.Containers...)
	for _, c := range all {
		for name, q := range c.Resources.Requests {
			if (name == corev1.ResourceCPU || name == corev1.ResourceMemory) && q.Sign() > 0 {
				add(requests, name, q)
			}
		}
		found := 0
		for name, q := range c.Resources.Limits {
			if (name == corev1.ResourceCPU || name == corev1.ResourceMemory) && q.Sign() > 0 {
				found++
				add(limits, name, q)
			}
		}
		if found < 2 {
			guaranteed = false
		}
	}
	if len(requests) == 0 && len(limits) == 0 {
		return corev1.PodQOSBestEffort
	}
	if guaranteed {
		for name, req := range requests {
			if lim, ok := limits[name]; !ok || lim.Cmp(req) != 0 {
				guaranteed = false
				break
			}
		}
	}
	if guaranteed && len(requests) == len(limits) {
		return corev1.PodQOSGuaranteed
	}
	return corev1.PodQOSBurstable
}

// --- strategy (pkg/registry/core/pod/strategy.go) ---

// SchedulingGatedMessage is the PodScheduled condition's message on a pod
// created with scheduling gates.
const SchedulingGatedMessage = "Scheduling is blocked due to non-empty scheduling gates"

type podStrategy struct{ registry.DefaultStrategy }

// PrepareForCreate starts every pod Pending with its QoS class (and a
// gated pod with PodScheduled False, reason SchedulingGated): status is
// the kubelet's and the scheduler's to write, whatever the client sent.
// The inter-pod affinity terms get their matchLabelKeys merged.
func (podStrategy) PrepareForCreate(obj api.Object) {
	pod := obj.(*corev1.Pod)
	DefaultPodSpec(&pod.Spec) // the QoS class needs the defaulted requests
	pod.Status = corev1.PodStatus{Phase: corev1.PodPending, QOSClass: PodQOSClass(&pod.Spec)}
	applyMatchLabelKeys(pod)
	if len(pod.Spec.SchedulingGates) > 0 {
		// applySchedulingGatedCondition: the scheduler will not look at
		// the pod until its gates are gone, so the API server says why
		// it waits. The condition dates from the pod's creation (set
		// just before, from the server's clock).
		pod.Status.Conditions = []corev1.PodCondition{{
			Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonSchedulingGated,
			Message: SchedulingGatedMessage, LastTransitionTime: pod.CreationTimestamp,
		}}
	}
}

// Default implements registry.Strategy.
func (podStrategy) Default(obj api.Object) { DefaultPodSpec(&obj.(*corev1.Pod).Spec) }

// Validate implements registry.Strategy.
func (podStrategy) Validate(obj api.Object) field.ErrorList {
	spec := &obj.(*corev1.Pod).Spec
	errs := ValidatePodSpec(spec, field.NewPath("spec"))
	if spec.NodeName != "" && len(spec.SchedulingGates) > 0 {
		// A pod cannot be assigned a node while it is held back.
		errs = append(errs, field.Forbidden(field.NewPath("spec", "nodeName"), "cannot be set until all schedulingGates have been cleared"))
	}
	if len(spec.EphemeralContainers) > 0 {
		// They are added to a running pod through pods/ephemeralcontainers.
		errs = append(errs, field.Forbidden(field.NewPath("spec", "ephemeralContainers"), "cannot be set on create"))
	}
	return errs
}

// ValidateUpdate implements registry.Strategy.
func (podStrategy) ValidateUpdate(obj, old api.Object) field.ErrorList {
	pod, oldPod := obj.(*corev1.Pod), old.(*corev1.Pod)
	errs := ValidatePodSpec(&pod.Spec, field.NewPath("spec"))
	return append(errs, validatePodSpecUpdate(&pod.Spec, &oldPod.Spec)...)
}

// validatePodStatusUpdate is podStatusStrategy.ValidateUpdate
// (ValidatePodStatusUpdate): a write to pods/status carries the stored
// spec (the status strategy put it back), which the write that stored it
// checked, so it is not checked again — the kubelet's status writes are
// the most frequent writes of a cluster, and checking an unchanged spec
// was a quarter of their cost. The metadata is checked by the registry
// for every write; what the status itself must hold is checked here.
func validatePodStatusUpdate(obj, _ api.Object) field.ErrorList {
	var errs field.ErrorList
	if n := obj.(*corev1.Pod).Status.NominatedNodeName; n != "" {
		for _, msg := range labels.IsDNS1123Subdomain(n) {
			errs = append(errs, field.Invalid(field.NewPath("status", "nominatedNodeName"), n, msg))
		}
	}
	return errs
}

// podGracePeriod is the pod strategy's CheckGracefulDelete: an unbound or
// finished pod goes at once, others wait for the kubelet.
func podGracePeriod(obj api.Object, requested *int64) int64 {
	pod := obj.(*corev1.Pod)
	period := int64(0)
	if requested != nil {
		period = *requested
	} else if pod.Spec.TerminationGracePeriodSeconds != nil {
		period = *pod.Spec.TerminationGracePeriodSeconds
	}
	if pod.Spec.NodeName == "" || pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
		period = 0
	}
	if period < 0 {
		period = 1
	}
	return period
}

func podFields(obj api.Object) map[string]string {
	pod := obj.(*corev1.Pod)
	hostNetwork := "false"
	if pod.Spec.HostNetwork {
		hostNetwork = "true"
	}
	return map[string]string{
		"spec.nodeName":            pod.Spec.NodeName,
		"spec.restartPolicy":       string(pod.Spec.RestartPolicy),
		"spec.schedulerName":       pod.Spec.SchedulerName,
		"spec.serviceAccountName":  pod.Spec.ServiceAccountName,
		"spec.hostNetwork":         hostNetwork,
		"status.phase":             string(pod.Status.Phase),
		"status.podIP":             pod.Status.PodIP,
		"status.nominatedNodeName": pod.Status.NominatedNodeName,
	}
}

// --- pods/binding (pkg/registry/core/pod/storage/storage.go) ---

// bindPod is BindingREST.Create: it sets spec.nodeName of the pod once
// and marks it scheduled. A pod already bound or being deleted refuses
// with a Conflict worded as Kubernetes words it.
func bindPod(ctx context.Context, st *registry.Store, ns, name string, obj api.Object) (api.Object, error) {
	b, ok := obj.(*corev1.Binding)
	if !ok {
		return nil, api.NewBadRequest(fmt.Sprintf("not a Binding object: %T", obj))
	}
	if b.Name != name {
		return nil, api.NewBadRequest("name in URL does not match name in Binding object")
	}
	var errs field.ErrorList
	if b.Target.Kind != "" && b.Target.Kind != "Node" {
		errs = append(errs, field.NotSupported(field.NewPath("target", "kind"), b.Target.Kind, []string{"Node", "<empty>"}))
	}
	if b.Target.Name == "" {
		errs = append(errs, field.Required(field.NewPath("target", "name"), ""))
	}
	if len(errs) > 0 {
		return nil, api.NewInvalid(schema.GroupKind{Kind: "Binding"}, b.Name, errs)
	}
	bindingGR := schema.GroupResource{Resource: "pods/binding"}
	var refusal error
	_, _, err := st.Update(ctx, ns, name, func(cur api.Object) (api.Object, error) {
		pod := cur.(*corev1.Pod)
		switch {
		case b.UID != "" && b.UID != pod.UID:
			refusal = fmt.Errorf("Precondition failed: UID in precondition: %v, UID in object meta: %v", b.UID, pod.UID)
		case b.ResourceVersion != "" && b.ResourceVersion != pod.ResourceVersion:
			refusal = fmt.Errorf("Precondition failed: ResourceVersion in precondition: %v, ResourceVersion in object meta: %v", b.ResourceVersion, pod.ResourceVersion)
		case pod.DeletionTimestamp != nil:
			refusal = fmt.Errorf("pod %s is being deleted, cannot be assigned to a host", pod.Name)
		case pod.Spec.NodeName != "":
			refusal = fmt.Errorf("pod %v is already assigned to node %q", pod.Name, pod.Spec.NodeName)
		case len(pod.Spec.SchedulingGates) != 0:
			// A pod not ready for scheduling may not be bound.
			refusal = fmt.Errorf("pod %v has non-empty .spec.schedulingGates", pod.Name)
		}
		if refusal != nil {
			return nil, refusal
		}
		pod.Spec.NodeName = b.Target.Name
		for k, v := range b.Annotations {
			if pod.Annotations == nil {
				pod.Annotations = map[string]string{}
			}
			pod.Annotations[k] = v
		}
		setPodCondition(&pod.Status, corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionTrue})
		// The binding's own preconditions were checked above; the write
		// itself holds to none, so a write that raced it is retried on
		// the fresh pod rather than answered 409 (GuaranteedUpdate).
		pod.ResourceVersion = ""
		return pod, nil
	}, registry.UpdateOptions{Subresource: "binding",
		// The checks above are the binding's, as BindingREST's
		// (setPodNodeAndMetadata): the pod strategy's ValidateUpdate,
		// which would check the stored spec again, is not run.
		Checked: true})
	if err != nil {
		if refusal != nil && errors.Is(err, refusal) {
			return nil, api.NewConflict(bindingGR, name, refusal)
		}
		return nil, err
	}
	return &statusObject{Status: metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusSuccess,
		Code:     201,
	}}, nil
}

// setPodCondition is podutil.UpdatePodCondition: a changed status moves
// lastTransitionTime (left for the caller: the binding has no clock, and
// Kubernetes' binding leaves it unset as well).
func setPodCondition(status *corev1.PodStatus, c corev1.PodCondition) {
	for i := range status.Conditions {
		if status.Conditions[i].Type == c.Type {
			status.Conditions[i].Status = c.Status
			status.Conditions[i].Reason = c.Reason
			status.Conditions[i].Message = c.Message
			return
		}
	}
	status.Conditions = append(status.Conditions, c)
}

// statusObject is the metav1.Status a binding answers with. It carries an
// ObjectMeta that is never serialized only because registry's subresource
// signature returns an api.Object.
type statusObject struct {
	metav1.Status
	metav1.ObjectMeta `json:"-"`
}

// DeepCopyObject implements api.Object.
func (s *statusObject) DeepCopyObject() runtime.Object {
	return &statusObject{Status: *s.Status.DeepCopy(), ObjectMeta: *s.ObjectMeta.DeepCopy()}
}
