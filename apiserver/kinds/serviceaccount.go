package kinds

import (
	"reflect"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/schema"
)

// serviceAccountResource is core/v1 ServiceAccount. Its
// serviceaccounts/token subresource needs the API server's signing key,
// so the API server adds it (apiserver.Config.ServiceAccounts).
func serviceAccountResource(gen *schema.Generator) *registry.Resource {
	return &registry.Resource{
		Version: "v1", Name: "serviceaccounts", SingularName: "serviceaccount", Kind: "ServiceAccount", ListKind: "ServiceAccountList",
		ShortNames: []string{"sa"}, Namespaced: true,
		New:                 func() api.Object { return &corev1.ServiceAccount{} },
		StrategicMergePatch: true,
		Strategy:            serviceAccountStrategy{},
		Schema:              gen.FromGoType(reflect.TypeOf(corev1.ServiceAccount{})),
		Table:               serviceAccountTable(),
	}
}

// serviceAccountTable prints NAME SECRETS AGE, as kubectl's printer does.
func serviceAccountTable() *registry.Table {
	return &registry.Table{
		Columns: []metav1.TableColumnDefinition{
			registry.NameColumn,
			col("Secrets", "string", "Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use."),
			registry.AgeColumn,
		},
		Cells: func(obj api.Object, now time.Time) []any {
			sa := obj.(*corev1.ServiceAccount)
			return []any{sa.Name, int64(len(sa.Secrets)), age(sa.CreationTimestamp.Time, now)}
		},
	}
}

// serviceAccountStrategy accepts every account: the name is checked as a
// DNS subdomain like every object's, and the rest is references.
type serviceAccountStrategy struct{ registry.DefaultStrategy }
