package browser

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/cmd/kubesim/app"
	scenarios "github.com/kubesim/kubesim/examples/scenarios"
	"github.com/kubesim/kubesim/scenario"
	"github.com/kubesim/kubesim/stepper"
)

// chromiumPath finds Debian's chromium (or $CHROMIUM).
func chromiumPath(t testing.TB) string {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("no chromium: install Debian's chromium package (apt-get install -y chromium) or set $CHROMIUM")
	return ""
}

// newBrowser starts a headless Chromium at 1280x800, the size the page is
// made for; the context ends with the test.
func newBrowser(t testing.TB, extra ...chromedp.ExecAllocatorOption) context.Context {
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.NoSandbox, // the tests may run as root in a container
		chromedp.Flag("ignore-certificate-errors", true),
		chromedp.WindowSize(1280, 800),
	)
	opts = append(opts, extra...)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	require.NoError(t, chromedp.Do(ctx)) // starts the browser
	return ctx
}

// artifacts is where screenshots go: $KUBESIM_ARTIFACTS, or artifacts/
// beside this file (git-ignored).
func artifacts(t testing.TB) string {
	dir := os.Getenv("KUBESIM_ARTIFACTS")
	if dir == "" {
		dir = "artifacts"
	}
	require.NoError(t, os.MkdirAll(dir, 0o755))
	return dir
}

func screenshot(t testing.TB, ctx context.Context, name string) {
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(artifacts(t), name+".png"), png, 0o644))
}

// waitBound bounds every wait ($KUBESIM_BROWSER_WAIT, default 3m).
var waitBound = func() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("KUBESIM_BROWSER_WAIT")); err == nil {
		return d
	}
	return 3 * time.Minute
}()

// waitJS waits until a JavaScript expression is true in the page, asking
// again every 50ms. The bound is generous: a loaded machine is slow, and
// the wait is for a condition, not a time. Each check is a fresh
// evaluation in the current document, so a navigation (a form posted, a
// redirect) in between does no harm.
func waitJS(expr string) chromedp.Action[chromedp.Void] {
	check := chromedp.Evaluate[bool]("!!(" + expr + ")")
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		deadline := time.Now().Add(waitBound)
		var last error
		for time.Now().Before(deadline) {
			ok, err := check(ctx, t)
			if err == nil && ok {
				return chromedp.Void{}, nil
			}
			last = err
			select {
			case <-ctx.Done():
				return chromedp.Void{}, ctx.Err()
			case <-time.After(50 * time.Millisecond):
			}
		}
		return chromedp.Void{}, fmt.Errorf("waiting for %s: not true after %s (last error: %v)", expr, waitBound, last)
	}
}

func do(t testing.TB, ctx context.Context, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, actions...); err != nil {
		// What the page showed, to tell why.
		shown, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body ? document.body.innerText.slice(0, 3000) : ''`))
		screenshot(t, ctx, "failure-"+strings.ReplaceAll(t.Name(), "/", "_"))
		t.Fatalf("%v\nthe page showed:\n%s", err, shown)
	}
}

func eval[T any](t testing.TB, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	require.NoError(t, err)
	return v
}

func text(t testing.TB, ctx context.Context, id string) string {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.TextContent(chromedp.ID(id)))
	require.NoError(t, err)
	return v
}

// stepScenario starts the page over a step-mode scenario.
func stepScenario(t testing.TB, s *scenario.Scenario) (*scenario.Runner, *app.StepUI) {
	r, err := scenario.New(s, nil)
	require.NoError(t, err)
	page, err := app.StartStepUI(r, "127.0.0.1:0", nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = page.Close(); _ = r.Close() })
	return r, page
}

const threeNodes = `name: three nodes
cluster: {seed: 1, nodeCount: 3, stages: {containerCreating: 1s, running: 1s, ready: 1s}}
steps:
- runUntilStable
`

const webRS = `apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: web
spec:
  replicas: 3
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: nginx
        image: nginx:1.25
`

// podsOnNodes counts the Ready pods drawn inside a node's box.
const podsOnNodes = `document.querySelectorAll('#nodes .node:not(.unscheduled) .pod.Ready').length`

func TestLoginRequired(t *testing.T) {
	_, page := stepScenario(t, mustParse(t, threeNodes))
	ctx := newBrowser(t)
	do(t, ctx, chromedp.Navigate(page.URL), chromedp.WaitVisible(chromedp.ID("token")))
	loc, err := chromedp.Run(ctx, chromedp.Location())
	require.NoError(t, err)
	require.True(t, strings.HasSuffix(loc, "/ui/login"), "without a session the page is the login page: %s", loc)
	// Step mode has no kubeconfig: the login asks for what kubesim printed.
	help := text(t, ctx, "login-help")
	require.Contains(t, help, "Open the login link kubesim printed")
	require.NotContains(t, help, "kubeconfig")
	// A wrong token is refused with the login page's message.
	do(t, ctx,
		chromedp.SendKeys(chromedp.ID("token"), "not-the-token"),
		chromedp.Click(chromedp.ID("login-submit")),
		// The refusal is a new document: wait until it has loaded, or the
		// next keys may go to a node of the document being replaced
		// ("Could not find node with given id", seen on a loaded machine).
		waitJS(`document.readyState === 'complete' && document.getElementById('login-error') && document.getElementById('login-error').textContent.includes('did not accept')`))
	// The right token opens the page.
	do(t, ctx,
		chromedp.SendKeys(chromedp.ID("token"), page.Token),
		chromedp.Click(chromedp.ID("login-submit")),
		waitJS(stepModeShown))
	// The one-time link works once: a second use is refused.
	do(t, ctx, chromedp.Navigate(page.LoginURL), waitJS(stepModeShown))
	do(t, ctx, chromedp.Navigate(page.LoginURL),
		waitJS(`document.getElementById('login-error') && document.getElementById('login-error').textContent.includes('not valid')`))
	// The page's own logout passes the server's check that it comes from
	// the page (the browser says same-origin), and ends the session.
	do(t, ctx, chromedp.Navigate(page.URL), waitJS(stepModeShown),
		chromedp.Click(chromedp.ID("btn-logout")), chromedp.WaitVisible(chromedp.ID("token")))
	do(t, ctx, chromedp.Navigate(page.URL), chromedp.WaitVisible(chromedp.ID("token")))
	loc, err = chromedp.Run(ctx, chromedp.Location())
	require.NoError(t, err)
	require.True(t, strings.HasSuffix(loc, "/ui/login"), "after logging out the page is the login page: %s", loc)
}

// TestLoginFromAnotherSiteIsRefused: another site's page posts the login
// form with a token of its own choosing (login CSRF: the victim would
// then work in the attacker's session). The browser says the post is not
// same-origin, and the server refuses it: no session is opened.
func TestLoginFromAnotherSiteIsRefused(t *testing.T) {
	_, page := stepScenario(t, mustParse(t, threeNodes))
	attacker := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><form id="f" method="post" action="%slogin"><input name="token" value="%s"></form>`+
			`<script>document.getElementById('f').submit()</script>`, page.URL, html.EscapeString(page.Token))
	}))
	t.Cleanup(attacker.Close)
	ctx := newBrowser(t)
	do(t, ctx, chromedp.Navigate(attacker.URL),
		waitJS(`document.getElementById('login-error') && document.getElementById('login-error').textContent.includes('came from another site')`))
	do(t, ctx, chromedp.Navigate(page.URL), chromedp.WaitVisible(chromedp.ID("token")))
	loc, err := chromedp.Run(ctx, chromedp.Location())
	require.NoError(t, err)
	require.True(t, strings.HasSuffix(loc, "/ui/login"), "no session was opened: %s", loc)
}

const stepModeShown = `document.body.dataset.ready === 'true' && document.body.dataset.mode === 'step'`

// runIdle clicks Run and waits until the run is over (the page found
// nothing left to do).
func runIdle() chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		chromedp.Evaluate[chromedp.Void](`document.getElementById('current-write').dataset.idle = ''`),
		chromedp.Click(chromedp.ID("btn-run")),
		waitJS(`document.getElementById('current-write').dataset.idle === 'true' && !document.getElementById('btn-run').disabled`))
}

func mustParse(t testing.TB, src string) *scenario.Scenario {
	s, err := scenario.Parse("test.yaml", []byte(src), func(string) ([]byte, error) { return nil, os.ErrNotExist })
	require.NoError(t, err)
	return s
}

// TestReplicaSetInThePage: apply a ReplicaSet from the page, see three
// pods on nodes, delete one, see its replacement, and ask why it exists.
func TestReplicaSetInThePage(t *testing.T) {
	_, page := stepScenario(t, mustParse(t, threeNodes))
	ctx := newBrowser(t)
	do(t, ctx,
		chromedp.Navigate(page.LoginURL),
		waitJS(stepModeShown),
		runIdle(),
		waitJS(`document.querySelectorAll('#nodes .node:not(.unscheduled)').length === 3`),
		chromedp.SetValue(chromedp.ID("manifest"), webRS),
		chromedp.Click(chromedp.ID("btn-apply")),
		waitJS(`document.getElementById('apply-result').textContent.includes('replicaset/web applied')`),
		runIdle(),
		waitJS(podsOnNodes+` === 3`),
	)
	screenshot(t, ctx, "replicaset-three-pods")

	// Delete the first pod from its drawer.
	first := eval[[]string](t, ctx, `[...document.querySelectorAll('#nodes .pod.Ready')].map(e => e.dataset.name.split('/')[1])`)
	victim := first[0]
	do(t, ctx,
		chromedp.Click(chromedp.CSS(fmt.Sprintf(`.pod[data-name="default/%s"]`, victim))),
		chromedp.WaitVisible(chromedp.ID("drawer")),
		waitJS(`document.getElementById('pod-yaml') && document.getElementById('pod-yaml').textContent.includes('kind: Pod')`),
		chromedp.Click(chromedp.ID("btn-delete")),
		waitJS(`document.getElementById('drawer').hidden`), // the DELETE was answered
		runIdle(),
		waitJS(fmt.Sprintf(`!document.querySelector('.pod[data-name="default/%s"]') && %s === 3`, victim, podsOnNodes)),
	)
	screenshot(t, ctx, "replicaset-replacement")

	// The replacement: the Ready pod whose name is new.
	names := eval[[]string](t, ctx, `[...document.querySelectorAll('#nodes .pod.Ready')].map(e => e.dataset.name.split('/')[1])`)
	require.Len(t, names, 3)
	require.NotContains(t, names, victim)
	newest := ""
	for _, n := range names {
		if !slices.Contains(first, n) {
			newest = n
		}
	}
	require.NotEmpty(t, newest, "a pod that was not there before the delete")

	// Its "why": the chain from the ReplicaSet controller's create back
	// to the page's delete of the old pod.
	do(t, ctx,
		chromedp.Click(chromedp.CSS(fmt.Sprintf(`.pod[data-name="default/%s"]`, newest))),
		chromedp.Click(chromedp.ID("tab-why")),
		waitJS(`document.getElementById('why') && document.getElementById('why').textContent.length > 0`))
	why := text(t, ctx, "why")
	t.Logf("why %s:\n%s", newest, why)
	require.Contains(t, why, "It was created by: create /api/v1/namespaces/default/pods 201")
	require.Contains(t, why, "made by replicaset")
	require.Contains(t, why, "written by you: the web page")
	screenshot(t, ctx, "why")

	// The scheduler's decision for it: every node, filters and scores.
	do(t, ctx,
		chromedp.Click(chromedp.ID("tab-sched")),
		waitJS(`document.querySelectorAll('#sched tr').length === 4`))
	require.Equal(t, 3, eval[int](t, ctx, `document.querySelectorAll('#sched td.pass').length`), "three nodes passed every filter")

	// The ReplicaSet's own why: the page's apply.
	do(t, ctx,
		chromedp.Click(chromedp.CSS(`#workloads li[data-kind="ReplicaSet"] > button.open`)),
		waitJS(`document.getElementById('drawer-title').textContent === 'ReplicaSet default/web'`),
		chromedp.Click(chromedp.ID("tab-why")),
		waitJS(`document.getElementById('why') && document.getElementById('why').textContent.length > 0`))
	require.Contains(t, text(t, ctx, "why"), "You created it: the web page: patch /apis/apps/v1/namespaces/default/replicasets/web 201")

	// Scale up with the ReplicaSet's + button: a fourth pod.
	do(t, ctx,
		chromedp.Click(chromedp.ID("drawer-close")),
		chromedp.Click(chromedp.CSS(`#workloads li[data-kind="ReplicaSet"] button[data-scale="1"]`)),
		waitJS(`!!document.querySelector('#workloads li[data-kind="ReplicaSet"]') && document.querySelector('#workloads li[data-kind="ReplicaSet"]').textContent.includes('/4 ready')`),
		runIdle(),
		waitJS(podsOnNodes+` === 4`))

	// The garbage collector off: the ReplicaSet deleted, its pods stay.
	do(t, ctx,
		chromedp.Click(chromedp.CSS(`#switches-box summary`)),
		chromedp.Click(chromedp.CSS(`#switches input[data-switch="garbagecollector"]`)),
		waitJS(`document.querySelector('.loop[data-switch="garbagecollector"]').classList.contains('off')`),
		chromedp.Evaluate[chromedp.Void](`fetch('/apis/apps/v1/namespaces/default/replicasets/web', {method: 'DELETE', headers: {'X-Kubesim-UI': '1'}}).then(r => { window.rsDeleted = r.status })`),
		waitJS(`window.rsDeleted === 200 && !document.querySelector('#workloads li[data-kind="ReplicaSet"]')`),
		runIdle(),
	)
	require.Equal(t, 4, eval[int](t, ctx, podsOnNodes), "without the garbage collector the pods outlive their owner")
	screenshot(t, ctx, "gc-off-orphans")
	// On again: it collects them.
	do(t, ctx,
		chromedp.Click(chromedp.CSS(`#switches input[data-switch="garbagecollector"]`)),
		waitJS(`!document.querySelector('.loop[data-switch="garbagecollector"]').classList.contains('off')`),
		runIdle(),
		waitJS(`S.pods.size === 0 && document.querySelectorAll('#nodes .pod').length === 0`))

	// Stop node-1's kubelet: after the grace period (40s of the cluster's
	// clock) the node lifecycle controller marks it; start it again and
	// it is Ready once more.
	do(t, ctx,
		chromedp.Click(chromedp.CSS(`.node[data-node="node-1"] .node-toggle`)),
		waitJS(`document.querySelector('.node[data-node="node-1"] .node-toggle').textContent === 'Start node'`),
		chromedp.SetValue(chromedp.ID("advance-seconds"), "60"),
		chromedp.Click(chromedp.ID("btn-advance")),
		waitJS(`document.querySelector('.node[data-node="node-1"]').classList.contains('notready')`))
	require.Contains(t, eval[string](t, ctx, `document.querySelector('.node[data-node="node-1"] .status').textContent`), "✖")
	screenshot(t, ctx, "node-stopped")
	do(t, ctx,
		chromedp.Click(chromedp.CSS(`.node[data-node="node-1"] .node-toggle`)),
		waitJS(`document.querySelector('.node[data-node="node-1"] .node-toggle').textContent === 'Stop node'`),
		runIdle(),
		waitJS(`!document.querySelector('.node[data-node="node-1"]').classList.contains('notready')`))
}

// TestStepThroughDemo steps through the demo with the keyboard and checks,
// at every unit, that the page shows the unit's write: the text of the
// trace's entry, and the written pod highlighted.
func TestStepThroughDemo(t *testing.T) {
	s, err := scenario.LoadFS(scenarios.FS(), "demo.yaml")
	require.NoError(t, err)
	r, page := stepScenario(t, s)
	ctx := newBrowser(t)
	do(t, ctx, chromedp.Navigate(page.LoginURL), waitJS(stepModeShown))
	highlightedPods, checked, shot := 0, 0, false
	cl := r.Cluster().Client("browser-test")
	for i := 0; !r.Done() && i < 1000; i++ {
		do(t, ctx,
			chromedp.Evaluate[chromedp.Void](`document.getElementById('current-write').dataset.answered = ''`),
			chromedp.KeyEvent("s"),
			waitJS(`document.getElementById('current-write').dataset.answered === 'true'`))
		tr := r.Cluster().Trace()
		idx := eval[int](t, ctx, `Number(document.getElementById('current-write').dataset.index ?? -1)`)
		if idx < 0 || idx != len(tr)-1 {
			continue // a step of the scenario that runs no loop (a note, an apply, a check)
		}
		last := tr[idx]
		checked++
		shown := text(t, ctx, "current-write")
		if last.Actor != "" {
			require.Contains(t, shown, last.Actor+" reconciled "+last.Key, "unit %d", idx)
		}
		for _, w := range last.Writes {
			if strings.Contains(w.Path, "/events") {
				continue
			}
			require.Contains(t, shown, w.String(), "unit %d", idx)
			if key, ok := livePodKey(w); ok {
				// A pod this unit wrote, and that is still there, is shown
				// highlighted once the watch brings it.
				parts := strings.Split(key, "/")
				if _, err := cl.Pods().Get(context.Background(), parts[1], parts[2]); err == nil {
					do(t, ctx, waitJS(fmt.Sprintf(`!!document.querySelector('#nodes .pod.hl[data-key="%s"]')`, key)))
					highlightedPods++
				}
			}
		}
		if !shot && idx >= 60 {
			shot = true
			screenshot(t, ctx, "demo-step")
		}
	}
	require.True(t, r.Done(), "the demo ran to its end from the page")
	require.False(t, r.Failed(), "the demo's checks passed when stepped from the page")
	t.Logf("%d units checked, %d pods seen highlighted, %d trace entries", checked, highlightedPods, len(r.Cluster().Trace()))
	require.Greater(t, checked, len(r.Cluster().Trace())*3/4, "every unit but the clock's moves inside one is checked")
	require.Positive(t, highlightedPods)

	// The timeline: one unit back shows that unit, rebuilt from the trace.
	tr := r.Cluster().Trace()
	do(t, ctx, chromedp.KeyEvent(kb.ArrowLeft), chromedp.WaitVisible(chromedp.ID("past-banner")))
	require.Equal(t, strings.TrimSpace(tr[len(tr)-2].String()), strings.TrimSpace(text(t, ctx, "timeline-entry")))
	screenshot(t, ctx, "demo-timeline")

	// Back to the ReplicaSet controller's first pod: the state rebuilt
	// there holds every kind the page shows — the ReplicaSet the scenario
	// applied (a user's write, put in by its resourceVersion), its pod, the
	// events written so far — while the ReplicaSet is long gone now.
	first := -1
	for i, e := range tr {
		for _, w := range e.Writes {
			if first < 0 && e.Actor == "replicaset" && w.Verb == "create" && strings.HasSuffix(w.Path, "/pods") {
				first = i
			}
		}
	}
	require.Positive(t, first)
	do(t, ctx, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`scrub(%d)`, first)),
		waitJS(fmt.Sprintf(`document.getElementById('timeline-pos').textContent === 'unit %d of %d'`, first+1, len(tr))),
		waitJS(`!!document.querySelector('#past-workloads li[data-key="replicasets/default/web"]') && document.querySelectorAll('#past-nodes .pod').length >= 1`),
		waitJS(`document.querySelectorAll('#past-events li').length >= 1 && !document.getElementById('past-workloads').hidden && document.getElementById('workloads').hidden`))
	require.True(t, strings.HasPrefix(eval[string](t, ctx, `document.querySelector('#past-workloads li[data-key="replicasets/default/web"]').textContent`), "web "))
	screenshot(t, ctx, "demo-timeline-kinds")
	do(t, ctx, chromedp.Click(chromedp.ID("btn-now")), waitJS(`document.getElementById('past-banner').hidden && !document.getElementById('workloads').hidden`))
}

// livePodKey is the page's key of the pod a write touched
// (pods/NAMESPACE/NAME), for writes that leave the pod in place.
func livePodKey(w stepper.Write) (string, bool) {
	parts := strings.Split(strings.Trim(w.Path, "/"), "/")
	// api v1 namespaces NS pods [NAME [SUB]]
	if len(parts) < 5 || parts[0] != "api" || parts[4] != "pods" || w.Verb == "delete" || w.Code >= 300 {
		return "", false
	}
	name := w.Name
	if len(parts) > 5 {
		name = parts[5]
	}
	return "pods/" + parts[3] + "/" + name, name != ""
}
