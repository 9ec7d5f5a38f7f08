package main

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

const celCronTabCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.stable.example.com
spec:
  group: stable.example.com
  scope: Namespaced
  names: {plural: crontabs, singular: crontab, kind: CronTab}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - rule: "self.minReplicas <= self.replicas && self.replicas <= self.maxReplicas"
              message: "replicas should be in the range minReplicas..maxReplicas."
            - rule: "self.maxReplicas >= oldSelf.maxReplicas"
              message: "maxReplicas may not shrink"
              reason: FieldValueForbidden
              fieldPath: .maxReplicas
            properties:
              minReplicas: {type: integer}
              replicas: {type: integer}
              maxReplicas: {type: integer}
`

const celCronTab = `apiVersion: stable.example.com/v1
kind: CronTab
metadata:
  name: my-new-cron-object
spec:
  minReplicas: 0
  replicas: %s
  maxReplicas: %s
`

// The CRD validation rules of the Kubernetes documentation through the real
// kubectl: a rule refuses an apply, a transition rule refuses an update, and
// a CRD whose rule does not compile is refused.
func TestKubectlValidationRules(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), "--api-server-only")
	k := newKubectl(t, s)
	out := k.ok("apply", "-f", writeManifest(t, "crd.yaml", celCronTabCRD))
	assert.Equal(t, "customresourcedefinition.apiextensions.k8s.io/crontabs.stable.example.com created\n", out)

	errOut := k.fail("apply", "-f", writeManifest(t, "bad.yaml", fmt.Sprintf(celCronTab, "20", "10")))
	assert.Equal(t, `The CronTab "my-new-cron-object" is invalid: spec: Invalid value: replicas should be in the range minReplicas..maxReplicas.`+"\n", errOut)

	out = k.ok("apply", "-f", writeManifest(t, "good.yaml", fmt.Sprintf(celCronTab, "5", "10")))
	assert.Equal(t, "crontab.stable.example.com/my-new-cron-object created\n", out)
	errOut = k.fail("apply", "-f", writeManifest(t, "shrink.yaml", fmt.Sprintf(celCronTab, "5", "8")))
	assert.Equal(t, `The CronTab "my-new-cron-object" is invalid: spec.maxReplicas: Forbidden: maxReplicas may not shrink`+"\n", errOut)

	bad := `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: broken.stable.example.com
spec:
  group: stable.example.com
  scope: Namespaced
  names: {plural: broken, singular: broken, kind: Broken}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-validations:
        - rule: "self.spec.replicas >"
`
	errOut = k.fail("apply", "-f", writeManifest(t, "broken.yaml", bad))
	assert.Contains(t, errOut, `The CustomResourceDefinition "broken.stable.example.com" is invalid: spec.validation.openAPIV3Schema.x-kubernetes-validations[0].rule: Invalid value: apiextensions.ValidationRule{Rule:"self.spec.replicas >", Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: compilation failed: ERROR: <input>:1:21: Syntax error: mismatched input '<EOF>' expecting`)

	// self is typed by the schema: a misspelt field is refused when the CRD
	// is written, not when a CronTab first runs the rule.
	misspelt := `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: misspelt.stable.example.com
spec:
  group: stable.example.com
  scope: Namespaced
  names: {plural: misspelt, singular: misspelt, kind: Misspelt}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              replicas: {type: integer}
            x-kubernetes-validations:
            - rule: "self.replicsa >= 0"
`
	errOut = k.fail("apply", "-f", writeManifest(t, "misspelt.yaml", misspelt))
	assert.Equal(t, `The CustomResourceDefinition "misspelt.stable.example.com" is invalid: spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: apiextensions.ValidationRule{Rule:"self.replicsa >= 0", Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: compilation failed: ERROR: <input>:1:5: undefined field 'replicsa'
 | self.replicsa >= 0
 | ....^`+"\n", errOut)
	k.fail("get", "crd", "misspelt.stable.example.com")
}

const demoPolicy = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: demo-policy.example.com
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["deployments"]
  validations:
  - expression: "object.spec.replicas <= 5"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: demo-binding-test.example.com
spec:
  policyName: demo-policy.example.com
  validationActions: [Deny]
  matchResources:
    namespaceSelector:
      matchLabels:
        environment: test
`

const demoDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx
  namespace: %s
spec:
  replicas: %d
  selector: {matchLabels: {app: nginx}}
  template:
    metadata: {labels: {app: nginx}}
    spec:
      containers: [{name: nginx, image: nginx}]
`

// The ValidatingAdmissionPolicy example of the Kubernetes documentation
// through the real kubectl: the binding's namespace selector, the denial's
// wording, and a policy whose expression does not compile.
func TestKubectlValidatingAdmissionPolicy(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), "--api-server-only")
	k := newKubectl(t, s)
	out := k.ok("apply", "-f", writeManifest(t, "policy.yaml", demoPolicy))
	assert.Equal(t, "validatingadmissionpolicy.admissionregistration.k8s.io/demo-policy.example.com created\n"+
		"validatingadmissionpolicybinding.admissionregistration.k8s.io/demo-binding-test.example.com created\n", out)
	k.ok("create", "namespace", "test")
	k.ok("label", "namespace", "test", "environment=test")

	errOut := k.fail("apply", "-f", writeManifest(t, "big.yaml", fmt.Sprintf(demoDeployment, "test", 6)))
	assert.Equal(t, `The deployments "nginx" is invalid: : ValidatingAdmissionPolicy 'demo-policy.example.com' with binding 'demo-binding-test.example.com' denied request: failed expression: object.spec.replicas <= 5`+"\n", errOut)
	out = k.ok("apply", "-f", writeManifest(t, "small.yaml", fmt.Sprintf(demoDeployment, "test", 5)))
	assert.Equal(t, "deployment.apps/nginx created\n", out)
	out = k.ok("apply", "-f", writeManifest(t, "other.yaml", fmt.Sprintf(demoDeployment, "default", 6)))
	assert.Equal(t, "deployment.apps/nginx created\n", out, "the binding matches namespaces labelled environment=test only")

	// Params: the limit comes from a ConfigMap the binding names.
	params := `apiVersion: v1
kind: ConfigMap
metadata: {name: replica-limit, namespace: default}
data: {max: "2"}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: replica-limit.example.com}
spec:
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:
    resourceRules:
    - {apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["deployments"]}
  validations:
  - expression: "object.spec.replicas <= int(params.data.max)"
    messageExpression: "'replicas must be at most ' + params.data.max"
    reason: Forbidden
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: replica-limit-binding}
spec:
  policyName: replica-limit.example.com
  validationActions: [Deny]
  paramRef: {name: replica-limit, namespace: default, parameterNotFoundAction: Deny}
`
	k.ok("apply", "-f", writeManifest(t, "params.yaml", params))
	// (kubectl scale would go through deployments/scale, which these rules
	// do not match, in Kubernetes too.)
	errOut = k.fail("patch", "deployment", "nginx", "-p", `{"spec":{"replicas":3}}`)
	assert.Equal(t, `Error from server (Forbidden): deployments.apps "nginx" is forbidden: ValidatingAdmissionPolicy 'replica-limit.example.com' with binding 'replica-limit-binding' denied request: replicas must be at most 2`+"\n", errOut)

	out = k.ok("get", "validatingadmissionpolicies")
	assert.Regexp(t, `(?m)^NAME\s+VALIDATIONS\s+PARAMKIND\s+AGE\ndemo-policy\.example\.com\s+1\s+<unset>\s+\d+s\nreplica-limit\.example\.com\s+1\s+v1/ConfigMap\s+\d+s$`, out)

	bad := `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: broken.example.com
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["deployments"]}
  validations:
  - expression: "object.spec.replicas <="
`
	errOut = k.fail("apply", "-f", writeManifest(t, "broken.yaml", bad))
	assert.Contains(t, errOut, `The ValidatingAdmissionPolicy "broken.example.com" is invalid: spec.validations[0].expression: Invalid value: "object.spec.replicas <=": compilation failed: ERROR: <input>:1:24: Syntax error: mismatched input '<EOF>' expecting`)
}
