package apiserver

import (
	"context"
	"fmt"
	"reflect"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/flowcontrol"
	"github.com/kubesim/kubesim/apiserver/kinds"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// bootstrapFlowControl is kube-apiserver's
// priority-and-fairness-config-producer post-start hook: it creates API
// Priority and Fairness's bootstrap objects (kinds.DefaultFlowControl) and
// keeps them — a mandatory one always, a suggested one while its
// apf.kubernetes.io/autoupdate-spec annotation is "true" — then gives each
// FlowSchema its Dangling condition, as the config controller does once
// it starts (controllers/apfconfig keeps it after).
func (s *Server) bootstrapFlowControl(ctx context.Context) error {
	levels, ok1 := s.Store(kinds.FlowControlGroupName, "v1", "prioritylevelconfigurations")
	schemas, ok2 := s.Store(kinds.FlowControlGroupName, "v1", "flowschemas")
	if !ok1 || !ok2 || s.cfg.GenericOnly {
		return nil
	}
	def := kinds.DefaultFlowControl()
	for i, pl := range append(def.MandatoryPriorityLevels, def.SuggestedPriorityLevels...) {
		mandatory := i < len(def.MandatoryPriorityLevels)
		if err := ensureBootstrap(ctx, levels, pl, mandatory, func(cur, want api.Object) bool {
			c, w := cur.(*flowcontrolv1.PriorityLevelConfiguration), want.(*flowcontrolv1.PriorityLevelConfiguration)
			if reflect.DeepEqual(c.Spec, w.Spec) {
				return false
			}
			c.Spec = *w.Spec.DeepCopy()
			return true
		}); err != nil {
			return fmt.Errorf("priority level %s: %w", pl.Name, err)
		}
	}
	for i, fs := range append(def.MandatoryFlowSchemas, def.SuggestedFlowSchemas...) {
		mandatory := i < len(def.MandatoryFlowSchemas)
		if err := ensureBootstrap(ctx, schemas, fs, mandatory, func(cur, want api.Object) bool {
			c, w := cur.(*flowcontrolv1.FlowSchema), want.(*flowcontrolv1.FlowSchema)
			if reflect.DeepEqual(c.Spec, w.Spec) {
				return false
			}
			c.Spec = *w.Spec.DeepCopy()
			return true
		}); err != nil {
			return fmt.Errorf("flow schema %s: %w", fs.Name, err)
		}
	}
	return s.bootstrapDangling(ctx, levels, schemas)
}

// ensureBootstrap creates want, or brings the stored object's spec back
// to it when it is mandatory or still auto-updated (fix copies the spec
// and reports a change).
func ensureBootstrap(ctx context.Context, st *registry.Store, want api.Object, mandatory bool, fix func(cur, want api.Object) bool) error {
	name := api.Meta(want).Name
	_, err := st.Create(ctx, "", want, registry.CreateOptions{})
	if !api.IsAlreadyExists(err) {
		return err
	}
	_, _, err = st.Update(ctx, "", name, func(cur api.Object) (api.Object, error) {
		if !mandatory && api.Meta(cur).Annotations[kinds.AutoUpdateSpecAnnotation] != "true" {
			return cur, nil
		}
		fix(cur, want)
		return cur, nil
	}, registry.UpdateOptions{})
	return err
}

// bootstrapDangling writes each FlowSchema's Dangling condition where it
// is missing or wrong.
func (s *Server) bootstrapDangling(ctx context.Context, levels, schemas *registry.Store) error {
	pls, err := levels.List(ctx, "", registry.ListOptions{})
	if err != nil {
		return err
	}
	exists := map[string]bool{}
	for _, o := range pls.Items {
		exists[api.Meta(o).Name] = true
	}
	fss, err := schemas.List(ctx, "", registry.ListOptions{})
	if err != nil {
		return err
	}
	now := s.cfg.Clock.Now()
	for _, o := range fss.Items {
		fs := o.(*flowcontrolv1.FlowSchema)
		want := flowcontrol.DanglingCondition(fs, exists[fs.Spec.PriorityLevelConfiguration.Name])
		if !flowcontrol.SetDangling(fs.DeepCopy(), want, now) {
			continue
		}
		_, _, err := schemas.Update(ctx, "", fs.Name, func(cur api.Object) (api.Object, error) {
			flowcontrol.SetDangling(cur.(*flowcontrolv1.FlowSchema), want, now)
			return cur, nil
		}, registry.UpdateOptions{Subresource: "status"})
		if err != nil {
			return fmt.Errorf("flow schema %s status: %w", fs.Name, err)
		}
	}
	return nil
}
