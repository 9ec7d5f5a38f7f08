package crd_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/apiserver/apiservertest"
)

// cronTabCRD carries the Kubernetes documentation's CronTab rules: one on
// spec, a transition rule with a reason and a fieldPath, one on a scalar.
const cronTabCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"crontabs.stable.example.com"},
"spec":{"group":"stable.example.com","scope":"Namespaced",
 "names":{"plural":"crontabs","singular":"crontab","kind":"CronTab"},
 "versions":[{"name":"v1","served":true,"storage":true,
  "schema":{"openAPIV3Schema":{"type":"object",
   "x-kubernetes-validations":[{"rule":"self.metadata.name.startsWith('ct-')","message":"name must start with ct-"}],
   "properties":{"spec":{"type":"object",
    "x-kubernetes-validations":[
     {"rule":"self.minReplicas <= self.replicas && self.replicas <= self.maxReplicas","message":"replicas should be in the range minReplicas..maxReplicas."},
     {"rule":"self.maxReplicas >= oldSelf.maxReplicas","message":"maxReplicas may not shrink","reason":"FieldValueForbidden","fieldPath":".maxReplicas"}],
    "properties":{"minReplicas":{"type":"integer"},"replicas":{"type":"integer"},"maxReplicas":{"type":"integer"},
     "cronSpec":{"type":"string","maxLength":64,"x-kubernetes-validations":[{"rule":"self.split(' ').size() == 5"}]}}}}}}}]}}`

func TestCustomResourceValidationRules(t *testing.T) {
	env := apiservertest.New(t)
	h := env.Server.Handler()
	code, body := raw(t, h, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", cronTabCRD)
	require.Equal(t, 201, code, "%v", body)
	path := "/apis/stable.example.com/v1/namespaces/default/crontabs"

	code, body = raw(t, h, "POST", path, `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"ct-1"},
	  "spec":{"minReplicas":1,"replicas":2,"maxReplicas":5,"cronSpec":"* * * * *"}}`)
	require.Equal(t, 201, code, "%v", body)

	code, body = raw(t, h, "POST", path, `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"bad"},
	  "spec":{"minReplicas":3,"replicas":2,"maxReplicas":5,"cronSpec":"* *"}}`)
	require.Equal(t, 422, code)
	assert.Equal(t, []string{
		"FieldValueInvalid <nil>: Invalid value: name must start with ct-",
		"FieldValueInvalid spec: Invalid value: replicas should be in the range minReplicas..maxReplicas.",
		`FieldValueInvalid spec.cronSpec: Invalid value: "* *": failed rule: self.split(' ').size() == 5`,
	}, causes(body))
	assert.Equal(t, `CronTab.stable.example.com "bad" is invalid: [<nil>: Invalid value: name must start with ct-, spec: Invalid value: replicas should be in the range minReplicas..maxReplicas., spec.cronSpec: Invalid value: "* *": failed rule: self.split(' ').size() == 5]`, body["message"])

	// The transition rule runs on update only.
	code, body = raw(t, h, "PUT", path+"/ct-1", `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"ct-1"},
	  "spec":{"minReplicas":1,"replicas":2,"maxReplicas":3,"cronSpec":"* * * * *"}}`)
	require.Equal(t, 422, code, "%v", body)
	assert.Equal(t, []string{"FieldValueForbidden spec.maxReplicas: Forbidden: maxReplicas may not shrink"}, causes(body))
	code, body = raw(t, h, "PUT", path+"/ct-1", `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"ct-1"},
	  "spec":{"minReplicas":1,"replicas":2,"maxReplicas":9,"cronSpec":"* * * * *"}}`)
	require.Equal(t, 200, code, "%v", body)

	// A value of the wrong type: the rules are not run.
	code, body = raw(t, h, "POST", path, `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"ct-2"},
	  "spec":{"minReplicas":"one","replicas":2,"maxReplicas":5}}`)
	require.Equal(t, 422, code)
	assert.Contains(t, causes(body), "FieldValueInvalid <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation")
}

func TestCRDWithBadRulesRefused(t *testing.T) {
	env := apiservertest.New(t)
	h := env.Server.Handler()
	bad := strings.Replace(cronTabCRD, `"rule":"self.split(' ').size() == 5"`, `"rule":"self.split(' ').size() =="`, 1)
	code, body := raw(t, h, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", bad)
	require.Equal(t, 422, code, "%v", body)
	require.Len(t, causes(body), 1)
	assert.True(t, strings.HasPrefix(causes(body)[0],
		`FieldValueInvalid spec.validation.openAPIV3Schema.properties[spec].properties[cronSpec].x-kubernetes-validations[0].rule: Invalid value: apiextensions.ValidationRule{Rule:"self.split(' ').size() ==", Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: compilation failed: ERROR: <input>:1:26: Syntax error: mismatched input '<EOF>' expecting`), causes(body)[0])

	// The documentation's example of a rule over budget: an unbounded list
	// of unbounded strings.
	costly := strings.Replace(cronTabCRD, `"cronSpec":{"type":"string","maxLength":64,"x-kubernetes-validations":[{"rule":"self.split(' ').size() == 5"}]}`,
		`"foo":{"type":"array","items":{"type":"string"},"x-kubernetes-validations":[{"rule":"self.all(x, x.contains('a string'))"}]}`, 1)
	code, body = raw(t, h, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", costly)
	require.Equal(t, 422, code, "%v", body)
	assert.Contains(t, causes(body), "FieldValueForbidden spec.validation.openAPIV3Schema.properties[spec].properties[foo].x-kubernetes-validations[0].rule: "+
		"Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)")

	// With maxItems and maxLength the same rule is accepted.
	bounded := strings.Replace(costly, `"foo":{"type":"array","items":{"type":"string"}`, `"foo":{"type":"array","maxItems":25,"items":{"type":"string","maxLength":10}`, 1)
	code, body = raw(t, h, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", bounded)
	require.Equal(t, 201, code, "%v", body)
}

// With schemas that differ between versions, a rule's error is placed under
// its version; with one shared schema, under spec.validation (above).
func TestBadRulePathPerVersion(t *testing.T) {
	env := apiservertest.New(t)
	crd := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
	"metadata":{"name":"things.lab.example.com"},
	"spec":{"group":"lab.example.com","scope":"Namespaced","names":{"plural":"things","singular":"thing","kind":"Thing"},
	 "versions":[
	  {"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}},
	  {"name":"v2","served":true,"storage":false,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-validations":[{"rule":"self.a ==","message":"m"}]}}}]}}`
	code, body := raw(t, env.Server.Handler(), "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)
	require.Equal(t, 422, code, "%v", body)
	require.Len(t, causes(body), 1)
	assert.True(t, strings.HasPrefix(causes(body)[0], `FieldValueInvalid spec.versions[1].schema.openAPIV3Schema.x-kubernetes-validations[0].rule: Invalid value: apiextensions.ValidationRule{Rule:"self.a ==", Message:"m",`), causes(body)[0])
}
