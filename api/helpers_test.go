package api

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/kubesim/kubesim/api/labels"
)

func TestLabelSelectorAsSelector(t *testing.T) {
	web := labels.Set{"app": "web", "tier": "front"}
	tests := []struct {
		name string
		sel  *metav1.LabelSelector
		want bool
		str  string
	}{
		{"nil selects nothing", nil, false, ""},
		{"empty selects everything", &metav1.LabelSelector{}, true, ""},
		{"matchLabels", &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, true, "app=web"},
		{"matchExpressions", &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "tier", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"front"}}}}, false, "tier notin (front)"},
	}
	for _, tt := range tests {
		sel, err := LabelSelectorAsSelector(tt.sel)
		require.NoError(t, err, tt.name)
		assert.Equal(t, tt.want, sel.Matches(web), tt.name)
		assert.Equal(t, tt.str, sel.String(), tt.name)
	}
	_, err := LabelSelectorAsSelector(&metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: "Near"}}})
	assert.Error(t, err)
}

func TestCRDAndAPIServiceConditions(t *testing.T) {
	c := &apiextensionsv1.CustomResourceDefinition{}
	assert.False(t, IsCRDConditionTrue(c, apiextensionsv1.Established))
	t1, t2 := metav1.Time{}, metav1.NewTime(metav1.Time{}.Add(1e9))
	SetCRDCondition(c, apiextensionsv1.CustomResourceDefinitionCondition{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue, LastTransitionTime: t1})
	SetCRDCondition(c, apiextensionsv1.CustomResourceDefinitionCondition{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue, Reason: "Again", LastTransitionTime: t2})
	require.Len(t, c.Status.Conditions, 1)
	assert.True(t, IsCRDConditionTrue(c, apiextensionsv1.Established))
	assert.Equal(t, t1, FindCRDCondition(c, apiextensionsv1.Established).LastTransitionTime, "same status: the transition time stays")

	s := &apiregistrationv1.APIService{}
	assert.Nil(t, GetAPIServiceConditionByType(s, apiregistrationv1.Available))
	SetAPIServiceCondition(s, apiregistrationv1.APIServiceCondition{Type: apiregistrationv1.Available, Status: apiregistrationv1.ConditionFalse})
	SetAPIServiceCondition(s, apiregistrationv1.APIServiceCondition{Type: apiregistrationv1.Available, Status: apiregistrationv1.ConditionTrue})
	require.Len(t, s.Status.Conditions, 1)
	assert.Equal(t, apiregistrationv1.ConditionTrue, GetAPIServiceConditionByType(s, apiregistrationv1.Available).Status)
}

// A Service port's endpoints are the ready addresses of the subsets that
// have a port of its name, each with that subset's number; the addresses
// not ready are not among them.
func TestEndpointsOfPort(t *testing.T) {
	ep := &corev1.Endpoints{Subsets: []corev1.EndpointSubset{
		{
			Addresses:         []corev1.EndpointAddress{{IP: "10.244.1.2"}, {IP: "10.244.2.2"}},
			NotReadyAddresses: []corev1.EndpointAddress{{IP: "10.244.3.2"}},
			Ports:             []corev1.EndpointPort{{Name: "http", Port: 8080}, {Name: "admin", Port: 9090}},
		},
		{
			Addresses: []corev1.EndpointAddress{{IP: "10.244.4.2"}},
			Ports:     []corev1.EndpointPort{{Name: "http", Port: 8081}},
		},
	}}
	assert.Equal(t, []EndpointAddress{{IP: "10.244.1.2", Port: 8080}, {IP: "10.244.2.2", Port: 8080}, {IP: "10.244.4.2", Port: 8081}},
		EndpointsOfPort(ep, "http"))
	assert.Equal(t, []EndpointAddress{{IP: "10.244.1.2", Port: 9090}, {IP: "10.244.2.2", Port: 9090}}, EndpointsOfPort(ep, "admin"))
	assert.Empty(t, EndpointsOfPort(ep, "metrics"))
}
