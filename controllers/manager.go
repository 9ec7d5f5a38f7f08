package controllers

import (
	"context"
	"fmt"
	"strings"
	"sync"
)

// ParseEnabled reads a --controllers value as kube-controller-manager
// does: a comma-separated list where "*" means every controller, "name"
// enables one and "-name" disables one. Unknown names are an error.
func ParseEnabled(spec string, all []string) (map[string]bool, error) {
	known := map[string]bool{}
	for _, n := range all {
		known[n] = true
	}
	enabled := map[string]bool{}
	star := false
	explicit := map[string]bool{}
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		switch {
		case item == "":
			continue
		case item == "*":
			star = true
		case strings.HasPrefix(item, "-"):
			name := item[1:]
			if !known[name] {
				return nil, fmt.Errorf("%q is not in the list of known controllers: %s", name, strings.Join(all, ", "))
			}
			explicit[name] = false
		default:
			if !known[item] {
				return nil, fmt.Errorf("%q is not in the list of known controllers: %s", item, strings.Join(all, ", "))
			}
			explicit[item] = true
		}
	}
	for _, n := range all {
		on, set := explicit[n]
		enabled[n] = (star && !set) || (set && on)
	}
	return enabled, nil
}

// Manager runs many controllers as one component, each switchable by name
// so that a lab can turn one off and watch what breaks.
type Manager struct {
	mu          sync.Mutex
	controllers []*Controller
	enabled     map[string]bool
}

// NewManager manages list; enabled says which run (nil: all).
func NewManager(list []*Controller, enabled map[string]bool) *Manager {
	m := &Manager{controllers: list, enabled: map[string]bool{}}
	for _, c := range list {
		m.enabled[c.Name()] = enabled == nil || enabled[c.Name()]
	}
	return m
}

// Names lists the managed controllers in order.
func (m *Manager) Names() []string {
	out := make([]string, len(m.controllers))
	for i, c := range m.controllers {
		out[i] = c.Name()
	}
	return out
}

// SetEnabled turns a controller on or off (step mode honours it at once;
// in live mode it takes effect at the next Run).
func (m *Manager) SetEnabled(name string, on bool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.enabled[name]; !ok {
		return fmt.Errorf("unknown controller %q", name)
	}
	m.enabled[name] = on
	return nil
}

// Enabled returns the controllers that are on, in order.
func (m *Manager) Enabled() []*Controller {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []*Controller
	for _, c := range m.controllers {
		if m.enabled[c.Name()] {
			out = append(out, c)
		}
	}
	return out
}

// Run runs every enabled controller until ctx ends.
func (m *Manager) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for _, c := range m.Enabled() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Run(ctx)
		}()
	}
	wg.Wait()
}
