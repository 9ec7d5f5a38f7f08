package framework

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// WidgetGroup is the API group of the test custom resource.
const WidgetGroup = "e2e.kubesim.io"

// WidgetCRD defines widgets.e2e.kubesim.io/v1, a namespaced kind with a
// spec (size, colour) and a status subresource: enough schema for
// validation and for a controller to act on.
func WidgetCRD() *apiextensionsv1.CustomResourceDefinition {
	str := apiextensionsv1.JSONSchemaProps{Type: "string"}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets." + WidgetGroup},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: WidgetGroup,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Subresources: &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
							"size":   {Type: "integer", Minimum: ptr.To(0.0)},
							"colour": str,
						}},
						"status": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"observed": str}},
					},
				}},
			}},
		},
	}
}

// CreateCRD creates crd with the apiextensions clientset (its defaults,
// as an operator's installer would) and waits until it is Established:
// only then does the API server serve its resource.
func (k *Kubesim) CreateCRD(t testing.TB, crd *apiextensionsv1.CustomResourceDefinition) {
	t.Helper()
	cs, err := apiextensionsclient.NewForConfig(k.RestConfig())
	require.NoError(t, err)
	crds := cs.ApiextensionsV1().CustomResourceDefinitions()
	_, err = crds.Create(t.Context(), crd, metav1.CreateOptions{})
	require.NoError(t, err, "create CRD %s", crd.Name)
	require.Eventually(t, func() bool {
		got, err := crds.Get(t.Context(), crd.Name, metav1.GetOptions{})
		if err != nil {
			return false
		}
		for _, c := range got.Status.Conditions {
			if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
				return true
			}
		}
		return false
	}, 30*time.Second, 20*time.Millisecond, "CRD %s becomes Established", crd.Name)
}
