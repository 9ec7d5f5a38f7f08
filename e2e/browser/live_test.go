package browser

import (
	"context"
	"fmt"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/cmd/kubesim/app"
)

// serveLive starts `kubesim serve` in process: HTTPS, RBAC, the page at
// /ui/ on the same port.
func serveLive(t testing.TB, nodes int, apiOnly bool) *app.Server {
	srv, err := app.Start(context.Background(), app.Options{DataDir: t.TempDir(), Addr: "127.0.0.1:0",
		UnsafeNoFsync: true, Nodes: nodes, APIServerOnly: apiOnly, StageDelay: 20 * time.Millisecond})
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Shutdown(5 * time.Second) })
	return srv
}

const liveShown = `document.body.dataset.ready === 'true' && document.body.dataset.mode === 'live'`

const webDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: shop
spec:
  replicas: 2
  selector:
    matchLabels:
      app: shop
  template:
    metadata:
      labels:
        app: shop
    spec:
      containers:
      - name: c
        image: nginx:1.25
`

// TestLivePage: the page over a live `kubesim serve`, opened with the
// one-time link: a Deployment applied from it shows as Deployment →
// ReplicaSet → Pods, the pods Ready on nodes.
func TestLivePage(t *testing.T) {
	srv := serveLive(t, 2, false)
	ctx := newBrowser(t)
	do(t, ctx,
		chromedp.Navigate(srv.UILoginURL),
		waitJS(liveShown),
		waitJS(`document.querySelectorAll('#nodes .node:not(.unscheduled)').length === 2`),
		chromedp.SetValue(chromedp.ID("manifest"), webDeployment),
		chromedp.Click(chromedp.ID("btn-apply")),
		waitJS(`document.getElementById('apply-result').textContent.includes('deployment/shop applied')`),
		waitJS(`document.querySelectorAll('#nodes .node:not(.unscheduled) .pod.Ready').length === 2`),
		// The tree's rows: each Pod's path goes through its ReplicaSet to the Deployment.
		waitJS(`document.querySelectorAll('#workloads li[data-kind="Pod"][data-path^="Deployment/default/shop>ReplicaSet/default/shop-"][aria-level="3"]').length === 2`),
	)
	// The strip says what runs, as the watches bring it.
	do(t, ctx, waitJS(`document.getElementById('current-step').textContent.startsWith('Live: 2 nodes, 2 pods (2 running).')`))
	// Live mode has no stepper: its controls are not shown.
	require.False(t, eval[bool](t, ctx, `!!document.getElementById('btn-step').offsetParent`), "no Step button in live mode")
	// The loops that wrote lit up (the activity feed of live mode).
	for _, loop := range []string{"deployment-controller", "replicaset-controller", "default-scheduler"} {
		do(t, ctx, waitJS(fmt.Sprintf(`Number(document.querySelector('.loop[data-name="%s"] .count').textContent) > 0`, loop)))
	}
	screenshot(t, ctx, "live-deployment")

	// "Why does this exist?" in live mode: the chain the step trace would
	// give, from the ReplicaSet controller's create back to the page's apply.
	// The YAML the drawer opens on is made to answer last (the page's
	// fetch of it waits 300ms): the "why" asked for after it must stay.
	pod := eval[string](t, ctx, `document.querySelector('#nodes .pod.Ready').dataset.name`)
	do(t, ctx,
		chromedp.Evaluate[chromedp.Void](`(() => {
			const real = window.fetch;
			window.fetch = (u, o) => String(u).includes('/ui/api/yaml')
				? new Promise((res) => setTimeout(res, 300)).then(() => real(u, o)).then((r) => { window.yamlAnswered = true; window.fetch = real; return r; })
				: real(u, o);
		})()`),
		chromedp.Click(chromedp.CSS(fmt.Sprintf(`.pod[data-name="%s"]`, pod))),
		chromedp.Click(chromedp.ID("tab-why")),
		waitJS(`window.yamlAnswered === true`),
		waitJS(`document.getElementById('why') && document.getElementById('why').textContent.length > 0`))
	require.False(t, eval[bool](t, ctx, `!!document.getElementById('pod-yaml')`), "the YAML that answered late drew over the why")
	why := text(t, ctx, "why")
	t.Logf("why %s:\n%s", pod, why)
	require.Contains(t, why, "It was created by: create /api/v1/namespaces/default/pods 201")
	require.Contains(t, why, "made by replicaset")
	require.Contains(t, why, "written by deployment")
	require.Contains(t, why, "written by you: admin, with the web page: patch /apis/apps/v1/namespaces/default/deployments/shop 201")
	screenshot(t, ctx, "live-why")
	// The scheduler's decision, for each of the two pods (not only the last).
	for _, p := range eval[[]string](t, ctx, `[...document.querySelectorAll('#nodes .pod.Ready')].map(e => e.dataset.uid)`) {
		do(t, ctx,
			chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`openPod(%q)`, p)),
			chromedp.Click(chromedp.ID("tab-sched")),
			waitJS(`document.querySelectorAll('#sched tr').length === 3 && document.querySelectorAll('#sched td.pass').length === 2`))
	}
	do(t, ctx, chromedp.Click(chromedp.ID("drawer-close")))

	// The garbage collector off, from the page (the admin may: the login
	// link's session is system:masters): the Deployment deleted, its
	// ReplicaSet and pods stay; on again, a new collector removes them.
	do(t, ctx,
		chromedp.Click(chromedp.CSS(`#switches-box summary`)),
		chromedp.Click(chromedp.CSS(`#switches input[data-switch="garbagecollector"]`)),
		waitJS(`document.querySelector('.loop[data-switch="garbagecollector"]').classList.contains('off')`),
		chromedp.Evaluate[chromedp.Void](`fetch('/apis/apps/v1/namespaces/default/deployments/shop', {method: 'DELETE', headers: {'X-Kubesim-UI': '1'}}).then(r => { window.deployDeleted = r.status })`),
		waitJS(`window.deployDeleted === 200 && !document.querySelector('#workloads li[data-kind="Deployment"]')`),
	)
	require.Empty(t, text(t, ctx, "switch-error"))
	require.Equal(t, 2, eval[int](t, ctx, podsOnNodes), "without the garbage collector the pods outlive their Deployment")
	do(t, ctx,
		chromedp.Click(chromedp.CSS(`#switches input[data-switch="garbagecollector"]`)),
		waitJS(`!document.querySelector('.loop[data-switch="garbagecollector"]').classList.contains('off')`),
		waitJS(`S.pods.size === 0 && S.replicasets.size === 0`))

	// A mistake is shown beside its line, in the server's words.
	do(t, ctx,
		chromedp.SetValue(chromedp.ID("manifest"), "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: bad\nspec:\n  replicas: -2\n"),
		chromedp.Click(chromedp.ID("btn-apply")),
		waitJS(`!!document.querySelector('.line-error[data-line="6"]')`))
	msg := text(t, ctx, "apply-result")
	require.Contains(t, msg, "spec.replicas: Invalid value: -2: must be greater than or equal to 0")
	screenshot(t, ctx, "live-apply-error")
}

// TestLivePageOpenedAfterKubectl: the student applies a Deployment with
// kubectl, then opens the page. Its strip says what runs (not "Nothing
// has run yet." over running pods); the Deployment's "why" names
// kubectl's write (the users' writes are recorded from the server's
// start); a pod's "why" says its creator's write came before the page
// was first opened, not that the API server made it; and a type error
// in the apply box goes beside the line of the offending field.
func TestLivePageOpenedAfterKubectl(t *testing.T) {
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Fatalf("kubectl is required: %v", err)
	}
	srv := serveLive(t, 2, false)
	cmd := exec.Command("kubectl", "--kubeconfig", srv.Kubeconfig, "--cache-dir", t.TempDir(), "apply", "-f", "-")
	cmd.Stdin = strings.NewReader(strings.Replace(webDeployment, "replicas: 2", "replicas: 3", 1))
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Equal(t, "deployment.apps/shop created\n", string(out))
	cl := srv.Cluster().Client("test")
	require.Eventually(t, func() bool {
		l, err := cl.Pods().List(context.Background(), "default", client.ListOptions{})
		if err != nil || len(l.Items) != 3 {
			return false
		}
		for _, p := range l.Items {
			if p.Status.Phase != corev1.PodRunning {
				return false
			}
		}
		return true
	}, waitBound, 20*time.Millisecond)

	ctx := newBrowser(t)
	do(t, ctx,
		chromedp.Navigate(srv.UILoginURL),
		waitJS(liveShown),
		waitJS(podsOnNodes+` === 3`))
	do(t, ctx, waitJS(`document.getElementById('current-step').textContent.includes('3 pods (3 running)')`))
	require.NotContains(t, eval[string](t, ctx, `document.body.innerText`), "Nothing has run yet")
	// Below it, the latest write (a kubelet's heartbeat, say), or that
	// none came since the page opened.
	cw := text(t, ctx, "current-write")
	require.True(t, cw == "No control loop has written since this page opened." || strings.Contains(cw, " → "), cw)

	// The Deployment: kubectl made it, before the page was opened.
	do(t, ctx,
		chromedp.Click(chromedp.CSS(`#workloads li[data-kind="Deployment"] > button.open`)),
		waitJS(`document.getElementById('drawer-title').textContent === 'Deployment default/shop'`),
		chromedp.Click(chromedp.ID("tab-why")),
		waitJS(`document.getElementById('why') && document.getElementById('why').textContent.length > 0`))
	why := text(t, ctx, "why")
	t.Logf("why deployment/shop:\n%s", why)
	require.Regexp(t, `^You created it: admin, with kubectl/v\S+: create /apis/apps/v1/namespaces/default/deployments 201 rv=\d+\n$`, why)
	screenshot(t, ctx, "live-why-kubectl")
	// One of its pods: the ReplicaSet controller made it before the page
	// was opened, when no loop's write was recorded.
	pod := eval[string](t, ctx, `document.querySelector('#nodes .pod.Ready').dataset.uid`)
	do(t, ctx,
		chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`openPod(%q)`, pod)),
		chromedp.Click(chromedp.ID("tab-why")),
		waitJS(`document.getElementById('why') && document.getElementById('why').textContent.startsWith('No recorded write')`))
	why = text(t, ctx, "why")
	require.Contains(t, why, "a control loop made it before the page was first opened")
	require.NotContains(t, why, "API server itself")
	do(t, ctx, chromedp.Click(chromedp.ID("drawer-close")))

	// A type error: the server's answer names spec.replicas, and the page
	// puts it beside line 6, not line 1.
	do(t, ctx,
		chromedp.SetValue(chromedp.ID("manifest"), "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: bad\nspec:\n  replicas: three\n"),
		chromedp.Click(chromedp.ID("btn-apply")),
		waitJS(`!!document.querySelector('.line-error')`))
	require.Equal(t, []string{"6"}, eval[[]string](t, ctx, `[...document.querySelectorAll('.line-error')].map((e) => e.dataset.line)`))
	require.Contains(t, eval[string](t, ctx, `document.querySelector('.line-error').textContent`), "spec.replicas: ")
	require.Contains(t, text(t, ctx, "apply-result"), "cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32")
	screenshot(t, ctx, "live-apply-type-error")
}

// BenchmarkPageUpdateLatency measures the time from a write (a pod
// created by the page's own fetch) to the pod's chip in the DOM, with
// 1,000 pods on the page; it reports p50 and p99 in milliseconds. The
// cluster is the API server alone, so the figure is the watch path's:
// API server → watch → the page's batched render. The lists are virtual
// (only the chips in view are in the DOM), so each new pod is named to
// sort first in its box (a99999, a99998, ...): it lands in view, and the
// figure is the time until the user can see it.
//
// plain: 1,000 pods that nothing owns (the figure docs/performance.md
// compares over time); owned: the 1,000 pods and the 200 new ones owned by
// a ReplicaSet, with 300 events, so that every write also changes the
// workloads tree.
func BenchmarkPageUpdateLatency(b *testing.B) {
	b.Run("plain", func(b *testing.B) { benchPageUpdateLatency(b, false) })
	b.Run("owned", func(b *testing.B) { benchPageUpdateLatency(b, true) })
}

func benchPageUpdateLatency(b *testing.B, owned bool) {
	srv := serveLive(b, 0, true)
	owner := "null"
	if owned {
		fillCluster(b, srv, 1000, 300)
		rs, err := srv.Cluster().Client("bench").ReplicaSets().Get(context.Background(), "default", "bulk")
		require.NoError(b, err)
		owner = fmt.Sprintf(`[{apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'bulk', uid: %q, controller: true}]`, rs.UID)
	} else {
		cl := srv.Cluster().Client("bench")
		for i := range 1000 {
			_, err := cl.Pods().Create(context.Background(), &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("bulk-%04d", i), Namespace: "default"},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}})
			require.NoError(b, err)
		}
	}
	ctx := newBrowser(b)
	do(b, ctx, chromedp.Navigate(srv.UILoginURL), waitJS(liveShown), waitJS(`document.getElementById('pod-count').textContent === '1000 pods'`))
	const samples = 200
	b.ResetTimer()
	var lat, post, event, draw []float64
	for n := 0; n < b.N; n++ {
		got, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](fmt.Sprintf(`(async () => {
			const lat = [];
			for (let k = 0; k < %d; k++) {
				const name = 'a' + String(99999 - (%d * %d + k)).padStart(5, '0');
				const seen = new Promise((res) => {
					const obs = new MutationObserver(() => {
						if (document.querySelector('.pod[data-name="default/' + name + '"]')) { obs.disconnect(); res(); }
					});
					obs.observe(document.getElementById('nodes'), { childList: true, subtree: true });
				});
				let tEvent = 0;
				const orig = onWatchEvent;
				onWatchEvent = function (o) { if (o.metadata && o.metadata.name === name && !tEvent) tEvent = performance.now(); return orig(o); };
				const t0 = performance.now();
				const r = await fetch('/api/v1/namespaces/default/pods', { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Kubesim-UI': '1' },
					body: JSON.stringify({ metadata: { name, ownerReferences: %s }, spec: { containers: [{ name: 'c', image: 'nginx' }] } }) });
				if (!r.ok) throw new Error('create: ' + r.status);
				const t1 = performance.now();
				await seen;
				onWatchEvent = orig;
				lat.push(performance.now() - t0, t1 - t0, tEvent - t0);
			}
			return lat;
		})()`, samples, n, samples, owner), chromedp.EvalAwaitPromise))
		require.NoError(b, err)
		for i := 0; i+2 < len(got); i += 3 {
			lat = append(lat, got[i])
			post = append(post, got[i+1])
			event = append(event, got[i+2])
			draw = append(draw, got[i]-got[i+2]) // the page's own part: event to DOM
		}
	}
	b.StopTimer()
	sort.Float64s(lat)
	sort.Float64s(post)
	sort.Float64s(event)
	sort.Float64s(draw)
	pct := func(s []float64, p float64) float64 { return s[min(len(s)-1, int(p*float64(len(s))))] }
	b.ReportMetric(pct(lat, 0.50), "p50-ms")
	b.ReportMetric(pct(lat, 0.99), "p99-ms")
	b.ReportMetric(pct(post, 0.50), "post-p50-ms")
	b.ReportMetric(pct(event, 0.50), "event-p50-ms")
	b.ReportMetric(pct(draw, 0.50), "draw-p50-ms")
	b.ReportMetric(pct(draw, 0.99), "draw-p99-ms")
	b.ReportMetric(float64(len(lat))/float64(b.N), "writes/op")
	b.Logf("pods on the page: %d; write→DOM over %d writes: p50 %.1fms p99 %.1fms max %.1fms; the POST's answer: p50 %.1fms p99 %.1fms; the watch event in the page: p50 %.1fms p99 %.1fms; the event to the DOM: p50 %.1fms p99 %.1fms; chips in the DOM: %d",
		1000+len(lat), len(lat), pct(lat, 0.5), pct(lat, 0.99), slices.Max(lat), pct(post, 0.5), pct(post, 0.99), pct(event, 0.5), pct(event, 0.99),
		pct(draw, 0.5), pct(draw, 0.99), eval[int](b, ctx, `document.querySelectorAll('#nodes .pod').length`))
}
