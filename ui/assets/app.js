// kubesim's page. It reads the cluster only through the API server's own
// list and watch endpoints (fetch streaming, never polling) and writes
// through the API, so its writes are a client's like any other. Rendering
// is batched: watch events change the maps, one animation frame redraws.
'use strict';

const HDR = { 'X-Kubesim-UI': '1' };

async function api(path, opts = {}) {
  opts.headers = Object.assign({}, HDR, opts.headers || {});
  opts.credentials = 'same-origin';
  const r = await fetch(path, opts);
  if (r.status === 401) {
    // The session expired or was never valid: back to the login page.
    location.href = '/ui/login';
    throw new Error('Unauthorized');
  }
  return r;
}

const $ = (id) => document.getElementById(id);
const esc = (s) => String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));

// The cluster as the watches tell it, by uid.
const S = {
  nodes: new Map(), pods: new Map(), replicasets: new Map(), deployments: new Map(),
  statefulsets: new Map(), events: new Map(), apiservices: new Map(), crds: new Map(),
  custom: new Map(), // uid -> custom resource (with _plural)
};
const customWatches = new Set();
let info = { mode: 'live', loops: [], switches: [] };
let trace = [];          // the step-mode trace entries, in order
let viewing = -1;        // the timeline position scrubbed to (-1: now)
let shownEntry = null;   // the entry the current-write box shows
let scenarioShown = null; // the scenario's state as last told
let highlighted = [];    // the keys the current write touched

// ---- list + watch ----------------------------------------------------
//
// Each resource is listed, then watched from the list's resourceVersion,
// as a reflector does. The watches share one connection (/ui/api/watch
// relays the API server's own watch streams, event for event): a browser
// opens at most six HTTP/1.1 connections to a host, and the page must
// still reach the server when it watches eight resources.

const watchers = [];   // {path, map, kind, rv, stop}
let hubAbort = null;

async function listInto(w) {
  for (;;) {
    try {
      const r = await api(w.path);
      if (!r.ok) throw new Error(w.path + ': ' + r.status);
      const list = await r.json();
      w.map.clear();
      if (w.kind === 'Pod') dirty.allPods = true;
      onWatchEvent({ kind: w.kind, metadata: {} });
      for (const o of list.items || []) { o.kind = o.kind || w.kind; w.map.set(o.metadata.uid, o); onWatchEvent(o); }
      w.rv = list.metadata.resourceVersion;
      changed();
      return;
    } catch (e) {
      if (String(e.message) === 'Unauthorized') throw e;
      console.warn('list', w.path, e);
      await new Promise((res) => setTimeout(res, 1000)); // a reflector's back-off
    }
  }
}

async function listWatch(path, map, kind, stop) {
  const w = { path, map, kind, rv: '', stop };
  await listInto(w);
  watchers.push(w);
  if (hubAbort) hubAbort.abort(); // the hub starts again with this watch in it
}

async function hubLoop() {
  for (;;) {
    const live = watchers.filter((w) => !(w.stop && w.stop()));
    if (!live.length) { await new Promise((res) => setTimeout(res, 100)); continue; }
    const ctrl = new AbortController();
    hubAbort = ctrl;
    const q = live.map((w) => 'path=' + encodeURIComponent(w.path + (w.path.includes('?') ? '&' : '?') +
      'watch=1&allowWatchBookmarks=true&resourceVersion=' + encodeURIComponent(w.rv))).join('&');
    let relist = null;
    try {
      const r = await api('/ui/api/watch?' + q, { signal: ctrl.signal });
      if (!r.ok) throw new Error('watch: ' + r.status);
      const reader = r.body.getReader();
      const dec = new TextDecoder();
      let buf = '';
      while (!relist) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += dec.decode(value, { stream: true });
        let i;
        while (!relist && (i = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, i).trim();
          buf = buf.slice(i + 1);
          if (!line) continue;
          const m = JSON.parse(line);
          const w = live[m.i];
          if (!m.e) { relist = w; break; }       // the watch ended or was refused
          const ev = m.e;
          if (ev.type === 'ERROR') { relist = w; break; } // 410 Gone: list again
          const o = ev.object;
          if (o.metadata && o.metadata.resourceVersion) w.rv = o.metadata.resourceVersion;
          if (ev.type === 'BOOKMARK') continue;
          o.kind = o.kind || w.kind;
          if (ev.type === 'DELETED') w.map.delete(o.metadata.uid); else w.map.set(o.metadata.uid, o);
          onWatchEvent(o);
          changed();
        }
      }
      ctrl.abort();
    } catch (e) {
      if (String(e.message) === 'Unauthorized') return;
      if (e.name !== 'AbortError') { console.warn('watch', e); await new Promise((res) => setTimeout(res, 1000)); }
    }
    if (relist) await listInto(relist);
  }
}

// What changed since the last frame: render touches only that, so a
// change among 1,000 pods costs one chip, not a thousand.
const dirty = { pods: new Set(), allPods: true, nodes: true, workloads: true, events: true, apiservices: true };

function onWatchEvent(o) {
  switch (o.kind) {
    case 'Pod': dirty.pods.add(o.metadata.uid); dirty.workloads = true; break;
    case 'Node': dirty.nodes = true; break;
    case 'Event': dirty.events = true; break;
    case 'APIService': dirty.apiservices = true; break;
    default: dirty.workloads = true;
  }
}

// ---- virtual lists ----------------------------------------------------
//
// With a thousand pods the page draws only what is in view: a VList keeps
// a list's keys in order and puts in the DOM the rows (or, for chips, the
// rows of a grid) that the scroll position shows, plus a few either side;
// a padding above them and the list's full height keep the scrollbar
// true. Elements are made by the caller and kept by key, so a row that
// scrolls away and back is the same element. The arrow keys, Home, End,
// PageUp and PageDown move the focus over the whole list, not only over
// what is drawn.

const vlists = []; // every VList, to measure again when the root font size changes

class VList {
  // opts: make(key) -> element (made or refreshed), rowEm: a row's height
  // in em, colPx: a grid's narrowest column in px (a function: the chips'
  // measured width), label.
  constructor(scroller, inner, opts) {
    this.scroller = scroller;
    this.inner = inner;
    this.make = opts.make;
    this.rowEm = opts.rowEm;
    this.colPx = opts.colPx || null;
    this.keys = [];
    this.top = 0;
    this.width = 0;
    this.height = 0;
    this.pending = false;
    inner.classList.add('vinner');
    vlists.push(this);
    scroller.addEventListener('scroll', () => { this.top = scroller.scrollTop; this.schedule(); });
    inner.addEventListener('keydown', (ev) => this.onKey(ev));
    // Sizes come from the observer, never read while drawing: drawing many
    // lists in one frame does not force a layout per list.
    const ro = new ResizeObserver((entries) => {
      for (const e of entries) {
        if (e.target === scroller) this.height = e.contentRect.height;
        else this.width = e.contentRect.width;
      }
      this.schedule();
    });
    ro.observe(scroller);
    ro.observe(inner);
  }

  schedule() {
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => { this.pending = false; this.draw(); });
  }

  setKeys(keys) { this.keys = keys; this.draw(); }

  metrics() {
    if (!this.fontPx) this.fontPx = parseFloat(getComputedStyle(this.inner).fontSize) || 15;
    const rowH = Math.round(this.rowEm * this.fontPx);
    const colPx = this.colPx ? this.colPx() : 0;
    const cols = colPx && this.width ? Math.max(1, Math.floor(this.width / colPx)) : 1;
    // Before the first measure, draw as much as a tall box shows.
    const viewH = this.height || 30 * rowH;
    return { rowH, cols, viewH };
  }

  draw() {
    const { rowH, cols, viewH } = this.metrics();
    const n = this.keys.length;
    const rows = Math.ceil(n / cols);
    const r0 = Math.max(0, Math.floor(this.top / rowH) - 4);
    const r1 = Math.min(rows, Math.ceil((this.top + viewH) / rowH) + 4);
    const st = this.inner.style;
    const height = rows * rowH + 'px';
    if (st.height !== height) st.height = height;
    const pad = r0 * rowH + 'px';
    if (st.paddingTop !== pad) st.paddingTop = pad;
    const auto = rowH + 'px';
    if (st.gridAutoRows !== auto) st.gridAutoRows = auto;
    const tmpl = 'repeat(' + cols + ', minmax(0, 1fr))';
    if (st.gridTemplateColumns !== tmpl) st.gridTemplateColumns = tmpl;
    const want = [];
    for (let i = r0 * cols; i < Math.min(n, r1 * cols); i++) want.push(this.make(this.keys[i]));
    // Keep in place what stays (the focused row is not moved, so it
    // keeps the focus); add the rest in order.
    const keep = new Set(want);
    for (const el of [...this.inner.children]) if (!keep.has(el)) el.remove();
    let cur = this.inner.firstElementChild;
    for (const el of want) {
      if (el === cur) { cur = cur.nextElementSibling; continue; }
      this.inner.insertBefore(el, cur);
    }
  }

  // reveal scrolls the list so that key is in view.
  reveal(key) {
    const i = this.keys.indexOf(key);
    if (i < 0) return;
    const { rowH, cols, viewH } = this.metrics();
    const top = Math.floor(i / cols) * rowH;
    if (top < this.top) this.scroller.scrollTop = top;
    else if (top + rowH > this.top + viewH) this.scroller.scrollTop = top + rowH - viewH;
    else return;
    this.top = this.scroller.scrollTop;
    this.draw();
  }

  onKey(ev) {
    const el = ev.target.closest('[data-vkey]');
    if (!el || !this.inner.contains(el)) return;
    const { cols, viewH, rowH } = this.metrics();
    const page = Math.max(1, Math.floor(viewH / rowH)) * cols;
    const step = { ArrowDown: cols, ArrowUp: -cols, ArrowRight: this.colPx ? 1 : 0, ArrowLeft: this.colPx ? -1 : 0,
      PageDown: page, PageUp: -page, Home: -Infinity, End: Infinity }[ev.key];
    if (step === undefined) return;
    ev.preventDefault();
    ev.stopPropagation(); // the page's own keys (the timeline's arrows) are not for a list
    const i = this.keys.indexOf(el.dataset.vkey);
    if (i < 0 || !step) return;
    const j = Math.max(0, Math.min(this.keys.length - 1, i + step));
    this.reveal(this.keys[j]);
    const row = this.make(this.keys[j]);
    const target = row.matches('button, [tabindex]') ? row : row.querySelector('button, [tabindex]') || row;
    target.focus({ preventScroll: true });
  }
}

// ---- rendering -------------------------------------------------------

let pending = false;
function changed() {
  if (pending) return;
  pending = true;
  requestAnimationFrame(() => { pending = false; render(); });
}

function podStage(p) {
  if (p.metadata.deletionTimestamp) return 'Terminating';
  const phase = (p.status && p.status.phase) || 'Pending';
  if (phase === 'Running') {
    const ready = (p.status.conditions || []).find((c) => c.type === 'Ready');
    return ready && ready.status === 'True' ? 'Ready' : 'Running';
  }
  if (phase === 'Pending') {
    for (const cs of (p.status && p.status.containerStatuses) || []) {
      if (cs.state && cs.state.waiting && cs.state.waiting.reason) return cs.state.waiting.reason === 'ContainerCreating' ? 'ContainerCreating' : 'Pending';
    }
    return p.spec.nodeName ? 'ContainerCreating' : 'Pending';
  }
  return phase;
}
const SHAPE = { Pending: '◌', ContainerCreating: '◐', Running: '●', Ready: '✔', Terminating: '▼', Failed: '✖', Succeeded: '■' };
// A chip's label: the stage, ContainerCreating said short (its title,
// its aria-label and the tree say it whole).
const CHIP_LABEL = { ContainerCreating: 'Creating' };

function chipHTML(stage, name, label = CHIP_LABEL[stage] || stage) {
  return '<span class="shape" aria-hidden="true">' + esc(SHAPE[stage]) + '</span><span class="name">' + esc(name) +
    '</span><span class="label">' + esc(label) + '</span>';
}

// chip is the width every pod chip is given: the widest chip the pods'
// names make, with the widest label, so that no chip's name or label is
// cut and a chip does not change size as its pod goes through its
// stages. The names are measured on a canvas (no layout), the widest one
// once more as a chip (a probe, laid out off screen); the node boxes are
// made at least that wide (--node-min).
const chip = { px: 0, longest: null, probe: null, ctx: null, widths: new Map(), label: '' };

function measureChips() {
  if (!chip.probe) {
    chip.probe = document.createElement('span');
    chip.probe.className = 'pod Ready probe';
    chip.probe.setAttribute('aria-hidden', 'true');
    chip.probe.innerHTML = chipHTML('Ready', 'x');
    document.body.appendChild(chip.probe);
  }
  if (!chip.ctx) {
    chip.ctx = document.createElement('canvas').getContext('2d');
    const label = chip.probe.querySelector('.label');
    chip.ctx.font = getComputedStyle(label).font;
    let widest = -1;
    for (const st of Object.keys(SHAPE)) {
      const w = chip.ctx.measureText(CHIP_LABEL[st] || st).width;
      if (w > widest) { widest = w; chip.label = CHIP_LABEL[st] || st; }
    }
    chip.ctx.font = getComputedStyle(chip.probe.querySelector('.name')).font;
  }
  let longest = '', lw = -1;
  for (const key of podByKey.keys()) {
    const name = key.slice(key.lastIndexOf('/') + 1);
    let w = chip.widths.get(name);
    if (w === undefined) { w = chip.ctx.measureText(name).width; chip.widths.set(name, w); }
    if (w > lw) { lw = w; longest = name; }
  }
  if (chip.widths.size > 4 * podByKey.size + 1000) chip.widths.clear(); // names of pods long gone
  if (longest === chip.longest) return false;
  chip.longest = longest;
  chip.probe.innerHTML = chipHTML('Ready', longest || 'x', chip.label);
  chip.px = Math.ceil(chip.probe.getBoundingClientRect().width) + 6; // the chip's margins, and a rounding
  // The box: its border and padding. (A box of hundreds of pods, which
  // scrolls, is narrower inside by its scrollbar.)
  $('nodes').style.setProperty('--node-min', (chip.px + 16) + 'px');
  return true;
}

// A change of the root font size (the projector's breakpoint, style.css)
// changes every row's height and every chip's width: measure again.
matchMedia('(min-width: 1800px)').addEventListener('change', () => {
  chip.ctx = null; chip.longest = null; chip.widths.clear();
  measureChips();
  for (const l of vlists) { l.fontPx = 0; l.draw(); }
});

const podEls = new Map();   // uid -> the pod's chip (a button), in the DOM only while in view
const podHome = new Map();  // uid -> the node box it is listed in ('' for not scheduled)
const podByKey = new Map(); // pods/NS/NAME -> uid
const podKey = new Map();   // uid -> pods/NS/NAME
const nodeEls = new Map();  // node name (or '' for unscheduled) -> {box, pods, list, uids, dirty}

function nodeBox(name) {
  let n = nodeEls.get(name);
  if (n) return n;
  const box = document.createElement('div');
  box.className = 'node' + (name ? '' : ' unscheduled');
  box.dataset.node = name;
  box.innerHTML = '<header><h3></h3><span class="status"></span><span class="npods muted"></span>' +
    (name ? '<button class="node-toggle" data-action="stop"></button>' : '') + '</header><div class="pods"><div role="group"></div></div>';
  box.querySelector('h3').textContent = name || t('unscheduled');
  const btn = box.querySelector('.node-toggle');
  if (btn) { btn.textContent = t('node.stop'); btn.addEventListener('click', () => toggleNode(name, btn.dataset.action)); }
  const scroller = box.querySelector('.pods');
  const inner = scroller.firstElementChild;
  inner.setAttribute('aria-label', t('node.pods', { node: name || t('unscheduled') }));
  n = { box, pods: inner, status: box.querySelector('.status'), npods: box.querySelector('.npods'), btn, uids: new Set(), dirty: false };
  n.list = new VList(scroller, inner, { make: podChip, rowEm: 1.8, colPx: () => chip.px });
  nodeEls.set(name, n);
  if (name) $('nodes').appendChild(box); else $('nodes').prepend(box);
  return n;
}

// podChip makes (or refreshes) a pod's chip.
function podChip(uid) {
  let el = podEls.get(uid);
  if (!el) {
    el = document.createElement('button');
    el.className = 'pod';
    el.dataset.uid = uid;
    el.dataset.vkey = uid;
    el.addEventListener('click', () => openPod(el.dataset.uid));
    podEls.set(uid, el);
  }
  const p = S.pods.get(uid);
  if (p) updateChip(el, p);
  el.classList.toggle('hl', highlighted.includes(el.dataset.key));
  return el;
}

function updateChip(el, p) {
  const stage = podStage(p);
  const text = SHAPE[stage] + ' ' + p.metadata.name;
  const where = p.spec.nodeName || '';
  if (el.dataset.stage === stage && el.dataset.text === text && el.dataset.where === where && el.dataset.lang === LANG) return;
  el.dataset.stage = stage;
  el.dataset.text = text;
  el.dataset.where = where;
  el.dataset.lang = LANG;
  el.className = 'pod ' + stage;
  el.innerHTML = chipHTML(stage, p.metadata.name);
  el.title = p.metadata.name;
  el.dataset.name = p.metadata.namespace + '/' + p.metadata.name;
  el.dataset.key = 'pods/' + p.metadata.namespace + '/' + p.metadata.name;
  el.setAttribute('aria-label', t('pod.aria', { name: p.metadata.name, stage, where: where ? t('pod.on', { node: where }) : t('pod.nowhere') }));
  if (highlighted.includes(el.dataset.key)) el.classList.add('hl');
}

function render() {
  const nodesChanged = dirty.nodes;
  if (dirty.nodes) {
    dirty.nodes = false;
    // Nodes, sorted by name, each with its status.
    const names = [...S.nodes.values()].map((n) => n.metadata.name).sort();
    let added = false;
    for (const name of names) { if (!nodeEls.has(name)) added = true; nodeBox(name); }
    for (const node of S.nodes.values()) {
      const nb = nodeBox(node.metadata.name);
      const ready = ((node.status && node.status.conditions) || []).find((c) => c.type === 'Ready');
      const st = ready ? (ready.status === 'True' ? 'Ready' : 'NotReady') : 'Unknown';
      const label = st === 'Ready' ? '✔ Ready' : '✖ ' + st;
      if (nb.status.textContent !== label) nb.status.textContent = label;
      nb.box.classList.toggle('notready', st !== 'Ready');
      nb.box.dataset.key = 'nodes//' + node.metadata.name;
    }
    for (const [name, nb] of nodeEls) {
      if (name && !names.includes(name)) { nb.box.remove(); nodeEls.delete(name); added = true; }
    }
    if (added) dirty.allPods = true; // pods may have a box to move to now
  }
  // Pods: each changed one joins the list of its node's box (only the
  // lists whose members changed are sorted again), and its chip, if it
  // has one, is refreshed.
  const unscheduled = nodeBox('');
  const uids = dirty.allPods ? new Set([...S.pods.keys(), ...podHome.keys()]) : dirty.pods;
  let namesChanged = false;
  const podsChanged = uids.size > 0; // (dirty.pods is cleared below)
  dirty.allPods = false;
  for (const uid of uids) {
    const p = S.pods.get(uid);
    const was = podHome.get(uid);
    const home = !p ? undefined : (p.spec.nodeName && nodeEls.has(p.spec.nodeName) ? p.spec.nodeName : '');
    if (was !== home) {
      const from = was === undefined ? null : nodeEls.get(was);
      if (from) { from.uids.delete(uid); from.dirty = true; }
      if (home === undefined) podHome.delete(uid); else { podHome.set(uid, home); const to = nodeEls.get(home); to.uids.add(uid); to.dirty = true; }
    }
    if (!p) {
      const el = podEls.get(uid);
      if (el) { el.remove(); podEls.delete(uid); }
      if (podKey.has(uid)) { podByKey.delete(podKey.get(uid)); podKey.delete(uid); namesChanged = true; }
      continue;
    }
    const key = 'pods/' + p.metadata.namespace + '/' + p.metadata.name;
    if (!podByKey.has(key)) namesChanged = true;
    podByKey.set(key, uid);
    podKey.set(uid, key);
    const el = podEls.get(uid);
    if (el) updateChip(el, p);
  }
  dirty.pods.clear();
  // A new longest name widens every chip (and a gone one narrows them).
  const widths = namesChanged && measureChips();
  namesChanged = false;
  for (const nb of nodeEls.values()) {
    if (!nb.dirty) { if (widths) nb.list.draw(); continue; }
    nb.dirty = false;
    nb.npods.textContent = t(nb.uids.size === 1 ? 'node.npod' : 'node.npods', { n: nb.uids.size });
    const keys = [...nb.uids];
    const nameOf = (u) => { const p = S.pods.get(u); return p ? p.metadata.namespace + '/' + p.metadata.name : ''; };
    const names = new Map(keys.map((u) => [u, nameOf(u)]));
    keys.sort((a, b) => (names.get(a) < names.get(b) ? -1 : names.get(a) > names.get(b) ? 1 : 0));
    nb.list.setKeys(keys);
    // In step mode a pod the current unit wrote, arrived by its watch
    // only now, is brought into view.
    if (info.mode === 'step') for (const k of highlighted) { const u = podByKey.get(k); if (u !== undefined && nb.uids.has(u)) nb.list.reveal(u); }
  }
  unscheduled.box.hidden = unscheduled.uids.size === 0;
  $('pod-count').textContent = t('pods.count', { n: S.pods.size });
  if (info.mode === 'live' && (podsChanged || nodesChanged)) describeLive();
  if (dirty.workloads) { dirty.workloads = false; renderWorkloads(); applyHighlight(); }
  if (dirty.events) { dirty.events = false; renderEvents(); }
  if (dirty.apiservices) { dirty.apiservices = false; renderAPIServices(); }
}

function resourceOf(o) {
  switch (o.kind) {
    case 'Pod': return 'pods';
    case 'Node': return 'nodes';
    case 'ReplicaSet': return 'replicasets';
    case 'Deployment': return 'deployments';
    case 'StatefulSet': return 'statefulsets';
    default: return o._plural || o.kind.toLowerCase() + 's';
  }
}

// The workloads tree, flattened into rows (a row's depth is its
// aria-level; its path names its owners), drawn as a virtual list.
let wlRows = new Map();   // row key (its path) -> {o, depth, path}
const wlEls = new Map();  // row key -> li
let wlList = null;

function wlRow(key) {
  let el = wlEls.get(key);
  if (!el) {
    el = document.createElement('li');
    el.setAttribute('role', 'treeitem');
    el.dataset.vkey = key;
    wlEls.set(key, el);
  }
  const row = wlRows.get(key);
  if (!row) return el;
  const o = row.o;
  let label = '<span class="kind">' + esc(o.kind) + '</span>' + esc(o.metadata.name);
  if (o.kind === 'Pod') {
    const st = podStage(o);
    label = '<span class="kind">Pod</span>' + esc(SHAPE[st] + ' ' + o.metadata.name) + ' <span class="label">' + esc(st) + '</span>';
  }
  let html = '<button class="open" data-open="' + esc(o.metadata.uid) + '" aria-label="' + esc(t('open', { kind: o.kind, name: o.metadata.name })) + '">' + label + '</button>';
  if (['ReplicaSet', 'Deployment', 'StatefulSet'].includes(o.kind)) {
    const want = o.spec.replicas ?? 1;
    const have = (o.status && o.status.readyReplicas) || 0;
    html += ' <span class="scale">' + esc(t('ready.of', { have, want })) +
      '<button data-scale="-1" aria-label="' + esc(t('scale.down', { name: o.metadata.name })) + '">−</button>' +
      '<button data-scale="1" aria-label="' + esc(t('scale.up', { name: o.metadata.name })) + '">+</button></span>';
  }
  if (el.dataset.html !== html) {
    el.dataset.html = html;
    el.innerHTML = html;
    el.querySelector('button.open').dataset.vkey = key; // the arrow keys move from it
  }
  const dataKey = resourceOf(o) + '/' + (o.metadata.namespace || '') + '/' + o.metadata.name;
  if (el.dataset.key !== dataKey) el.dataset.key = dataKey;
  el.dataset.uid = o.metadata.uid;
  el.dataset.kind = o.kind;
  el.dataset.path = row.path;
  el.setAttribute('aria-level', String(row.depth + 1));
  el.style.paddingLeft = (row.depth * 1.1) + 'em';
  el.classList.toggle('hl', highlighted.includes(dataKey));
  return el;
}

function renderWorkloads() {
  if (!wlList) wlList = new VList($('workloads'), $('workloads-tree'), { make: wlRow, rowEm: 1.8 });
  // Who owns what, in one pass (not a search of every object per row).
  const kids = new Map();
  for (const m of [S.replicasets, S.pods, S.custom, S.statefulsets, S.deployments]) {
    for (const o of m.values()) {
      for (const r of o.metadata.ownerReferences || []) {
        if (!kids.has(r.uid)) kids.set(r.uid, []);
        kids.get(r.uid).push(o);
      }
    }
  }
  const roots = [];
  for (const m of [S.deployments, S.statefulsets, S.custom, S.replicasets]) {
    for (const o of m.values()) if (!(o.metadata.ownerReferences || []).length) roots.push(o);
  }
  roots.sort((a, b) => (a.kind + a.metadata.name).localeCompare(b.kind + b.metadata.name));
  const rows = new Map();
  const walk = (o, depth, parent) => {
    const path = (parent ? parent + '>' : '') + o.kind + '/' + (o.metadata.namespace ? o.metadata.namespace + '/' : '') + o.metadata.name;
    if (rows.has(path)) return;
    rows.set(path, { o, depth, path });
    if (depth >= 4) return;
    const ks = (kids.get(o.metadata.uid) || []).slice().sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
    for (const k of ks) walk(k, depth + 1, path);
  };
  for (const r of roots) walk(r, 0, '');
  wlRows = rows;
  for (const k of wlEls.keys()) if (!rows.has(k)) { wlEls.get(k).remove(); wlEls.delete(k); }
  $('workloads-empty').hidden = rows.size > 0;
  wlList.setKeys([...rows.keys()]);
}

const evEls = new Map(); // event uid -> li
let evList = null;

function evRow(uid) {
  let el = evEls.get(uid);
  if (!el) { el = document.createElement('li'); el.dataset.vkey = uid; el.tabIndex = 0; evEls.set(uid, el); }
  const e = S.events.get(uid);
  if (!e) return el;
  // Two lines, as kubectl get events reads: the reason, the object and
  // who reported it; then the message.
  const io = e.involvedObject || {};
  const src = (e.source && e.source.component) || e.reportingComponent || '';
  const html = '<span class="what">' + (src ? '<span class="src muted">' + esc(src) + '</span>' : '') + '<b>' + esc(e.reason) + '</b> ' +
    esc(io.kind) + '/' + esc(io.name) + (e.count > 1 ? ' <span class="muted">×' + e.count + '</span>' : '') + '</span>' +
    '<span class="msg">' + esc(e.message) + '</span>';
  if (el.dataset.html !== html) { el.dataset.html = html; el.innerHTML = html; el.className = e.type || ''; el.title = e.message || ''; }
  return el;
}

function renderEvents() {
  if (!evList) evList = new VList($('events-box'), $('events'), { make: evRow, rowEm: 2.9 });
  $('event-count').textContent = S.events.size ? String(S.events.size) : '';
  const rv = new Map();
  for (const [uid, e] of S.events) rv.set(uid, Number(e.metadata.resourceVersion) || 0);
  const keys = [...S.events.keys()].sort((a, b) => rv.get(b) - rv.get(a)); // the newest first
  for (const k of evEls.keys()) if (!S.events.has(k)) { evEls.get(k).remove(); evEls.delete(k); }
  evList.setKeys(keys);
}

// The APIServices, folded away under a summary that says how many are
// available and names those that are not, and those served elsewhere
// (an extension API server: the aggregator's lab), which are the ones a
// student looks for.
function renderAPIServices() {
  const svcs = [...S.apiservices.values()].sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
  const availableOf = (s) => { const c = ((s.status && s.status.conditions) || []).find((x) => x.type === 'Available'); return c ? c.status : 'Unknown'; };
  const down = svcs.filter((s) => availableOf(s) !== 'True').map((s) => s.metadata.name);
  const remote = svcs.filter((s) => s.spec && s.spec.service && availableOf(s) === 'True').map((s) => s.metadata.name);
  $('apiservices-summary').innerHTML = esc(t('apiservices.summary', { n: svcs.length, up: svcs.length - down.length })) +
    (down.length ? ' <span class="bad">✖ ' + esc(t('not.available')) + ': ' + esc(down.join(', ')) + '</span>' : '') +
    (remote.length ? ' · ' + esc(t('apiservices.remote')) + ': ' + esc(remote.join(', ')) : '');
  $('apiservices').innerHTML = svcs.map((s) => {
    const c = ((s.status && s.status.conditions) || []).find((x) => x.type === 'Available');
    const st = c ? c.status : 'Unknown';
    const where = s.spec && s.spec.service ? ' → ' + s.spec.service.namespace + '/' + s.spec.service.name : ' ' + t('local');
    return '<li><span class="avail-' + esc(st) + '">' + esc(s.metadata.name) + '</span> <span class="muted">' +
      esc(st === 'True' ? t('available') : t('not.available') + (c && c.reason ? ': ' + c.reason : '')) + esc(where) + '</span></li>';
  }).join('');
}

// describeLive says, in live mode, what runs: the nodes and pods (how
// many run), and, until a loop writes, that none has since the page
// opened (liveWrite then shows each write).
function describeLive() {
  let running = 0;
  for (const p of S.pods.values()) { const st = podStage(p); if (st === 'Running' || st === 'Ready') running++; }
  $('current-step').textContent = t('live.summary', { nodes: S.nodes.size, pods: S.pods.size, running });
  const cw = $('current-write');
  if (cw.dataset.live !== 'write') { cw.textContent = t('live.nowrite'); cw.dataset.live = 'none'; }
}

// ---- step mode: the current write, the loops, the timeline ------------

// keyOfWrite maps a write's path to the data-key of what it touched.
function keyOfWrite(w) {
  const parts = w.path.split('/').filter(Boolean);
  // /api/v1/[namespaces/NS/]RES[/NAME[/SUB]] or /apis/G/V/...
  let i = parts[0] === 'api' ? 2 : 3;
  let ns = '';
  if (parts[i] === 'namespaces' && parts.length > i + 2) { ns = parts[i + 1]; i += 2; }
  const res = parts[i];
  const name = parts[i + 1] || w.name || '';
  return res + '/' + ns + '/' + name;
}

// applyHighlight marks what the current write touched; with reveal (a
// unit of work shown in step mode), a pod out of its list's view is
// scrolled into it first — not in live mode, where writes come faster
// than anyone reads and the lists stay where the user scrolled them.
function applyHighlight(reveal = false) {
  for (const el of document.querySelectorAll('.hl')) el.classList.remove('hl');
  for (const k of highlighted) {
    const uid = reveal ? podByKey.get(k) : undefined;
    if (uid !== undefined) { const nb = nodeEls.get(podHome.get(uid)); if (nb) nb.list.reveal(uid); }
    for (const el of document.querySelectorAll('[data-key="' + CSS.escape(k) + '"]')) el.classList.add('hl');
  }
}

// noteOf is an entry's (or a step answer's) note in the page's language.
function noteOf(x) { return LANG === 'zh' && x.note_zh ? x.note_zh : x.note; }

// showEntry shows a trace entry as the current one: its text, its
// writes highlighted, its loop lit (appendEntries counts it).
function showEntry(e) {
  describeEntry(e);
  if (!e) return;
  $('current-write').dataset.index = e.index;
  highlighted = e.writes.filter((w) => !w.path.includes('/events')).map(keyOfWrite);
  applyHighlight(true);
  for (const el of document.querySelectorAll('.loop')) el.classList.toggle('active', el.dataset.name === e.actor);
}

function describeEntry(e) {
  const lines = [];
  if (!e) { $('current-write').textContent = t('nothing.yet'); return; }
  if (e.note) lines.push('[' + e.elapsed + '] ' + noteOf(e));
  else {
    lines.push('[' + e.elapsed + '] ' + t('reconciled', { actor: e.actor, key: e.key }) + (e.cause ? t('saw', { cause: e.cause }) : '') + (e.err ? t('error', { err: e.err }) : ''));
    const ws = e.writes.filter((w) => !w.path.includes('/events'));
    for (const w of ws) lines.push('  → ' + w.text);
    if (!e.writes.length) lines.push(t('no.change'));
    else if (!ws.length) lines.push(t('events.recorded', { n: e.writes.length }));
  }
  shownEntry = e;
  $('current-write').textContent = lines.join('\n');
}

// The row of loops. A cluster has some forty; most do nothing in a given
// lesson, so the row shows those that have worked (units of work in step
// mode, writes in live mode, since the page opened), and those switched
// off; the rest are one click away.
const loopCounts = new Map(); // loop name -> how often it worked
let loopsAll = false;         // the idle loops shown too

function renderLoops() {
  $('loops').innerHTML = info.loops.map((l) => {
    const n = loopCounts.get(l.name) || 0;
    return '<span class="loop' + (n ? '' : ' idle') + '" data-name="' + esc(l.name) + '" data-switch="' + esc(l.switch) +
      '">' + esc(l.name) + '<span class="count">' + (n || '') + '</span></span>';
  }).join('') + (info.mode === 'live' ? ' <span class="muted loops-note">' + esc(t('loops.live')) + '</span>' : '');
  $('switches').innerHTML = info.switches.map((s) => '<label><input type="checkbox" data-switch="' + esc(s.name) + '"' +
    (s.on ? ' checked' : '') + '> ' + esc(s.name) + '</label>').join('');
  markSwitches();
  markLoopsShown();
}

// countLoop counts a unit of work (or a write) of a loop; it returns the
// loop's chip.
function countLoop(name) {
  const n = (loopCounts.get(name) || 0) + 1;
  loopCounts.set(name, n);
  const el = document.querySelector('.loop[data-name="' + CSS.escape(name) + '"]');
  if (!el) return null;
  el.querySelector('.count').textContent = String(n);
  if (el.classList.contains('idle')) { el.classList.remove('idle'); markLoopsShown(); }
  return el;
}

function markLoopsShown() {
  const idle = document.querySelectorAll('#loops .loop.idle').length;
  $('loops-bar').classList.toggle('all', loopsAll);
  const b = $('btn-loops');
  b.hidden = idle === 0;
  b.setAttribute('aria-expanded', String(loopsAll));
  b.textContent = loopsAll ? t('loops.fewer') : t('loops.more', { n: idle });
}

function markSwitches() {
  const off = new Set(info.switches.filter((s) => !s.on).map((s) => s.name));
  for (const el of document.querySelectorAll('.loop')) el.classList.toggle('off', off.has(el.dataset.switch));
}

function setScenario(sc) {
  if (!sc) return;
  scenarioShown = sc;
  const titles = LANG === 'zh' && sc.steps_zh ? sc.steps_zh : sc.steps;
  const cur = sc.done ? (sc.failed ? t('scenario.failed') : t('scenario.over'))
    : t('scenario.step', { i: sc.current + 1, n: sc.steps.length, title: titles[sc.current] });
  $('current-step').textContent = (LANG === 'zh' && sc.name_zh ? sc.name_zh : sc.name) + ' — ' + cur;
  $('current-step').title = $('current-step').textContent; // a long title is cut to two lines: whole here
  $('current-step').dataset.current = sc.current;
}

function appendEntries(entries) {
  for (const e of entries) {
    if (!trace[e.index] && e.actor) countLoop(e.actor);
    trace[e.index] = e;
  }
  const tl = $('timeline');
  tl.max = Math.max(trace.length - 1, 0);
  if (viewing < 0) { tl.value = tl.max; $('timeline-pos').textContent = t('units', { n: trace.length }); }
}

let running = false;
async function stepOnce() {
  const r = await api('/ui/api/step', { method: 'POST' });
  const out = await r.json();
  if (!r.ok) { $('current-write').textContent = out.message; return true; }
  appendEntries(out.entries);
  setScenario(out.scenario);
  $('clock').textContent = out.clock;
  if (out.entries.length) showEntry(out.entries[out.entries.length - 1]);
  else {
    // A note step says its note, in the page's language.
    const said = out.note ? noteOf(out) : out.result;
    $('current-write').textContent = out.idle ? t('idle') : t('scenario.step.done') + (said ? ': ' + said : '.');
    $('current-write').dataset.index = -1;
    highlighted = []; applyHighlight();
  }
  $('current-write').dataset.count = trace.length;
  $('current-write').dataset.idle = String(!!out.idle);
  $('current-write').dataset.answered = 'true';
  return out.idle;
}

async function run() {
  if (running) return;
  running = true;
  $('btn-pause').disabled = false; $('btn-run').disabled = true;
  try {
    while (running) {
      if (await stepOnce()) break;
      await new Promise((res) => setTimeout(res, 40)); // let the page draw each unit
    }
  } finally {
    running = false;
    $('btn-pause').disabled = true; $('btn-run').disabled = false;
  }
}

async function advance() {
  const secs = $('advance-seconds').value;
  const r = await api('/ui/api/advance?seconds=' + encodeURIComponent(secs), { method: 'POST' });
  const out = await r.json();
  if (!r.ok) { $('current-write').textContent = out.message; return; }
  appendEntries(out.entries);
  setScenario(out.scenario);
  $('clock').textContent = out.clock;
  if (out.entries.length) showEntry(out.entries[out.entries.length - 1]);
}

// pastState rebuilds, from the trace's writes up to entry i, every
// object of the kinds the page shows: nodes, pods (and where they were
// bound), the workloads (Deployments, ReplicaSets, StatefulSets, custom
// resources), APIServices and Events — which existed, and who last
// created, bound or wrote them. The trace holds writes, not objects: what
// a write changed inside an object is its text, shown beside. The trace
// holds the loops' writes; the users' (a step's apply, the page's) come
// from /ui/api/userwrites and go in by resourceVersion: a user's write
// counts once a loop's write with a later resourceVersion is in.
let userWritesSeen = [];
function pastState(i) {
  const objs = new Map(); // res/ns/name -> {res, ns, name, node, state, actor}
  const custom = new Set([...S.crds.values()].map((c) => c.spec.names.plural));
  const shown = (res) => ['nodes', 'pods', 'deployments', 'replicasets', 'statefulsets', 'apiservices', 'events'].includes(res) || custom.has(res);
  const users = userWritesSeen.map((u) => ({ rv: Number(u.write.rv) || 0, w: u.write, by: u.by })).sort((a, b) => a.rv - b.rv);
  let u = 0;
  const apply = (w, actor, bound) => {
    if (w.code >= 300) return;
    const parts = w.path.split('/').filter(Boolean);
    let k = parts[0] === 'api' ? 2 : 3;
    let ns = '';
    if (parts[k] === 'namespaces' && parts.length > k + 2) { ns = parts[k + 1]; k += 2; }
    const res = parts[k];
    const name = parts[k + 1] || w.name || '';
    const sub = parts[k + 2] || '';
    if (!shown(res) || !name) return;
    const key = res + '/' + ns + '/' + name;
    const o = objs.get(key);
    if (w.verb === 'delete') {
      if (!o) return;
      // A pod's first delete only marks it (graceful deletion); its
      // kubelet's delete removes it.
      if (res === 'pods' && !o.deleting && !actor.startsWith('kubelet')) { o.deleting = true; o.state = t('past.deleting'); return; }
      objs.delete(key);
    } else if (!o) {
      if (sub && sub !== 'binding') return; // a write to a subresource of an object from before the trace
      objs.set(key, { res, ns, name, node: sub === 'binding' ? (bound || '?') : '', state: t('past.created', { actor }) });
    } else if (sub === 'binding') {
      o.node = bound || o.node || '?'; o.state = t('past.bound', { actor });
    } else if (sub === 'status') {
      o.state = t('past.status', { actor });
    } else {
      o.state = t('past.updated', { actor });
    }
  };
  for (let j = 0; j <= i; j++) {
    const e = trace[j];
    if (!e) continue;
    for (const w of e.writes) {
      const rv = Number(w.rv) || 0;
      while (rv && u < users.length && users[u].rv < rv) { apply(users[u].w, users[u].by, ''); u++; }
      apply(w, e.actor || 'you', e.bound);
    }
  }
  return objs;
}

// scrub shows the state at a past trace entry, rebuilt from the trace
// (and the users' writes, fetched again: a step may have added some).
async function scrub(i) {
  if (i < trace.length - 1) {
    const r = await api('/ui/api/userwrites');
    if (r.ok) userWritesSeen = (await r.json()).writes;
  }
  const panes = [['nodes', 'past-nodes'], ['workloads', 'past-workloads'], ['apiservices', 'past-apiservices'], ['events-box', 'past-events']];
  if (i >= trace.length - 1) {
    viewing = -1;
    document.body.classList.remove('viewing-past');
    $('timeline').value = $('timeline').max;
    $('past-banner').hidden = true;
    for (const [live, past] of panes) { $(live).hidden = false; $(past).hidden = true; }
    $('workloads-empty').hidden = wlRows.size > 0;
    $('timeline-entry').textContent = trace.length ? trace[trace.length - 1].text : '';
    $('timeline-pos').textContent = t('units', { n: trace.length });
    return;
  }
  viewing = i;
  document.body.classList.add('viewing-past');
  $('timeline').value = i;
  const objs = [...pastState(i).values()];
  const of = (res) => objs.filter((o) => o.res === res).sort((a, b) => (a.ns + '/' + a.name).localeCompare(b.ns + '/' + b.name));
  const item = (o, cls) => '<li class="' + cls + '" data-key="' + esc(o.res + '/' + o.ns + '/' + o.name) + '">' + esc(o.name) + ' <span class="muted">' + esc(o.state) + '</span></li>';
  // Nodes with their pods.
  const byNode = new Map();
  for (const n of of('nodes')) byNode.set(n.name, { node: n, pods: [] });
  for (const p of of('pods')) {
    const n = p.node || '';
    if (!byNode.has(n)) byNode.set(n, { node: null, pods: [] });
    byNode.get(n).pods.push(p);
  }
  $('past-nodes').innerHTML = [...byNode.keys()].sort().map((n) => {
    const b = byNode.get(n);
    return '<div class="node' + (n ? '' : ' unscheduled') + '" data-node="' + esc(n) + '"><header><h3>' + esc(n || t('unscheduled')) + '</h3>' +
      (b.node ? '<span class="status muted">' + esc(b.node.state) + '</span>' : '') + '</header><div class="pods past-pods">' +
      b.pods.map((p) => '<span class="pod Pending" data-key="' + esc('pods/' + p.ns + '/' + p.name) + '">' + esc(p.name) +
        '<span class="label">' + esc(p.state) + '</span></span>').join('') + '</div></div>';
  }).join('');
  // The workloads by kind, then APIServices and Events.
  const kinds = [...new Set(objs.map((o) => o.res))].filter((r) => !['nodes', 'pods', 'apiservices', 'events'].includes(r)).sort();
  $('past-workloads').innerHTML = kinds.map((r) => '<h3 class="past-kind">' + esc(r) + '</h3><ul class="plain" data-res="' + esc(r) + '">' +
    of(r).map((o) => item(o, 'past-object')).join('') + '</ul>').join('') || '<p class="muted">' + esc(t('past.none')) + '</p>';
  $('past-apiservices').innerHTML = of('apiservices').map((o) => item(o, 'past-object')).join('');
  $('past-events').innerHTML = of('events').slice(-60).reverse().map((o) => item(o, 'past-object')).join('');
  for (const [live, past] of panes) { $(live).hidden = true; $(past).hidden = false; }
  $('workloads-empty').hidden = true;
  $('past-banner').hidden = false;
  $('past-banner').textContent = t('past', { i: i + 1, n: trace.length });
  $('timeline-entry').textContent = trace[i].text;
  $('timeline-pos').textContent = t('unit.of', { i: i + 1, n: trace.length });
  showEntry(trace[i]);
}

// followActivity lights the loops of a live cluster as they write (live
// mode has no trace; the server relays each component's writes). It
// resolves once the server follows the feed for this page (the stream's
// answer has come) or has refused it: the page says it is ready only
// then, so that no write made after that goes by unseen.
function followActivity() {
  let opened;
  const open = new Promise((res) => { opened = res; });
  (async () => {
    for (;;) {
      try {
        const r = await api('/ui/api/activity');
        opened();
        if (!r.ok) return;
        const reader = r.body.getReader();
        const dec = new TextDecoder();
        let buf = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buf += dec.decode(value, { stream: true });
          let i;
          while ((i = buf.indexOf('\n')) >= 0) {
            const line = buf.slice(0, i).trim();
            buf = buf.slice(i + 1);
            if (line) liveWrite(JSON.parse(line));
          }
        }
      } catch (e) {
        opened();
        if (String(e.message) === 'Unauthorized') return;
      }
      await new Promise((res) => setTimeout(res, 1000));
    }
  })();
  return open;
}

const lit = new Map(); // actor -> timer that dims its loop again
function liveWrite(ev) {
  const el = countLoop(ev.actor);
  if (el) {
    el.classList.add('active');
    clearTimeout(lit.get(ev.actor));
    lit.set(ev.actor, setTimeout(() => el.classList.remove('active'), 800)); // a glow, then dim
  }
  if (ev.write.path.includes('/events')) return;
  $('current-write').textContent = ev.actor + ' → ' + ev.write.text;
  $('current-write').dataset.live = 'write';
  highlighted = [keyOfWrite(ev.write)];
  applyHighlight();
}

// ---- actions through the API -----------------------------------------

async function applyManifest() {
  const src = $('manifest').value;
  const r = await api('/ui/api/apply', { method: 'POST', headers: { 'Content-Type': 'application/yaml' }, body: src });
  const out = await r.json();
  const box = $('apply-result');
  if (!r.ok) { box.innerHTML = '<p class="error">' + esc(out.message) + '</p>'; return; }
  const errs = new Map(); // line -> messages
  let html = '';
  for (const res of out.results) {
    html += '<p class="' + (res.ok ? 'ok' : 'error') + '">' + esc(res.kind || '') + (res.name ? '/' + esc(res.name) : '') + ': ' + esc(res.message) + '</p>';
    for (const c of res.causes || []) {
      const l = c.line || res.line;
      if (!errs.has(l)) errs.set(l, []);
      errs.get(l).push((c.field ? c.field + ': ' : '') + c.message);
    }
  }
  if (errs.size) {
    // The manifest again, each error beside the line it came from.
    html += '<ol class="manifest">' + src.split('\n').map((line, i) => '<li>' + esc(line) +
      (errs.has(i + 1) ? errs.get(i + 1).map((m) => '<div class="line-error" data-line="' + (i + 1) + '">' + esc(m) + '</div>').join('') : '') + '</li>').join('') + '</ol>';
  }
  box.innerHTML = html;
  // The first error in view (the result scrolls in its box).
  const first = box.querySelector('.line-error');
  if (first) box.scrollTop = Math.max(0, first.offsetTop - box.clientHeight / 2); // (the box is its offsetParent)
}

async function scale(uid, delta) {
  const o = S.replicasets.get(uid) || S.deployments.get(uid) || S.statefulsets.get(uid);
  if (!o) return;
  const want = Math.max(0, (o.spec.replicas ?? 1) + delta);
  const path = '/apis/apps/v1/namespaces/' + o.metadata.namespace + '/' + resourceOf(o) + '/' + o.metadata.name + '/scale';
  const r = await api(path, { method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json' }, body: JSON.stringify({ spec: { replicas: want } }) });
  if (!r.ok) alert((await r.json()).message);
}

async function toggleNode(name, action) {
  const r = await api('/ui/api/node?name=' + encodeURIComponent(name) + '&action=' + action, { method: 'POST' });
  const out = await r.json();
  const nb = nodeEls.get(name);
  if (r.ok && nb) { nb.btn.dataset.action = out.stopped ? 'start' : 'stop'; nb.btn.textContent = out.stopped ? t('node.start') : t('node.stop'); }
}

// ---- the pod drawer --------------------------------------------------

let openUID = '';
// drawerTurn counts the drawer's tabs as they are asked for. A tab that
// waits on the server (YAML, why, the scheduler's decision) draws only if
// no tab was asked for since: opening a pod shows its YAML, and a click on
// "why" right after must not be overwritten when the YAML answers last.
let drawerTurn = 0;
// objectOf finds an object the page knows by uid, whatever its kind.
function objectOf(uid) {
  for (const m of [S.pods, S.replicasets, S.deployments, S.statefulsets, S.custom, S.nodes]) {
    if (m.has(uid)) return m.get(uid);
  }
  return null;
}

// podPath is an object's API path: its collection's, or with name its own.
function podPath(o, withName) {
  const av = o.apiVersion || (o.kind === 'Pod' || o.kind === 'Node' ? 'v1' : 'apps/v1');
  let p = (av.includes('/') ? '/apis/' : '/api/') + av;
  if (o.metadata.namespace) p += '/namespaces/' + encodeURIComponent(o.metadata.namespace);
  p += '/' + resourceOf(o);
  return withName ? p + '/' + encodeURIComponent(o.metadata.name) : p;
}

function openPod(uid) {
  const p = objectOf(uid);
  if (!p) return;
  openUID = uid;
  $('drawer').hidden = false;
  $('drawer-title').textContent = p.kind + ' ' + (p.metadata.namespace ? p.metadata.namespace + '/' : '') + p.metadata.name;
  $('drawer').dataset.pod = p.metadata.name;
  $('tab-sched').hidden = p.kind !== 'Pod';
  showYAML();
  $('tab-yaml').focus();
}

async function showYAML() {
  const p = objectOf(openUID); if (!p) return;
  const turn = ++drawerTurn;
  const r = await api('/ui/api/yaml?path=' + encodeURIComponent(podPath(p, true)));
  const yaml = await r.text();
  if (turn !== drawerTurn) return;
  $('drawer-body').innerHTML = '<pre id="pod-yaml"></pre>';
  $('pod-yaml').textContent = yaml;
}

function showEvents() {
  const p = objectOf(openUID); if (!p) return;
  ++drawerTurn;
  const evs = [...S.events.values()].filter((e) => e.involvedObject && e.involvedObject.uid === p.metadata.uid)
    .sort((a, b) => Number(a.metadata.resourceVersion) - Number(b.metadata.resourceVersion));
  $('drawer-body').innerHTML = '<ol id="pod-events" class="plain events">' + (evs.map((e) => '<li class="' + esc(e.type) + '"><b>' + esc(e.reason) + '</b> ' +
    esc(e.source && e.source.component) + ': ' + esc(e.message) + '</li>').join('') || '<li>' + esc(t('no.events')) + '</li>') + '</ol>';
}

async function showWhy() {
  const p = objectOf(openUID); if (!p) return;
  const turn = ++drawerTurn;
  const r = await api('/ui/api/why?path=' + encodeURIComponent(podPath(p, false)) + '&name=' + encodeURIComponent(p.metadata.name));
  const out = await r.json();
  if (turn !== drawerTurn) return;
  const owners = (p.metadata.ownerReferences || []).map((o) => o.kind + '/' + o.name).join(', ') || t('owned.nothing');
  $('drawer-body').innerHTML = '<p>' + esc(t('owned.by', { owners })) + '</p>' + (out.live ? '<p class="muted">' + esc(t('why.live')) + '</p>' : '') + '<pre id="why"></pre>';
  $('why').textContent = out.text;
}

async function showSched() {
  const p = objectOf(openUID); if (!p) return;
  const turn = ++drawerTurn;
  const r = await api('/ui/api/decision?pod=' + encodeURIComponent(p.metadata.namespace + '/' + p.metadata.name));
  const out = await r.json();
  if (turn !== drawerTurn) return;
  if (!r.ok) { $('drawer-body').innerHTML = '<p id="sched">' + esc(out.message) + '</p>'; return; }
  $('drawer-body').innerHTML = '<table id="sched" class="sched"><tr><th>' + esc(t('sched.node')) + '</th><th>' + esc(t('sched.filters')) + '</th><th>' + esc(t('sched.score')) + '</th></tr>' +
    out.nodes.map((n) => '<tr><td>' + esc(n.node) + (n.node === out.chosen ? ' <b>' + esc(t('sched.chosen')) + '</b>' : '') + '</td><td class="' + (n.passed ? 'pass">' + esc(t('sched.passed')) : 'fail">' + esc(n.filter + (n.extender ? ' ' + n.extender : '') + ': ' + (n.reasons || []).join(', '))) +
      '</td><td>' + (n.passed ? n.score + (n.extenderScore ? ' ' + esc(t('sched.extenders', { n: n.extenderScore })) : '') +
        (n.plugins ? ' <small>(' + esc(Object.entries(n.plugins).map(([k, v]) => k + ' ' + v).join(', ')) + ')</small>' : '') : '—') + '</td></tr>').join('') + '</table>' +
    (out.preFilter ? '<p class="fail">PreFilter: ' + esc(out.preFilter) + '</p>' : '') +
    (out.error ? '<p class="fail">' + esc(t('sched.error', { err: out.error })) + '</p>' : '') +
    (out.permit ? '<p>' + esc(t('sched.permit', { permit: out.permit })) + '</p>' : '') +
    (out.ties > 1 ? '<p>' + esc(t('sched.ties', { n: out.ties })) + '</p>' : '');
}

async function deletePod() {
  const p = objectOf(openUID); if (!p) return;
  const r = await api(podPath(p, true), { method: 'DELETE' });
  if (!r.ok) { ++drawerTurn; $('drawer-body').textContent = (await r.json()).message; return; }
  closeDrawer();
}

function closeDrawer() { $('drawer').hidden = true; openUID = ''; ++drawerTurn; }

// relabel redraws what the script wrote, after a language switch (the
// HTML's own labels are translated by translateStatic).
function relabel() {
  $('mode').textContent = t($('mode').dataset.i18n);
  renderLoops();
  if (info.mode === 'live') describeLive();
  for (const [name, nb] of nodeEls) {
    nb.box.querySelector('h3').textContent = name || t('unscheduled');
    nb.pods.setAttribute('aria-label', t('node.pods', { node: name || t('unscheduled') }));
    if (nb.btn) nb.btn.textContent = nb.btn.dataset.action === 'start' ? t('node.start') : t('node.stop');
    nb.npods.textContent = t(nb.uids.size === 1 ? 'node.npod' : 'node.npods', { n: nb.uids.size });
    nb.list.draw(); // the chips in view say their state again
  }
  for (const [uid, el] of podEls) { const p = S.pods.get(uid); if (p) updateChip(el, p); }
  $('pod-count').textContent = t('pods.count', { n: S.pods.size });
  if (scenarioShown) setScenario(scenarioShown);
  if (shownEntry) describeEntry(shownEntry);
  if (viewing >= 0) scrub(viewing); else $('timeline-pos').textContent = t('units', { n: trace.length });
  dirty.workloads = dirty.apiservices = true;
  changed();
}

// ---- start -----------------------------------------------------------

// The cluster pane's height, for the node boxes' greatest height
// (style.css): in the window-high layout it does not depend on them.
new ResizeObserver(() => $('layout').style.setProperty('--cluster-h', $('cluster-panel').clientHeight + 'px')).observe($('cluster-panel'));

async function start() {
  const r = await api('/ui/api/info');
  info = await r.json();
  translateStatic();
  document.body.dataset.mode = info.mode;
  // Live mode has no trace and no first unit of work: its strip says what
  // runs and the latest write, never "Nothing has run yet".
  if (info.mode === 'live') describeLive(); else if (!shownEntry) $('current-write').textContent = t('nothing.yet');
  $('mode').dataset.i18n = info.mode === 'step' ? 'mode.step' : 'mode.live';
  $('mode').textContent = t($('mode').dataset.i18n);
  $('btn-lang').addEventListener('click', () => { setLang(LANG === 'zh' ? 'en' : 'zh'); relabel(); });
  $('btn-loops').addEventListener('click', () => { loopsAll = !loopsAll; markLoopsShown(); });
  renderLoops();
  if (info.mode === 'step') {
    $('stepper').hidden = false;
    $('timeline-box').hidden = false;
    setScenario(info.scenario);
    $('clock').textContent = info.clock;
    const t = await (await api('/ui/api/trace?from=0')).json();
    appendEntries(t.entries);
    if (t.entries.length) showEntry(t.entries[t.entries.length - 1]);
  }
  $('btn-step').addEventListener('click', stepOnce);
  $('btn-run').addEventListener('click', run);
  $('btn-pause').addEventListener('click', () => { running = false; });
  $('btn-advance').addEventListener('click', advance);
  $('btn-now').addEventListener('click', () => scrub(trace.length - 1));
  $('timeline').addEventListener('input', (ev) => scrub(Number(ev.target.value)));
  $('btn-apply').addEventListener('click', applyManifest);
  api('/ui/api/examples').then((r) => r.json()).then((out) => {
    for (const n of out.examples || []) { const o = document.createElement('option'); o.value = n; o.textContent = n; $('examples').appendChild(o); }
  });
  $('examples').addEventListener('change', async (ev) => {
    if (!ev.target.value) return;
    $('manifest').value = await (await api('/ui/api/examples?name=' + encodeURIComponent(ev.target.value))).text();
  });
  $('drawer-close').addEventListener('click', closeDrawer);
  $('tab-yaml').addEventListener('click', showYAML);
  $('tab-events').addEventListener('click', showEvents);
  $('tab-why').addEventListener('click', showWhy);
  $('tab-sched').addEventListener('click', showSched);
  $('btn-delete').addEventListener('click', deletePod);
  $('workloads').addEventListener('click', (ev) => {
    const b = ev.target.closest('button[data-scale]');
    if (b) scale(b.closest('li').dataset.uid, Number(b.dataset.scale));
    const o = ev.target.closest('button[data-open]');
    if (o) openPod(o.dataset.open);
  });
  $('switches').addEventListener('change', async (ev) => {
    const name = ev.target.dataset.switch;
    const r = await api('/ui/api/switch', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name, on: ev.target.checked }) });
    // In live mode the API server decides who may (RBAC): its refusal is shown.
    $('switch-error').textContent = r.ok ? '' : (await r.json()).message;
    if (r.ok) { const s = info.switches.find((x) => x.name === name); s.on = ev.target.checked; markSwitches(); } else ev.target.checked = !ev.target.checked;
  });
  document.addEventListener('keydown', (ev) => {
    if (ev.target.closest('textarea, input[type=number], input[type=password]') || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (ev.key === 'Escape') { closeDrawer(); return; }
    if (info.mode !== 'step') return;
    const tl = $('timeline');
    switch (ev.key) {
      case 's': stepOnce(); break;
      case 'r': run(); break;
      case 'p': running = false; break;
      case 'a': advance(); break;
      case 'ArrowLeft': if (ev.target !== tl) scrub(Math.max(0, (viewing < 0 ? trace.length - 1 : viewing) - 1)); break;
      case 'ArrowRight': if (ev.target !== tl) scrub((viewing < 0 ? trace.length - 1 : viewing) + 1); break;
      case 'End': scrub(trace.length - 1); break;
      default: return;
    }
    if (ev.target !== tl) ev.preventDefault();
  });
  await Promise.all([
    listWatch('/api/v1/nodes', S.nodes, 'Node'),
    listWatch('/api/v1/pods', S.pods, 'Pod'),
    listWatch('/apis/apps/v1/replicasets', S.replicasets, 'ReplicaSet'),
    listWatch('/apis/apps/v1/deployments', S.deployments, 'Deployment'),
    listWatch('/apis/apps/v1/statefulsets', S.statefulsets, 'StatefulSet'),
    listWatch('/api/v1/events', S.events, 'Event'),
    listWatch('/apis/apiregistration.k8s.io/v1/apiservices', S.apiservices, 'APIService'),
    listWatch('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', S.crds, 'CustomResourceDefinition'),
  ]);
  hubLoop();
  if (info.mode === 'live' && info.activity) await followActivity();
  document.body.dataset.ready = 'true'; // every control answers, and every write is heard, from here on
}

// Custom resources: one list+watch per served CRD, started as CRDs appear.
function watchCRD(crd) {
  const v = (crd.spec.versions || []).find((x) => x.served && x.storage) || (crd.spec.versions || [])[0];
  const established = ((crd.status && crd.status.conditions) || []).some((c) => c.type === 'Established' && c.status === 'True');
  if (!v || !established) return;
  const path = '/apis/' + crd.spec.group + '/' + v.name + '/' + crd.spec.names.plural;
  if (customWatches.has(path)) return;
  customWatches.add(path);
  const own = new Map();
  const plural = crd.spec.names.plural;
  const kind = crd.spec.names.kind;
  const proxy = {
    clear() { for (const k of own.keys()) S.custom.delete(k); own.clear(); },
    set(k, o) { o._plural = plural; own.set(k, o); S.custom.set(k, o); },
    delete(k) { own.delete(k); S.custom.delete(k); },
  };
  listWatch(path, proxy, kind, () => !S.crds.has(crd.metadata.uid));
}

// Every CRD the list or the watch brings starts its resource's watch.
const crdsSet = S.crds.set.bind(S.crds);
S.crds.set = function (k, o) { crdsSet(k, o); watchCRD(o); return this; };

start();
