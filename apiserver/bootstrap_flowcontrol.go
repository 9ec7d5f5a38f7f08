package apiserver

import (
	"context"
	"fmt"
	"slices"

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
	if err := ensureBootstrapped(ctx, levels, "priority level", def.MandatoryPriorityLevels, def.SuggestedPriorityLevels,
		func(pl *flowcontrolv1.PriorityLevelConfiguration) *flowcontrolv1.PriorityLevelConfigurationSpec {
			return &pl.Spec
		}); err != nil {
		return err
	}
	if err := ensureBootstrapped(ctx, schemas, "flow schema", def.MandatoryFlowSchemas, def.SuggestedFlowSchemas,
		func(fs *flowcontrolv1.FlowSchema) *flowcontrolv1.FlowSchemaSpec { return &fs.Spec }); err != nil {
		return err
	}
	return s.bootstrapDangling(ctx, levels, schemas)
}

// ensureBootstrapped creates the mandatory, then the suggested bootstrap
// objects of one kind, or brings a stored object's spec back to its
// bootstrap one when it is mandatory or still auto-updated; spec points
// at an object's spec, what names the kind in errors.
func ensureBootstrapped[T api.Object, S any](ctx context.Context, st *registry.Store, what string, mandatory, suggested []T, spec func(T) *S) error {
	for i, want := range slices.Concat(mandatory, suggested) {
		name := api.Meta(want).Name
		_, err := st.Create(ctx, "", want, registry.CreateOptions{})
		if !api.IsAlreadyExists(err) {
			if err != nil {
				return fmt.Errorf("%s %s: %w", what, name, err)
			}
			continue
		}
		isMandatory := i < len(mandatory)
		_, _, err = st.Update(ctx, "", name, func(cur api.Object) (api.Object, error) {
			if !isMandatory && api.Meta(cur).Annotations[kinds.AutoUpdateSpecAnnotation] != "true" {
				return cur, nil
			}
			*spec(cur.(T)) = *spec(api.DeepCopy(want).(T))
			return cur, nil
		}, registry.UpdateOptions{})
		if err != nil {
			return fmt.Errorf("%s %s: %w", what, name, err)
		}
	}
	return nil
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
