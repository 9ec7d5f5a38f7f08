package scenario

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/unstructured"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/operators/catalog"
	"github.com/kubesim/kubesim/runmode"
	"github.com/kubesim/kubesim/scheduler/extender/sample"
	"github.com/kubesim/kubesim/stepper"
)

// Observer is told what a run does, as it happens: the command line
// prints it, the stepper pauses on it, the golden helper records it.
type Observer interface {
	// StepStarted is called before step i (from 0) does anything.
	StepStarted(i int, s *Step)
	// Entry is one line of the cluster's trace (a unit of work, or time
	// moving on).
	Entry(e stepper.Entry)
	// StepFinished is called when step i is over, passed or failed.
	StepFinished(i int, s *Step, res *StepResult)
}

// StepResult is how a step went.
type StepResult struct {
	OK bool
	// Message says what the step did ("replicaset.apps/web created"); it
	// may have several lines.
	Message string
	// Expected and Actual describe a failed check.
	Expected, Actual string
	// Units is how many units of work the step ran.
	Units int
	// Writes are the API writes the step itself made (the user's), with
	// the resourceVersions they produced.
	Writes []stepper.Write
}

// Runner runs one scenario against its own step-mode cluster.
type Runner struct {
	s *Scenario
	c *cluster.Cluster
	// plugins are the node plugins the scenario runs (nil: none).
	plugins *plugins
	cl      *client.Client
	obs     Observer
	rec     *stepper.Recorder
	// say writes the steps' messages.
	say Phrases

	mu      sync.Mutex
	next    int  // the step to run (or running)
	started bool // the step at next has started
	failed  bool
	res     *StepResult
	end     time.Time // advance's end
	results []*StepResult
	// userWrites maps a resourceVersion to the step whose write made it.
	userWrites stepper.UserWrites
}

// New builds the scenario's cluster and checks that every kind the
// scenario names is served (a kind defined by a CustomResourceDefinition
// in the scenario is checked when it is used). Nothing runs yet.
func New(s *Scenario, obs Observer) (*Runner, error) {
	return NewWithOptions(s, obs, Options{})
}

// Options are the knobs of a Runner that tests turn.
type Options struct {
	// DetectCacheMutations turns on the cluster's cache mutation detector
	// (cluster.Config.DetectCacheMutations; see CheckCacheMutations).
	DetectCacheMutations bool
	// Phrases are the language of the steps' messages (zero: English).
	Phrases Phrases
}

// NewWithOptions is New with opts.
func NewWithOptions(s *Scenario, obs Observer, opts Options) (*Runner, error) {
	if obs == nil {
		obs = nopObserver{}
	}
	pl, err := startPlugins(s)
	if err != nil {
		return nil, err
	}
	cfg := cluster.Config{Mode: runmode.Step, Seed: s.Cluster.Seed, NodeCount: s.Cluster.NodeCount, Nodes: s.Cluster.Nodes,
		Controllers: s.Cluster.Controllers, Stages: s.Cluster.Stages, UnsafeNoFsync: true,
		NodeMonitorGracePeriod: s.Cluster.NodeMonitorGracePeriod, DefaultNotReadyTolerationSeconds: s.Cluster.DefaultTolerationSeconds, DefaultUnreachableTolerationSeconds: s.Cluster.DefaultTolerationSeconds,
		NodeLeaseDuration: s.Cluster.NodeLeaseDuration, LeaderElection: s.Cluster.LeaderElection, SchedulerConfig: s.Cluster.SchedulerConfig,
		Extra: catalog.Extra(s.Cluster.Operators), DetectCacheMutations: opts.DetectCacheMutations}
	pl.configure(&cfg, s.Cluster)
	if x := s.Cluster.SampleExtender; x != nil {
		ext, err := sample.New(*x) // checked when parsed
		if err != nil {
			pl.close()
			return nil, fmt.Errorf("%s: %w", s.File, err)
		}
		cfg.ExtenderClient = &http.Client{Transport: &client.InProcessTransport{Handler: ext.Handler()}}
	}
	c, err := cluster.New(cfg)
	if err != nil {
		pl.close()
		return nil, fmt.Errorf("%s: building the cluster: %w", s.File, err)
	}
	if err := pl.startDevicePlugins(c, s.Cluster.DevicePlugins); err != nil {
		c.Close()
		pl.close()
		return nil, err
	}
	say := opts.Phrases
	if say == (Phrases{}) {
		say = EnglishPhrases()
	}
	r := &Runner{s: s, c: c, plugins: pl, obs: obs, say: say, userWrites: stepper.UserWrites{}}
	// The user's writes are recorded with their resourceVersions, so that
	// Explain can end a causality chain at the user's action.
	r.rec = stepper.NewRecorder(&client.InProcessTransport{Handler: c.Server().LoopbackHandler()})
	r.cl, err = client.New(client.Config{Server: "http://in-process", Transport: r.rec, UserAgent: "scenario"})
	if err != nil {
		r.Close()
		return nil, err
	}
	if err := r.checkKinds(); err != nil {
		r.Close()
		return nil, err
	}
	c.OnEntry(func(e stepper.Entry) { r.obs.Entry(e) })
	return r, nil
}

type nopObserver struct{}

func (nopObserver) StepStarted(int, *Step)               {}
func (nopObserver) Entry(stepper.Entry)                  {}
func (nopObserver) StepFinished(int, *Step, *StepResult) {}

// checkKinds resolves every kind before the first step, so that a typo
// fails with its line before anything runs.
func (r *Runner) checkKinds() error {
	definesCRD := false
	for _, st := range r.s.Steps {
		for _, m := range st.Manifests {
			if m.Object["kind"] == "CustomResourceDefinition" {
				definesCRD = true
			}
		}
	}
	if definesCRD {
		return nil
	}
	for _, st := range r.s.Steps {
		for _, m := range st.Manifests {
			apiVersion, _ := m.Object["apiVersion"].(string)
			kind, _ := m.Object["kind"].(string)
			if _, err := r.resolve(ObjectRef{APIVersion: apiVersion, Kind: kind}); err != nil {
				return &Error{File: m.File, Line: m.Line, Msg: err.Error()}
			}
		}
		refs := []ObjectRef{}
		switch st.Op {
		case OpDelete, OpPatch, OpScale, OpShow:
			refs = append(refs, st.Target)
		case OpExpect:
			for _, e := range st.Expects {
				if e.Kind != ExpectEvent {
					refs = append(refs, e.Object)
				}
			}
		}
		for _, ref := range refs {
			res, err := r.resolve(ref)
			if err != nil {
				return &Error{File: r.s.File, Line: st.Line, Msg: err.Error()}
			}
			if st.Op == OpScale && res.Scale == nil {
				return &Error{File: r.s.File, Line: st.Line, Msg: fmt.Sprintf("scale: %s has no scale subresource", res.Kind)}
			}
		}
	}
	return nil
}

// resolve maps a kind (or, as kubectl accepts, a resource name, singular
// or short name) to a served resource through discovery.
func (r *Runner) resolve(ref ObjectRef) (*registry.Resource, error) {
	want := strings.ToLower(ref.Kind)
	for _, res := range r.c.Server().Resources() {
		if ref.APIVersion != "" && ref.APIVersion != gv(res) {
			continue
		}
		names := append([]string{strings.ToLower(res.Kind), res.Name, res.SingularName}, res.ShortNames...)
		for _, n := range names {
			if n == want {
				return res, nil
			}
		}
	}
	if ref.APIVersion != "" {
		// Worded as apimachinery's NoKindMatchError, which kubectl prints.
		return nil, fmt.Errorf("no matches for kind %q in version %q", ref.Kind, ref.APIVersion)
	}
	// Worded as kubectl's answer to an unknown resource type.
	return nil, fmt.Errorf("the server doesn't have a resource type %q", ref.Kind)
}

func gv(res *registry.Resource) string {
	if res.Group == "" {
		return res.Version
	}
	return res.Group + "/" + res.Version
}

// kubectlName names an object as kubectl prints it: replicaset.apps/web.
func kubectlName(res *registry.Resource, name string) string {
	s := res.SingularName
	if s == "" {
		s = strings.ToLower(res.Kind)
	}
	if res.Group != "" {
		s += "." + res.Group
	}
	return s + "/" + name
}

func infoOf(res *registry.Resource) client.ResourceInfo {
	return client.ResourceInfo{Group: res.Group, Version: res.Version, Resource: res.Name, Namespaced: res.Namespaced}
}

func namespaceFor(res *registry.Resource, ns string) string {
	if !res.Namespaced {
		return ""
	}
	if ns == "" {
		return "default"
	}
	return ns
}

// Scenario is what the runner runs.
func (r *Runner) Scenario() *Scenario { return r.s }

// Cluster is the runner's cluster (tests and the stepper look inside).
func (r *Runner) Cluster() *cluster.Cluster { return r.c }

// Close releases the cluster, then stops the scenario's plugins and
// removes their sockets.
func (r *Runner) Close() error {
	err := r.c.Close()
	r.plugins.close()
	return err
}

// CheckCacheMutations reports a shared object a component changed in place
// (Options.DetectCacheMutations; nil when it is off).
func (r *Runner) CheckCacheMutations() error { return r.c.CheckCacheMutations() }

// Done reports whether every step has run, or one failed.
func (r *Runner) Done() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed || r.next >= len(r.s.Steps)
}

// Failed reports whether a step failed.
func (r *Runner) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed
}

// Current is the index of the step running or about to run.
func (r *Runner) Current() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.next
}

// Results are the results of the steps finished so far.
func (r *Runner) Results() []*StepResult {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*StepResult(nil), r.results...)
}

// runsCluster reports whether a step is made of units of work.
func runsCluster(op Op) bool {
	return op == OpRunUntilStable || op == OpAdvance || op == OpRun
}

// Next runs one unit: one unit of work of a step that runs the cluster
// (runUntilStable, advance, run), or a whole step otherwise. It reports
// whether the step finished. Its error is the machinery's (a failed
// check is a failed StepResult, not an error).
func (r *Runner) Next(ctx context.Context) (stepDone bool, err error) {
	if r.Done() {
		return true, nil
	}
	r.mu.Lock()
	i := r.next
	st := r.s.Steps[i]
	starting := !r.started
	if starting {
		r.started = true
		r.res = &StepResult{OK: true}
		r.rec.Start()
	}
	r.mu.Unlock()
	if starting {
		r.obs.StepStarted(i, st)
		if st.Op == OpAdvance {
			r.end = r.c.Clock().Now().Add(st.Duration)
		}
	}
	res := r.res
	finished := true
	if runsCluster(st.Op) {
		finished, err = r.unit(ctx, st, res)
	} else {
		err = r.action(ctx, i, st, res)
	}
	if err != nil {
		return false, err
	}
	if !finished {
		return false, nil
	}
	res.Writes = r.rec.Stop()
	r.mu.Lock()
	for _, w := range res.Writes {
		if w.ResourceVersion != "" {
			r.userWrites[w.ResourceVersion] = stepper.UserWrite{Step: i, Title: st.Title(), Write: w}
		}
	}
	r.results = append(r.results, res)
	r.next++
	r.started = false
	if !res.OK {
		r.failed = true
	}
	r.mu.Unlock()
	r.obs.StepFinished(i, st, res)
	return true, nil
}

// FinishStep runs the current step to its end.
func (r *Runner) FinishStep(ctx context.Context) error {
	for !r.Done() {
		done, err := r.Next(ctx)
		if err != nil || done {
			return err
		}
	}
	return nil
}

// NextAdmission runs units of work until one makes a write that the
// admission chain changed or refused (the stepper stopping at an
// admission step), or the scenario ends. It reports whether it stopped at
// one.
func (r *Runner) NextAdmission(ctx context.Context) (bool, error) {
	for !r.Done() {
		before, results := len(r.c.Trace()), len(r.Results())
		if _, err := r.Next(ctx); err != nil {
			return false, err
		}
		for _, e := range r.c.Trace()[before:] {
			if hasAdmission(e.Writes) {
				return true, nil
			}
		}
		if res := r.Results(); len(res) > results && hasAdmission(res[len(res)-1].Writes) {
			return true, nil
		}
	}
	return false, nil
}

func hasAdmission(writes []stepper.Write) bool {
	for _, w := range writes {
		if len(w.Admission) > 0 {
			return true
		}
	}
	return false
}

// RunAll runs every step, stopping at the first failure; it reports
// whether all passed.
func (r *Runner) RunAll(ctx context.Context) (bool, error) {
	for !r.Done() {
		if _, err := r.Next(ctx); err != nil {
			return false, err
		}
	}
	return !r.Failed(), nil
}

// unit runs one unit of work of a cluster-running step.
func (r *Runner) unit(ctx context.Context, st *Step, res *StepResult) (bool, error) {
	var n int
	var err error
	switch st.Op {
	case OpAdvance:
		remaining := r.end.Sub(r.c.Clock().Now())
		if remaining < 0 {
			remaining = 0
		}
		n, err = r.c.Advance(ctx, remaining, stepper.Limits{MaxSteps: 1})
	default:
		n, err = r.c.RunUntilStable(ctx, stepper.Limits{MaxSteps: 1, Horizon: st.Limits.Horizon})
	}
	// With MaxSteps 1 the cluster reports "more to do" as an error after
	// exactly one step; no step and no error means it is settled.
	more := n == 1 && err != nil
	if !more && err != nil {
		return false, err
	}
	elapsed := formatElapsed(r.c.Clock().Now().Sub(stepper.DefaultStart))
	if more {
		res.Units++
	}
	switch {
	case st.Op == OpRun && (!more || res.Units >= st.N):
		res.Message = fmt.Sprintf(r.say.Ran, res.Units, elapsed)
		return true, nil
	case st.Op == OpRunUntilStable && !more:
		res.Message = fmt.Sprintf(r.say.Stable, res.Units, elapsed)
		return true, nil
	case st.Op == OpRunUntilStable && res.Units >= maxSteps(st):
		res.OK = false
		res.Message = fmt.Sprintf(r.say.NotStable, res.Units)
		res.Expected, res.Actual = r.say.Settles, fmt.Sprintf(r.say.StillBusy, res.Units)
		return true, nil
	case st.Op == OpAdvance && !more:
		res.Message = fmt.Sprintf(r.say.Advanced, res.Units, elapsed)
		return true, nil
	case st.Op == OpAdvance && res.Units >= 100000:
		return false, fmt.Errorf("advance %s: more than %d steps", st.Duration, res.Units)
	}
	return false, nil
}

func maxSteps(st *Step) int {
	if st.Limits.MaxSteps > 0 {
		return st.Limits.MaxSteps
	}
	return 10000
}

func formatElapsed(d time.Duration) string {
	ms := d.Milliseconds()
	return fmt.Sprintf("%d.%03ds", ms/1000, ms%1000)
}

// action runs a whole step that is not a run of the cluster.
func (r *Runner) action(ctx context.Context, i int, st *Step, res *StepResult) error {
	fail := func(format string, args ...any) error {
		res.OK = false
		res.Message = fmt.Sprintf(format, args...)
		return nil
	}
	switch st.Op {
	case OpNote:
		res.Message = strings.TrimSpace(st.Text)
	case OpApply:
		return r.apply(ctx, st, res)
	case OpDelete:
		res2, err := r.resolve(st.Target)
		if err != nil {
			return fail("%v", err)
		}
		dyn := client.Dynamic(r.cl, infoOf(res2))
		ns := namespaceFor(res2, st.Target.Namespace)
		names, err := targetNames(ctx, dyn, ns, st.Target, st.Count)
		if err != nil {
			return fail("%v", err)
		}
		var opts *metav1.DeleteOptions
		if st.Propagation != "" {
			pp := metav1.DeletionPropagation(st.Propagation)
			opts = &metav1.DeleteOptions{PropagationPolicy: &pp}
		}
		var lines []string
		for _, n := range names {
			if err := dyn.Delete(ctx, ns, n, opts); err != nil {
				return fail("%v", err)
			}
			singular := res2.SingularName
			if res2.Group != "" {
				singular += "." + res2.Group
			}
			lines = append(lines, fmt.Sprintf("%s %q deleted", singular, n))
		}
		res.Message = strings.Join(lines, "\n")
	case OpPatch:
		res2, err := r.resolve(st.Target)
		if err != nil {
			return fail("%v", err)
		}
		pt := map[string]string{"merge": client.MergePatch, "json": client.JSONPatch, "strategic": client.StrategicPatch}[st.PatchType]
		dyn := client.Dynamic(r.cl, infoOf(res2))
		ns := namespaceFor(res2, st.Target.Namespace)
		names, err := targetNames(ctx, dyn, ns, st.Target, 0)
		if err != nil {
			return fail("%v", err)
		}
		var lines []string
		for _, n := range names {
			if _, err := dyn.Patch(ctx, ns, n, pt, st.Patch); err != nil {
				return fail("%v", err)
			}
			lines = append(lines, kubectlName(res2, n)+" patched")
		}
		res.Message = strings.Join(lines, "\n")
	case OpScale:
		res2, err := r.resolve(st.Target)
		if err != nil {
			return fail("%v", err)
		}
		body := fmt.Sprintf(`{"spec":{"replicas":%d}}`, st.Replicas)
		if _, err := client.Dynamic(r.cl, infoOf(res2)).Patch(ctx, namespaceFor(res2, st.Target.Namespace), st.Target.Name,
			client.MergePatch, []byte(body), "scale"); err != nil {
			return fail("%v", err)
		}
		res.Message = kubectlName(res2, st.Target.Name) + " scaled"
	case OpStopNode, OpStartNode:
		kl, ok := r.c.Kubelet(st.Name)
		if !ok {
			return fail("no kubelet for node %s", st.Name)
		}
		if st.Op == OpStopNode {
			kl.Stop()
			res.Message = fmt.Sprintf(r.say.NodeStopped, st.Name)
		} else {
			kl.Start()
			res.Message = fmt.Sprintf(r.say.NodeStarted, st.Name)
		}
	case OpDevicePlugin:
		if err := r.plugins.setHealth(r.c, st.Name, st.Resource, st.Device, st.Healthy); err != nil {
			return fail("%v", err)
		}
		format := r.say.DeviceUnhealthy
		if st.Healthy {
			format = r.say.DeviceHealthy
		}
		res.Message = fmt.Sprintf(format, st.Device, st.Resource, st.Name)
	case OpStopComponent:
		if err := r.c.StopCandidate(st.Name); err != nil {
			return fail("%v", err)
		}
		res.Message = fmt.Sprintf(r.say.ComponentKilled, st.Name)
	case OpControllerOff, OpControllerOn:
		on := st.Op == OpControllerOn
		if err := r.c.SetEnabled(st.Name, on); err != nil {
			return fail("%v", err)
		}
		res.Message = fmt.Sprintf(r.say.TurnedOff, st.Name)
		if on {
			res.Message = fmt.Sprintf(r.say.TurnedOn, st.Name)
		}
	case OpExpect:
		return r.expect(ctx, st, res)
	case OpShow:
		return r.show(ctx, st, res)
	default:
		return fmt.Errorf("step %d: unhandled op %s", i+1, st.Op)
	}
	return nil
}

// apply creates or updates every manifest, as kubectl apply does
// (without its three-way merge: the object sent replaces the stored one).
func (r *Runner) apply(ctx context.Context, st *Step, res *StepResult) error {
	var lines []string
	var failure error
	var failedName string
	for _, m := range st.Manifests {
		apiVersion, _ := m.Object["apiVersion"].(string)
		kind, _ := m.Object["kind"].(string)
		rs, err := r.resolve(ObjectRef{APIVersion: apiVersion, Kind: kind})
		if err != nil {
			failure = fmt.Errorf("%s:%d: %w", m.File, m.Line, err)
			break
		}
		var u unstructured.Unstructured
		if err := u.FromMap(unstructured.DeepCopyMap(m.Object)); err != nil {
			failure = err
			break
		}
		u.Namespace = namespaceFor(rs, u.Namespace)
		dyn := client.Dynamic(r.cl, infoOf(rs))
		name := kubectlName(rs, u.Name)
		if u.Name == "" {
			created, err := dyn.Create(ctx, &u)
			if err != nil {
				failure, failedName = err, name
				break
			}
			lines = append(lines, kubectlName(rs, created.Name)+" created")
			continue
		}
		existing, err := dyn.Get(ctx, u.Namespace, u.Name)
		switch {
		case api.IsNotFound(err):
			if _, err := dyn.Create(ctx, &u); err != nil {
				failure, failedName = err, name
			} else {
				lines = append(lines, name+" created")
			}
		case err != nil:
			failure, failedName = err, name
		default:
			u.ResourceVersion = existing.ResourceVersion
			keepAdmittedPodFields(&u, existing)
			updated, err := dyn.Update(ctx, &u)
			switch {
			case err != nil:
				failure, failedName = err, name
			case updated.ResourceVersion == existing.ResourceVersion:
				lines = append(lines, name+" unchanged")
			default:
				lines = append(lines, name+" configured")
			}
		}
		if failure != nil {
			break
		}
	}
	res.Message = strings.Join(lines, "\n")
	switch {
	case st.Fails == nil && failure != nil:
		res.OK = false
		res.Expected = "the apply succeeds"
		res.Actual = describeErr(failure, failedName)
		res.Message = strings.TrimSpace(res.Message + "\n" + res.Actual)
	case st.Fails != nil && failure == nil:
		res.OK = false
		res.Expected = fmt.Sprintf("the apply fails with %s: %q", st.Fails.Reason, st.Fails.Message)
		res.Actual = "it succeeded: " + res.Message
	case st.Fails != nil:
		reason := string(api.ReasonForError(failure))
		res.Message = strings.TrimSpace(res.Message + "\n" + describeErr(failure, failedName))
		if reason != st.Fails.Reason || !strings.Contains(failure.Error(), st.Fails.Message) {
			res.OK = false
			res.Expected = fmt.Sprintf("the apply fails with %s and a message containing %q", st.Fails.Reason, st.Fails.Message)
			res.Actual = describeErr(failure, failedName)
		} else {
			res.Message = fmt.Sprintf(r.say.FailedAsExpected, describeErr(failure, failedName))
		}
	}
	return nil
}

// describeErr renders an API error as kubectl prints it.
func describeErr(err error, name string) string {
	reason := api.ReasonForError(err)
	if reason == "" || reason == metav1.StatusReasonUnknown {
		return "error: " + err.Error()
	}
	return fmt.Sprintf("Error from server (%s): %s", reason, err.Error())
}

// targetNames is the objects a delete or patch step acts on: its name, or
// every object its label (and field) selector matches, in name order, at
// most count of them when count > 0 — as `kubectl delete|annotate -l` picks.
func targetNames(ctx context.Context, dyn *client.Resource[*unstructured.Unstructured], ns string, t ObjectRef, count int) ([]string, error) {
	if t.Selector == "" && t.FieldSelector == "" {
		return []string{t.Name}, nil
	}
	l, err := dyn.List(ctx, ns, client.ListOptions{LabelSelector: t.Selector, FieldSelector: t.FieldSelector})
	if err != nil {
		return nil, fmt.Errorf("listing %s: %v", t, err)
	}
	var names []string
	for _, o := range l.Items {
		names = append(names, o.Name)
	}
	sort.Strings(names)
	if count > 0 && len(names) > count {
		names = names[:count]
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no %s matches %s", t.Kind, strings.TrimSpace(t.Selector+" "+t.FieldSelector))
	}
	return names, nil
}
