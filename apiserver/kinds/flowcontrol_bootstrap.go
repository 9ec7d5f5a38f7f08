package kinds

import (
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// API Priority and Fairness's bootstrap configuration: the objects
// kube-apiserver 1.32 creates at start
// (k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap/default.go). The
// mandatory ones (exempt, catch-all) are kept as they are written here;
// the suggested ones are created when missing and kept up to date while
// their apf.kubernetes.io/autoupdate-spec annotation says "true" (a user
// who tunes one sets it to "false"). Later releases dropped the
// endpoint-controller and workload-leader-election schemas, which served
// leader election on Endpoints and ConfigMaps.

// FlowControlBootstrap is the bootstrap configuration, freshly built.
type FlowControlBootstrap struct {
	MandatoryPriorityLevels, SuggestedPriorityLevels []*flowcontrolv1.PriorityLevelConfiguration
	MandatoryFlowSchemas, SuggestedFlowSchemas       []*flowcontrolv1.FlowSchema
}

// The names that recur in the configuration.
const (
	groupMasters         = "system:masters"
	groupNodes           = "system:nodes"
	groupAuthenticated   = "system:authenticated"
	groupUnauthenticated = "system:unauthenticated"
	groupServiceAccounts = "system:serviceaccounts"
	userControllerMgr    = "system:kube-controller-manager"
	userScheduler        = "system:kube-scheduler"
)

// DefaultFlowControl returns the bootstrap configuration.
func DefaultFlowControl() FlowControlBootstrap {
	everything := func(subjects ...flowcontrolv1.Subject) flowcontrolv1.PolicyRulesWithSubjects {
		return flowcontrolv1.PolicyRulesWithSubjects{Subjects: subjects,
			ResourceRules: []flowcontrolv1.ResourcePolicyRule{{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"},
				Namespaces: []string{"*"}, ClusterScope: true}},
			NonResourceRules: []flowcontrolv1.NonResourcePolicyRule{{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}}}}
	}
	leaseRule := func(verbs ...string) flowcontrolv1.ResourcePolicyRule {
		return flowcontrolv1.ResourcePolicyRule{Verbs: verbs, APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Namespaces: []string{"*"}}
	}
	getCreateUpdate := []string{"get", "create", "update"}
	return FlowControlBootstrap{
		MandatoryPriorityLevels: []*flowcontrolv1.PriorityLevelConfiguration{
			newPriorityLevel("catch-all", flowcontrolv1.PriorityLevelConfigurationSpec{Type: flowcontrolv1.PriorityLevelEnablementLimited,
				Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{NominalConcurrencyShares: ptr(int32(5)), LendablePercent: ptr(int32(0)),
					LimitResponse: flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeReject}}}),
			newPriorityLevel("exempt", flowcontrolv1.PriorityLevelConfigurationSpec{Type: flowcontrolv1.PriorityLevelEnablementExempt,
				Exempt: &flowcontrolv1.ExemptPriorityLevelConfiguration{NominalConcurrencyShares: ptr(int32(0)), LendablePercent: ptr(int32(0))}}),
		},
		MandatoryFlowSchemas: []*flowcontrolv1.FlowSchema{
			newFlowSchema("exempt", "exempt", 1, "", everything(group(groupMasters))),
			newFlowSchema("catch-all", "catch-all", 10000, flowcontrolv1.FlowDistinguisherMethodByUserType,
				everything(group(groupUnauthenticated), group(groupAuthenticated))),
		},
		SuggestedPriorityLevels: []*flowcontrolv1.PriorityLevelConfiguration{
			queuingLevel("system", 30, 33, 64, 6),
			queuingLevel("node-high", 40, 25, 64, 6),
			queuingLevel("leader-election", 10, 0, 16, 4),
			queuingLevel("workload-high", 40, 50, 128, 6),
			queuingLevel("workload-low", 100, 90, 128, 6),
			queuingLevel("global-default", 20, 50, 128, 6),
		},
		SuggestedFlowSchemas: []*flowcontrolv1.FlowSchema{
			newFlowSchema("system-nodes", "system", 500, flowcontrolv1.FlowDistinguisherMethodByUserType, everything(group(groupNodes))),
			newFlowSchema("system-node-high", "node-high", 400, flowcontrolv1.FlowDistinguisherMethodByUserType, flowcontrolv1.PolicyRulesWithSubjects{
				Subjects: []flowcontrolv1.Subject{group(groupNodes)},
				ResourceRules: []flowcontrolv1.ResourcePolicyRule{
					{Verbs: []string{"*"}, APIGroups: []string{""}, Resources: []string{"nodes", "nodes/status"}, Namespaces: []string{"*"}, ClusterScope: true},
					leaseRule("*")}}),
			newFlowSchema("probes", "exempt", 2, "", flowcontrolv1.PolicyRulesWithSubjects{
				Subjects:         []flowcontrolv1.Subject{group(groupUnauthenticated), group(groupAuthenticated)},
				NonResourceRules: []flowcontrolv1.NonResourcePolicyRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz", "/readyz", "/livez"}}}}),
			newFlowSchema("system-leader-election", "leader-election", 100, flowcontrolv1.FlowDistinguisherMethodByUserType, flowcontrolv1.PolicyRulesWithSubjects{
				Subjects:      []flowcontrolv1.Subject{user(userControllerMgr), user(userScheduler), kubeSystemServiceAccount("*")},
				ResourceRules: []flowcontrolv1.ResourcePolicyRule{leaseRule(getCreateUpdate...)}}),
			newFlowSchema("workload-leader-election", "leader-election", 200, flowcontrolv1.FlowDistinguisherMethodByUserType, flowcontrolv1.PolicyRulesWithSubjects{
				Subjects: []flowcontrolv1.Subject{kubeSystemServiceAccount("*")},
				ResourceRules: []flowcontrolv1.ResourcePolicyRule{
					{Verbs: getCreateUpdate, APIGroups: []string{""}, Resources: []string{"endpoints", "configmaps"}, Namespaces: []string{"*"}},
					leaseRule(getCreateUpdate...)}}),
			newFlowSchema("endpoint-controller", "workload-high", 150, flowcontrolv1.FlowDistinguisherMethodByUserType, flowcontrolv1.PolicyRulesWithSubjects{
				Subjects: []flowcontrolv1.Subject{user(userControllerMgr), kubeSystemServiceAccount("endpoint-controller"),
					kubeSystemServiceAccount("endpointslicemirroring-controller")},
				ResourceRules: []flowcontrolv1.ResourcePolicyRule{
					{Verbs: getCreateUpdate, APIGroups: []string{""}, Resources: []string{"endpoints"}, Namespaces: []string{"*"}}}}),
			newFlowSchema("kube-controller-manager", "workload-high", 800, flowcontrolv1.FlowDistinguisherMethodByNamespaceType, everything(user(userControllerMgr))),
			newFlowSchema("kube-scheduler", "workload-high", 800, flowcontrolv1.FlowDistinguisherMethodByNamespaceType, everything(user(userScheduler))),
			newFlowSchema("kube-system-service-accounts", "workload-high", 900, flowcontrolv1.FlowDistinguisherMethodByNamespaceType,
				everything(kubeSystemServiceAccount("*"))),
			newFlowSchema("service-accounts", "workload-low", 9000, flowcontrolv1.FlowDistinguisherMethodByUserType, everything(group(groupServiceAccounts))),
			newFlowSchema("global-default", "global-default", 9900, flowcontrolv1.FlowDistinguisherMethodByUserType,
				everything(group(groupUnauthenticated), group(groupAuthenticated))),
		},
	}
}

// AutoUpdateSpecAnnotation marks a bootstrap object the API server keeps
// up to date.
const AutoUpdateSpecAnnotation = flowcontrolv1.AutoUpdateAnnotationKey

func autoUpdate() metav1.ObjectMeta {
	return metav1.ObjectMeta{Annotations: map[string]string{AutoUpdateSpecAnnotation: "true"}}
}

func newPriorityLevel(name string, spec flowcontrolv1.PriorityLevelConfigurationSpec) *flowcontrolv1.PriorityLevelConfiguration {
	pl := &flowcontrolv1.PriorityLevelConfiguration{ObjectMeta: autoUpdate(), Spec: spec}
	pl.Name = name
	return pl
}

// queuingLevel is a Limited level that queues.
func queuingLevel(name string, shares, lendable, queues, handSize int32) *flowcontrolv1.PriorityLevelConfiguration {
	return newPriorityLevel(name, flowcontrolv1.PriorityLevelConfigurationSpec{Type: flowcontrolv1.PriorityLevelEnablementLimited,
		Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{NominalConcurrencyShares: ptr(shares), LendablePercent: ptr(lendable),
			LimitResponse: flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeQueue,
				Queuing: &flowcontrolv1.QueuingConfiguration{Queues: queues, HandSize: handSize, QueueLengthLimit: 50}}}})
}

func newFlowSchema(name, level string, precedence int32, method flowcontrolv1.FlowDistinguisherMethodType, rules ...flowcontrolv1.PolicyRulesWithSubjects) *flowcontrolv1.FlowSchema {
	fs := &flowcontrolv1.FlowSchema{ObjectMeta: autoUpdate(), Spec: flowcontrolv1.FlowSchemaSpec{
		PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: level},
		MatchingPrecedence:         precedence, Rules: rules}}
	fs.Name = name
	if method != "" {
		fs.Spec.DistinguisherMethod = &flowcontrolv1.FlowDistinguisherMethod{Type: method}
	}
	return fs
}

func group(name string) flowcontrolv1.Subject {
	return flowcontrolv1.Subject{Kind: flowcontrolv1.SubjectKindGroup, Group: &flowcontrolv1.GroupSubject{Name: name}}
}

func user(name string) flowcontrolv1.Subject {
	return flowcontrolv1.Subject{Kind: flowcontrolv1.SubjectKindUser, User: &flowcontrolv1.UserSubject{Name: name}}
}

func kubeSystemServiceAccount(name string) flowcontrolv1.Subject {
	return flowcontrolv1.Subject{Kind: flowcontrolv1.SubjectKindServiceAccount,
		ServiceAccount: &flowcontrolv1.ServiceAccountSubject{Name: name, Namespace: "kube-system"}}
}
