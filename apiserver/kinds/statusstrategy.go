package kinds

import (
	"reflect"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// statusStrategies are the built-in kinds' status strategies: what a write
// to /status may change besides the status, each as kube-apiserver's
// <kind>StatusStrategy.PrepareForUpdate in pkg/registry/<group>/<resource>/strategy.go
// has it. Most keep only the spec (the object's metadata, labels and
// annotations included, is the new one's: a controller may label what it
// reports on); a few keep more. The writes to the main resource keep the
// status (registry.Store), and a kind not listed here changes nothing but
// its status through /status. Keyed by group/resource.
var statusStrategies = map[k8sschema.GroupResource]func(obj, old api.Object){
	{Resource: "namespaces"}:             keepSpec, // namespaceStatusStrategy
	{Resource: "nodes"}:                  keepSpec, // nodeStatusStrategy
	{Resource: "services"}:               keepSpec, // serviceStatusStrategy
	{Resource: "persistentvolumeclaims"}: keepSpec, // persistentvolumeclaimStatusStrategy
	{Resource: "persistentvolumes"}:      keepSpec, // persistentvolumeStatusStrategy
	{Resource: "resourcequotas"}:         keepSpec, // resourcequotaStatusStrategy
	// podStatusStrategy: the spec, and the owner references (old kubelets
	// corrupted them through pods/status, which broke garbage
	// collection); a status without qosClass keeps the one the pod was
	// created with.
	{Resource: "pods"}: func(obj, old api.Object) {
		keepSpec(obj, old)
		pod, o := obj.(*corev1.Pod), old.(*corev1.Pod)
		pod.OwnerReferences = o.OwnerReferences
		if pod.Status.QOSClass == "" {
			pod.Status.QOSClass = o.Status.QOSClass
		}
	},
	{Group: "apps", Resource: "replicasets"}:  keepSpec, // rsStatusStrategy
	{Group: "apps", Resource: "statefulsets"}: keepSpec, // statefulSetStatusStrategy
	{Group: "apps", Resource: "daemonsets"}:   keepSpec, // daemonSetStatusStrategy
	// deploymentStatusStrategy: the spec and the labels.
	{Group: "apps", Resource: "deployments"}: func(obj, old api.Object) {
		keepSpec(obj, old)
		obj.(*appsv1.Deployment).Labels = old.(*appsv1.Deployment).Labels
	},
	{Group: "batch", Resource: "jobs"}:                  keepSpec, // jobStatusStrategy
	{Group: "batch", Resource: "cronjobs"}:              keepSpec, // cronJobStatusStrategy
	{Group: "policy", Resource: "poddisruptionbudgets"}: keepSpec, // podDisruptionBudgetStatusStrategy
	{Group: "networking.k8s.io", Resource: "ingresses"}: keepSpec, // ingressStatusStrategy
	{Resource: "replicationcontrollers"}:                keepSpec, // rcStatusStrategy
	// csrStatusStrategy: the spec, and the Approved and Denied
	// conditions, which only /approval changes (csrStrategy's own).
	{Group: "certificates.k8s.io", Resource: "certificatesigningrequests"}:           csrStrategy{}.PrepareForUpdate,
	{Group: "flowcontrol.apiserver.k8s.io", Resource: "flowschemas"}:                 keepSpec, // flowSchemaStatusStrategy
	{Group: "flowcontrol.apiserver.k8s.io", Resource: "prioritylevelconfigurations"}: keepSpec, // priorityLevelConfigurationStatusStrategy
	// autoscalerStatusStrategy: the spec. At autoscaling/v1 part of the
	// spec rides in annotations (the metrics beyond CPU, the behavior):
	// kube-apiserver converts them into the spec before the strategy
	// runs, so they are the spec's too.
	{Group: "autoscaling", Resource: "horizontalpodautoscalers"}: func(obj, old api.Object) {
		keepSpec(obj, old)
		if h, ok := obj.(*autoscalingv1.HorizontalPodAutoscaler); ok {
			o := old.(*autoscalingv1.HorizontalPodAutoscaler)
			for _, k := range []string{hpaMetricsAnnotation, hpaBehaviorAnnotation} {
				v, had := o.Annotations[k]
				switch {
				case had && h.Annotations == nil:
					h.Annotations = map[string]string{k: v}
				case had:
					h.Annotations[k] = v
				default:
					delete(h.Annotations, k)
				}
			}
		}
	},
	// validatingAdmissionPolicyStatusStrategy: the spec and the metadata
	// (metav1.ResetObjectMetaForStatus): its status is the type checking
	// the policy controller writes, nothing more.
	{Group: "admissionregistration.k8s.io", Resource: "validatingadmissionpolicies"}: func(obj, old api.Object) {
		keepSpec(obj, old)
		metav1.ResetObjectMetaForStatus(api.Meta(obj), api.Meta(old))
	},
	// volumeAttachmentStatusStrategy: the same, for what the
	// external-attacher reports.
	{Group: "storage.k8s.io", Resource: "volumeattachments"}: func(obj, old api.Object) {
		keepSpec(obj, old)
		metav1.ResetObjectMetaForStatus(api.Meta(obj), api.Meta(old))
	},
}

// setStatusStrategies gives each resource its status strategy.
func setStatusStrategies(resources []*registry.Resource) {
	for _, r := range resources {
		if f, ok := statusStrategies[r.GroupResource()]; ok && r.StatusSubresource {
			r.PrepareForStatusUpdate = f
		}
	}
}

// keepSpec sets obj's spec to a copy of old's: what every status strategy
// does first, "status changes are not allowed to update spec". The spec is
// copied (with its generated DeepCopy) because admission may change obj
// afterwards.
func keepSpec(obj, old api.Object) {
	spec := reflect.ValueOf(obj).Elem().FieldByName("Spec")
	src := reflect.ValueOf(old).Elem().FieldByName("Spec")
	if !spec.IsValid() || !src.IsValid() {
		return
	}
	if deepCopy := src.Addr().MethodByName("DeepCopy"); deepCopy.IsValid() {
		spec.Set(deepCopy.Call(nil)[0].Elem())
		return
	}
	spec.Set(src)
}
