package kinds

import (
	"strings"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
	"github.com/kubesim/kubesim/api/labels"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// --- rbac.authorization.k8s.io (pkg/apis/rbac/validation, v1 defaults) ---

// IsValidPathSegmentName is how RBAC objects are named
// (path.IsValidPathSegmentName): anything that fits in one URL segment,
// so that system:basic-user is a valid name.
func IsValidPathSegmentName(name string) []string {
	var errs []string
	for _, illegal := range []string{".", ".."} {
		if name == illegal {
			errs = append(errs, "may not be '"+illegal+"'")
		}
	}
	for _, illegal := range []string{"/", "%"} {
		if strings.Contains(name, illegal) {
			errs = append(errs, "may not contain '"+illegal+"'")
		}
	}
	return errs
}

// validatePolicyRule is ValidatePolicyRule: verbs always; then either
// non-resource URLs (cluster roles only) or groups and resources.
func validatePolicyRule(rule rbacv1.PolicyRule, namespaced bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(rule.Verbs) == 0 {
		errs = append(errs, field.Required(p.Child("verbs"), "verbs must contain at least one value"))
	}
	if len(rule.NonResourceURLs) > 0 {
		if namespaced {
			errs = append(errs, field.Invalid(p.Child("nonResourceURLs"), rule.NonResourceURLs, "namespaced rules cannot apply to non-resource URLs"))
		}
		if len(rule.APIGroups) > 0 || len(rule.Resources) > 0 {
			errs = append(errs, field.Invalid(p.Child("nonResourceURLs"), rule.NonResourceURLs, "rules cannot apply to both regular resources and non-resource URLs"))
		}
		return errs
	}
	if len(rule.APIGroups) == 0 {
		errs = append(errs, field.Required(p.Child("apiGroups"), "resource rules must supply at least one api group"))
	}
	if len(rule.Resources) == 0 {
		errs = append(errs, field.Required(p.Child("resources"), "resource rules must supply at least one resource"))
	}
	return errs
}

func validateRules(rules []rbacv1.PolicyRule, namespaced bool) field.ErrorList {
	var errs field.ErrorList
	for i, r := range rules {
		errs = append(errs, validatePolicyRule(r, namespaced, field.NewPath("rules").Index(i))...)
	}
	return errs
}

type roleStrategy struct{ registry.DefaultStrategy }

// Validate implements registry.Strategy (ValidateRole).
func (roleStrategy) Validate(obj api.Object) field.ErrorList {
	return validateRules(obj.(*rbacv1.Role).Rules, true)
}

// ValidateUpdate implements registry.Strategy.
func (s roleStrategy) ValidateUpdate(obj, _ api.Object) field.ErrorList { return s.Validate(obj) }

type clusterRoleStrategy struct{ registry.DefaultStrategy }

// Validate implements registry.Strategy (ValidateClusterRole).
func (clusterRoleStrategy) Validate(obj api.Object) field.ErrorList {
	cr := obj.(*rbacv1.ClusterRole)
	errs := validateRules(cr.Rules, false)
	if ar := cr.AggregationRule; ar != nil {
		p := field.NewPath("aggregationRule", "clusterRoleSelectors")
		if len(ar.ClusterRoleSelectors) == 0 {
			errs = append(errs, field.Required(p, "at least one clusterRoleSelector required if aggregationRule is non-nil"))
		}
		for i := range ar.ClusterRoleSelectors {
			errs = append(errs, validateLabelSelector(&ar.ClusterRoleSelectors[i], p.Index(i))...)
		}
	}
	return errs
}

// ValidateUpdate implements registry.Strategy.
func (s clusterRoleStrategy) ValidateUpdate(obj, _ api.Object) field.ErrorList {
	return s.Validate(obj)
}

// defaultBinding is SetDefaults_RoleBinding and SetDefaults_Subject: the
// roleRef and user and group subjects are in the RBAC group unless said.
func defaultBinding(ref *rbacv1.RoleRef, subjects []rbacv1.Subject) {
	if ref.APIGroup == "" {
		ref.APIGroup = api.RBACGroupName
	}
	for i := range subjects {
		s := &subjects[i]
		if s.APIGroup == "" && (s.Kind == rbacv1.UserKind || s.Kind == api.GroupSubjectKind) {
			s.APIGroup = api.RBACGroupName
		}
	}
}

// validateBinding is ValidateRoleBinding and ValidateClusterRoleBinding:
// a ClusterRoleBinding may refer to a ClusterRole only, and its service
// account subjects need a namespace.
func validateBinding(ref rbacv1.RoleRef, subjects []rbacv1.Subject, namespaced bool) field.ErrorList {
	var errs field.ErrorList
	p := field.NewPath("roleRef")
	if ref.APIGroup != api.RBACGroupName {
		errs = append(errs, field.NotSupported(p.Child("apiGroup"), ref.APIGroup, []string{api.RBACGroupName}))
	}
	kinds := []string{"Role", "ClusterRole"}
	if !namespaced {
		kinds = []string{"ClusterRole"}
	}
	if !contains(kinds, ref.Kind) {
		errs = append(errs, field.NotSupported(p.Child("kind"), ref.Kind, kinds))
	}
	if ref.Name == "" {
		errs = append(errs, field.Required(p.Child("name"), ""))
	} else {
		for _, msg := range IsValidPathSegmentName(ref.Name) {
			errs = append(errs, field.Invalid(p.Child("name"), ref.Name, msg))
		}
	}
	for i, s := range subjects {
		errs = append(errs, validateSubject(s, namespaced, field.NewPath("subjects").Index(i))...)
	}
	return errs
}

// validateSubject is ValidateRoleBindingSubject.
func validateSubject(s rbacv1.Subject, namespaced bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if s.Name == "" {
		errs = append(errs, field.Required(p.Child("name"), ""))
	}
	switch s.Kind {
	case rbacv1.ServiceAccountKind:
		if s.Name != "" {
			for _, msg := range labels.IsDNS1123Subdomain(s.Name) {
				errs = append(errs, field.Invalid(p.Child("name"), s.Name, msg))
			}
		}
		if s.APIGroup != "" {
			errs = append(errs, field.NotSupported(p.Child("apiGroup"), s.APIGroup, []string{""}))
		}
		if !namespaced && s.Namespace == "" {
			errs = append(errs, field.Required(p.Child("namespace"), ""))
		}
	case rbacv1.UserKind, api.GroupSubjectKind:
		if s.APIGroup != api.RBACGroupName {
			errs = append(errs, field.NotSupported(p.Child("apiGroup"), s.APIGroup, []string{api.RBACGroupName}))
		}
	default:
		errs = append(errs, field.NotSupported(p.Child("kind"), s.Kind, []string{rbacv1.ServiceAccountKind, rbacv1.UserKind, api.GroupSubjectKind}))
	}
	return errs
}

// validateRoleRefUpdate: a binding's role cannot change; delete and
// recreate it instead (so that a binding's meaning never shifts under the
// escalation check).
func validateRoleRefUpdate(ref, old rbacv1.RoleRef) field.ErrorList {
	if ref != old {
		return field.ErrorList{field.Invalid(field.NewPath("roleRef"), ref, "cannot change roleRef")}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

type roleBindingStrategy struct{ registry.DefaultStrategy }

// Default implements registry.Strategy.
func (roleBindingStrategy) Default(obj api.Object) {
	b := obj.(*rbacv1.RoleBinding)
	defaultBinding(&b.RoleRef, b.Subjects)
}

// Validate implements registry.Strategy.
func (roleBindingStrategy) Validate(obj api.Object) field.ErrorList {
	b := obj.(*rbacv1.RoleBinding)
	return validateBinding(b.RoleRef, b.Subjects, true)
}

// ValidateUpdate implements registry.Strategy.
func (s roleBindingStrategy) ValidateUpdate(obj, old api.Object) field.ErrorList {
	errs := s.Validate(obj)
	return append(errs, validateRoleRefUpdate(obj.(*rbacv1.RoleBinding).RoleRef, old.(*rbacv1.RoleBinding).RoleRef)...)
}

type clusterRoleBindingStrategy struct{ registry.DefaultStrategy }

// Default implements registry.Strategy.
func (clusterRoleBindingStrategy) Default(obj api.Object) {
	b := obj.(*rbacv1.ClusterRoleBinding)
	defaultBinding(&b.RoleRef, b.Subjects)
}

// Validate implements registry.Strategy.
func (clusterRoleBindingStrategy) Validate(obj api.Object) field.ErrorList {
	b := obj.(*rbacv1.ClusterRoleBinding)
	return validateBinding(b.RoleRef, b.Subjects, false)
}

// ValidateUpdate implements registry.Strategy.
func (s clusterRoleBindingStrategy) ValidateUpdate(obj, old api.Object) field.ErrorList {
	errs := s.Validate(obj)
	return append(errs, validateRoleRefUpdate(obj.(*rbacv1.ClusterRoleBinding).RoleRef, old.(*rbacv1.ClusterRoleBinding).RoleRef)...)
}

// roleTable prints roles and cluster roles: NAME and CREATED AT, an
// RFC 3339 time rather than an age.
func roleTable() *registry.Table {
	return &registry.Table{
		Columns: []metav1.TableColumnDefinition{
			registry.NameColumn,
			{Name: "Created At", Type: "date", Description: registry.AgeColumn.Description},
		},
		Cells: func(obj api.Object, _ time.Time) []any {
			m := api.Meta(obj)
			return []any{m.Name, m.CreationTimestamp.Time.UTC().Format(time.RFC3339)}
		},
	}
}

// bindingTable prints role bindings and cluster role bindings: NAME,
// ROLE, AGE, and with -o wide USERS, GROUPS, SERVICEACCOUNTS.
func bindingTable(parts func(api.Object) (metav1.ObjectMeta, rbacv1.RoleRef, []rbacv1.Subject)) *registry.Table {
	return &registry.Table{
		Columns: []metav1.TableColumnDefinition{
			registry.NameColumn,
			col("Role", "string", "RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error. This field is immutable."),
			{Name: "Age", Type: "string", Description: registry.AgeColumn.Description},
			wide(col("Users", "string", "Users in the roleBinding")),
			wide(col("Groups", "string", "Groups in the roleBinding")),
			wide(col("ServiceAccounts", "string", "ServiceAccounts in the roleBinding")),
		},
		Cells: func(obj api.Object, now time.Time) []any {
			m, ref, subjects := parts(obj)
			var users, groups, sas []string
			for _, s := range subjects {
				switch s.Kind {
				case rbacv1.UserKind:
					users = append(users, s.Name)
				case api.GroupSubjectKind:
					groups = append(groups, s.Name)
				case rbacv1.ServiceAccountKind:
					sas = append(sas, s.Namespace+":"+s.Name)
				}
			}
			return []any{m.Name, ref.Kind + "/" + ref.Name, age(m.CreationTimestamp.Time, now),
				strings.Join(users, ", "), strings.Join(groups, ", "), strings.Join(sas, ", ")}
		},
	}
}

func roleBindingParts(obj api.Object) (metav1.ObjectMeta, rbacv1.RoleRef, []rbacv1.Subject) {
	b := obj.(*rbacv1.RoleBinding)
	return b.ObjectMeta, b.RoleRef, b.Subjects
}

func clusterRoleBindingParts(obj api.Object) (metav1.ObjectMeta, rbacv1.RoleRef, []rbacv1.Subject) {
	b := obj.(*rbacv1.ClusterRoleBinding)
	return b.ObjectMeta, b.RoleRef, b.Subjects
}
