package protocompat

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

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
	realintstr "k8s.io/apimachinery/pkg/util/intstr"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	"sigs.k8s.io/randfill"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/intstr"
	kresource "github.com/kubesim/kubesim/api/resource"
	"github.com/kubesim/kubesim/apiserver/kinds"
	kpb "github.com/kubesim/kubesim/apiserver/protobuf"
)

// realScheme knows the Kubernetes types of every kind kubesim serves as
// protobuf.
func realScheme(t testing.TB) *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		corev1.AddToScheme, appsv1.AddToScheme, batchv1.AddToScheme, coordinationv1.AddToScheme, apiregistrationv1.AddToScheme,
		apiextensionsv1.AddToScheme, apiextensionsv1beta1.AddToScheme, rbacv1.AddToScheme, storagev1.AddToScheme,
		autoscalingv1.AddToScheme, autoscalingv2.AddToScheme,
		admissionregistrationv1.AddToScheme,
		policyv1.AddToScheme, schedulingv1.AddToScheme, discoveryv1.AddToScheme,
	} {
		require.NoError(t, add(s))
	}
	metav1.AddToGroupVersion(s, schema.GroupVersion{Version: "v1"})
	return s
}

// kubesimKinds are the kinds checked here, by apiVersion and kind, with a
// constructor of the kubesim type: every built-in kind, its list, and the
// kinds of meta and subresources.
func kubesimKinds() map[schema.GroupVersionKind]func() kpb.Kinded {
	out := map[schema.GroupVersionKind]func() kpb.Kinded{}
	for _, r := range kinds.Builtin() {
		gv := schema.GroupVersion{Group: r.Group, Version: r.Version}
		out[gv.WithKind(r.Kind)] = func() kpb.Kinded { return r.New() }
	}
	v1 := schema.GroupVersion{Version: "v1"}
	apps := schema.GroupVersion{Group: "apps", Version: "v1"}
	for gvk, newObj := range map[schema.GroupVersionKind]func() kpb.Kinded{
		v1.WithKind("NamespaceList"):                         func() kpb.Kinded { return &api.NamespaceList{} },
		v1.WithKind("NodeList"):                              func() kpb.Kinded { return &api.NodeList{} },
		v1.WithKind("PodList"):                               func() kpb.Kinded { return &api.PodList{} },
		v1.WithKind("ServiceList"):                           func() kpb.Kinded { return &api.ServiceList{} },
		v1.WithKind("EndpointsList"):                         func() kpb.Kinded { return &api.EndpointsList{} },
		v1.WithKind("ConfigMapList"):                         func() kpb.Kinded { return &api.ConfigMapList{} },
		v1.WithKind("SecretList"):                            func() kpb.Kinded { return &api.SecretList{} },
		v1.WithKind("EventList"):                             func() kpb.Kinded { return &api.EventList{} },
		v1.WithKind("ServiceAccountList"):                    func() kpb.Kinded { return &api.ServiceAccountList{} },
		v1.WithKind("Binding"):                               func() kpb.Kinded { return &api.Binding{} },
		v1.WithKind("Status"):                                func() kpb.Kinded { return &api.Status{} },
		v1.WithKind("DeleteOptions"):                         func() kpb.Kinded { return &api.DeleteOptions{} },
		apps.WithKind("ReplicaSetList"):                      func() kpb.Kinded { return &api.ReplicaSetList{} },
		apps.WithKind("DeploymentList"):                      func() kpb.Kinded { return &api.DeploymentList{} },
		{Group: "batch", Version: "v1", Kind: "JobList"}:     func() kpb.Kinded { return &api.JobList{} },
		{Group: "batch", Version: "v1", Kind: "CronJobList"}: func() kpb.Kinded { return &api.CronJobList{} },
		apps.WithKind("DaemonSetList"):                       func() kpb.Kinded { return &api.DaemonSetList{} },
		v1.WithKind("PersistentVolumeList"): func() kpb.Kinded {
			return &api.PersistentVolumeList{}
		},
		v1.WithKind("PersistentVolumeClaimList"): func() kpb.Kinded {
			return &api.PersistentVolumeClaimList{}
		},
		{Group: "storage.k8s.io", Version: "v1", Kind: "StorageClassList"}: func() kpb.Kinded {
			return &api.StorageClassList{}
		},
		v1.WithKind("NamespaceList"):      func() kpb.Kinded { return &api.NamespaceList{} },
		v1.WithKind("NodeList"):           func() kpb.Kinded { return &api.NodeList{} },
		v1.WithKind("PodList"):            func() kpb.Kinded { return &api.PodList{} },
		v1.WithKind("ServiceList"):        func() kpb.Kinded { return &api.ServiceList{} },
		v1.WithKind("EndpointsList"):      func() kpb.Kinded { return &api.EndpointsList{} },
		v1.WithKind("ConfigMapList"):      func() kpb.Kinded { return &api.ConfigMapList{} },
		v1.WithKind("SecretList"):         func() kpb.Kinded { return &api.SecretList{} },
		v1.WithKind("EventList"):          func() kpb.Kinded { return &api.EventList{} },
		v1.WithKind("ServiceAccountList"): func() kpb.Kinded { return &api.ServiceAccountList{} },
		// quotas, limit ranges, budgets, priority classes, endpoint slices
		v1.WithKind("ResourceQuotaList"):                                       func() kpb.Kinded { return &api.ResourceQuotaList{} },
		v1.WithKind("LimitRangeList"):                                          func() kpb.Kinded { return &api.LimitRangeList{} },
		{Group: "policy", Version: "v1", Kind: "PodDisruptionBudgetList"}:      func() kpb.Kinded { return &api.PodDisruptionBudgetList{} },
		{Group: "scheduling.k8s.io", Version: "v1", Kind: "PriorityClassList"}: func() kpb.Kinded { return &api.PriorityClassList{} },
		{Group: "discovery.k8s.io", Version: "v1", Kind: "EndpointSliceList"}:  func() kpb.Kinded { return &api.EndpointSliceList{} },
		v1.WithKind("Binding"):                                                 func() kpb.Kinded { return &api.Binding{} },
		v1.WithKind("Status"):                                                  func() kpb.Kinded { return &api.Status{} },
		v1.WithKind("DeleteOptions"):                                           func() kpb.Kinded { return &api.DeleteOptions{} },
		apps.WithKind("ReplicaSetList"):                                        func() kpb.Kinded { return &api.ReplicaSetList{} },
		apps.WithKind("DeploymentList"):                                        func() kpb.Kinded { return &api.DeploymentList{} },
		apps.WithKind("StatefulSetList"): func() kpb.Kinded {
			return &api.StatefulSetList{}
		},
		{Group: "coordination.k8s.io", Version: "v1", Kind: "LeaseList"}:           func() kpb.Kinded { return &api.LeaseList{} },
		{Group: "autoscaling", Version: "v1", Kind: "Scale"}:                       func() kpb.Kinded { return &api.Scale{} },
		{Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscalerList"}: func() kpb.Kinded { return &api.HorizontalPodAutoscalerList{} },
		{Group: "autoscaling", Version: "v1", Kind: "HorizontalPodAutoscalerList"}: func() kpb.Kinded { return &api.HorizontalPodAutoscalerListV1{} },
		{Group: "apiregistration.k8s.io", Version: "v1", Kind: "APIService"}:       func() kpb.Kinded { return &api.APIService{} },
		{Group: "apiregistration.k8s.io", Version: "v1", Kind: "APIServiceList"}:   func() kpb.Kinded { return &api.APIServiceList{} },
		{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "MutatingWebhookConfigurationList"}: func() kpb.Kinded {
			return &api.MutatingWebhookConfigurationList{}
		},
		{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "ValidatingWebhookConfigurationList"}: func() kpb.Kinded {
			return &api.ValidatingWebhookConfigurationList{}
		},
		{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}: func() kpb.Kinded {
			return &api.CustomResourceDefinition{}
		},
		{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinitionList"}: func() kpb.Kinded {
			return &api.CustomResourceDefinitionList{}
		},
		{Group: "apiextensions.k8s.io", Version: "v1beta1", Kind: "CustomResourceDefinition"}: func() kpb.Kinded {
			return &api.CustomResourceDefinitionV1beta1{}
		},
		{Group: "apiextensions.k8s.io", Version: "v1beta1", Kind: "CustomResourceDefinitionList"}: func() kpb.Kinded {
			return &api.CustomResourceDefinitionListV1beta1{}
		},
	} {
		out[gvk] = newObj
	}
	return out
}

// fillKubesim sets every exported field reachable from v to a non-zero
// value depending on seed: two elements per slice and map, every pointer
// set, negative numbers too, times with nanoseconds.
func fillKubesim(v reflect.Value, seed int, depth int) {
	// 24 reaches every field of the deepest kind, a CronJobList (list,
	// CronJob, job template, pod template, volume, projection, downward
	// API, resource field): a Quantity left zero below the limit would
	// decode as a DecimalSI zero and differ.
	if depth > 24 {
		return
	}
	switch v.Type() {
	case reflect.TypeFor[api.Time]():
		v.Set(reflect.ValueOf(api.Date(2026, 1, 2, 3, 4, seed%60, 0, time.UTC)))
		return
	case reflect.TypeFor[api.MicroTime]():
		v.Set(reflect.ValueOf(api.NewMicroTime(time.Date(2026, 1, 2, 3, 4, seed%60, seed*1000, time.UTC))))
		return
	case reflect.TypeFor[kresource.Quantity]():
		v.Set(reflect.ValueOf(kresource.MustParse([]string{"100m", "128Mi", "1", "2Gi", "1.5", "3e3"}[seed%6])))
		return
	case reflect.TypeFor[intstr.IntOrString]():
		if seed%2 == 0 {
			v.Set(reflect.ValueOf(intstr.FromString(fmt.Sprintf("%d%%", seed))))
		} else {
			v.Set(reflect.ValueOf(intstr.FromInt32(int32(-seed))))
		}
		return
	case reflect.TypeFor[api.JSON]():
		v.Set(reflect.ValueOf(api.JSON{Raw: []byte(fmt.Sprintf(`{"seed":%d}`, seed))}))
		return
	case reflect.TypeFor[api.JSONSchemaProps]():
		// Two levels of nested schemas are enough; more would grow the
		// object exponentially.
		if depth > 9 {
			return
		}
	case reflect.TypeFor[json.RawMessage]():
		v.Set(reflect.ValueOf(json.RawMessage(fmt.Sprintf(`{"seed":%d}`, seed))))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d", seed))
	case reflect.Bool:
		v.SetBool(seed%2 == 1)
	case reflect.Int, reflect.Int32, reflect.Int64:
		v.SetInt(int64(seed) - 3)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fillKubesim(p.Elem(), seed, depth+1)
		v.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := 0; i < 2; i++ {
			fillKubesim(s.Index(i), seed+i, depth+1)
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		for i := 0; i < 2; i++ {
			k := reflect.New(v.Type().Key()).Elem()
			fillKubesim(k, seed*10+i, depth+1)
			e := reflect.New(v.Type().Elem()).Elem()
			fillKubesim(e, seed+i, depth+1)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			offTheWire := f.Tag.Get("protobuf") == "-" || f.Tag.Get("json") == "-" && f.Tag.Get("protobuf") == ""
			if f.IsExported() && !offTheWire && !(f.Anonymous && f.Type == reflect.TypeFor[api.TypeMeta]()) {
				fillKubesim(v.Field(i), seed+i, depth+1)
			}
		}
	}
}

// jsonValue is a value's JSON as generic data, for comparing two types.
// Nulls and empty strings are dropped: kubesim writes an unset
// creationTimestamp as null where k8s.io/api v0.37 leaves it out, and
// leaves out an empty StatefulSet serviceName that k8s.io/api writes;
// differences of JSON, not of protobuf, which cannot tell an empty string
// from an absent one.
func jsonValue(t testing.TB, v any) any {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	var out any
	require.NoError(t, json.Unmarshal(b, &out))
	return dropNulls(out)
}

func dropNulls(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if e == nil || e == "" {
				delete(v, k)
			} else {
				v[k] = dropNulls(e)
			}
		}
	case []any:
		for i, e := range v {
			v[i] = dropNulls(e)
		}
	}
	return v
}

func realEncode(t testing.TB, s *protobuf.Serializer, obj runtime.Object) []byte {
	var b bytes.Buffer
	require.NoError(t, s.Encode(obj, &b))
	return b.Bytes()
}

// TestKubesimToKubernetes encodes every kind, filled, with kubesim's codec;
// the real serializer decodes it into the k8s.io/api type, which must say
// the same in JSON and encode to the very same bytes; and kubesim decodes
// those bytes back to the object it started from.
func TestKubesimToKubernetes(t *testing.T) {
	scheme := realScheme(t)
	real := protobuf.NewSerializer(scheme, scheme)
	for gvk, newObj := range kubesimKinds() {
		t.Run(gvk.Kind, func(t *testing.T) {
			for _, seed := range []int{0, 1, 2} {
				obj := newObj()
				if seed > 0 { // seed 0: the empty object
					fillKubesim(reflect.ValueOf(obj).Elem(), seed, 0)
				}
				*obj.GetObjectKind() = api.TypeMeta{APIVersion: gvk.GroupVersion().String(), Kind: gvk.Kind}
				ours, err := kpb.Encode(obj)
				require.NoError(t, err)

				decoded, gotGVK, err := real.Decode(ours, nil, nil)
				require.NoError(t, err)
				require.Equal(t, gvk, *gotGVK)
				decoded.GetObjectKind().SetGroupVersionKind(gvk)
				require.Equal(t, jsonValue(t, obj), jsonValue(t, decoded), "the same object in JSON")

				theirs := realEncode(t, real, decoded)
				require.Equal(t, hex.EncodeToString(theirs), hex.EncodeToString(ours), "the same bytes")

				back := newObj()
				_, _, err = kpb.Decode(theirs, back)
				require.NoError(t, err)
				require.Equal(t, obj, back)
			}
		})
	}
}

// realFiller fills k8s.io/api objects at random, every field Kubernetes
// has (kubesim models only some), with values both codecs and JSON carry
// alike: whole-second times, valid quantities, JSON raw extensions.
func realFiller(seed int64) *randfill.Filler {
	return randfill.NewWithSeed(seed).NilChance(0.3).NumElements(1, 2).MaxDepth(12).Funcs(
		func(q *resource.Quantity, c randfill.Continue) {
			*q = *resource.NewMilliQuantity(c.Int63n(1000000), resource.DecimalSI)
		},
		func(tm *metav1.Time, c randfill.Continue) { *tm = metav1.Unix(c.Int63n(2e9), 0).Rfc3339Copy() },
		func(tm *metav1.MicroTime, c randfill.Continue) {
			*tm = metav1.NewMicroTime(time.Unix(c.Int63n(2e9), c.Int63n(1e6)*1000).UTC())
		},
		func(x *realintstr.IntOrString, c randfill.Continue) {
			if c.Bool() {
				*x = realintstr.FromInt32(c.Int31())
			} else {
				*x = realintstr.FromString(c.String(8))
			}
		},
		func(r *runtime.RawExtension, c randfill.Continue) { r.Raw = []byte(`{"a":1}`) },
		func(f *metav1.FieldsV1, c randfill.Continue) { f.Raw = []byte(`{"f:a":{}}`) },
		func(tm *metav1.TypeMeta, c randfill.Continue) {},
		func(j *apiextensionsv1.JSON, c randfill.Continue) { j.Raw = []byte(`{"j":1}`) },
		func(j *apiextensionsv1beta1.JSON, c randfill.Continue) { j.Raw = []byte(`{"j":1}`) },
		// A schema of a few levels, filled field by field without custom
		// functions below the second level, so that it stays finite.
		func(p *apiextensionsv1.JSONSchemaProps, c randfill.Continue) { fillSchema(p, c, 2) },
		func(p *apiextensionsv1beta1.JSONSchemaProps, c randfill.Continue) { fillSchema(p, c, 2) },
	)
}

// TestKubernetesToKubesim fills the real types at random, with fields
// kubesim does not model too; the real serializer writes them and kubesim
// must read them (reading past what it does not model) to the same object
// kubesim's JSON decoder makes of the real object's JSON.
func TestKubernetesToKubesim(t *testing.T) {
	scheme := realScheme(t)
	real := protobuf.NewSerializer(scheme, scheme)
	for gvk, newObj := range kubesimKinds() {
		t.Run(gvk.Kind, func(t *testing.T) {
			for seed := int64(0); seed < 20; seed++ {
				realObj, err := scheme.New(gvk)
				require.NoError(t, err)
				realFiller(seed).Fill(realObj)
				realObj.GetObjectKind().SetGroupVersionKind(gvk)
				data := realEncode(t, real, realObj)

				fromProto := newObj()
				apiVersion, kind, err := kpb.Decode(data, fromProto)
				require.NoError(t, err)
				require.Equal(t, gvk.GroupVersion().String(), apiVersion)
				require.Equal(t, gvk.Kind, kind)

				fromJSON := newObj()
				realJSON, err := json.Marshal(realObj)
				require.NoError(t, err)
				require.NoError(t, json.Unmarshal(realJSON, fromJSON))
				require.Equal(t, jsonValue(t, fromJSON), jsonValue(t, fromProto), "seed %d", seed)
			}
		})
	}
}

// TestWatchEventAndListBytes compares a watch frame and a list written by
// kubesim with the real watch encoder's (raw serializer, length-delimited
// framer, enveloped object inside) and the real list encoding.
func TestWatchEventAndListBytes(t *testing.T) {
	scheme := realScheme(t)
	real := protobuf.NewSerializer(scheme, scheme)
	raw := protobuf.NewRawSerializer(scheme, scheme)

	pod := &api.Pod{}
	fillKubesim(reflect.ValueOf(pod).Elem(), 4, 0)
	pod.TypeMeta = api.TypeMeta{APIVersion: "v1", Kind: "Pod"}
	enveloped, err := kpb.Encode(pod)
	require.NoError(t, err)
	realPod, _, err := real.Decode(enveloped, nil, nil)
	require.NoError(t, err)
	realPod.GetObjectKind().SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Pod"))

	for _, typ := range []string{"ADDED", "MODIFIED", "DELETED", "BOOKMARK"} {
		var want bytes.Buffer
		event := &metav1.WatchEvent{Type: typ, Object: runtime.RawExtension{Raw: realEncode(t, real, realPod)}}
		var msg bytes.Buffer
		require.NoError(t, raw.Encode(event, &msg))
		_, err := protobuf.LengthDelimitedFramer.NewFrameWriter(&want).Write(msg.Bytes())
		require.NoError(t, err)

		ours, err := kpb.EncodeWatchEvent(typ, pod)
		require.NoError(t, err)
		require.Equal(t, hex.EncodeToString(want.Bytes()), hex.EncodeToString(kpb.Frame(ours)), typ)
	}

	rc := int64(7)
	list := &api.PodList{ListMeta: api.ListMeta{ResourceVersion: "9", Continue: "x", RemainingItemCount: &rc}, Items: []api.Pod{*pod, {}}}
	list.Items[0].TypeMeta = api.TypeMeta{}
	ours, err := kpb.EncodeList("v1", "PodList", list.ListMeta, list.GetItems())
	require.NoError(t, err)
	realList, _, err := real.Decode(ours, nil, nil)
	require.NoError(t, err)
	realList.GetObjectKind().SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("PodList"))
	require.Len(t, realList.(*corev1.PodList).Items, 2)
	require.Equal(t, hex.EncodeToString(realEncode(t, real, realList)), hex.EncodeToString(ours))
}

// fillSchema fills the scalar fields of a schema (of either version) at
// random and gives it up to two properties, nested depth levels deep.
// The OrArray/OrBool/OrStringArray wrappers are filled in their one-of
// form, the only one their JSON can say.
func fillSchema(p any, c randfill.Continue, depth int) {
	v := reflect.ValueOf(p).Elem()
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.String, reflect.Bool, reflect.Int64:
			c.Fill(f.Addr().Interface())
		case reflect.Pointer:
			switch f.Type().Elem().Kind() {
			case reflect.String, reflect.Bool, reflect.Int64, reflect.Float64:
				if c.Bool() {
					c.Fill(f.Addr().Interface())
				}
			}
		}
	}
	v.FieldByName("Default").Set(reflect.Zero(v.FieldByName("Default").Type()))
	if def := v.FieldByName("Default"); c.Bool() {
		def.Set(reflect.New(def.Type().Elem()))
		def.Elem().FieldByName("Raw").SetBytes([]byte(`"d"`))
	}
	if depth > 0 {
		props := reflect.MakeMap(v.FieldByName("Properties").Type())
		for i := 0; i < 2; i++ {
			child := reflect.New(props.Type().Elem())
			fillSchema(child.Interface(), c, depth-1)
			props.SetMapIndex(reflect.ValueOf(fmt.Sprintf("p%d", i)), child.Elem())
		}
		v.FieldByName("Properties").Set(props)
		items := v.FieldByName("Items")
		items.Set(reflect.New(items.Type().Elem()))
		schema := reflect.New(items.Type().Elem().FieldByIndex([]int{0}).Type.Elem())
		fillSchema(schema.Interface(), c, depth-1)
		items.Elem().Field(0).Set(schema)
	}
}
