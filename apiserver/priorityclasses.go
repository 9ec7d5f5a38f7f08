package apiserver

import (
	"context"
	"fmt"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/kinds"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// bootstrapPriorityClasses creates system-node-critical and
// system-cluster-critical, as kube-apiserver's
// scheduling/bootstrap-system-priority-classes post-start hook does.
func (s *Server) bootstrapPriorityClasses(ctx context.Context) error {
	st, ok := s.Store(api.SchedulingGroupName, "v1", "priorityclasses")
	if !ok || s.cfg.GenericOnly {
		return nil
	}
	for _, pc := range kinds.SystemPriorityClasses() {
		if _, err := st.Create(ctx, "", pc, registry.CreateOptions{}); err != nil && !api.IsAlreadyExists(err) {
			return fmt.Errorf("creating priority class %s: %w", pc.Name, err)
		}
	}
	return nil
}
