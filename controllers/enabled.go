package controllers

import (
	"fmt"
	"strings"
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
