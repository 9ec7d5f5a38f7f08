package authz

import (
	"fmt"
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/kubesim/kubesim/apiserver/authn"
)

// Covers reports whether the rules a user holds (owner) allow everything
// the rules of a role (servant) allow, and which servant rules, broken
// down to one verb, group and resource each, are not covered: RBAC's
// escalation check (pkg/registry/rbac/validation.Covers). A user may
// create a role, or bind one, only within what it holds.
func Covers(owner, servant []rbacv1.PolicyRule) (bool, []rbacv1.PolicyRule) {
	var missing []rbacv1.PolicyRule
	for _, rule := range servant {
		for _, sub := range breakdown(rule) {
			if !slices.ContainsFunc(owner, func(o rbacv1.PolicyRule) bool { return ruleCovers(&o, &sub) }) {
				missing = append(missing, sub)
			}
		}
	}
	return len(missing) == 0, missing
}

// breakdown splits a rule into rules of one verb, one group, one resource
// and at most one name (and one verb and URL for non-resource rules).
func breakdown(rule rbacv1.PolicyRule) []rbacv1.PolicyRule {
	var out []rbacv1.PolicyRule
	for _, g := range rule.APIGroups {
		for _, r := range rule.Resources {
			for _, v := range rule.Verbs {
				if len(rule.ResourceNames) == 0 {
					out = append(out, rbacv1.PolicyRule{APIGroups: []string{g}, Resources: []string{r}, Verbs: []string{v}})
					continue
				}
				for _, n := range rule.ResourceNames {
					out = append(out, rbacv1.PolicyRule{APIGroups: []string{g}, Resources: []string{r}, Verbs: []string{v}, ResourceNames: []string{n}})
				}
			}
		}
	}
	for _, u := range rule.NonResourceURLs {
		for _, v := range rule.Verbs {
			out = append(out, rbacv1.PolicyRule{NonResourceURLs: []string{u}, Verbs: []string{v}})
		}
	}
	return out
}

// ruleCovers reports whether owner allows all of sub (a broken-down rule).
func ruleCovers(owner, sub *rbacv1.PolicyRule) bool {
	if !hasAll(owner.Verbs, sub.Verbs, rbacv1.VerbAll) {
		return false
	}
	if len(sub.NonResourceURLs) > 0 {
		for _, u := range sub.NonResourceURLs {
			if !slices.ContainsFunc(owner.NonResourceURLs, func(o string) bool { return urlCovers(o, u) }) {
				return false
			}
		}
		return true
	}
	if !hasAll(owner.APIGroups, sub.APIGroups, rbacv1.APIGroupAll) {
		return false
	}
	for _, r := range sub.Resources {
		if !slices.ContainsFunc(owner.Resources, func(o string) bool { return resourceCovers(o, r) }) {
			return false
		}
	}
	// A rule limited to names covers only those names, and never a rule
	// for every name.
	if len(owner.ResourceNames) == 0 {
		return true
	}
	return len(sub.ResourceNames) > 0 && hasAll(owner.ResourceNames, sub.ResourceNames, "")
}

func hasAll(have, want []string, wildcard string) bool {
	if wildcard != "" && slices.Contains(have, wildcard) {
		return true
	}
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

// resourceCovers: "*" covers all, "*/scale" every scale subresource,
// "pods/*" every subresource of pods.
func resourceCovers(owner, r string) bool {
	if owner == rbacv1.ResourceAll || owner == r {
		return true
	}
	res, sub, hasSub := strings.Cut(r, "/")
	switch {
	case strings.HasPrefix(owner, "*/"):
		return hasSub && owner == "*/"+sub
	case strings.HasSuffix(owner, "/*"):
		return hasSub && owner == res+"/*"
	}
	return false
}

func urlCovers(owner, u string) bool {
	if owner == rbacv1.NonResourceAll || owner == u {
		return true
	}
	return strings.HasSuffix(owner, "*") && strings.HasPrefix(u, strings.TrimSuffix(owner, "*"))
}

// EscalationError is the 403 text of a role or binding that would grant
// rules its author does not hold (ConfirmNoEscalation's message): the
// missing rules compacted, one line each, sorted and without repeats.
func EscalationError(user *authn.UserInfo, missing []rbacv1.PolicyRule) string {
	var lines []string
	for _, r := range compactRules(missing) {
		lines = append(lines, CompactString(r))
	}
	slices.Sort(lines)
	lines = slices.Compact(lines)
	return fmt.Sprintf("user %q (groups=%q) is attempting to grant RBAC permissions not currently held:\n%s", user.Name, user.Groups, strings.Join(lines, "\n"))
}

// compactRules merges broken-down rules that differ only by their verbs
// (one group, one resource, at most one name, nothing else) into one rule
// with the verbs in the order they came, so that a role missing four verbs
// of roles is one line, not four (CompactRules of
// pkg/registry/rbac/validation). Other rules are kept as they are.
func compactRules(rules []rbacv1.PolicyRule) []rbacv1.PolicyRule {
	type simple struct{ group, resource, name string }
	var out []rbacv1.PolicyRule
	merged := map[simple]int{} // index in out
	for _, r := range rules {
		if len(r.APIGroups) != 1 || len(r.Resources) != 1 || len(r.ResourceNames) > 1 || len(r.NonResourceURLs) > 0 {
			out = append(out, r)
			continue
		}
		key := simple{group: r.APIGroups[0], resource: r.Resources[0]}
		if len(r.ResourceNames) == 1 {
			// A name, even "", is another rule than no name.
			key.name = "name:" + r.ResourceNames[0]
		}
		if i, ok := merged[key]; ok {
			out[i].Verbs = append(out[i].Verbs, r.Verbs...)
			continue
		}
		merged[key] = len(out)
		out = append(out, *r.DeepCopy())
	}
	return out
}

// CompactString prints a rule as Kubernetes' rbac helpers do:
// {APIGroups:[""], Resources:["pods"], Verbs:["delete"]}.
func CompactString(r rbacv1.PolicyRule) string {
	var parts []string
	add := func(name string, v []string) {
		if len(v) > 0 {
			parts = append(parts, fmt.Sprintf("%s:%q", name, v))
		}
	}
	add("APIGroups", r.APIGroups)
	add("Resources", r.Resources)
	add("ResourceNames", r.ResourceNames)
	add("NonResourceURLs", r.NonResourceURLs)
	add("Verbs", r.Verbs)
	return "{" + strings.Join(parts, ", ") + "}"
}
