package audit

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/kubesim/kubesim/apiserver/authn"
	"github.com/kubesim/kubesim/apiserver/request"
)

// Policy is an audit.k8s.io/v1 Policy: the first rule that matches a
// request gives its level.
type Policy struct {
	APIVersion string       `yaml:"apiVersion"`
	Kind       string       `yaml:"kind"`
	Rules      []PolicyRule `yaml:"rules"`
}

// PolicyRule matches requests; empty lists match everything.
type PolicyRule struct {
	Level      Level            `yaml:"level"`
	Users      []string         `yaml:"users"`
	UserGroups []string         `yaml:"userGroups"`
	Verbs      []string         `yaml:"verbs"`
	Namespaces []string         `yaml:"namespaces"`
	Resources  []GroupResources `yaml:"resources"`
}

// GroupResources names resources of one API group ("" is the core group).
type GroupResources struct {
	Group     string   `yaml:"group"`
	Resources []string `yaml:"resources"`
}

// DefaultPolicy logs every request at Metadata: kubesim's choice when no
// policy file is given.
func DefaultPolicy() *Policy {
	return &Policy{APIVersion: "audit.k8s.io/v1", Kind: "Policy", Rules: []PolicyRule{{Level: LevelMetadata}}}
}

// LoadPolicy reads a policy file (YAML or JSON); unknown fields are
// refused, so that a rule kubesim would ignore is not silently dropped.
func LoadPolicy(path string) (*Policy, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var p Policy
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("audit policy %s: %w", path, err)
	}
	if p.Kind != "Policy" || (p.APIVersion != "audit.k8s.io/v1") {
		return nil, fmt.Errorf("audit policy %s: want apiVersion audit.k8s.io/v1 and kind Policy, not %q %q", path, p.APIVersion, p.Kind)
	}
	for i, r := range p.Rules {
		if r.Level.rank() < 0 {
			return nil, fmt.Errorf("audit policy %s: rules[%d].level: Unsupported value: %q: supported values: \"None\", \"Metadata\", \"Request\", \"RequestResponse\"", path, i, r.Level)
		}
	}
	return &p, nil
}

// LevelFor is the level of the first rule matching the request, or None.
func (p *Policy) LevelFor(u *authn.UserInfo, info *request.Info) Level {
	for i := range p.Rules {
		if p.Rules[i].matches(u, info) {
			return p.Rules[i].Level
		}
	}
	return LevelNone
}

func (r *PolicyRule) matches(u *authn.UserInfo, info *request.Info) bool {
	if len(r.Users) > 0 && !slices.Contains(r.Users, u.Name) {
		return false
	}
	if len(r.UserGroups) > 0 && !slices.ContainsFunc(u.Groups, func(g string) bool { return slices.Contains(r.UserGroups, g) }) {
		return false
	}
	if len(r.Verbs) > 0 && !slices.Contains(r.Verbs, info.Verb) {
		return false
	}
	if len(r.Namespaces) > 0 && (!info.IsResourceRequest || !slices.Contains(r.Namespaces, info.Namespace)) {
		return false
	}
	if len(r.Resources) == 0 {
		return true
	}
	if !info.IsResourceRequest {
		return false
	}
	for _, gr := range r.Resources {
		if gr.Group != info.APIGroup {
			continue
		}
		if len(gr.Resources) == 0 || slices.ContainsFunc(gr.Resources, func(s string) bool { return resourceMatches(s, info) }) {
			return true
		}
	}
	return false
}

// resourceMatches: "pods" is pods only, "pods/log" that subresource,
// "pods/*" every subresource of pods, "*/status" that of every resource,
// "*" everything.
func resourceMatches(s string, info *request.Info) bool {
	if s == "*" {
		return true
	}
	if info.Subresource == "" {
		return s == info.Resource
	}
	res, sub, ok := strings.Cut(s, "/")
	return ok && (res == info.Resource || res == "*") && (sub == info.Subresource || sub == "*")
}
