package persistentvolume

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/volume"
)

func claim(size, class string, modes ...corev1.PersistentVolumeAccessMode) *corev1.PersistentVolumeClaim {
	if len(modes) == 0 {
		modes = []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}
	}
	return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: "default", UID: "u1"},
		Spec: corev1.PersistentVolumeClaimSpec{AccessModes: modes, StorageClassName: &class,
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)}}}}
}

func newVolume(name, size, class string, modes ...corev1.PersistentVolumeAccessMode) *corev1.PersistentVolume {
	if len(modes) == 0 {
		modes = []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}
	}
	return &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"tier": "gold"}},
		Spec: corev1.PersistentVolumeSpec{Capacity: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)},
			AccessModes: modes, StorageClassName: class, PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain},
		Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumeAvailable}}
}

func node(name string) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelHostname: name}}}
}

func onNode(pv *corev1.PersistentVolume, n string) *corev1.PersistentVolume {
	pv.Spec.NodeAffinity = &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
		MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: []string{n}}}}}}}
	return pv
}

func TestFindBestMatch(t *testing.T) {
	reserved := newVolume("reserved", "10Gi", "")
	reserved.Spec.ClaimRef = &corev1.ObjectReference{Namespace: "default", Name: "data"}
	takenByOther := newVolume("taken", "1Gi", "")
	takenByOther.Spec.ClaimRef = &corev1.ObjectReference{Namespace: "default", Name: "other", UID: "u2"}
	released := newVolume("released", "1Gi", "")
	released.Status.Phase = corev1.VolumeReleased
	gold := claim("1Gi", "")
	gold.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"tier": "silver"}}
	block := claim("1Gi", "")
	block.Spec.VolumeMode = new(corev1.PersistentVolumeMode)
	*block.Spec.VolumeMode = corev1.PersistentVolumeBlock

	for _, tc := range []struct {
		name  string
		claim *corev1.PersistentVolumeClaim
		pvs   []*corev1.PersistentVolume
		node  *corev1.Node
		want  string
	}{
		{"nothing", claim("1Gi", ""), nil, nil, ""},
		{"smallest that fits", claim("1Gi", ""), []*corev1.PersistentVolume{newVolume("big", "10Gi", ""), newVolume("small", "2Gi", ""), newVolume("tiny", "500Mi", "")}, nil, "small"},
		{"same size: first by name", claim("1Gi", ""), []*corev1.PersistentVolume{newVolume("b", "1Gi", ""), newVolume("a", "1Gi", "")}, nil, "a"},
		{"class must match", claim("1Gi", "fast"), []*corev1.PersistentVolume{newVolume("slow", "1Gi", "slow"), newVolume("fast", "5Gi", "fast")}, nil, "fast"},
		{"access modes must all be offered", claim("1Gi", "", corev1.ReadWriteMany), []*corev1.PersistentVolume{newVolume("rwo", "1Gi", ""), newVolume("rwx", "1Gi", "", corev1.ReadWriteOnce, corev1.ReadWriteMany)}, nil, "rwx"},
		{"reserved for the claim wins", claim("1Gi", ""), []*corev1.PersistentVolume{newVolume("small", "1Gi", ""), reserved}, nil, "reserved"},
		{"bound elsewhere or released never", claim("1Gi", ""), []*corev1.PersistentVolume{takenByOther, released}, nil, ""},
		{"selector", gold, []*corev1.PersistentVolume{newVolume("gold", "1Gi", "")}, nil, ""},
		{"volume mode", block, []*corev1.PersistentVolume{newVolume("fs", "1Gi", "")}, nil, ""},
		{"selected node: affinity must allow it", claim("1Gi", ""), []*corev1.PersistentVolume{onNode(newVolume("on-1", "1Gi", ""), "node-1"), onNode(newVolume("on-2", "5Gi", ""), "node-2")}, node("node-2"), "on-2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := volume.FindBestMatch(tc.claim, tc.pvs, tc.node)
			if tc.want == "" {
				assert.Nil(t, got)
				return
			}
			require.NotNil(t, got)
			assert.Equal(t, tc.want, got.Name)
		})
	}
}

func TestProvisionedVolume(t *testing.T) {
	pvc := claim("2Gi", "standard")
	wffc := storagev1.VolumeBindingWaitForFirstConsumer
	sc := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "standard"}, Provisioner: Provisioner, VolumeBindingMode: &wffc}
	pv := ProvisionedVolume(pvc, sc, Provisioner)
	assert.Equal(t, "pvc-u1", pv.Name)
	assert.Equal(t, Provisioner, pv.Annotations[api.AnnDynamicallyProvisioned])
	assert.Equal(t, corev1.PersistentVolumeReclaimDelete, pv.Spec.PersistentVolumeReclaimPolicy, "a class reclaims by Delete unless it says otherwise")
	assert.Equal(t, "standard", pv.Spec.StorageClassName)
	assert.Equal(t, types.UID("u1"), pv.Spec.ClaimRef.UID)
	assert.Equal(t, "/var/local-path-provisioner/pvc-u1_default_data", pv.Spec.HostPath.Path)
	q := pv.Spec.Capacity[corev1.ResourceStorage]
	assert.Equal(t, "2Gi", q.String())
	assert.Nil(t, pv.Spec.NodeAffinity, "no selected node: no affinity")
	assert.True(t, volume.VolumeMatches(pv, pvc, nil), "the provisioned volume suits its claim")

	pvc.Annotations = map[string]string{api.AnnSelectedNode: "node-2"}
	pv = ProvisionedVolume(pvc, sc, Provisioner)
	require.NotNil(t, pv.Spec.NodeAffinity)
	assert.True(t, api.NodeSelectorMatches(pv.Spec.NodeAffinity.Required, node("node-2")))
	assert.False(t, api.NodeSelectorMatches(pv.Spec.NodeAffinity.Required, node("node-1")))

	retain := corev1.PersistentVolumeReclaimRetain
	sc.ReclaimPolicy = &retain
	assert.Equal(t, corev1.PersistentVolumeReclaimRetain, ProvisionedVolume(pvc, sc, Provisioner).Spec.PersistentVolumeReclaimPolicy)
}

func TestVolumePhase(t *testing.T) {
	pvc := claim("1Gi", "")
	bound := newVolume("pv", "1Gi", "")
	bound.Spec.ClaimRef = &corev1.ObjectReference{Namespace: "default", Name: "data", UID: "u1"}
	boundClaim := pvc.DeepCopy()
	boundClaim.Spec.VolumeName = "pv"
	recreated := pvc.DeepCopy()
	recreated.UID = "u9"
	reserved := newVolume("pv", "1Gi", "")
	reserved.Spec.ClaimRef = &corev1.ObjectReference{Namespace: "default", Name: "data"}
	for _, tc := range []struct {
		name  string
		pv    *corev1.PersistentVolume
		claim *corev1.PersistentVolumeClaim
		want  corev1.PersistentVolumePhase
	}{
		{"free", newVolume("pv", "1Gi", ""), nil, corev1.VolumeAvailable},
		{"reserved, claim not there yet", reserved, nil, corev1.VolumeAvailable},
		{"bound", bound, boundClaim, corev1.VolumeBound},
		{"binding half written", bound, pvc, corev1.VolumeBound},
		{"claim deleted", bound, nil, corev1.VolumeReleased},
		{"claim deleted and made again (new uid)", bound, recreated, corev1.VolumeReleased},
	} {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, VolumePhase(tc.pv, tc.claim)) })
	}
}

func TestNodeSelectorMatches(t *testing.T) {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1", Labels: map[string]string{"zone": "a", "cores": "8"}}}
	req := func(k string, op corev1.NodeSelectorOperator, v ...string) corev1.NodeSelectorRequirement {
		return corev1.NodeSelectorRequirement{Key: k, Operator: op, Values: v}
	}
	sel := func(terms ...corev1.NodeSelectorTerm) *corev1.NodeSelector {
		return &corev1.NodeSelector{NodeSelectorTerms: terms}
	}
	for _, tc := range []struct {
		name string
		sel  *corev1.NodeSelector
		want bool
	}{
		{"nil matches", nil, true},
		{"empty term matches nothing", sel(corev1.NodeSelectorTerm{}), false},
		{"In", sel(corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{req("zone", corev1.NodeSelectorOpIn, "a", "b")}}), true},
		{"NotIn", sel(corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{req("zone", corev1.NodeSelectorOpNotIn, "a")}}), false},
		{"Exists and Gt ANDed", sel(corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{req("zone", corev1.NodeSelectorOpExists), req("cores", corev1.NodeSelectorOpGt, "4")}}), true},
		{"Lt fails", sel(corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{req("cores", corev1.NodeSelectorOpLt, "4")}}), false},
		{"terms ORed", sel(corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{req("zone", corev1.NodeSelectorOpIn, "b")}},
			corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{req("metadata.name", corev1.NodeSelectorOpIn, "node-1")}}), true},
	} {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, api.NodeSelectorMatches(tc.sel, n)) })
	}
}
