package browser

import (
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// The metrics panel: opened, it samples the cluster's /metrics and draws
// the request rate and the controllers' queue depths as inline SVG; a
// Deployment applied from the page makes the rate move.
func TestMetricsPanel(t *testing.T) {
	srv := serveLive(t, 1, false)
	ctx := newBrowser(t)
	do(t, ctx,
		chromedp.Navigate(srv.UILoginURL),
		waitJS(liveShown),
		chromedp.Click(chromedp.CSS(`#metrics-box summary`)),
		// Two samples make a rate; the queues of the controllers are read.
		waitJS(`METRICS.samples.length >= 2 && METRICS.samples[METRICS.samples.length - 1].depths.has('deployment')`),
		chromedp.SetValue(chromedp.ID("manifest"), webDeployment),
		chromedp.Click(chromedp.ID("btn-apply")),
		waitJS(`document.getElementById('apply-result').textContent.includes('deployment/shop applied')`),
		// The page's own requests and the controllers' are counted: the
		// rate line rises above its floor.
		waitJS(`METRICS.samples.some((s) => s.rate > 0)`),
		waitJS(`document.querySelector('#metrics-rate polyline[data-series="requests"]').getAttribute('points').split(' ').length >= 3`),
	)
	require.Contains(t, text(t, ctx, "metrics-rate-now"), "/s")
	require.Contains(t, text(t, ctx, "metrics-note"), "/metrics")
	legend := text(t, ctx, "metrics-legend")
	require.NotEmpty(t, legend)
	screenshot(t, ctx, "live-metrics")

	// Closed, it stops sampling.
	n := eval[int](t, ctx, `METRICS.samples.length`)
	do(t, ctx, chromedp.Click(chromedp.CSS(`#metrics-box summary`)), waitJS(`METRICS.timer === null`))
	require.LessOrEqual(t, eval[int](t, ctx, `METRICS.samples.length`), n+1)
}
