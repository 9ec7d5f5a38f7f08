package kinds

import (
	"fmt"
	"reflect"
	"time"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/schema"
)

// --- flowcontrol.apiserver.k8s.io/v1 FlowSchema, PriorityLevelConfiguration ---

// FlowControlGroupName is API Priority and Fairness's group.
const FlowControlGroupName = "flowcontrol.apiserver.k8s.io"

// flowControlResources serves API Priority and Fairness's configuration:
// the API server creates kube-apiserver's default objects at start
// (FlowControlBootstrap) and keeps each FlowSchema's Dangling condition
// (controllers/apfconfig). kubesim does not classify requests by them:
// its limits are the max-in-flight pools and the list budget (package
// serving says how those stand for the priority levels).
func flowControlResources(gen *schema.Generator) []*registry.Resource {
	return []*registry.Resource{
		{
			Group: FlowControlGroupName, Version: "v1", Name: "flowschemas", SingularName: "flowschema",
			Kind: "FlowSchema", ListKind: "FlowSchemaList",
			New:                 func() api.Object { return &flowcontrolv1.FlowSchema{} },
			StrategicMergePatch: true,
			Strategy:            flowSchemaStrategy{},
			Schema:              gen.FromGoType(reflect.TypeOf(flowcontrolv1.FlowSchema{})),
			StatusSubresource:   true,
			Table:               flowSchemaTable(),
		},
		{
			Group: FlowControlGroupName, Version: "v1", Name: "prioritylevelconfigurations", SingularName: "prioritylevelconfiguration",
			Kind: "PriorityLevelConfiguration", ListKind: "PriorityLevelConfigurationList",
			New:                 func() api.Object { return &flowcontrolv1.PriorityLevelConfiguration{} },
			StrategicMergePatch: true,
			Strategy:            priorityLevelStrategy{},
			Schema:              gen.FromGoType(reflect.TypeOf(flowcontrolv1.PriorityLevelConfiguration{})),
			StatusSubresource:   true,
			Table:               priorityLevelTable(),
		},
	}
}

// The defaults of pkg/apis/flowcontrol/v1/defaults.go.
const (
	defaultMatchingPrecedence       = 1000
	defaultNominalConcurrencyShares = 30
	defaultHandSize                 = 8
	defaultQueues                   = 64
	defaultQueueLengthLimit         = 50
)

type flowSchemaStrategy struct{ registry.DefaultStrategy }

// Default implements registry.Strategy: precedence 1000 when unset.
func (flowSchemaStrategy) Default(obj api.Object) {
	fs := obj.(*flowcontrolv1.FlowSchema)
	if fs.Spec.MatchingPrecedence == 0 {
		fs.Spec.MatchingPrecedence = defaultMatchingPrecedence
	}
}

// Validate implements registry.Strategy (ValidateFlowSchema): a priority
// level to refer to, a precedence in [1, 10000], a known distinguisher,
// and rules that each name subjects and what they do.
func (flowSchemaStrategy) Validate(obj api.Object) field.ErrorList {
	fs := obj.(*flowcontrolv1.FlowSchema)
	sp := field.NewPath("spec")
	var errs field.ErrorList
	if fs.Spec.PriorityLevelConfiguration.Name == "" {
		errs = append(errs, field.Required(sp.Child("priorityLevelConfiguration", "name"), "must reference a priority level"))
	}
	if p := fs.Spec.MatchingPrecedence; p < 1 || p > 10000 {
		errs = append(errs, field.Invalid(sp.Child("matchingPrecedence"), p, "must be between 1 and 10000, inclusive"))
	}
	if d := fs.Spec.DistinguisherMethod; d != nil && d.Type != flowcontrolv1.FlowDistinguisherMethodByUserType && d.Type != flowcontrolv1.FlowDistinguisherMethodByNamespaceType {
		errs = append(errs, field.NotSupported(sp.Child("distinguisherMethod", "type"), d.Type,
			[]string{string(flowcontrolv1.FlowDistinguisherMethodByNamespaceType), string(flowcontrolv1.FlowDistinguisherMethodByUserType)}))
	}
	for i, r := range fs.Spec.Rules {
		rp := sp.Child("rules").Index(i)
		if len(r.Subjects) == 0 {
			errs = append(errs, field.Required(rp.Child("subjects"), "subjects must contain at least one value"))
		}
		for j, s := range r.Subjects {
			errs = append(errs, validateFlowSubject(s, rp.Child("subjects").Index(j))...)
		}
		if len(r.ResourceRules) == 0 && len(r.NonResourceRules) == 0 {
			errs = append(errs, field.Required(rp, "at least one of resourceRules and nonResourceRules has to be non-empty"))
		}
		for j, rr := range r.ResourceRules {
			p := rp.Child("resourceRules").Index(j)
			if len(rr.Verbs) == 0 {
				errs = append(errs, field.Required(p.Child("verbs"), "verbs must contain at least one value"))
			}
			if len(rr.APIGroups) == 0 {
				errs = append(errs, field.Required(p.Child("apiGroups"), "resource rules must supply at least one api group"))
			}
			if len(rr.Resources) == 0 {
				errs = append(errs, field.Required(p.Child("resources"), "resource rules must supply at least one resource"))
			}
			if len(rr.Namespaces) == 0 && !rr.ClusterScope {
				errs = append(errs, field.Required(p.Child("namespaces"), "resource rules that are not cluster scoped must supply at least one namespace"))
			}
		}
		for j, nr := range r.NonResourceRules {
			p := rp.Child("nonResourceRules").Index(j)
			if len(nr.Verbs) == 0 {
				errs = append(errs, field.Required(p.Child("verbs"), "verbs must contain at least one value"))
			}
			if len(nr.NonResourceURLs) == 0 {
				errs = append(errs, field.Required(p.Child("nonResourceURLs"), "nonResourceURLs must contain at least one value"))
			}
		}
	}
	return errs
}

// validateFlowSubject: the kind says which one of user, group and service
// account is set, and it names something.
func validateFlowSubject(s flowcontrolv1.Subject, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch s.Kind {
	case flowcontrolv1.SubjectKindUser:
		if s.User == nil || s.User.Name == "" {
			errs = append(errs, field.Required(p.Child("user", "name"), "username is required"))
		}
	case flowcontrolv1.SubjectKindGroup:
		if s.Group == nil || s.Group.Name == "" {
			errs = append(errs, field.Required(p.Child("group", "name"), "group name is required"))
		}
	case flowcontrolv1.SubjectKindServiceAccount:
		if s.ServiceAccount == nil || s.ServiceAccount.Name == "" || s.ServiceAccount.Namespace == "" {
			errs = append(errs, field.Required(p.Child("serviceAccount"), "serviceaccount name and namespace are required"))
		}
	default:
		errs = append(errs, field.NotSupported(p.Child("kind"), s.Kind,
			[]string{string(flowcontrolv1.SubjectKindServiceAccount), string(flowcontrolv1.SubjectKindGroup), string(flowcontrolv1.SubjectKindUser)}))
	}
	return errs
}

// ValidateUpdate implements registry.Strategy.
func (s flowSchemaStrategy) ValidateUpdate(obj, _ api.Object) field.ErrorList { return s.Validate(obj) }

type priorityLevelStrategy struct{ registry.DefaultStrategy }

// Default implements registry.Strategy (SetDefaults_* of v1): shares,
// lendable percent and the queuing parameters.
func (priorityLevelStrategy) Default(obj api.Object) {
	pl := obj.(*flowcontrolv1.PriorityLevelConfiguration)
	if e := pl.Spec.Exempt; e != nil {
		if e.NominalConcurrencyShares == nil {
			e.NominalConcurrencyShares = ptr(int32(0))
		}
		if e.LendablePercent == nil {
			e.LendablePercent = ptr(int32(0))
		}
	}
	if l := pl.Spec.Limited; l != nil {
		if l.NominalConcurrencyShares == nil {
			l.NominalConcurrencyShares = ptr(int32(defaultNominalConcurrencyShares))
		}
		if l.LendablePercent == nil {
			l.LendablePercent = ptr(int32(0))
		}
		if q := l.LimitResponse.Queuing; q != nil {
			if q.HandSize == 0 {
				q.HandSize = defaultHandSize
			}
			if q.Queues == 0 {
				q.Queues = defaultQueues
			}
			if q.QueueLengthLimit == 0 {
				q.QueueLengthLimit = defaultQueueLengthLimit
			}
		}
	}
}

// Validate implements registry.Strategy (ValidatePriorityLevelConfiguration):
// the type and its own configuration; the exempt level is Exempt and only
// it is.
func (priorityLevelStrategy) Validate(obj api.Object) field.ErrorList {
	pl := obj.(*flowcontrolv1.PriorityLevelConfiguration)
	sp := field.NewPath("spec")
	var errs field.ErrorList
	exempt := pl.Name == flowcontrolv1.PriorityLevelConfigurationNameExempt
	switch pl.Spec.Type {
	case flowcontrolv1.PriorityLevelEnablementExempt:
		if pl.Spec.Limited != nil {
			errs = append(errs, field.Forbidden(sp.Child("limited"), "must be nil if the type is not Limited"))
		}
		if !exempt {
			errs = append(errs, field.Invalid(sp.Child("type"), pl.Spec.Type, "only 'exempt' priority level can be exempt"))
		}
	case flowcontrolv1.PriorityLevelEnablementLimited:
		if exempt {
			errs = append(errs, field.Invalid(sp.Child("type"), pl.Spec.Type, "type must be 'Exempt' if and only if name is 'exempt'"))
		}
		if pl.Spec.Exempt != nil {
			errs = append(errs, field.Forbidden(sp.Child("exempt"), "must be nil if the type is Limited"))
		}
		if pl.Spec.Limited == nil {
			errs = append(errs, field.Required(sp.Child("limited"), "must not be empty when type is Limited"))
		} else {
			errs = append(errs, validateLimited(pl.Spec.Limited, sp.Child("limited"))...)
		}
	default:
		errs = append(errs, field.NotSupported(sp.Child("type"), pl.Spec.Type,
			[]string{string(flowcontrolv1.PriorityLevelEnablementExempt), string(flowcontrolv1.PriorityLevelEnablementLimited)}))
	}
	return errs
}

func validateLimited(l *flowcontrolv1.LimitedPriorityLevelConfiguration, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if s := l.NominalConcurrencyShares; s != nil && *s < 0 {
		errs = append(errs, field.Invalid(p.Child("nominalConcurrencyShares"), *s, "must be a non-negative integer"))
	}
	if lp := l.LendablePercent; lp != nil && (*lp < 0 || *lp > 100) {
		errs = append(errs, field.Invalid(p.Child("lendablePercent"), *lp, "must be between 0 and 100, inclusive"))
	}
	lr := p.Child("limitResponse")
	switch l.LimitResponse.Type {
	case flowcontrolv1.LimitResponseTypeReject:
		if l.LimitResponse.Queuing != nil {
			errs = append(errs, field.Forbidden(lr.Child("queuing"), "must be nil if limited.limitResponse.type is not Limited"))
		}
	case flowcontrolv1.LimitResponseTypeQueue:
		q := l.LimitResponse.Queuing
		if q == nil {
			return append(errs, field.Required(lr.Child("queuing"), "must not be empty if limited.limitResponse.type is Limited"))
		}
		qp := lr.Child("queuing")
		if q.QueueLengthLimit <= 0 {
			errs = append(errs, field.Invalid(qp.Child("queueLengthLimit"), q.QueueLengthLimit, "must be positive"))
		}
		if q.Queues <= 0 {
			errs = append(errs, field.Invalid(qp.Child("queues"), q.Queues, "must be positive"))
		}
		if q.HandSize <= 0 {
			errs = append(errs, field.Invalid(qp.Child("handSize"), q.HandSize, "must be positive"))
		} else if q.HandSize > q.Queues {
			errs = append(errs, field.Invalid(qp.Child("handSize"), q.HandSize, fmt.Sprintf("should not be greater than queues (%d)", q.Queues)))
		}
	default:
		errs = append(errs, field.NotSupported(lr.Child("type"), l.LimitResponse.Type,
			[]string{string(flowcontrolv1.LimitResponseTypeQueue), string(flowcontrolv1.LimitResponseTypeReject)}))
	}
	return errs
}

// ValidateUpdate implements registry.Strategy.
func (s priorityLevelStrategy) ValidateUpdate(obj, _ api.Object) field.ErrorList {
	return s.Validate(obj)
}

// flowSchemaTable: NAME PRIORITYLEVEL MATCHINGPRECEDENCE
// DISTINGUISHERMETHOD AGE MISSINGPL (printFlowSchema); MISSINGPL is the
// Dangling condition's status, "?" before the config controller set it.
func flowSchemaTable() *registry.Table {
	return &registry.Table{
		Columns: []metav1.TableColumnDefinition{
			registry.NameColumn,
			col("PriorityLevel", "string", "priorityLevelConfiguration should reference a PriorityLevelConfiguration in the cluster. If the reference cannot be resolved, the FlowSchema will be ignored and marked as invalid in its status. Required."),
			col("MatchingPrecedence", "string", "matchingPrecedence is used to choose among the FlowSchemas that match a given request. The chosen FlowSchema is among those with the numerically lowest (which we take to be logically highest) MatchingPrecedence.  Each MatchingPrecedence value must be ranged in [1,10000]. Note that if the precedence is not specified, it will be set to 1000 as default."),
			col("DistinguisherMethod", "string", "distinguisherMethod defines how to compute the flow distinguisher for requests that match this schema. `nil` specifies that the distinguisher is disabled and thus will always be the empty string."),
			registry.AgeColumn,
			col("MissingPL", "string", "indicates whether the referenced priority level does not exist"),
		},
		Cells: func(obj api.Object, now time.Time) []any {
			fs := obj.(*flowcontrolv1.FlowSchema)
			method := "<none>"
			if d := fs.Spec.DistinguisherMethod; d != nil {
				method = string(d.Type)
			}
			missing := "?"
			for _, c := range fs.Status.Conditions {
				if c.Type == flowcontrolv1.FlowSchemaConditionDangling {
					missing = string(c.Status)
					break
				}
			}
			return []any{fs.Name, fs.Spec.PriorityLevelConfiguration.Name, int64(fs.Spec.MatchingPrecedence), method,
				age(fs.CreationTimestamp.Time, now), missing}
		},
	}
}

// priorityLevelTable: NAME TYPE NOMINALCONCURRENCYSHARES QUEUES HANDSIZE
// QUEUELENGTHLIMIT AGE (printPriorityLevelConfiguration).
func priorityLevelTable() *registry.Table {
	return &registry.Table{
		Columns: []metav1.TableColumnDefinition{
			registry.NameColumn,
			col("Type", "string", "type indicates whether this priority level is subject to limitation on request execution.  A value of `\"Exempt\"` means that requests of this priority level are not subject to a limit (and thus are never queued) and do not detract from the capacity made available to other priority levels.  A value of `\"Limited\"` means that (a) requests of this priority level _are_ subject to limits and (b) some of the server's limited capacity is made available exclusively to this priority level. Required."),
			col("NominalConcurrencyShares", "string", "nominalConcurrencyShares (NCS) contributes to the computation of the NominalConcurrencyLimit (NominalCL) of this level."),
			col("Queues", "string", "queues is the number of queues for this priority level."),
			col("HandSize", "string", "handSize is a small positive number that configures the shuffle sharding of requests into queues."),
			col("QueueLengthLimit", "string", "queueLengthLimit is the maximum number of requests allowed to be waiting in a given queue of this priority level at a time."),
			registry.AgeColumn,
		},
		Cells: func(obj api.Object, now time.Time) []any {
			pl := obj.(*flowcontrolv1.PriorityLevelConfiguration)
			var shares, queues, hand, length any = "<none>", "<none>", "<none>", "<none>"
			if l := pl.Spec.Limited; l != nil {
				if l.NominalConcurrencyShares != nil {
					shares = int64(*l.NominalConcurrencyShares)
				}
				if q := l.LimitResponse.Queuing; q != nil {
					queues, hand, length = int64(q.Queues), int64(q.HandSize), int64(q.QueueLengthLimit)
				}
			}
			return []any{pl.Name, string(pl.Spec.Type), shares, queues, hand, length, age(pl.CreationTimestamp.Time, now)}
		},
	}
}
