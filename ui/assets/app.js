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

const podEls = new Map();   // uid -> button
const nodeEls = new Map();  // node name (or '' for unscheduled) -> {box, pods}

function nodeBox(name) {
  let n = nodeEls.get(name);
  if (n) return n;
  const box = document.createElement('div');
  box.className = 'node' + (name ? '' : ' unscheduled');
  box.dataset.node = name;
  box.innerHTML = '<header><h3></h3><span class="status"></span>' +
    (name ? '<button class="node-toggle" data-action="stop">Stop node</button>' : '') + '</header><div class="pods"></div>';
  box.querySelector('h3').textContent = name || 'Not scheduled yet';
  const btn = box.querySelector('.node-toggle');
  if (btn) btn.addEventListener('click', () => toggleNode(name, btn.dataset.action));
  n = { box, pods: box.querySelector('.pods'), status: box.querySelector('.status'), btn };
  nodeEls.set(name, n);
  if (name) $('nodes').appendChild(box); else $('nodes').prepend(box);
  return n;
}

function render() {
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
  // Pods as chips in their node's box: keyed, and only the changed ones
  // are touched.
  const unscheduled = nodeBox('');
  const uids = dirty.allPods ? new Set([...S.pods.keys(), ...podEls.keys()]) : dirty.pods;
  dirty.allPods = false;
  for (const uid of uids) {
    const p = S.pods.get(uid);
    let el = podEls.get(uid);
    if (!p) { if (el) { el.remove(); podEls.delete(uid); } continue; }
    if (!el) {
      el = document.createElement('button');
      el.className = 'pod';
      el.dataset.uid = uid;
      el.addEventListener('click', () => openPod(el.dataset.uid));
      podEls.set(uid, el);
    }
    const stage = podStage(p);
    const text = SHAPE[stage] + ' ' + p.metadata.name;
    if (el.dataset.stage !== stage || el.dataset.text !== text) {
      el.dataset.stage = stage;
      el.dataset.text = text;
      el.className = 'pod ' + stage;
      el.innerHTML = esc(text) + '<span class="label">' + esc(stage) + '</span>';
      el.dataset.name = p.metadata.namespace + '/' + p.metadata.name;
      el.dataset.key = 'pods/' + p.metadata.namespace + '/' + p.metadata.name;
      el.setAttribute('aria-label', 'Pod ' + p.metadata.name + ', ' + stage + (p.spec.nodeName ? ', on ' + p.spec.nodeName : ', not scheduled'));
      if (highlighted.includes(el.dataset.key)) el.classList.add('hl');
    }
    const home = p.spec.nodeName && nodeEls.has(p.spec.nodeName) ? nodeEls.get(p.spec.nodeName) : unscheduled;
    if (el.parentNode !== home.pods) home.pods.appendChild(el);
  }
  dirty.pods.clear();
  unscheduled.box.hidden = unscheduled.pods.childElementCount === 0;
  $('pod-count').textContent = S.pods.size + ' pods';
  if (dirty.workloads) { dirty.workloads = false; renderWorkloads(); applyHighlight(); }
  if (dirty.events) { dirty.events = false; renderEvents(); }
  if (dirty.apiservices) { dirty.apiservices = false; renderAPIServices(); }
}

function owned(uid) {
  const out = [];
  for (const m of [S.replicasets, S.pods, S.custom, S.statefulsets, S.deployments]) {
    for (const o of m.values()) {
      if ((o.metadata.ownerReferences || []).some((r) => r.uid === uid)) out.push(o);
    }
  }
  return out.sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
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

function treeItem(o, depth) {
  const key = resourceOf(o) + '/' + (o.metadata.namespace || '') + '/' + o.metadata.name;
  let label = '<span class="kind">' + esc(o.kind) + '</span>' + esc(o.metadata.name);
  if (o.kind === 'Pod') {
    const st = podStage(o);
    label = '<span class="kind">Pod</span>' + esc(SHAPE[st] + ' ' + o.metadata.name) + ' <span class="label">' + esc(st) + '</span>';
  }
  label = '<button class="open" data-open="' + esc(o.metadata.uid) + '" aria-label="Open ' + esc(o.kind + ' ' + o.metadata.name) + '">' + label + '</button>';
  let scale = '';
  if (['ReplicaSet', 'Deployment', 'StatefulSet'].includes(o.kind)) {
    const want = o.spec.replicas ?? 1;
    const have = (o.status && o.status.readyReplicas) || 0;
    scale = ' <span class="scale">' + have + '/' + want + ' ready' +
      '<button data-scale="-1" aria-label="Scale ' + esc(o.metadata.name) + ' down">−</button>' +
      '<button data-scale="1" aria-label="Scale ' + esc(o.metadata.name) + ' up">+</button></span>';
  }
  const kids = depth < 4 ? owned(o.metadata.uid) : [];
  const shown = kids.slice(0, 30);
  let inner = shown.map((k) => treeItem(k, depth + 1)).join('');
  if (kids.length > shown.length) inner += '<li class="muted">… ' + (kids.length - shown.length) + ' more</li>';
  return '<li data-key="' + esc(key) + '" data-uid="' + esc(o.metadata.uid) + '" data-kind="' + esc(o.kind) + '">' + label + scale +
    (inner ? '<ul>' + inner + '</ul>' : '') + '</li>';
}

let workloadsHTML = '';
function renderWorkloads() {
  const roots = [];
  for (const m of [S.deployments, S.statefulsets, S.custom, S.replicasets]) {
    for (const o of m.values()) {
      if (!(o.metadata.ownerReferences || []).length) roots.push(o);
    }
  }
  roots.sort((a, b) => (a.kind + a.metadata.name).localeCompare(b.kind + b.metadata.name));
  const html = roots.length ? '<div class="tree"><ul>' + roots.map((o) => treeItem(o, 0)).join('') + '</ul></div>'
    : '<p class="muted">No workloads yet: apply a ReplicaSet or a Deployment below.</p>';
  if (html !== workloadsHTML) { workloadsHTML = html; $('workloads').innerHTML = html; }
}

let eventsHTML = '';
function renderEvents() {
  const evs = [...S.events.values()].sort((a, b) =>
    (Number(b.metadata.resourceVersion) || 0) - (Number(a.metadata.resourceVersion) || 0)).slice(0, 60);
  const html = evs.map((e) => '<li class="' + esc(e.type) + '"><b>' + esc(e.reason) + '</b> ' +
    esc((e.involvedObject || {}).kind) + '/' + esc((e.involvedObject || {}).name) + ': ' + esc(e.message) +
    (e.count > 1 ? ' <span class="muted">×' + e.count + '</span>' : '') + '</li>').join('');
  if (html !== eventsHTML) { eventsHTML = html; $('events').innerHTML = html; }
}

function renderAPIServices() {
  const svcs = [...S.apiservices.values()].sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
  $('apiservices').innerHTML = svcs.map((s) => {
    const c = ((s.status && s.status.conditions) || []).find((x) => x.type === 'Available');
    const st = c ? c.status : 'Unknown';
    const where = s.spec && s.spec.service ? ' → ' + s.spec.service.namespace + '/' + s.spec.service.name : ' (local)';
    return '<li><span class="avail-' + esc(st) + '">' + esc(s.metadata.name) + '</span> <span class="muted">' +
      (st === 'True' ? 'Available' : 'not available' + (c && c.reason ? ': ' + esc(c.reason) : '')) + esc(where) + '</span></li>';
  }).join('');
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

function applyHighlight() {
  for (const el of document.querySelectorAll('.hl')) el.classList.remove('hl');
  for (const k of highlighted) {
    for (const el of document.querySelectorAll('[data-key="' + CSS.escape(k) + '"]')) el.classList.add('hl');
  }
}

function showEntry(e) {
  const lines = [];
  if (!e) { $('current-write').textContent = 'Nothing has run yet.'; return; }
  if (e.note) lines.push('[' + e.elapsed + '] ' + e.note);
  else {
    lines.push('[' + e.elapsed + '] ' + e.actor + ' reconciled ' + e.key + (e.cause ? ' (saw ' + e.cause + ')' : '') + (e.err ? ' error: ' + e.err : ''));
    const ws = e.writes.filter((w) => !w.path.includes('/events'));
    for (const w of ws) lines.push('  → ' + w.text);
    if (!e.writes.length) lines.push('  (no change)');
    else if (!ws.length) lines.push('  → ' + e.writes.length + ' event(s) recorded');
  }
  $('current-write').textContent = lines.join('\n');
  $('current-write').dataset.index = e.index;
  highlighted = e.writes.filter((w) => !w.path.includes('/events')).map(keyOfWrite);
  applyHighlight();
  for (const el of document.querySelectorAll('.loop')) el.classList.toggle('active', el.dataset.name === e.actor);
  if (e.actor) {
    const el = document.querySelector('.loop[data-name="' + CSS.escape(e.actor) + '"] .count');
    if (el) el.textContent = String((Number(el.textContent) || 0) + 1);
  }
}

function renderLoops() {
  $('loops').innerHTML = info.loops.map((l) => '<span class="loop" data-name="' + esc(l.name) + '" data-switch="' + esc(l.switch) +
    '">' + esc(l.name) + '<span class="count"></span></span>').join('') +
    (info.mode === 'live' ? ' <span class="muted">(live: a loop lights up as it writes)</span>' : '');
  $('switches').innerHTML = info.switches.map((s) => '<label><input type="checkbox" data-switch="' + esc(s.name) + '"' +
    (s.on ? ' checked' : '') + '> ' + esc(s.name) + '</label>').join('');
  markSwitches();
}

function markSwitches() {
  const off = new Set(info.switches.filter((s) => !s.on).map((s) => s.name));
  for (const el of document.querySelectorAll('.loop')) el.classList.toggle('off', off.has(el.dataset.switch));
}

function setScenario(sc) {
  if (!sc) return;
  const cur = sc.done ? (sc.failed ? 'the scenario FAILED' : 'the scenario is over: you are driving now')
    : 'step ' + (sc.current + 1) + '/' + sc.steps.length + ': ' + sc.steps[sc.current];
  $('current-step').textContent = sc.name + ' — ' + cur;
  $('current-step').dataset.current = sc.current;
}

function appendEntries(entries) {
  for (const e of entries) trace[e.index] = e;
  const tl = $('timeline');
  tl.max = Math.max(trace.length - 1, 0);
  if (viewing < 0) { tl.value = tl.max; $('timeline-pos').textContent = trace.length + ' units of work'; }
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
    $('current-write').textContent = out.idle ? 'Nothing to do: every loop is idle and no timer is due.'
      : 'Scenario step done (no control loop ran)' + (out.result ? ': ' + out.result : '.');
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

// scrub shows the state at a past trace entry, rebuilt from the trace's
// writes: which pods existed, where they were bound, which were deleted.
function scrub(i) {
  if (i >= trace.length - 1) { viewing = -1; $('past-banner').hidden = true; $('past-nodes').hidden = true; $('nodes').hidden = false;
    $('timeline-entry').textContent = trace.length ? trace[trace.length - 1].text : ''; $('timeline-pos').textContent = trace.length + ' units of work'; return; }
  viewing = i;
  const pods = new Map();
  for (let j = 0; j <= i; j++) {
    const e = trace[j];
    if (!e) continue;
    for (const w of e.writes) {
      if (w.code >= 300) continue;
      const k = keyOfWrite(w);
      if (!k.startsWith('pods/')) continue;
      const sub = w.path.split('/').pop();
      if (w.verb === 'create' && w.path.endsWith('/pods')) pods.set(k, { key: k, node: '', state: 'Created' });
      else if (sub === 'binding' && pods.has(k.replace(/\/binding$/, ''))) {
        const p = pods.get(k.replace(/\/binding$/, '')); p.node = e.bound || p.node || '?'; p.state = 'Bound';
      } else if (sub === 'status') { const p = pods.get(k.replace(/\/status$/, '')); if (p) p.state = 'Status written by ' + e.actor; }
      else if (w.verb === 'delete' && pods.has(k)) pods.delete(k);
    }
  }
  const byNode = new Map();
  for (const p of pods.values()) { const n = p.node || '(not scheduled)'; if (!byNode.has(n)) byNode.set(n, []); byNode.get(n).push(p); }
  $('past-nodes').innerHTML = [...byNode.keys()].sort().map((n) => '<div class="node"><header><h3>' + esc(n) + '</h3></header><div class="pods">' +
    byNode.get(n).map((p) => '<span class="pod Pending" data-key="' + esc(p.key) + '">' + esc(p.key.split('/')[2]) + '<span class="label">' + esc(p.state) + '</span></span>').join('') +
    '</div></div>').join('');
  $('past-banner').hidden = false;
  $('past-banner').textContent = 'Viewing the state after unit ' + (i + 1) + ' of ' + trace.length + ', rebuilt from the trace (pods created, bound, deleted). Press End or "Back to now" for the live view.';
  $('nodes').hidden = true; $('past-nodes').hidden = false;
  $('timeline-entry').textContent = trace[i].text;
  $('timeline-pos').textContent = 'unit ' + (i + 1) + ' of ' + trace.length;
  showEntry(trace[i]);
}

// followActivity lights the loops of a live cluster as they write (live
// mode has no trace; the server relays each component's writes).
async function followActivity() {
  for (;;) {
    try {
      const r = await api('/ui/api/activity');
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
      if (String(e.message) === 'Unauthorized') return;
    }
    await new Promise((res) => setTimeout(res, 1000));
  }
}

const lit = new Map(); // actor -> timer that dims its loop again
function liveWrite(ev) {
  const el = document.querySelector('.loop[data-name="' + CSS.escape(ev.actor) + '"]');
  if (el) {
    el.classList.add('active');
    const c = el.querySelector('.count');
    c.textContent = String((Number(c.textContent) || 0) + 1);
    clearTimeout(lit.get(ev.actor));
    lit.set(ev.actor, setTimeout(() => el.classList.remove('active'), 800)); // a glow, then dim
  }
  if (ev.write.path.includes('/events')) return;
  $('current-write').textContent = ev.actor + ' → ' + ev.write.text;
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
  if (r.ok && nb) { nb.btn.dataset.action = out.stopped ? 'start' : 'stop'; nb.btn.textContent = out.stopped ? 'Start node' : 'Stop node'; }
}

// ---- the pod drawer --------------------------------------------------

let openUID = '';
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
  const r = await api('/ui/api/yaml?path=' + encodeURIComponent(podPath(p, true)));
  $('drawer-body').innerHTML = '<pre id="pod-yaml"></pre>';
  $('pod-yaml').textContent = await r.text();
}

function showEvents() {
  const p = objectOf(openUID); if (!p) return;
  const evs = [...S.events.values()].filter((e) => e.involvedObject && e.involvedObject.uid === p.metadata.uid)
    .sort((a, b) => Number(a.metadata.resourceVersion) - Number(b.metadata.resourceVersion));
  $('drawer-body').innerHTML = '<ol id="pod-events" class="plain events">' + (evs.map((e) => '<li class="' + esc(e.type) + '"><b>' + esc(e.reason) + '</b> ' +
    esc(e.source && e.source.component) + ': ' + esc(e.message) + '</li>').join('') || '<li>No events.</li>') + '</ol>';
}

async function showWhy() {
  const p = objectOf(openUID); if (!p) return;
  const r = await api('/ui/api/why?path=' + encodeURIComponent(podPath(p, false)) + '&name=' + encodeURIComponent(p.metadata.name));
  const out = await r.json();
  const owners = (p.metadata.ownerReferences || []).map((o) => o.kind + '/' + o.name).join(', ') || 'nothing';
  $('drawer-body').innerHTML = '<p>Owned by: ' + esc(owners) + '</p><pre id="why"></pre>';
  $('why').textContent = out.text;
}

async function showSched() {
  const p = objectOf(openUID); if (!p) return;
  const r = await api('/ui/api/decision?pod=' + encodeURIComponent(p.metadata.namespace + '/' + p.metadata.name));
  const out = await r.json();
  if (!r.ok) { $('drawer-body').innerHTML = '<p id="sched">' + esc(out.message) + '</p>'; return; }
  $('drawer-body').innerHTML = '<table id="sched" class="sched"><tr><th>node</th><th>filters</th><th>score</th></tr>' +
    out.nodes.map((n) => '<tr><td>' + esc(n.node) + (n.node === out.chosen ? ' <b>(chosen)</b>' : '') + '</td><td class="' + (n.passed ? 'pass">passed' : 'fail">' + esc(n.filter + ': ' + (n.reasons || []).join(', '))) +
      '</td><td>' + (n.passed ? n.score : '—') + '</td></tr>').join('') + '</table>' +
    (out.ties > 1 ? '<p>' + out.ties + ' nodes tied; the seed picked one.</p>' : '');
}

async function deletePod() {
  const p = objectOf(openUID); if (!p) return;
  const r = await api(podPath(p, true), { method: 'DELETE' });
  if (!r.ok) { $('drawer-body').textContent = (await r.json()).message; return; }
  closeDrawer();
}

function closeDrawer() { $('drawer').hidden = true; openUID = ''; }

// ---- start -----------------------------------------------------------

async function start() {
  const r = await api('/ui/api/info');
  info = await r.json();
  $('mode').textContent = info.mode === 'step' ? 'step mode' : 'live';
  document.body.dataset.mode = info.mode;
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
    if (r.ok) { const s = info.switches.find((x) => x.name === name); s.on = ev.target.checked; markSwitches(); }
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
  if (info.mode === 'live' && info.activity) followActivity();
  document.body.dataset.ready = 'true'; // every control answers from here on
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
