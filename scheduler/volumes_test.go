package scheduler

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
)

func withClaim(claim string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: claim, VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}})
	}
}

func onlyOn(node string) *corev1.VolumeNodeAffinity {
	return &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
		MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: []string{node}}}}}}}
}

func TestVolumeBindingFilter(t *testing.T) {
	n1, n2 := &NodeInfo{Node: testNode("node-1")}, &NodeInfo{Node: testNode("node-2")}
	pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "local"}, Spec: corev1.PersistentVolumeSpec{NodeAffinity: onlyOn("node-2")}}
	for _, tc := range []struct {
		name   string
		vi     *VolumeInfo
		n1, n2 []string
	}{
		{"no claims", nil, nil, nil},
		{"bound volume on node-2", &VolumeInfo{BoundAffinities: []*corev1.NodeSelector{onlyOn("node-2").Required}}, []string{ErrReasonNodeConflict}, nil},
		{"provisionable anywhere", &VolumeInfo{Unbound: []UnboundClaim{{Provisionable: true}}}, nil, nil},
		{"a free volume on node-2 only", &VolumeInfo{Unbound: []UnboundClaim{{Candidates: []*corev1.PersistentVolume{pv}}}}, []string{ErrReasonBindConflict}, nil},
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
	assert.Equal(t, `0/3 nodes are available: persistentvolumeclaim "data" not found.`, condition(e.pod("db"), corev1.PodScheduled).Message)

	// The claim appears (unbound, of a WaitForFirstConsumer class that can
	// provision): the pod is tried again, placed, and the claim marked.
	wffc := storagev1.VolumeBindingWaitForFirstConsumer
	_, err := e.Client.StorageClasses().Create(e.ctx, &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "standard"},
		Provisioner: "kubesim.io/hostpath", VolumeBindingMode: &wffc})
	require.NoError(t, err)
	class := "standard"
	_, err = e.Client.PersistentVolumeClaims().Create(e.ctx, &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: "default"},
		Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}, StorageClassName: &class,
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}})
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
func bindClaim(t *testing.T, e *env, pvc *corev1.PersistentVolumeClaim, volume string) {
	t.Helper()
	pvc, err := e.Client.PersistentVolumeClaims().Get(e.ctx, pvc.Namespace, pvc.Name)
	require.NoError(t, err)
	pvc.Spec.VolumeName = volume
	pvc.Annotations[api.AnnBindCompleted] = "yes"
	_, err = e.Client.PersistentVolumeClaims().Update(e.ctx, pvc)
	require.NoError(t, err)
}

func TestClaimsBound(t *testing.T) {
	claim := func(name string, annotations map[string]string, volume string) *corev1.PersistentVolumeClaim {
		return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Annotations: annotations},
			Spec: corev1.PersistentVolumeClaimSpec{VolumeName: volume}}
	}
	bound := claim("a", map[string]string{api.AnnBindCompleted: "yes", api.AnnSelectedNode: "node-1"}, "pv-a")
	waiting := claim("b", map[string]string{api.AnnSelectedNode: "node-1"}, "")
	notSeenYet := claim("b", nil, "")
	elsewhere := claim("b", map[string]string{api.AnnSelectedNode: "node-2"}, "")
	namedOnly := claim("b", map[string]string{api.AnnSelectedNode: "node-1"}, "pv-b")
	for _, tc := range []struct {
		name   string
		claims []*corev1.PersistentVolumeClaim
		done   bool
		err    string
	}{
		{"all bound", []*corev1.PersistentVolumeClaim{bound, claim("b", map[string]string{api.AnnBindCompleted: "yes"}, "pv-b")}, true, ""},
		{"one still provisioning", []*corev1.PersistentVolumeClaim{bound, waiting}, false, ""},
		{"the cache has not seen the node yet", []*corev1.PersistentVolumeClaim{bound, notSeenYet}, false, ""},
		{"a volume named, the binding not complete", []*corev1.PersistentVolumeClaim{bound, namedOnly}, false, ""},
		{"claim deleted", []*corev1.PersistentVolumeClaim{bound}, false, `persistentvolumeclaim "b" not found`},
		{"claim moved to another node", []*corev1.PersistentVolumeClaim{bound, elsewhere}, false, `selectedNode annotation reset for PVC "b"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := testPod("db", "", "", withClaim("a"), withClaim("b"))
			lister := func(ns, name string) (*corev1.PersistentVolumeClaim, bool) {
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
	wffc := storagev1.VolumeBindingWaitForFirstConsumer
	_, err := e.Client.StorageClasses().Create(e.ctx, &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "standard"},
		Provisioner: "kubesim.io/hostpath", VolumeBindingMode: &wffc})
	require.NoError(t, err)
	class := "standard"
	_, err = e.Client.PersistentVolumeClaims().Create(e.ctx, &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: "default"},
		Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}, StorageClassName: &class,
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}})
	require.NoError(t, err)
	e.createPod(testPod("db", "", "", withClaim("data")))
	e.run()
	assert.Empty(t, e.pod("db").Spec.NodeName)
	assert.Nil(t, condition(e.pod("db"), corev1.PodScheduled), "waiting in PreBind is not a failure")

	e.Clock.Step(DefaultBindTimeout)
	e.run()
	c := condition(e.pod("db"), corev1.PodScheduled)
	require.NotNil(t, c)
	assert.Equal(t, corev1.PodReasonSchedulerError, c.Reason)
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
	_, err := e.Client.PersistentVolumes().Create(e.ctx, &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "local-2"},
		Spec: corev1.PersistentVolumeSpec{Capacity: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
			AccessModes:            []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			PersistentVolumeSource: corev1.PersistentVolumeSource{Local: &corev1.LocalVolumeSource{Path: "/mnt/disk"}},
			NodeAffinity:           onlyOn("node-2")}})
	require.NoError(t, err)
	empty := ""
	_, err = e.Client.PersistentVolumeClaims().Create(e.ctx, &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: "default"},
		Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}, StorageClassName: &empty, VolumeName: "local-2",
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}})
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
	imm := storagev1.VolumeBindingImmediate
	_, err := e.Client.StorageClasses().Create(e.ctx, &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: class}, Provisioner: "example.com/x", VolumeBindingMode: &imm})
	require.NoError(t, err)
	_, err = e.Client.PersistentVolumeClaims().Create(e.ctx, &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: "default"},
		Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}, StorageClassName: &class,
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}})
	require.NoError(t, err)
	e.createPod(testPod("db", "", "", withClaim("data")))
	e.run()
	assert.Equal(t, "0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims.", condition(e.pod("db"), corev1.PodScheduled).Message)
}
