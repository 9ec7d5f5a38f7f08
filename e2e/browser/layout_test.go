package browser

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
	scenarios "github.com/kubesim/kubesim/examples/scenarios"
	"github.com/kubesim/kubesim/scenario"
	"github.com/kubesim/kubesim/stepper"
)

// shop30 is the Deployment of 30 replicas the layout is judged with.
const shop30 = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: shop
spec:
  replicas: 30
  selector:
    matchLabels:
      app: shop
  template:
    metadata:
      labels:
        app: shop
    spec:
      containers:
      - name: web
        image: nginx:1.25
`

// screens are the sizes the page is made for: a laptop, and a projector.
var screens = []struct{ w, h int64 }{{1400, 900}, {1920, 1080}}

// layoutFacts is what a student sees on the first screen, measured in
// the page.
type layoutFacts struct {
	// The page itself does not scroll: every pane is in the window.
	PageScrolls bool `json:"pageScrolls"`
	// Panes whose box is not wholly in the window.
	OffScreen []string `json:"offScreen"`
	// Node boxes that scroll on their own, or that the nodes pane does
	// not show whole.
	NodeScrolls []string `json:"nodeScrolls"`
	NodeHidden  []string `json:"nodeHidden"`
	// Chips whose name or label is cut.
	ChipsCut []string `json:"chipsCut"`
	Chips    int      `json:"chips"`
	// How many events the events pane shows.
	EventsShown int `json:"eventsShown"`
	// The language switch's text.
	Lang string `json:"lang"`
}

const measureLayout = `(() => {
	const W = innerWidth, H = innerHeight;
	const within = (el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= H + 0.5 && r.right <= W + 0.5; };
	const offScreen = ['top', 'loops-bar', 'current', 'nodes-panel', 'workloads-panel', 'events-panel', 'timeline-box', 'apply-box', 'btn-apply']
		.filter((id) => { const el = document.getElementById(id); return el && !el.closest('[hidden]') && !within(el); });
	const pane = document.getElementById('nodes-panel').getBoundingClientRect();
	const nodeScrolls = [], nodeHidden = [];
	for (const n of document.querySelectorAll('#nodes .node:not([hidden])')) {
		const p = n.querySelector('.pods');
		if (p.scrollHeight > p.clientHeight + 1) nodeScrolls.push(n.dataset.node);
		const r = n.getBoundingClientRect();
		if (r.top < pane.top - 0.5 || r.bottom > pane.bottom + 0.5) nodeHidden.push(n.dataset.node);
	}
	const chips = [...document.querySelectorAll('#nodes .pod')];
	const cut = chips.filter((c) => c.scrollWidth > c.clientWidth + 0.5 || [...c.children].some((s) => s.scrollWidth > s.clientWidth + 0.5))
		.map((c) => c.dataset.name);
	const box = document.getElementById('events-box').getBoundingClientRect();
	const eventsShown = [...document.querySelectorAll('#events li')].filter((li) => { const r = li.getBoundingClientRect(); return r.top >= box.top - 0.5 && r.bottom <= box.bottom + 0.5; }).length;
	return { pageScrolls: document.documentElement.scrollHeight > H + 0.5 || document.documentElement.scrollWidth > W + 0.5,
		offScreen, nodeScrolls, nodeHidden, chipsCut: cut, chips: chips.length, eventsShown, lang: document.getElementById('btn-lang').textContent };
})()`

// TestPageLayout: the demo, then a Deployment of 30 replicas applied from
// the page and stepped until most of its pods run, seen at 1400x900 and
// 1920x1080 in English and in Chinese. At each: the page fits the window
// (the timeline and the apply box in the first screen), the three nodes
// show whole with their ten pods each, no node box scrolls on its own,
// no chip's name or label is cut, the events pane shows ten events or more,
// and the language switch says its language's code in Latin letters
// (a machine without CJK fonts still shows "(zh)"). Screenshots go to
// the artifacts, and to $KUBESIM_PAGE_SHOTS when set (docs/page: make
// page-shots).
func TestPageLayout(t *testing.T) {
	s, err := scenario.LoadFS(scenarios.FS(), "demo.yaml")
	require.NoError(t, err)
	r, page := stepScenario(t, s)
	_, err = r.RunAll(context.Background())
	require.NoError(t, err)
	ctx := newBrowser(t)
	do(t, ctx,
		chromedp.EmulateViewport(screens[0].w, screens[0].h),
		chromedp.Navigate(page.LoginURL),
		waitJS(stepModeShown),
		chromedp.Evaluate[chromedp.Void](`localStorage.setItem('kubesim.lang', 'en')`),
		chromedp.SetValue(chromedp.ID("manifest"), shop30),
		chromedp.Click(chromedp.ID("btn-apply")),
		waitJS(`document.getElementById('apply-result').textContent.includes('deployment/shop applied')`),
	)
	// Step until 24 of the 30 pods are Ready: the picture has pods in
	// every stage. The test steps the cluster itself, as the page's step
	// button would but without a round trip and a render per unit (on a
	// loaded machine, 2,000 steps from the browser took minutes); the page
	// sees the pods through its watch, and its own last step shows a unit.
	stepUntilReady(t, r, "app=shop", 24)
	do(t, ctx,
		chromedp.Evaluate[chromedp.Void](`stepOnce()`, chromedp.EvalAwaitPromise),
		waitJS(podsOnNodes+` >= 24`),
	)
	for _, lang := range []string{"en", "zh"} {
		do(t, ctx,
			chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`localStorage.setItem('kubesim.lang', %q)`, lang)),
			chromedp.Reload(),
			waitJS(stepModeShown),
			waitJS(`document.documentElement.dataset.lang === '`+lang+`' && document.querySelectorAll('#nodes .node:not(.unscheduled)').length === 3 && S.pods.size === 30`),
			chromedp.SetValue(chromedp.ID("manifest"), shop30),
		)
		for _, sc := range screens {
			name := fmt.Sprintf("%dx%d-%s", sc.w, sc.h, lang)
			do(t, ctx,
				chromedp.EmulateViewport(sc.w, sc.h),
				// Two frames: the resize observed, the lists drawn again.
				chromedp.Evaluate[chromedp.Void](`new Promise((res) => requestAnimationFrame(() => requestAnimationFrame(res)))`, chromedp.EvalAwaitPromise),
				waitJS(`document.querySelectorAll('#nodes .pod').length === 30`))
			facts := eval[layoutFacts](t, ctx, measureLayout)
			t.Logf("%s: %+v", name, facts)
			png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(artifacts(t), "page-"+name+".png"), png, 0o644))
			if dir := os.Getenv("KUBESIM_PAGE_SHOTS"); dir != "" {
				require.NoError(t, os.MkdirAll(dir, 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644))
			}
			require.False(t, facts.PageScrolls, "%s: the page fits the window", name)
			require.Empty(t, facts.OffScreen, "%s: every pane in the first screen (the timeline and the apply box too)", name)
			require.Equal(t, 30, facts.Chips, "%s", name)
			require.Empty(t, facts.NodeScrolls, "%s: no node box scrolls on its own", name)
			require.Empty(t, facts.NodeHidden, "%s: the three nodes show whole", name)
			require.Empty(t, facts.ChipsCut, "%s: no chip's name or label is cut", name)
			require.GreaterOrEqual(t, facts.EventsShown, 10, "%s: the events pane shows ten events or more", name)
			want := map[string]string{"en": "中文 (zh)", "zh": "English (en)"}[lang]
			require.Equal(t, want, facts.Lang, "%s: the switch names its language in Latin letters too", name)
		}
	}
}

// stepUntilReady steps r's cluster one unit at a time, as the page's step
// button does once the scenario is done, until want pods matching selector
// are Ready (or the cluster has nothing left to do).
func stepUntilReady(t *testing.T, r *scenario.Runner, selector string, want int) {
	t.Helper()
	ctx := context.Background()
	cl := r.Cluster().Client("browser-test")
	for i := 0; ; i++ {
		l, err := cl.Pods().List(ctx, "default", client.ListOptions{LabelSelector: selector})
		require.NoError(t, err)
		ready := 0
		for j := range l.Items {
			if api.IsPodReady(l.Items[j]) {
				ready++
			}
		}
		if ready >= want {
			t.Logf("%d pods Ready after %d steps", ready, i)
			return
		}
		n, err := r.Cluster().RunUntilStable(ctx, stepper.Limits{MaxSteps: 1})
		if n == 1 && err != nil {
			continue // more to do after this one
		}
		require.NoError(t, err)
		require.Failf(t, "the cluster went idle", "only %d of %d pods of %s Ready", ready, want, selector)
	}
}
