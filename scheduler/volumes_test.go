package scheduler

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubesim/kubesim/api"
)

func withClaim(claim string) func(*api.Pod) {
	return func(p *api.Pod) {
		p.Spec.Volumes = append(p.Spec.Volumes, api.Volume{Name: claim, VolumeSource: api.VolumeSource{
			PersistentVolumeClaim: &api.PersistentVolumeClaimVolumeSource{ClaimName: claim}}})
	}
}

func onlyOn(node string) *api.VolumeNodeAffinity {
	return &api.VolumeNodeAffinity{Required: &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{{
		MatchExpressions: []api.NodeSelectorRequirement{{Key: api.LabelHostname, Operator: api.NodeSelectorOpIn, Values: []string{node}}}}}}}
}

func TestVolumeBindingFilter(t *testing.T) {
	n1, n2 := &NodeInfo{Node: testNode("node-1")}, &NodeInfo{Node: testNode("node-2")}
	pv := &api.PersistentVolume{ObjectMeta: api.ObjectMeta{Name: "local"}, Spec: api.PersistentVolumeSpec{NodeAffinity: onlyOn("node-2")}}
	for _, tc := range []struct {
		name   string
		vi     *VolumeInfo
		n1, n2 []string
	}{
		{"no claims", nil, nil, nil},
		{"bound volume on node-2", &VolumeInfo{BoundAffinities: []*api.NodeSelector{onlyOn("node-2").Required}}, []string{ErrReasonNodeConflict}, nil},
		{"provisionable anywhere", &VolumeInfo{Unbound: []UnboundClaim{{Provisionable: true}}}, nil, nil},
		{"a free volume on node-2 only", &VolumeInfo{Unbound: []UnboundClaim{{Candidates: []*api.PersistentVolume{pv}}}}, []string{ErrReasonBindConflict}, nil},
		{"nothing to bind", &VolumeInfo{Unbound: []UnboundClaim{{}}}, []string{ErrReasonBindConflict}, []string{ErrReasonBindConflict}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pi := &PodInfo{Volumes: tc.vi}
			assert.Equal(t, tc.n1, VolumeBinding(pi, n1))
			assert.Equal(t, tc.n2, VolumeBinding(pi, n2))
		})
	}
}

func TestMissingClaimKeepsPodPending(t *testing.T) {
	e := newEnv(t, 1)
	threeNodes(e)
	e.createPod(testPod("db", "", "", withClaim("data")))
	e.run()
	assert.Empty(t, e.pod("db").Spec.NodeName)
	assert.Equal(t, `0/3 nodes are available: persistentvolumeclaim "data" not found.`, condition(e.pod("db"), api.PodScheduled).Message)

	// The claim appears (unbound, of a WaitForFirstConsumer class that can
	// provision): the pod is tried again, placed, and the claim marked.
	wffc := api.VolumeBindingWaitForFirstConsumer
	_, err := e.Client.StorageClasses().Create(e.ctx, &api.StorageClass{ObjectMeta: api.ObjectMeta{Name: "standard"},
		Provisioner: "kubesim.io/hostpath", VolumeBindingMode: &wffc})
	require.NoError(t, err)
	class := "standard"
	_, err = e.Client.PersistentVolumeClaims().Create(e.ctx, &api.PersistentVolumeClaim{ObjectMeta: api.ObjectMeta{Name: "data", Namespace: "default"},
		Spec: api.PersistentVolumeClaimSpec{AccessModes: []api.PersistentVolumeAccessMode{api.ReadWriteOnce}, StorageClassName: &class,
			Resources: api.VolumeResourceRequirements{Requests: api.ResourceList{api.ResourceStorage: resource.MustParse("1Gi")}}}})
	require.NoError(t, err)
	e.run()
	// A node is chosen and written on the claim, but the pod's binding
	// waits (PreBind) for the PV controller to bind the claim there.
	assert.Empty(t, e.pod("db").Spec.NodeName)
	pvc, err := e.Client.PersistentVolumeClaims().Get(e.ctx, "default", "data")
	require.NoError(t, err)
	node := pvc.Annotations[api.AnnSelectedNode]
	require.NotEmpty(t, node)
	// A second pod counts the first as on that node already (assumed).
	e.run()
	assert.Empty(t, e.pod("db").Spec.NodeName)

	bindClaim(t, e, pvc, "pvc-1")
	e.run()
	assert.Equal(t, node, e.pod("db").Spec.NodeName)
}

// bindClaim does what the PV controller does once it has a volume for
// the claim: names it and marks the binding complete.
func bindClaim(t *testing.T, e *env, pvc *api.PersistentVolumeClaim, volume string) {
	t.Helper()
	pvc, err := e.Client.PersistentVolumeClaims().Get(e.ctx, pvc.Namespace, pvc.Name)
	require.NoError(t, err)
	pvc.Spec.VolumeName = volume
	pvc.Annotations[api.AnnBindCompleted] = "yes"
	_, err = e.Client.PersistentVolumeClaims().Update(e.ctx, pvc)
	require.NoError(t, err)
}

func TestClaimsBound(t *testing.T) {
	claim := func(name string, annotations map[string]string, volume string) *api.PersistentVolumeClaim {
		return &api.PersistentVolumeClaim{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", Annotations: annotations},
			Spec: api.PersistentVolumeClaimSpec{VolumeName: volume}}
	}
	bound := claim("a", map[string]string{api.AnnBindCompleted: "yes", api.AnnSelectedNode: "node-1"}, "pv-a")
	waiting := claim("b", map[string]string{api.AnnSelectedNode: "node-1"}, "")
	notSeenYet := claim("b", nil, "")
	elsewhere := claim("b", map[string]string{api.AnnSelectedNode: "node-2"}, "")
	namedOnly := claim("b", map[string]string{api.AnnSelectedNode: "node-1"}, "pv-b")
	for _, tc := range []struct {
		name   string
		claims []*api.PersistentVolumeClaim
		done   bool
		err    string
	}{
		{"all bound", []*api.PersistentVolumeClaim{bound, claim("b", map[string]string{api.AnnBindCompleted: "yes"}, "pv-b")}, true, ""},
		{"one still provisioning", []*api.PersistentVolumeClaim{bound, waiting}, false, ""},
		{"the cache has not seen the node yet", []*api.PersistentVolumeClaim{bound, notSeenYet}, false, ""},
		{"a volume named, the binding not complete", []*api.PersistentVolumeClaim{bound, namedOnly}, false, ""},
		{"claim deleted", []*api.PersistentVolumeClaim{bound}, false, `persistentvolumeclaim "b" not found`},
		{"claim moved to another node", []*api.PersistentVolumeClaim{bound, elsewhere}, false, `selectedNode annotation reset for PVC "b"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := testPod("db", "", "", withClaim("a"), withClaim("b"))
			lister := func(ns, name string) (*api.PersistentVolumeClaim, bool) {
				for _, c := range tc.claims {
					if c.Namespace == ns && c.Name == name {
						return c, true
					}
				}
				return nil, false
			}
			done, err := ClaimsBound(pod, "node-1", lister)
			assert.Equal(t, tc.done, done)
			if tc.err == "" {
				assert.NoError(t, err)
			} else {
				assert.EqualError(t, err, tc.err)
			}
		})
	}
}

// A claim that is never bound: after the bind timeout the pod gives its
// node up with the real PreBind error, and is scheduled again.
func TestPreBindTimeout(t *testing.T) {
	e := newEnv(t, 1)
	threeNodes(e)
	wffc := api.VolumeBindingWaitForFirstConsumer
	_, err := e.Client.StorageClasses().Create(e.ctx, &api.StorageClass{ObjectMeta: api.ObjectMeta{Name: "standard"},
		Provisioner: "kubesim.io/hostpath", VolumeBindingMode: &wffc})
	require.NoError(t, err)
	class := "standard"
	_, err = e.Client.PersistentVolumeClaims().Create(e.ctx, &api.PersistentVolumeClaim{ObjectMeta: api.ObjectMeta{Name: "data", Namespace: "default"},
		Spec: api.PersistentVolumeClaimSpec{AccessModes: []api.PersistentVolumeAccessMode{api.ReadWriteOnce}, StorageClassName: &class,
			Resources: api.VolumeResourceRequirements{Requests: api.ResourceList{api.ResourceStorage: resource.MustParse("1Gi")}}}})
	require.NoError(t, err)
	e.createPod(testPod("db", "", "", withClaim("data")))
	e.run()
	assert.Empty(t, e.pod("db").Spec.NodeName)
	assert.Nil(t, condition(e.pod("db"), api.PodScheduled), "waiting in PreBind is not a failure")

	e.Clock.Step(DefaultBindTimeout)
	e.run()
	c := condition(e.pod("db"), api.PodScheduled)
	require.NotNil(t, c)
	assert.Equal(t, api.PodReasonSchedulerError, c.Reason)
	assert.Equal(t, `running PreBind plugin "VolumeBinding": binding volumes: context deadline exceeded`, c.Message)
	var reasons []string
	for _, ev := range e.events("db") {
		reasons = append(reasons, ev.Reason+": "+ev.Message)
	}
	assert.Contains(t, reasons, `FailedScheduling: running PreBind plugin "VolumeBinding": binding volumes: context deadline exceeded`)
	assert.Empty(t, e.pod("db").Spec.NodeName)
}

func TestBoundVolumeNodeAffinityPinsThePod(t *testing.T) {
	e := newEnv(t, 1)
	threeNodes(e)
	_, err := e.Client.PersistentVolumes().Create(e.ctx, &api.PersistentVolume{ObjectMeta: api.ObjectMeta{Name: "local-2"},
		Spec: api.PersistentVolumeSpec{Capacity: api.ResourceList{api.ResourceStorage: resource.MustParse("1Gi")},
			AccessModes:            []api.PersistentVolumeAccessMode{api.ReadWriteOnce},
			PersistentVolumeSource: api.PersistentVolumeSource{Local: &api.LocalVolumeSource{Path: "/mnt/disk"}},
			NodeAffinity:           onlyOn("node-2")}})
	require.NoError(t, err)
	empty := ""
	_, err = e.Client.PersistentVolumeClaims().Create(e.ctx, &api.PersistentVolumeClaim{ObjectMeta: api.ObjectMeta{Name: "data", Namespace: "default"},
		Spec: api.PersistentVolumeClaimSpec{AccessModes: []api.PersistentVolumeAccessMode{api.ReadWriteOnce}, StorageClassName: &empty, VolumeName: "local-2",
			Resources: api.VolumeResourceRequirements{Requests: api.ResourceList{api.ResourceStorage: resource.MustParse("1Gi")}}}})
	require.NoError(t, err)
	for i := range 3 {
		name := "db-" + string(rune('a'+i))
		e.createPod(testPod(name, "", "", withClaim("data")))
		e.run()
		assert.Equal(t, "node-2", e.pod(name).Spec.NodeName)
	}
	assert.Contains(t, e.sched.LastDecision().String(), "node-1: "+ErrReasonNodeConflict)
}

func TestUnboundImmediateClaim(t *testing.T) {
	e := newEnv(t, 1)
	threeNodes(e)
	class := "fast"
	imm := api.VolumeBindingImmediate
	_, err := e.Client.StorageClasses().Create(e.ctx, &api.StorageClass{ObjectMeta: api.ObjectMeta{Name: class}, Provisioner: "example.com/x", VolumeBindingMode: &imm})
	require.NoError(t, err)
	_, err = e.Client.PersistentVolumeClaims().Create(e.ctx, &api.PersistentVolumeClaim{ObjectMeta: api.ObjectMeta{Name: "data", Namespace: "default"},
		Spec: api.PersistentVolumeClaimSpec{AccessModes: []api.PersistentVolumeAccessMode{api.ReadWriteOnce}, StorageClassName: &class,
			Resources: api.VolumeResourceRequirements{Requests: api.ResourceList{api.ResourceStorage: resource.MustParse("1Gi")}}}})
	require.NoError(t, err)
	e.createPod(testPod("db", "", "", withClaim("data")))
	e.run()
	assert.Equal(t, "0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims.", condition(e.pod("db"), api.PodScheduled).Message)
}
