package scheduler

import (
	"context"
	crand "crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	configv1 "k8s.io/kube-scheduler/config/v1"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"

	"github.com/kubesim/kubesim/apiserver/apiservertest"
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/pki"
	"github.com/kubesim/kubesim/runmode"
	"github.com/kubesim/kubesim/scheduler/extender/sample"
)

// newExtenderEnv is newEnv with extenders built from cfgs on the env's
// clock.
func newExtenderEnv(t *testing.T, cfgs ...configv1.Extender) *env {
	t.Helper()
	e := apiservertest.New(t)
	exts, err := NewExtenders(cfgs, ExtenderOptions{Clock: e.Clock})
	require.NoError(t, err)
	s, err := New(Config{Client: e.Client, Clock: e.Clock, Mode: runmode.Step, Rand: rand.New(rand.NewPCG(1, 1)), Extenders: exts})
	require.NoError(t, err)
	return &env{Env: e, t: t, ctx: context.Background(), sched: s, ctrl: s.Controllers()[0]}
}

// sampleServer serves the sample extender: nodes annotated
// example.com/drain are refused, nodes labelled tier=fast preferred.
func sampleServer(t *testing.T) *httptest.Server {
	t.Helper()
	x, err := sample.New(sample.Config{PreferLabel: "tier=fast", RefuseAnnotation: "example.com/drain"})
	require.NoError(t, err)
	srv := httptest.NewServer(x.Handler())
	t.Cleanup(srv.Close)
	return srv
}

// annotate and label change a node as kubectl would.
func (e *env) editNode(name string, edit func(*corev1.Node)) {
	e.t.Helper()
	n, err := e.Client.Nodes().Get(e.ctx, "", name)
	require.NoError(e.t, err)
	edit(n)
	_, err = e.Client.Nodes().Update(e.ctx, n)
	require.NoError(e.t, err)
}

func drain(n *corev1.Node) { metav1.SetMetaDataAnnotation(&n.ObjectMeta, "example.com/drain", "") }
func fast(n *corev1.Node)  { metav1.SetMetaDataLabel(&n.ObjectMeta, "tier", "fast") }

// The filter refuses the annotated node and the prioritizer's 10 counts
// weight × 10 × MaxNodeScore/MaxExtenderPriority on top of the plugins:
// the labelled node wins, and the trace says so node by node.
func TestExtenderFilterAndPrioritizeOverHTTP(t *testing.T) {
	srv := sampleServer(t)
	e := newExtenderEnv(t, configv1.Extender{URLPrefix: srv.URL, FilterVerb: "filter", PrioritizeVerb: "prioritize", Weight: 2})
	threeNodes(e)
	e.editNode("node-2", fast)
	e.editNode("node-3", drain)
	e.createPod(testPod("web", "100m", "", ownedBy("rs")))
	e.run()
	assert.Equal(t, "node-2", e.pod("web").Spec.NodeName)

	d := e.sched.LastDecision()
	require.Len(t, d.Nodes, 3)
	assert.Equal(t, int64(0), d.Nodes[0].ExtenderScore)
	assert.Equal(t, 2*extenderv1.MaxExtenderPriority*(MaxNodeScore/extenderv1.MaxExtenderPriority), d.Nodes[1].ExtenderScore)
	assert.Equal(t, d.Nodes[0].Score+200, d.Nodes[1].Score, "same plugin scores on two empty nodes, plus the extender's 200")
	assert.Equal(t, ExtenderName, d.Nodes[2].Filter)
	assert.Equal(t, srv.URL, d.Nodes[2].Extender)
	trace := d.String()
	assert.Contains(t, trace, fmt.Sprintf("node-2: score %d (extenders 200) (chosen)", d.Nodes[1].Score))
	assert.Contains(t, trace, "node-3: extender "+srv.URL+": refused (node(s) had annotation example.com/drain)")
}

// A node an extender refuses counts in the FailedScheduling message with
// the extender's reason, beside the plugins' reasons; and the pod waits
// among the unschedulable ones until an event wakes it.
func TestExtenderRefusalsInTheFitError(t *testing.T) {
	srv := sampleServer(t)
	e := newExtenderEnv(t, configv1.Extender{URLPrefix: srv.URL, FilterVerb: "filter"})
	threeNodes(e)
	e.editNode("node-1", drain)
	e.editNode("node-2", drain)
	e.createPod(testPod("big", "3", ""))
	e.createPod(testPod("hog", "2", ""))
	e.run()
	assert.Equal(t, "node-3", e.pod("big").Spec.NodeName)
	cond := condition(e.pod("hog"), corev1.PodScheduled)
	require.NotNil(t, cond)
	assert.Equal(t, corev1.PodReasonUnschedulable, cond.Reason)
	assert.Equal(t, "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had annotation example.com/drain.", cond.Message)

	// The annotation goes: the node event wakes the pod, which fits.
	e.editNode("node-1", func(n *corev1.Node) { delete(n.Annotations, "example.com/drain") })
	e.run()
	assert.Equal(t, "node-1", e.pod("hog").Spec.NodeName)
}

// recorder is an extender handler that keeps the requests it got and
// answers with answer(verb, body).
type recorder struct {
	mu     sync.Mutex
	calls  []string
	bodies map[string][]byte
	answer func(w http.ResponseWriter, verb string, body []byte)
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	verb := strings.TrimPrefix(req.URL.Path, "/")
	r.mu.Lock()
	r.calls = append(r.calls, verb)
	if r.bodies == nil {
		r.bodies = map[string][]byte{}
	}
	r.bodies[verb] = body
	r.mu.Unlock()
	r.answer(w, verb, body)
}

func (r *recorder) callsSoFar() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.calls...)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// A nodeCacheCapable extender is sent only the nodes' names and answers
// with names; a name it was not asked about is an error with
// kube-scheduler's message: the pod gets FailedScheduling with reason
// SchedulerError, and is tried again after the back-off, never lost.
func TestNodeCacheCapableExtenderAndUnknownNodes(t *testing.T) {
	var answer atomic.Value
	answer.Store([]string{"node-2"})
	rec := &recorder{answer: func(w http.ResponseWriter, _ string, _ []byte) {
		names := answer.Load().([]string)
		writeJSON(w, extenderv1.ExtenderFilterResult{NodeNames: &names, FailedNodes: extenderv1.FailedNodesMap{"node-1": "no room in my cache"}})
	}}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	e := newExtenderEnv(t, configv1.Extender{URLPrefix: srv.URL, FilterVerb: "filter", NodeCacheCapable: true})
	e.createNode("node-1", "4", "8Gi")
	e.createNode("node-2", "4", "8Gi")
	e.createPod(testPod("a", "", ""))
	e.run()
	assert.Equal(t, "node-2", e.pod("a").Spec.NodeName)
	var args extenderv1.ExtenderArgs
	require.NoError(t, json.Unmarshal(rec.bodies["filter"], &args))
	assert.Nil(t, args.Nodes, "only names to a nodeCacheCapable extender")
	require.NotNil(t, args.NodeNames)
	assert.Equal(t, []string{"node-1", "node-2"}, *args.NodeNames)
	assert.Equal(t, "a", args.Pod.Name)

	answer.Store([]string{"node-9"})
	e.createPod(testPod("b", "", ""))
	e.run()
	cond := condition(e.pod("b"), corev1.PodScheduled)
	require.NotNil(t, cond)
	assert.Equal(t, corev1.PodReasonSchedulerError, cond.Reason)
	want := fmt.Sprintf("extender %q claims a filtered node \"node-9\" which is not found in the input node list", srv.URL)
	assert.Equal(t, want, cond.Message)
	evs := e.events("b")
	require.NotEmpty(t, evs)
	assert.Equal(t, "FailedScheduling", evs[len(evs)-1].Reason)
	assert.Equal(t, want, evs[len(evs)-1].Message)
	assert.Contains(t, e.sched.LastDecision().String(), "| error: "+want)

	// The extender mends its ways; the back-off ends and the pod binds.
	answer.Store([]string{"node-1"})
	e.Clock.Step(time.Second)
	e.run()
	assert.Equal(t, "node-1", e.pod("b").Spec.NodeName)
}

// An extender with managedResources is asked only about pods that
// request one of them; ignoredByScheduler lets a pod ask for a resource
// no node advertises, the extender answering for it.
func TestManagedResources(t *testing.T) {
	rec := &recorder{answer: func(w http.ResponseWriter, _ string, body []byte) {
		var args extenderv1.ExtenderArgs
		_ = json.Unmarshal(body, &args)
		writeJSON(w, extenderv1.ExtenderFilterResult{Nodes: args.Nodes})
	}}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	e := newExtenderEnv(t, configv1.Extender{URLPrefix: srv.URL, FilterVerb: "filter",
		ManagedResources: []configv1.ExtenderManagedResource{{Name: "example.com/fpga", IgnoredByScheduler: true}}})
	e.createNode("node-1", "4", "8Gi")
	e.createPod(testPod("plain", "", ""))
	e.run()
	assert.Equal(t, "node-1", e.pod("plain").Spec.NodeName)
	assert.Empty(t, rec.callsSoFar(), "not interested in a pod without its resource")

	p := testPod("fpga", "", "")
	p.Spec.Containers[0].Resources.Limits = corev1.ResourceList{"example.com/fpga": resource.MustParse("1")}
	p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{"example.com/fpga": resource.MustParse("1")}
	e.createPod(p)
	e.run()
	assert.Equal(t, "node-1", e.pod("fpga").Spec.NodeName, "NodeResourcesFit ignores the resource")
	assert.Equal(t, []string{"filter"}, rec.callsSoFar())
}

// An extender that is down: skipped when ignorable; otherwise the cycle
// is an error with the client's own message, and the pod waits for the
// back-off.
func TestExtenderDown(t *testing.T) {
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	for _, ignorable := range []bool{true, false} {
		t.Run(fmt.Sprintf("ignorable=%v", ignorable), func(t *testing.T) {
			e := newExtenderEnv(t, configv1.Extender{URLPrefix: down.URL, FilterVerb: "filter", Ignorable: ignorable})
			threeNodes(e)
			e.createPod(testPod("web", "", ""))
			e.run()
			p := e.pod("web")
			if ignorable {
				assert.NotEmpty(t, p.Spec.NodeName)
				return
			}
			assert.Empty(t, p.Spec.NodeName)
			cond := condition(p, corev1.PodScheduled)
			require.NotNil(t, cond)
			assert.Equal(t, corev1.PodReasonSchedulerError, cond.Reason)
			assert.True(t, strings.HasPrefix(cond.Message, fmt.Sprintf("Post %q: dial tcp", down.URL+"/filter")), cond.Message)
		})
	}
}

// A prioritize that fails is ignored even from an extender that is not
// ignorable: the plugins decide.
func TestFailingPrioritizeIsIgnored(t *testing.T) {
	rec := &recorder{answer: func(w http.ResponseWriter, _ string, _ []byte) { http.Error(w, "boom", http.StatusInternalServerError) }}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	e := newExtenderEnv(t, configv1.Extender{URLPrefix: srv.URL, PrioritizeVerb: "prioritize", Weight: 1})
	threeNodes(e)
	e.createPod(testPod("web", "", ""))
	e.run()
	assert.NotEmpty(t, e.pod("web").Spec.NodeName)
	assert.Equal(t, []string{"prioritize"}, rec.callsSoFar())
}

// Answers that are not an ExtenderFilterResult: a status other than 200
// and a body that is not JSON fail the cycle with kube-scheduler's
// messages.
func TestExtenderGarbage(t *testing.T) {
	for name, tc := range map[string]struct {
		answer func(w http.ResponseWriter)
		want   func(url string) string
	}{
		"500": {func(w http.ResponseWriter) { http.Error(w, "boom", http.StatusInternalServerError) },
			func(url string) string { return "failed filter with extender at URL " + url + "/filter, code 500" }},
		"not JSON": {func(w http.ResponseWriter) { fmt.Fprint(w, "<html>hello</html>") },
			func(string) string { return "invalid character '<' looking for beginning of value" }},
		"Error": {func(w http.ResponseWriter) { writeJSON(w, extenderv1.ExtenderFilterResult{Error: "my cache is cold"}) },
			func(string) string { return "my cache is cold" }},
	} {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(&recorder{answer: func(w http.ResponseWriter, _ string, _ []byte) { tc.answer(w) }})
			defer srv.Close()
			e := newExtenderEnv(t, configv1.Extender{URLPrefix: srv.URL, FilterVerb: "filter"})
			threeNodes(e)
			e.createPod(testPod("web", "", ""))
			e.run()
			cond := condition(e.pod("web"), corev1.PodScheduled)
			require.NotNil(t, cond)
			assert.Equal(t, corev1.PodReasonSchedulerError, cond.Reason)
			assert.Equal(t, tc.want(srv.URL), cond.Message)
		})
	}
}

// An extender slower than its httpTimeout: the call ends when the
// injected clock has moved past it, with the message an http.Client's
// timeout gives. The test moves the clock only once the request has
// arrived, so no real time is involved.
func TestExtenderTimeout(t *testing.T) {
	arrived := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Read the body first: only then does the server notice the
		// client hanging up, which ends r's context.
		_, _ = io.Copy(io.Discard, r.Body)
		arrived <- struct{}{}
		<-r.Context().Done() // never answers; the client gives up
	}))
	defer srv.Close()
	e := newExtenderEnv(t, configv1.Extender{URLPrefix: srv.URL, FilterVerb: "filter", HTTPTimeout: metav1.Duration{Duration: 3 * time.Second}})
	threeNodes(e)
	e.createPod(testPod("web", "", ""))
	require.NoError(t, e.ctrl.Sync(e.ctx))
	// The nodes' and the pod's events first: step until the pod's cycle
	// is the one blocked in the call.
	done := make(chan controllers.StepInfo, 1)
	go func() {
		for {
			info, ok := e.ctrl.Step(e.ctx)
			if !ok || info.Key == "default/web" {
				done <- info
				return
			}
		}
	}()
	<-arrived
	e.Clock.Step(3 * time.Second)
	info := <-done
	require.NoError(t, info.Err)
	cond := condition(e.pod("web"), corev1.PodScheduled)
	require.NotNil(t, cond)
	assert.Equal(t, fmt.Sprintf("Post %q: context deadline exceeded (Client.Timeout exceeded while awaiting headers)", srv.URL+"/filter"), cond.Message)
}

// An extender with a bind verb binds the pod instead of the scheduler:
// it gets ExtenderBindingArgs and posts the Binding itself. A bind error
// leaves the pod unbound, to be tried again.
func TestExtenderBinds(t *testing.T) {
	var e *env
	var fail atomic.Bool
	var got extenderv1.ExtenderBindingArgs
	srv := httptest.NewServer(&recorder{answer: func(w http.ResponseWriter, _ string, body []byte) {
		if fail.Load() {
			writeJSON(w, extenderv1.ExtenderBindingResult{Error: "the rack is locked"})
			return
		}
		assert.NoError(t, json.Unmarshal(body, &got))
		b := &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: got.PodName, Namespace: got.PodNamespace, UID: got.PodUID},
			Target: corev1.ObjectReference{Kind: "Node", Name: got.Node}}
		err := e.Client.Pods().CreateSubresource(context.Background(), got.PodNamespace, got.PodName, "binding", b)
		res := extenderv1.ExtenderBindingResult{}
		if err != nil {
			res.Error = err.Error()
		}
		writeJSON(w, res)
	}})
	defer srv.Close()
	e = newExtenderEnv(t, configv1.Extender{URLPrefix: srv.URL, BindVerb: "bind"})
	e.createNode("node-1", "4", "8Gi")
	created := e.createPod(testPod("web", "", ""))
	e.run()
	assert.Equal(t, "node-1", e.pod("web").Spec.NodeName)
	assert.Equal(t, extenderv1.ExtenderBindingArgs{PodName: "web", PodNamespace: "default", PodUID: created.UID, Node: "node-1"}, got)

	fail.Store(true)
	e.createPod(testPod("db", "", ""))
	require.NoError(t, e.ctrl.Sync(e.ctx))
	var bindErr error
	for {
		info, ok := e.ctrl.Step(e.ctx)
		if !ok {
			break
		}
		if info.Key == "default/db" && info.Err != nil {
			bindErr = info.Err
			break
		}
	}
	require.Error(t, bindErr)
	assert.Contains(t, bindErr.Error(), "the rack is locked")
	assert.Empty(t, e.pod("db").Spec.NodeName)
}

// Over HTTPS: the extender's certificate is checked against tlsConfig's
// CA (data or file); a CA that did not sign it fails the call;
// enableHTTPS without a CA does not verify at all, as kube-scheduler's
// makeTransport does.
func TestExtenderOverHTTPS(t *testing.T) {
	x, err := sample.New(sample.Config{RefuseAnnotation: "example.com/drain"})
	require.NoError(t, err)
	ours, err := pki.EnsureServing(t.TempDir(), nil, time.Now(), crand.Reader)
	require.NoError(t, err)
	theirs, err := pki.EnsureServing(t.TempDir(), nil, time.Now(), crand.Reader)
	require.NoError(t, err)
	srv := httptest.NewUnstartedServer(x.Handler())
	srv.TLS = ours.ServerTLSConfig()
	srv.StartTLS()
	defer srv.Close()
	for name, tc := range map[string]struct {
		tls    *configv1.ExtenderTLSConfig
		binds  bool
		errHas string
	}{
		"its CA":       {tls: &configv1.ExtenderTLSConfig{CAData: ours.CAPEM}, binds: true},
		"its CA file":  {tls: &configv1.ExtenderTLSConfig{CAFile: filepath.Join(ours.Dir, pki.CACertFile)}, binds: true},
		"no CA":        {binds: true},
		"another's CA": {tls: &configv1.ExtenderTLSConfig{CAData: theirs.CAPEM}, errHas: "x509: certificate signed by unknown authority"},
	} {
		t.Run(name, func(t *testing.T) {
			e := newExtenderEnv(t, configv1.Extender{URLPrefix: srv.URL, FilterVerb: "filter", EnableHTTPS: true, TLSConfig: tc.tls})
			e.createNode("node-1", "4", "8Gi")
			e.createNode("node-2", "4", "8Gi")
			e.editNode("node-1", drain)
			e.createPod(testPod("web", "", ""))
			e.run()
			p := e.pod("web")
			if tc.binds {
				assert.Equal(t, "node-2", p.Spec.NodeName)
				return
			}
			assert.Empty(t, p.Spec.NodeName)
			assert.Contains(t, condition(p, corev1.PodScheduled).Message, tc.errHas)
		})
	}
}

// kube-scheduler's validation of the extenders, with its field errors.
func TestValidateExtenders(t *testing.T) {
	for name, tc := range map[string]struct {
		exts []configv1.Extender
		want string
	}{
		"fine": {exts: []configv1.Extender{{URLPrefix: "http://a", FilterVerb: "filter", PrioritizeVerb: "p", Weight: 1}}},
		"weight": {exts: []configv1.Extender{{URLPrefix: "http://a", PrioritizeVerb: "p"}},
			want: "extenders[0].weight: Invalid value: 0: must have a positive weight applied to it"},
		"two binders": {exts: []configv1.Extender{{URLPrefix: "http://a", BindVerb: "b"}, {URLPrefix: "http://b", BindVerb: "b"}},
			want: `extenders: Invalid value: "found 2 extenders implementing bind": only one extender can implement bind`},
		"native resource": {exts: []configv1.Extender{{URLPrefix: "http://a", ManagedResources: []configv1.ExtenderManagedResource{{Name: "cpu"}}}},
			want: `extenders[0].managedResources[0].name: Invalid value: "cpu": is an invalid extended resource name`},
		"duplicate resource": {exts: []configv1.Extender{
			{URLPrefix: "http://a", ManagedResources: []configv1.ExtenderManagedResource{{Name: "example.com/gpu"}}},
			{URLPrefix: "http://b", ManagedResources: []configv1.ExtenderManagedResource{{Name: "example.com/gpu"}}}},
			want: `extenders[1].managedResources[0].name: Invalid value: "example.com/gpu": duplicate extender managed resource name`},
		"two errors": {exts: []configv1.Extender{{URLPrefix: "http://a", PrioritizeVerb: "p", Weight: -1, BindVerb: "b"}, {URLPrefix: "http://b", BindVerb: "b"}},
			want: `[extenders[0].weight: Invalid value: -1: must have a positive weight applied to it, extenders: Invalid value: "found 2 extenders implementing bind": only one extender can implement bind]`},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := NewExtenders(tc.exts, ExtenderOptions{Clock: apiservertest.New(t).Clock})
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.EqualError(t, err, tc.want)
		})
	}
}

// The live scheduler (watches, parallel workers) with the sample
// extender over loopback HTTP: every pod lands on the preferred nodes
// that are not refused, none is bound twice, none lost.
func TestLiveSchedulerWithSampleExtender(t *testing.T) {
	srv := sampleServer(t)
	e := &env{Env: apiservertest.New(t), t: t, ctx: context.Background()}
	for i := 1; i <= 4; i++ {
		n := e.createNode(fmt.Sprintf("node-%d", i), "4", "8Gi")
		n.Status.Allocatable[corev1.ResourcePods] = resourceMust("20")
		_, err := e.Client.Nodes().UpdateStatus(e.ctx, n)
		require.NoError(t, err)
	}
	e.editNode("node-1", fast)
	e.editNode("node-2", fast)
	e.editNode("node-2", drain)
	exts, err := NewExtenders([]configv1.Extender{{URLPrefix: srv.URL, FilterVerb: "filter", PrioritizeVerb: "prioritize", Weight: 5}},
		ExtenderOptions{Clock: e.Clock})
	require.NoError(t, err)
	startLive(t, e.Env, exts...)
	for i := range 30 {
		e.createPod(testPod(fmt.Sprintf("p-%02d", i), "", ""))
	}
	require.Eventually(t, func() bool {
		_, n := boundPods(t, e.Client)
		return n == 30
	}, 30*time.Second, 10*time.Millisecond)
	per, _ := boundPods(t, e.Client)
	assert.Equal(t, 20, per["node-1"], "the preferred node fills up first")
	assert.Zero(t, per["node-2"], "the refused node gets nothing")
	assert.Equal(t, 10, per["node-3"]+per["node-4"])
}

// fakeExtender is an Extender in process whose filter runs a hook: what
// happens in the cluster while a real one is answering.
type fakeExtender struct {
	during func()
}

func (f *fakeExtender) Name() string                  { return "fake" }
func (f *fakeExtender) IsInterested(*corev1.Pod) bool { return true }
func (f *fakeExtender) IsIgnorable() bool             { return false }
func (f *fakeExtender) IsFilter() bool                { return true }
func (f *fakeExtender) IsPrioritizer() bool           { return false }
func (f *fakeExtender) IsBinder() bool                { return false }
func (f *fakeExtender) Filter(_ context.Context, _ *corev1.Pod, nodes []*corev1.Node) ([]string, extenderv1.FailedNodesMap, extenderv1.FailedNodesMap, error) {
	f.during()
	names := make([]string, len(nodes))
	for i, n := range nodes {
		names[i] = n.Name
	}
	return names, nil, nil, nil
}
func (f *fakeExtender) Prioritize(context.Context, *corev1.Pod, []*corev1.Node) (extenderv1.HostPriorityList, int64, error) {
	return nil, 0, nil
}
func (f *fakeExtender) Bind(context.Context, *corev1.Binding) error { return nil }
func (f *fakeExtender) SupportsPreemption() bool                    { return false }
func (f *fakeExtender) ProcessPreemption(context.Context, *corev1.Pod, map[string]*extenderv1.Victims) (map[string]*extenderv1.MetaVictims, error) {
	return nil, nil
}

// The cycle does not hold the cache lock while an extender answers: the
// node informer's handlers and LastDecision (which take it) run
// meanwhile; and a node deleted meanwhile is not chosen even though the
// extender passed it.
func TestCycleLetsTheCacheLockGoDuringExtenderCalls(t *testing.T) {
	e := apiservertest.New(t)
	fake := &fakeExtender{}
	s, err := New(Config{Client: e.Client, Clock: e.Clock, Mode: runmode.Step, Rand: rand.New(rand.NewPCG(1, 1)), Extenders: []Extender{fake}})
	require.NoError(t, err)
	env := &env{Env: e, t: t, ctx: context.Background(), sched: s, ctrl: s.Controllers()[0]}
	env.createNode("node-1", "4", "8Gi")
	gone := env.createNode("node-2", "4", "8Gi")
	env.editNode("node-1", func(n *corev1.Node) { n.Spec.Unschedulable = true })
	var before Decision
	fake.during = func() {
		before = s.LastDecision() // would deadlock if the cycle held mu
		s.nodeDeleted(gone)       // as the node informer would
	}
	env.createPod(testPod("web", "", ""))
	env.run()
	assert.Equal(t, "", before.Pod, "the decision under way is not visible before it ends")
	assert.Empty(t, env.pod("web").Spec.NodeName)
	d := s.LastDecision()
	require.Len(t, d.Nodes, 2)
	assert.Equal(t, []string{"node(s) were deleted"}, d.Nodes[1].Reasons)
	cond := condition(env.pod("web"), corev1.PodScheduled)
	require.NotNil(t, cond)
	assert.Equal(t, "0/2 nodes are available: 1 node(s) were deleted, 1 node(s) were unschedulable.", cond.Message)
}

// An extender with a preempt verb is given preemption's candidates with
// their victims (whole, not nodeCacheCapable) and keeps those it agrees
// to: here node-2 only, so node-2's pod is the victim although node-1's
// would do as well. An answer naming a pod not on the node is a
// PostFilter error: nothing is preempted.
func TestExtenderPreempt(t *testing.T) {
	var bad atomic.Bool
	var got extenderv1.ExtenderPreemptionArgs
	srv := httptest.NewServer(&recorder{answer: func(w http.ResponseWriter, _ string, body []byte) {
		assert.NoError(t, json.Unmarshal(body, &got))
		v := got.NodeNameToVictims["node-2"]
		if v == nil || len(v.Pods) == 0 {
			http.Error(w, "no node-2", http.StatusBadRequest)
			return
		}
		uid := string(v.Pods[0].UID)
		if bad.Load() {
			uid = "no-such-uid"
		}
		writeJSON(w, extenderv1.ExtenderPreemptionResult{NodeNameToMetaVictims: map[string]*extenderv1.MetaVictims{
			"node-2": {Pods: []*extenderv1.MetaPod{{UID: uid}}}}})
	}})
	defer srv.Close()
	for _, answerBadly := range []bool{false, true} {
		t.Run(fmt.Sprintf("bad=%v", answerBadly), func(t *testing.T) {
			bad.Store(answerBadly)
			e := newExtenderEnv(t, configv1.Extender{URLPrefix: srv.URL, PreemptVerb: "preempt"})
			for name, v := range map[string]int32{"low": 10, "high": 1000} {
				_, err := e.Client.PriorityClasses().Create(e.ctx, &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: v})
				require.NoError(t, err)
			}
			withClass := func(c string) func(*corev1.Pod) { return func(p *corev1.Pod) { p.Spec.PriorityClassName = c } }
			e.createNode("node-1", "2", "8Gi")
			e.createNode("node-2", "2", "8Gi")
			e.createPod(testPod("filler-1", "2", "", withClass("low"), func(p *corev1.Pod) { p.Spec.NodeName = "node-1" }))
			e.createPod(testPod("filler-2", "2", "", withClass("low"), func(p *corev1.Pod) { p.Spec.NodeName = "node-2" }))
			e.createPod(testPod("vip", "1", "", withClass("high")))
			e.run()
			assert.Len(t, got.NodeNameToVictims, 2, "both candidates offered")
			assert.Nil(t, got.NodeNameToMetaVictims)
			assert.Equal(t, "vip", got.Pod.Name)
			if answerBadly {
				assert.Empty(t, e.pod("vip").Status.NominatedNodeName)
				assert.Nil(t, e.pod("filler-2").DeletionTimestamp)
				return
			}
			assert.Equal(t, "node-2", e.pod("vip").Status.NominatedNodeName)
			assert.NotNil(t, e.pod("filler-2").DeletionTimestamp, "the extender's victim")
			assert.Nil(t, e.pod("filler-1").DeletionTimestamp)
		})
	}
}
