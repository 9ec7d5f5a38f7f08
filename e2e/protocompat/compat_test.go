package protocompat

import (
	"bytes"
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/kubesim/kubesim/api"
	kpb "github.com/kubesim/kubesim/apiserver/protobuf"
)

// realScheme knows the Kubernetes types of every kind kubesim serves as
// protobuf.
func realScheme(t testing.TB) *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		corev1.AddToScheme, appsv1.AddToScheme, batchv1.AddToScheme, coordinationv1.AddToScheme, apiregistrationv1.AddToScheme,
		apiextensionsv1.AddToScheme, apiextensionsv1beta1.AddToScheme, rbacv1.AddToScheme, storagev1.AddToScheme,
		autoscalingv1.AddToScheme, autoscalingv2.AddToScheme, admissionregistrationv1.AddToScheme,
		policyv1.AddToScheme, schedulingv1.AddToScheme, discoveryv1.AddToScheme,
	} {
		require.NoError(t, add(s))
	}
	metav1.AddToGroupVersion(s, schema.GroupVersion{Version: "v1"})
	return s
}

func realEncode(t testing.TB, s *protobuf.Serializer, obj runtime.Object) []byte {
	var b bytes.Buffer
	require.NoError(t, s.Encode(obj, &b))
	return b.Bytes()
}

// TestEnvelopeWatchEventAndListBytes compares an enveloped object, a watch
// frame and a list written by kubesim with the real serializer's, the real
// watch encoder's (raw serializer, length-delimited framer, enveloped
// object inside) and the real list encoding.
func TestEnvelopeWatchEventAndListBytes(t *testing.T) {
	scheme := realScheme(t)
	real := protobuf.NewSerializer(scheme, scheme)
	raw := protobuf.NewRawSerializer(scheme, scheme)

	pod := &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: "u-1", ResourceVersion: "12", Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{Name: "web", Image: "nginx",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.0.0.7"},
	}
	ours, err := kpb.Encode(pod)
	require.NoError(t, err)
	require.Equal(t, hex.EncodeToString(realEncode(t, real, pod.DeepCopy())), hex.EncodeToString(ours), "the envelope")

	for _, typ := range []string{"ADDED", "MODIFIED", "DELETED", "BOOKMARK"} {
		var want bytes.Buffer
		event := &metav1.WatchEvent{Type: typ, Object: runtime.RawExtension{Raw: realEncode(t, real, pod.DeepCopy())}}
		var msg bytes.Buffer
		require.NoError(t, raw.Encode(event, &msg))
		_, err := protobuf.LengthDelimitedFramer.NewFrameWriter(&want).Write(msg.Bytes())
		require.NoError(t, err)

		event2, err := kpb.EncodeWatchEvent(typ, pod)
		require.NoError(t, err)
		require.Equal(t, hex.EncodeToString(want.Bytes()), hex.EncodeToString(kpb.Frame(event2)), typ)
	}

	rc := int64(7)
	list := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "9", Continue: "x", RemainingItemCount: &rc}, Items: []corev1.Pod{*pod, {}}}
	list.Items[0].TypeMeta = metav1.TypeMeta{}
	ourList, err := kpb.EncodeList("v1", "PodList", list.ListMeta, api.Items(list))
	require.NoError(t, err)
	realList, _, err := real.Decode(ourList, nil, nil)
	require.NoError(t, err)
	realList.GetObjectKind().SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("PodList"))
	require.Len(t, realList.(*corev1.PodList).Items, 2)
	require.Equal(t, hex.EncodeToString(realEncode(t, real, realList)), hex.EncodeToString(ourList))
}
