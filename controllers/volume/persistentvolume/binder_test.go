package persistentvolume

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/volume"
)

func claim(size, class string, modes ...api.PersistentVolumeAccessMode) *api.PersistentVolumeClaim {
	if len(modes) == 0 {
		modes = []api.PersistentVolumeAccessMode{api.ReadWriteOnce}
	}
	return &api.PersistentVolumeClaim{ObjectMeta: api.ObjectMeta{Name: "data", Namespace: "default", UID: "u1"},
		Spec: api.PersistentVolumeClaimSpec{AccessModes: modes, StorageClassName: &class,
			Resources: api.VolumeResourceRequirements{Requests: api.ResourceList{api.ResourceStorage: resource.MustParse(size)}}}}
}

func newVolume(name, size, class string, modes ...api.PersistentVolumeAccessMode) *api.PersistentVolume {
	if len(modes) == 0 {
		modes = []api.PersistentVolumeAccessMode{api.ReadWriteOnce}
	}
	return &api.PersistentVolume{ObjectMeta: api.ObjectMeta{Name: name, Labels: map[string]string{"tier": "gold"}},
		Spec: api.PersistentVolumeSpec{Capacity: api.ResourceList{api.ResourceStorage: resource.MustParse(size)},
			AccessModes: modes, StorageClassName: class, PersistentVolumeReclaimPolicy: api.PersistentVolumeReclaimRetain},
		Status: api.PersistentVolumeStatus{Phase: api.VolumeAvailable}}
}

func node(name string) *api.Node {
	return &api.Node{ObjectMeta: api.ObjectMeta{Name: name, Labels: map[string]string{api.LabelHostname: name}}}
}

func onNode(pv *api.PersistentVolume, n string) *api.PersistentVolume {
	pv.Spec.NodeAffinity = &api.VolumeNodeAffinity{Required: &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{{
		MatchExpressions: []api.NodeSelectorRequirement{{Key: api.LabelHostname, Operator: api.NodeSelectorOpIn, Values: []string{n}}}}}}}
	return pv
}

func TestFindBestMatch(t *testing.T) {
	reserved := newVolume("reserved", "10Gi", "")
	reserved.Spec.ClaimRef = &api.ObjectReference{Namespace: "default", Name: "data"}
	takenByOther := newVolume("taken", "1Gi", "")
	takenByOther.Spec.ClaimRef = &api.ObjectReference{Namespace: "default", Name: "other", UID: "u2"}
	released := newVolume("released", "1Gi", "")
	released.Status.Phase = api.VolumeReleased
	gold := claim("1Gi", "")
	gold.Spec.Selector = &api.LabelSelector{MatchLabels: map[string]string{"tier": "silver"}}
	block := claim("1Gi", "")
	block.Spec.VolumeMode = new(api.PersistentVolumeMode)
	*block.Spec.VolumeMode = api.PersistentVolumeBlock

	for _, tc := range []struct {
		name  string
		claim *api.PersistentVolumeClaim
		pvs   []*api.PersistentVolume
		node  *api.Node
		want  string
	}{
		{"nothing", claim("1Gi", ""), nil, nil, ""},
		{"smallest that fits", claim("1Gi", ""), []*api.PersistentVolume{newVolume("big", "10Gi", ""), newVolume("small", "2Gi", ""), newVolume("tiny", "500Mi", "")}, nil, "small"},
		{"same size: first by name", claim("1Gi", ""), []*api.PersistentVolume{newVolume("b", "1Gi", ""), newVolume("a", "1Gi", "")}, nil, "a"},
		{"class must match", claim("1Gi", "fast"), []*api.PersistentVolume{newVolume("slow", "1Gi", "slow"), newVolume("fast", "5Gi", "fast")}, nil, "fast"},
		{"access modes must all be offered", claim("1Gi", "", api.ReadWriteMany), []*api.PersistentVolume{newVolume("rwo", "1Gi", ""), newVolume("rwx", "1Gi", "", api.ReadWriteOnce, api.ReadWriteMany)}, nil, "rwx"},
		{"reserved for the claim wins", claim("1Gi", ""), []*api.PersistentVolume{newVolume("small", "1Gi", ""), reserved}, nil, "reserved"},
		{"bound elsewhere or released never", claim("1Gi", ""), []*api.PersistentVolume{takenByOther, released}, nil, ""},
		{"selector", gold, []*api.PersistentVolume{newVolume("gold", "1Gi", "")}, nil, ""},
		{"volume mode", block, []*api.PersistentVolume{newVolume("fs", "1Gi", "")}, nil, ""},
		{"selected node: affinity must allow it", claim("1Gi", ""), []*api.PersistentVolume{onNode(newVolume("on-1", "1Gi", ""), "node-1"), onNode(newVolume("on-2", "5Gi", ""), "node-2")}, node("node-2"), "on-2"},
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
	wffc := api.VolumeBindingWaitForFirstConsumer
	sc := &api.StorageClass{ObjectMeta: api.ObjectMeta{Name: "standard"}, Provisioner: Provisioner, VolumeBindingMode: &wffc}
	pv := ProvisionedVolume(pvc, sc, Provisioner)
	assert.Equal(t, "pvc-u1", pv.Name)
	assert.Equal(t, Provisioner, pv.Annotations[api.AnnDynamicallyProvisioned])
	assert.Equal(t, api.PersistentVolumeReclaimDelete, pv.Spec.PersistentVolumeReclaimPolicy, "a class reclaims by Delete unless it says otherwise")
	assert.Equal(t, "standard", pv.Spec.StorageClassName)
	assert.Equal(t, types.UID("u1"), pv.Spec.ClaimRef.UID)
	assert.Equal(t, "/var/local-path-provisioner/pvc-u1_default_data", pv.Spec.HostPath.Path)
	q := pv.Spec.Capacity[api.ResourceStorage]
	assert.Equal(t, "2Gi", q.String())
	assert.Nil(t, pv.Spec.NodeAffinity, "no selected node: no affinity")
	assert.True(t, volume.VolumeMatches(pv, pvc, nil), "the provisioned volume suits its claim")

	pvc.Annotations = map[string]string{api.AnnSelectedNode: "node-2"}
	pv = ProvisionedVolume(pvc, sc, Provisioner)
	require.NotNil(t, pv.Spec.NodeAffinity)
	assert.True(t, api.NodeSelectorMatches(pv.Spec.NodeAffinity.Required, node("node-2")))
	assert.False(t, api.NodeSelectorMatches(pv.Spec.NodeAffinity.Required, node("node-1")))

	retain := api.PersistentVolumeReclaimRetain
	sc.ReclaimPolicy = &retain
	assert.Equal(t, api.PersistentVolumeReclaimRetain, ProvisionedVolume(pvc, sc, Provisioner).Spec.PersistentVolumeReclaimPolicy)
}

func TestVolumePhase(t *testing.T) {
	pvc := claim("1Gi", "")
	bound := newVolume("pv", "1Gi", "")
	bound.Spec.ClaimRef = &api.ObjectReference{Namespace: "default", Name: "data", UID: "u1"}
	boundClaim := pvc.DeepCopy()
	boundClaim.Spec.VolumeName = "pv"
	recreated := pvc.DeepCopy()
	recreated.UID = "u9"
	reserved := newVolume("pv", "1Gi", "")
	reserved.Spec.ClaimRef = &api.ObjectReference{Namespace: "default", Name: "data"}
	for _, tc := range []struct {
		name  string
		pv    *api.PersistentVolume
		claim *api.PersistentVolumeClaim
		want  api.PersistentVolumePhase
	}{
		{"free", newVolume("pv", "1Gi", ""), nil, api.VolumeAvailable},
		{"reserved, claim not there yet", reserved, nil, api.VolumeAvailable},
		{"bound", bound, boundClaim, api.VolumeBound},
		{"binding half written", bound, pvc, api.VolumeBound},
		{"claim deleted", bound, nil, api.VolumeReleased},
		{"claim deleted and made again (new uid)", bound, recreated, api.VolumeReleased},
	} {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, VolumePhase(tc.pv, tc.claim)) })
	}
}

func TestNodeSelectorMatches(t *testing.T) {
	n := &api.Node{ObjectMeta: api.ObjectMeta{Name: "node-1", Labels: map[string]string{"zone": "a", "cores": "8"}}}
	req := func(k string, op api.NodeSelectorOperator, v ...string) api.NodeSelectorRequirement {
		return api.NodeSelectorRequirement{Key: k, Operator: op, Values: v}
	}
	sel := func(terms ...api.NodeSelectorTerm) *api.NodeSelector {
		return &api.NodeSelector{NodeSelectorTerms: terms}
	}
	for _, tc := range []struct {
		name string
		sel  *api.NodeSelector
		want bool
	}{
		{"nil matches", nil, true},
		{"empty term matches nothing", sel(api.NodeSelectorTerm{}), false},
		{"In", sel(api.NodeSelectorTerm{MatchExpressions: []api.NodeSelectorRequirement{req("zone", api.NodeSelectorOpIn, "a", "b")}}), true},
		{"NotIn", sel(api.NodeSelectorTerm{MatchExpressions: []api.NodeSelectorRequirement{req("zone", api.NodeSelectorOpNotIn, "a")}}), false},
		{"Exists and Gt ANDed", sel(api.NodeSelectorTerm{MatchExpressions: []api.NodeSelectorRequirement{req("zone", api.NodeSelectorOpExists), req("cores", api.NodeSelectorOpGt, "4")}}), true},
		{"Lt fails", sel(api.NodeSelectorTerm{MatchExpressions: []api.NodeSelectorRequirement{req("cores", api.NodeSelectorOpLt, "4")}}), false},
		{"terms ORed", sel(api.NodeSelectorTerm{MatchExpressions: []api.NodeSelectorRequirement{req("zone", api.NodeSelectorOpIn, "b")}},
			api.NodeSelectorTerm{MatchFields: []api.NodeSelectorRequirement{req("metadata.name", api.NodeSelectorOpIn, "node-1")}}), true},
	} {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, api.NodeSelectorMatches(tc.sel, n)) })
	}
}
