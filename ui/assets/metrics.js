// The metrics panel: the API server's request rate and the controllers'
// queue depths, drawn as inline SVG from the cluster's own /metrics (the
// Prometheus text a scraper reads, with the session's credentials: the
// user needs what kubectl get --raw /metrics needs). The rest of the page
// never polls; this panel samples every two seconds, as a scraper does,
// and only while it is open, so a closed panel costs the server nothing.
'use strict';

const METRICS = { every: 2000, keep: 60, samples: [], timer: null, queues: new Map() };

// parseMetrics reads the text exposition: name{labels} value, one sample
// a line; comments and blank lines skipped. Enough for counters and
// gauges (histogram lines come through as their _bucket/_sum/_count).
function parseMetrics(text) {
  const out = [];
  for (const line of text.split('\n')) {
    if (!line || line[0] === '#') continue;
    const m = line.match(/^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)/);
    if (!m) continue;
    const labels = {};
    for (const l of (m[3] || '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2];
    out.push({ name: m[1], labels, value: Number(m[4]) });
  }
  return out;
}

async function sampleMetrics() {
  let r;
  try { r = await api('/metrics'); } catch (e) { return; }
  const note = $('metrics-note');
  if (!r.ok) {
    note.textContent = t('metrics.denied', { code: r.status });
    return;
  }
  const series = parseMetrics(await r.text());
  let requests = 0;
  const depths = new Map();
  for (const s of series) {
    if (s.name === 'apiserver_request_total') requests += s.value;
    else if (s.name === 'workqueue_depth') depths.set(s.labels.name, s.value);
  }
  const now = performance.now();
  const prev = METRICS.samples[METRICS.samples.length - 1];
  // A counter's rate between two scrapes, as PromQL's rate() works it out.
  const rate = prev ? Math.max(0, requests - prev.requests) / ((now - prev.at) / 1000) : 0;
  METRICS.samples.push({ at: now, requests, rate, depths });
  if (METRICS.samples.length > METRICS.keep) METRICS.samples.shift();
  note.textContent = t('metrics.note', { n: METRICS.samples.length, s: METRICS.every / 1000 });
  drawMetrics();
}

const QUEUE_COLOURS = ['#1f6fb2', '#b42318', '#1a7f37', '#b8860b', '#5b5b9b', '#7a4b00'];

// drawMetrics draws the two charts: the request rate, and the depth of
// the queues that held keys within the window (the six deepest), each a
// polyline over the samples, with the latest value in the legend.
function drawMetrics() {
  const ss = METRICS.samples;
  const W = 300, H = 80;
  // The newest sample at the right edge; older ones scroll left.
  const x = (i) => W - ((ss.length - 1 - i) / (METRICS.keep - 1)) * W;
  const line = (values, max, colour, name) => {
    const pts = values.map((v, i) => x(i).toFixed(1) + ',' + (H - 2 - (v / (max || 1)) * (H - 6)).toFixed(1)).join(' ');
    return `<polyline fill="none" stroke="${colour}" stroke-width="2" points="${pts}" data-series="${esc(name)}"/>`;
  };
  const rates = ss.map((s) => s.rate);
  const maxRate = Math.max(1, ...rates);
  $('metrics-rate').innerHTML = `<title>${esc(t('metrics.rate'))}</title>` + line(rates, maxRate, '#1d1d1b', 'requests');
  $('metrics-rate-now').textContent = t('metrics.rate.now', { rate: (rates[rates.length - 1] || 0).toFixed(1), max: maxRate.toFixed(1) });

  const peak = new Map();
  for (const s of ss) for (const [q, d] of s.depths) peak.set(q, Math.max(peak.get(q) || 0, d));
  const shown = [...peak].filter(([, p]) => p > 0).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, QUEUE_COLOURS.length);
  const maxDepth = Math.max(1, ...shown.map(([, p]) => p));
  let svg = `<title>${esc(t('metrics.queues'))}</title>`;
  const legend = [];
  shown.forEach(([q], i) => {
    svg += line(ss.map((s) => s.depths.get(q) || 0), maxDepth, QUEUE_COLOURS[i], q);
    const last = ss[ss.length - 1].depths.get(q) || 0;
    legend.push(`<li data-queue="${esc(q)}"><span class="swatch" style="background:${QUEUE_COLOURS[i]}"></span>${esc(q)} <b>${last}</b></li>`);
  });
  $('metrics-queues').innerHTML = svg;
  $('metrics-legend').innerHTML = legend.length ? legend.join('') : `<li class="muted">${esc(t('metrics.queues.idle'))}</li>`;
}

// The panel samples while open.
function watchMetricsPanel() {
  const box = $('metrics-box');
  if (!box) return;
  box.addEventListener('toggle', () => {
    clearInterval(METRICS.timer);
    METRICS.timer = null;
    if (!box.open) return;
    METRICS.samples = [];
    sampleMetrics();
    METRICS.timer = setInterval(sampleMetrics, METRICS.every);
  });
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', watchMetricsPanel);
else watchMetricsPanel();
