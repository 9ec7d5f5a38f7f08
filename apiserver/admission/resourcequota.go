package admission

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/quota"
)

// The ResourceQuota admission plugin (plugin/pkg/admission/resourcequota),
// the last validating plugin: a create in a namespace
// with quotas is refused when it would take a quota's use past its hard
// cap ("exceeded quota: ..."), or when a quota caps cpu or memory and a
// container does not state it ("failed quota: ...: must specify ...");
// otherwise the use is added to each quota's status.used at once, so that
// creates in quick succession cannot all slip under the cap before the
// resourcequota controller recounts. Updates are not charged.

// ResourceQuotaLister lists the quotas of a namespace.
type ResourceQuotaLister func(ctx context.Context, namespace string) ([]*corev1.ResourceQuota, error)

// ResourceQuotaStatusWriter writes a quota's status; a conflict is
// returned as such, and the plugin starts again.
type ResourceQuotaStatusWriter func(ctx context.Context, q *corev1.ResourceQuota) error

// ResourceQuota is the plugin.
type ResourceQuota struct {
	List        ResourceQuotaLister
	WriteStatus ResourceQuotaStatusWriter
}

// PluginName is the name kube-apiserver gives the plugin, in the trace
// and the admission metrics.
func (*ResourceQuota) PluginName() string { return "ResourceQuota" }

// quotaRetries bounds the restarts after a conflicting status write.
const quotaRetries = 5

// Validate implements Validator.
func (r *ResourceQuota) Validate(ctx context.Context, a *Attributes) error {
	if a.Operation != Create || a.Subresource != "" || a.Namespace == "" || a.Object == nil {
		return nil
	}
	gr := schema.GroupResource{Group: a.Resource.Group, Resource: a.Resource.Resource}
	var usage corev1.ResourceList
	for attempt := 0; ; attempt++ {
		quotas, err := r.List(ctx, a.Namespace)
		if err != nil {
			return api.NewInternalError(err)
		}
		if len(quotas) == 0 {
			return nil // nothing to check or charge (most namespaces)
		}
		if usage == nil {
			usage = quota.Usage(gr, a.Object)
		}
		charged, err := CheckQuotas(quotas, a.Object, usage)
		if err != nil {
			return api.NewForbidden(gr, a.Name, err)
		}
		if a.DryRun {
			return nil
		}
		err = r.charge(ctx, charged)
		if err == nil {
			return nil
		}
		if !api.IsConflict(err) || attempt == quotaRetries {
			return api.NewForbidden(gr, a.Name, fmt.Errorf("unable to update quota status: %w", err))
		}
	}
}

func (r *ResourceQuota) charge(ctx context.Context, quotas []*corev1.ResourceQuota) error {
	for _, q := range quotas {
		if err := r.WriteStatus(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// CheckQuotas checks the object's usage against every quota covering it
// and returns those quotas with the usage added to status.used, or the
// refusal in the plugin's words.
func CheckQuotas(quotas []*corev1.ResourceQuota, obj api.Object, usage corev1.ResourceList) ([]*corev1.ResourceQuota, error) {
	var charged []*corev1.ResourceQuota
	for _, q := range quotas {
		if len(q.Status.Hard) == 0 || !quota.Matches(q, obj) {
			continue // a quota the controller has not yet seen caps nothing
		}
		hardNames := quota.Names(q.Status.Hard)
		if pod, ok := obj.(*corev1.Pod); ok {
			if err := quota.PodConstraints(hardNames, pod); err != nil {
				return nil, fmt.Errorf("failed quota: %s: %v", q.Name, err)
			}
		}
		var interesting []corev1.ResourceName
		for _, n := range hardNames {
			if _, ok := usage[n]; ok {
				interesting = append(interesting, n)
			}
		}
		if len(interesting) == 0 {
			continue
		}
		var unknown []string
		for _, n := range interesting {
			if _, ok := q.Status.Used[n]; !ok {
				unknown = append(unknown, string(n))
			}
		}
		if len(unknown) > 0 {
			return nil, fmt.Errorf("status unknown for quota: %s, resources: %s", q.Name, strings.Join(unknown, ","))
		}
		requested := quota.Mask(usage, interesting)
		newUsed := quota.Add(quota.Mask(q.Status.Used, interesting), requested)
		if ok, exceeded := quota.LessThanOrEqual(newUsed, q.Status.Hard); !ok {
			return nil, fmt.Errorf("exceeded quota: %s, requested: %s, used: %s, limited: %s", q.Name,
				quota.PrettyPrint(quota.Mask(requested, exceeded)),
				quota.PrettyPrint(quota.Mask(q.Status.Used, exceeded)),
				quota.PrettyPrint(quota.Mask(q.Status.Hard, exceeded)))
		}
		upd := q.DeepCopy()
		for n, v := range newUsed {
			upd.Status.Used[n] = v
		}
		charged = append(charged, upd)
	}
	return charged, nil
}
