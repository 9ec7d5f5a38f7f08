package apiserver

import (
	"maps"
	"slices"

	"github.com/kubesim/kubesim/apiserver/kinds"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// setUpEviction gives pods/eviction the server's PodDisruptionBudgets, so
// that an eviction takes a disruption from the pod's budget or is refused:
// kinds.Builtin cannot name another resource's store, the server can.
func (s *Server) setUpEviction() {
	s.cfg.Resources = slices.Clone(s.cfg.Resources)
	for i, r := range s.cfg.Resources {
		if r.Group != "" || r.Name != "pods" || r.CreateSubresources == nil {
			continue
		}
		if _, ok := r.CreateSubresources["eviction"]; !ok {
			continue
		}
		withBudgets := *r
		withBudgets.CreateSubresources = maps.Clone(r.CreateSubresources)
		withBudgets.CreateSubresources["eviction"] = kinds.EvictionSubresource(func() (*registry.Store, bool) {
			return s.Store(kinds.PolicyGroupName, "v1", "poddisruptionbudgets")
		})
		s.cfg.Resources[i] = &withBudgets
	}
}
