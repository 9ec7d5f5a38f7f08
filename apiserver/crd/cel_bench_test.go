package crd_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kubesim/kubesim/apiserver/apiservertest"
)

// BenchmarkCustomResourceCreateValidationRules measures a custom resource create through
// the REST handler (decode, prune, default, validate, store) with the
// CronTab schema's three x-kubernetes-validations rules, and with the same
// schema without them: the difference is what CEL costs per write.
func BenchmarkCustomResourceCreateValidationRules(b *testing.B) {
	noRules := strings.NewReplacer(
		`"x-kubernetes-validations":[{"rule":"self.metadata.name.startsWith('ct-')","message":"name must start with ct-"}],`, ``,
		`"x-kubernetes-validations":[
     {"rule":"self.minReplicas <= self.replicas && self.replicas <= self.maxReplicas","message":"replicas should be in the range minReplicas..maxReplicas."},
     {"rule":"self.maxReplicas >= oldSelf.maxReplicas","message":"maxReplicas may not shrink","reason":"FieldValueForbidden","fieldPath":".maxReplicas"}],`, ``,
		`,"x-kubernetes-validations":[{"rule":"self.split(' ').size() == 5"}]`, ``).Replace(cronTabCRD)
	if strings.Contains(noRules, "x-kubernetes-validations") {
		b.Fatal("the rules were not removed")
	}
	for _, tc := range []struct{ name, crd string }{{"rules=0", noRules}, {"rules=3", cronTabCRD}} {
		b.Run(tc.name, func(b *testing.B) {
			env := apiservertest.New(b)
			h := env.Server.Handler()
			if code, body := raw(b, h, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", tc.crd); code != 201 {
				b.Fatalf("CRD: %d %v", code, body)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				body := fmt.Sprintf(`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"ct-%d"},
				  "spec":{"minReplicas":1,"replicas":2,"maxReplicas":5,"cronSpec":"* * * * *"}}`, i)
				if code, resp := raw(b, h, "POST", "/apis/stable.example.com/v1/namespaces/default/crontabs", body); code != 201 {
					b.Fatalf("create: %d %v", code, resp)
				}
			}
		})
	}
}
