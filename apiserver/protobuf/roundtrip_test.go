package protobuf_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/unstructured"
	"github.com/kubesim/kubesim/apiserver/kinds"
	"github.com/kubesim/kubesim/apiserver/protobuf"
)

var (
	timeType      = reflect.TypeFor[metav1.Time]()
	microTimeType = reflect.TypeFor[metav1.MicroTime]()
	quantityType  = reflect.TypeFor[resource.Quantity]()
	intstrType    = reflect.TypeFor[intstr.IntOrString]()
	rawType       = reflect.TypeFor[json.RawMessage]()
)

// fill sets every exported field reachable from v to a non-zero value that
// depends on seed: two elements in every slice and map, every pointer set.
// Times are whole seconds (MicroTimes whole microseconds): the precision
// both JSON and protobuf keep.
//
// A struct type already twice on the path down is left empty: the real
// types nest deeply (a JSONSchemaProps holds JSONSchemaProps in a dozen
// fields), and filling every level would grow the object exponentially.
func fill(v reflect.Value, seed int, depth int) { fillOnPath(v, seed, depth, map[reflect.Type]int{}) }

func fillOnPath(v reflect.Value, seed int, depth int, onPath map[reflect.Type]int) {
	if depth > 20 {
		return
	}
	if v.Kind() == reflect.Struct {
		if onPath[v.Type()] >= 2 {
			return
		}
		onPath[v.Type()]++
		defer func() { onPath[v.Type()]-- }()
	}
	fill := func(v reflect.Value, seed, depth int) { fillOnPath(v, seed, depth, onPath) }
	switch v.Type() {
	case reflect.TypeFor[runtime.RawExtension]():
		v.Set(reflect.ValueOf(runtime.RawExtension{Raw: []byte(fmt.Sprintf(`{"seed":%d}`, seed))}))
		return
	case reflect.TypeFor[metav1.FieldsV1]():
		v.Set(reflect.ValueOf(metav1.FieldsV1{Raw: []byte(fmt.Sprintf(`{"f:seed%d":{}}`, seed))}))
		return
	case reflect.TypeFor[apiextensionsv1.JSON]():
		v.Set(reflect.ValueOf(apiextensionsv1.JSON{Raw: []byte(fmt.Sprintf(`{"seed":%d}`, seed))}))
		return
	case reflect.TypeFor[apiextensionsv1beta1.JSON]():
		v.Set(reflect.ValueOf(apiextensionsv1beta1.JSON{Raw: []byte(fmt.Sprintf(`{"seed":%d}`, seed))}))
		return
	case timeType:
		v.Set(reflect.ValueOf(metav1.Date(2026, 1, 2, 3, 4, seed%60, 0, time.UTC)))
		return
	case microTimeType:
		v.Set(reflect.ValueOf(metav1.NewMicroTime(time.Date(2026, 1, 2, 3, 4, seed%60, seed*1000, time.UTC))))
		return
	case quantityType:
		v.Set(reflect.ValueOf(resource.MustParse(fmt.Sprintf("%dm", seed+1))))
		return
	case intstrType:
		if seed%2 == 0 {
			v.Set(reflect.ValueOf(intstr.FromString(fmt.Sprintf("%d%%", seed))))
		} else {
			v.Set(reflect.ValueOf(intstr.FromInt32(int32(-seed))))
		}
		return
	case reflect.TypeFor[api.JSON]():
		v.Set(reflect.ValueOf(api.JSON{Raw: []byte(fmt.Sprintf(`{"seed":%d}`, seed))}))
		return
	case reflect.TypeFor[api.JSONSchemaProps](), reflect.TypeFor[apiextensionsv1.JSONSchemaProps](), reflect.TypeFor[apiextensionsv1beta1.JSONSchemaProps]():
		// Two levels of nested schemas are enough; more would grow the
		// object exponentially.
		if depth > 9 {
			return
		}
	case rawType:
		v.Set(reflect.ValueOf(json.RawMessage(fmt.Sprintf(`{"seed":%d}`, seed))))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d", seed))
	case reflect.Bool:
		v.SetBool(seed%2 == 1)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(seed) - 3) // negative ones too: ten-byte varints
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(seed))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(seed) + 0.5)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fill(p.Elem(), seed, depth+1)
		v.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := 0; i < 2; i++ {
			fill(s.Index(i), seed+i, depth+1)
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		for i := 0; i < 2; i++ {
			k := reflect.New(v.Type().Key()).Elem()
			fill(k, seed*10+i, depth+1)
			e := reflect.New(v.Type().Elem()).Elem()
			fill(e, seed+i, depth+1)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			// Only the envelope carries TypeMeta: nested objects (list
			// items, discovery groups) travel without it.
			offTheWire := f.Tag.Get("protobuf") == "-" || f.Tag.Get("json") == "-" && f.Tag.Get("protobuf") == ""
			if f.IsExported() && !offTheWire && !(f.Anonymous && f.Type == reflect.TypeFor[metav1.TypeMeta]()) {
				fill(v.Field(i), seed+i, depth+1)
			}
		}
	}
}

// roundTrip encodes obj, decodes it into a fresh value of its type and
// requires the two equal as JSON: the generated code reads times back in
// the local zone, so the Go values differ in their time.Location only.
func roundTrip(t *testing.T, obj protobuf.Kinded) {
	t.Helper()
	data, err := protobuf.Encode(obj)
	require.NoError(t, err)
	back := reflect.New(reflect.TypeOf(obj).Elem()).Interface().(protobuf.Kinded)
	apiVersion, kind, err := protobuf.Decode(data, back)
	require.NoError(t, err)
	require.Equal(t, api.TypeMetaOf(obj).APIVersion, apiVersion)
	require.Equal(t, api.TypeMetaOf(obj).Kind, kind)
	want, err := json.Marshal(obj)
	require.NoError(t, err)
	got, err := json.Marshal(back)
	require.NoError(t, err)
	require.JSONEq(t, string(want), string(got))
}

func TestRoundTripEveryBuiltinKind(t *testing.T) {
	for _, r := range kinds.Builtin() {
		t.Run(r.Kind, func(t *testing.T) {
			obj := r.New()
			require.True(t, protobuf.Supports(obj), "%T has protobuf tags throughout", obj)
			fill(reflect.ValueOf(obj).Elem(), 1, 0)
			api.TypeMetaOf(obj).APIVersion = schema.GroupVersion{Group: r.Group, Version: r.Version}.String()
			api.TypeMetaOf(obj).Kind = r.Kind
			roundTrip(t, obj)

			// The zero object too: every always-written field at zero.
			zero := r.New()
			api.TypeMetaOf(zero).APIVersion, api.TypeMetaOf(zero).Kind = "v1", r.Kind
			roundTrip(t, zero)
		})
	}
}

func TestRoundTripMetaKinds(t *testing.T) {
	for _, obj := range []protobuf.Kinded{
		&metav1.Status{}, &metav1.DeleteOptions{}, &autoscalingv1.Scale{}, &corev1.Binding{},
		&corev1.PodList{}, &appsv1.DeploymentList{}, &metav1.PartialObjectMetadataList{},
		&metav1.APIResourceList{}, &metav1.APIGroupList{}, &metav1.APIVersions{},
		&apiregistrationv1.APIService{}, &apiregistrationv1.APIServiceList{},
		&apiextensionsv1.CustomResourceDefinition{}, &apiextensionsv1.CustomResourceDefinitionList{},
		&apiextensionsv1beta1.CustomResourceDefinition{}, &apiextensionsv1beta1.CustomResourceDefinitionList{},
	} {
		t.Run(reflect.TypeOf(obj).Elem().Name(), func(t *testing.T) {
			fill(reflect.ValueOf(obj).Elem(), 2, 0)
			*api.TypeMetaOf(obj) = metav1.TypeMeta{APIVersion: "v1", Kind: reflect.TypeOf(obj).Elem().Name()}
			roundTrip(t, obj)
		})
	}
}

func TestSpecialValues(t *testing.T) {
	// Secret data: a nil value, an empty one and bytes that are not UTF-8.
	s := &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Name: "s", CreationTimestamp: metav1.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)},
		Data:       map[string][]byte{"empty": {}, "bin": {0, 0xff, 0xfe}},
	}
	roundTrip(t, s)

	// A nil value is an entry with a key only, as generated code writes it.
	b, err := protobuf.Marshal(&corev1.Secret{Data: map[string][]byte{"k": nil}})
	require.NoError(t, err)
	require.Contains(t, string(b), "\x12\x03\x0a\x01k", "entry {key = \"k\"} without a value")
	var back corev1.Secret
	require.NoError(t, protobuf.Unmarshal(b, &back))
	require.Contains(t, back.Data, "k")
	require.Empty(t, back.Data["k"])

	// IntOrString keeps which of the two it holds, even for "0" and 0.
	svc := &corev1.Service{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Service"}, Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{
		{Port: 80, TargetPort: intstr.FromString("0")}, {Port: 81, TargetPort: intstr.FromInt32(0)},
	}}}
	roundTrip(t, svc)

	// Quantities keep their format.
	n := &corev1.Node{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"}, Status: corev1.NodeStatus{Capacity: corev1.ResourceList{
		"cpu": resource.MustParse("3800m"), "memory": resource.MustParse("7Gi"), "big": resource.MustParse("12e6"),
	}}}
	roundTrip(t, n)
	require.Equal(t, "7Gi", n.Status.Capacity.Memory().String())
}

func TestTimePrecisionIsThatOfJSON(t *testing.T) {
	// metav1.Time keeps whole seconds in protobuf too, MicroTime
	// microseconds: what is written is what a JSON client would read.
	at := time.Date(2026, 1, 2, 3, 4, 5, 123456789, time.UTC)
	lease := &coordinationv1.Lease{
		TypeMeta:   metav1.TypeMeta{APIVersion: "coordination.k8s.io/v1", Kind: "Lease"},
		ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(at)},
		Spec:       coordinationv1.LeaseSpec{RenewTime: &metav1.MicroTime{Time: at}},
	}
	data, err := protobuf.Encode(lease)
	require.NoError(t, err)
	var back coordinationv1.Lease
	_, _, err = protobuf.Decode(data, &back)
	require.NoError(t, err)
	require.Equal(t, at.Truncate(time.Second), back.CreationTimestamp.UTC())
	require.Equal(t, at.Truncate(time.Microsecond), back.Spec.RenewTime.UTC())
}

func TestZeroTimeIsAnEmptyMessage(t *testing.T) {
	// metav1.Time writes the zero time as an empty Timestamp, and a field
	// held by value is still written: tag 8 (creationTimestamp), length 0.
	b, err := protobuf.Marshal(&metav1.ObjectMeta{})
	require.NoError(t, err)
	require.Equal(t, []byte{0x0a, 0, 0x12, 0, 0x1a, 0, 0x22, 0, 0x2a, 0, 0x32, 0, 0x38, 0, 0x42, 0}, b)
	var m metav1.ObjectMeta
	require.NoError(t, protobuf.Unmarshal(b, &m))
	require.True(t, m.CreationTimestamp.IsZero())
}

func TestSupports(t *testing.T) {
	require.True(t, protobuf.Supports(&corev1.Pod{}))
	require.True(t, protobuf.Supports(&metav1.Status{}))
	require.False(t, protobuf.Supports(&metav1.Table{}), "Table is served as JSON only")
	require.True(t, protobuf.Supports(&apiextensionsv1.CustomResourceDefinition{}))
	require.True(t, protobuf.Supports(&apiextensionsv1beta1.CustomResourceDefinition{}))
	require.False(t, protobuf.Supports(&unstructured.Unstructured{}), "custom resources are JSON only")
	require.False(t, protobuf.Supports(nil))
	require.False(t, protobuf.Supports(map[string]any{}))
	_, err := protobuf.Marshal(&metav1.Table{})
	require.Error(t, err)
}
