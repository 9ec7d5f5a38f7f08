// The page's labels in English and Chinese: the one dictionary, and the
// few lines that pick the language. The browser's language decides
// (navigator.languages: zh* is Chinese, anything else English) until the
// switch in the header picks one, which is remembered. The Chinese terms
// are those of the Chinese labs' glossary (docs/labs/zh/glossary.md):
// kind names, Pod phases, condition types and the controllers' names in
// the trace stay in English, as in Kubernetes' own Chinese documentation.
// What the server says (the trace, the causality chain, a Status message)
// is API data and stays as it is.
'use strict';

const I18N = {
  en: {
    'title': 'kubesim — the control plane at work',
    'login.title': 'kubesim — log in',
    'login.help': 'Log in with the token of your kubeconfig (users[0].user.token), or open the one-time link kubesim printed when it started.',
    'login.help.step': 'Open the login link kubesim printed when it started (it works once), or log in with the token printed beside it.',
    'login.token': 'Bearer token',
    'login.submit': 'Log in',
    'lang.switch': '中文 (zh)',
    'lang.switch.title': '切换到中文',
    'mode.live': 'live',
    'mode.step': 'step mode',
    'stepper': 'Stepper',
    'btn.step': 'Step',
    'btn.step.title': 'One unit of work (key s)',
    'btn.run': 'Run',
    'btn.run.title': 'Step until nothing is left to do (key r)',
    'btn.pause': 'Pause',
    'btn.pause.title': 'Stop running (key p)',
    'advance': 'Advance',
    'seconds': 's',
    'btn.advance': 'Advance time',
    'btn.advance.title': 'Let time pass (key a)',
    'clock': 'cluster clock',
    'logout': 'Log out',
    'loops': 'Control loops',
    'switches': 'Controller switches',
    'loops.live': '(live: a loop lights up as it writes)',
    'loops.more': '+{n} not at work yet',
    'loops.fewer': 'only those at work',
    'live.summary': 'Live: {nodes} nodes, {pods} pods ({running} running). Every loop runs on its own; the latest write:',
    'live.nowrite': 'No control loop has written since this page opened.',
    'node.npods': '{n} pods',
    'node.npod': '{n} pod',
    'apiservices.summary': '{up} of {n} available',
    'apiservices.remote': 'served elsewhere',
    'nothing.yet': 'Nothing has run yet.',
    'nodes': 'Nodes',
    'pods.count': '{n} pods',
    'workloads': 'Workloads',
    'workloads.none': 'No workloads yet: apply a ReplicaSet or a Deployment below.',
    'apiservices': 'APIServices',
    'events': 'Events',
    'metrics': 'Metrics (/metrics)',
    'metrics.rate': 'API requests per second',
    'metrics.rate.now': 'now {rate}/s (peak {max}/s)',
    'metrics.queues': 'Work queue depth',
    'metrics.queues.idle': 'No queue held keys in this window.',
    'metrics.note': '{n} samples of /metrics, one every {s} s while this panel is open.',
    'metrics.denied': 'The API server answered {code}: reading /metrics needs the group system:monitoring (or the admin).',
    'timeline': 'Timeline',
    'btn.now': 'Back to now',
    'apply.title': 'Apply a manifest',
    'btn.apply': 'Apply',
    'apply.example': 'or pick an example',
    'close': 'Close',
    'tab.yaml': 'YAML',
    'tab.events': 'Events',
    'tab.why': 'Why does this exist?',
    'tab.sched': 'Scheduling',
    'btn.delete': 'Delete',
    'unscheduled': 'Not scheduled yet',
    'node.stop': 'Stop node',
    'node.start': 'Start node',
    'node.pods': 'Pods on {node}: arrow keys move, Home and End jump',
    'pod.aria': 'Pod {name}, {stage}, {where}',
    'pod.on': 'on {node}',
    'pod.nowhere': 'not scheduled',
    'open': 'Open {kind} {name}',
    'ready.of': '{have}/{want} ready',
    'scale.down': 'Scale {name} down',
    'scale.up': 'Scale {name} up',
    'more': '… {n} more',
    'available': 'Available',
    'not.available': 'not available',
    'local': '(local)',
    'scenario.failed': 'the scenario FAILED',
    'scenario.over': 'the scenario is over: you are driving now',
    'scenario.step': 'step {i}/{n}: {title}',
    'units': '{n} units of work',
    'unit.of': 'unit {i} of {n}',
    'reconciled': '{actor} reconciled {key}',
    'saw': ' (saw {cause})',
    'error': ' error: {err}',
    'no.change': '  (no change)',
    'events.recorded': '  → {n} event(s) recorded',
    'idle': 'Nothing to do: every loop is idle and no timer is due.',
    'scenario.step.done': 'Scenario step done (no control loop ran)',
    'past': 'Viewing the state after unit {i} of {n}, rebuilt from the trace (every kind the page shows: created, bound, written, deleted). Press End or "Back to now" for the live view.',
    'past.none': 'nothing yet',
    'past.status': 'status written by {actor}',
    'past.created': 'created by {actor}',
    'past.updated': 'written by {actor}',
    'past.bound': 'bound by {actor}',
    'past.deleting': 'deleting',
    'owned.by': 'Owned by: {owners}',
    'owned.nothing': 'nothing',
    'why.live': 'Live mode: the chain is followed through the record of the writes: yours since the server started, the control loops\' since the page was first opened.',
    'no.events': 'No events.',
    'sched.node': 'node',
    'sched.filters': 'filters',
    'sched.score': 'score',
    'sched.chosen': '(chosen)',
    'sched.passed': 'passed',
    'sched.ties': '{n} nodes tied; the seed picked one.',
    'sched.extenders': '(extenders {n})',
    'sched.error': 'The cycle failed: {err}. The pod is tried again after the back-off.',
    'sched.permit': 'Permit: {permit}.',
  },
  zh: {
    'title': 'kubesim — 控制平面在工作',
    'login.title': 'kubesim — 登录',
    'login.help': '用 kubeconfig 里的令牌（users[0].user.token）登录，或打开 kubesim 启动时打印的一次性链接。',
    'login.help.step': '打开 kubesim 启动时打印的登录链接（只能用一次），或用它旁边打印的令牌登录。',
    'login.token': 'Bearer 令牌',
    'login.submit': '登录',
    'lang.switch': 'English (en)',
    'lang.switch.title': 'Switch to English',
    'mode.live': '实时',
    'mode.step': '单步模式',
    'stepper': '单步器',
    'btn.step': '单步',
    'btn.step.title': '执行一个工作单元（按键 s）',
    'btn.run': '运行',
    'btn.run.title': '单步执行，直到无事可做（按键 r）',
    'btn.pause': '暂停',
    'btn.pause.title': '停止运行（按键 p）',
    'advance': '推进',
    'seconds': '秒',
    'btn.advance': '推进时间',
    'btn.advance.title': '让模拟时钟前进（按键 a）',
    'clock': '集群时钟',
    'logout': '退出登录',
    'loops': '控制回路',
    'switches': '控制器开关',
    'loops.live': '（实时：控制回路写入时亮起）',
    'loops.more': '+{n} 个尚未工作的',
    'loops.fewer': '只看工作过的',
    'live.summary': '实时：{nodes} 个节点，{pods} 个 Pod（{running} 个在运行）。每个控制回路各自运行；最新的写入：',
    'live.nowrite': '页面打开以来，还没有控制回路写入。',
    'node.npods': '{n} 个 Pod',
    'node.npod': '{n} 个 Pod',
    'apiservices.summary': '{n} 个中 {up} 个可用',
    'apiservices.remote': '由其他服务器提供',
    'nothing.yet': '还没有运行任何工作单元。',
    'nodes': '节点',
    'pods.count': '{n} 个 Pod',
    'workloads': '工作负载',
    'workloads.none': '还没有工作负载：在下方应用一个 ReplicaSet 或 Deployment。',
    'apiservices': 'APIService',
    'events': 'Event（事件）',
    'metrics': '指标（/metrics）',
    'metrics.rate': '每秒 API 请求数',
    'metrics.rate.now': '当前 {rate}/s（峰值 {max}/s）',
    'metrics.queues': '工作队列深度',
    'metrics.queues.idle': '这段时间内没有队列积压。',
    'metrics.note': '已采样 /metrics {n} 次，面板打开时每 {s} 秒一次。',
    'metrics.denied': 'API 服务器返回 {code}：读取 /metrics 需要 system:monitoring 组（或管理员）。',
    'timeline': '时间线',
    'btn.now': '回到现在',
    'apply.title': '应用清单',
    'btn.apply': '应用',
    'apply.example': '或选一个示例',
    'close': '关闭',
    'tab.yaml': 'YAML',
    'tab.events': 'Event（事件）',
    'tab.why': '它为什么存在？',
    'tab.sched': '调度',
    'btn.delete': '删除',
    'unscheduled': '尚未调度',
    'node.stop': '停止节点',
    'node.start': '启动节点',
    'node.pods': '{node} 上的 Pod：方向键移动，Home 和 End 跳到两端',
    'pod.aria': 'Pod {name}，{stage}，{where}',
    'pod.on': '在 {node} 上',
    'pod.nowhere': '尚未调度',
    'open': '打开 {kind} {name}',
    'ready.of': '{have}/{want} 就绪',
    'scale.down': '缩容 {name}',
    'scale.up': '扩容 {name}',
    'more': '……还有 {n} 个',
    'available': '可用',
    'not.available': '不可用',
    'local': '（本地）',
    'scenario.failed': '场景失败',
    'scenario.over': '场景已结束：现在由你操作',
    'scenario.step': '第 {i}/{n} 步：{title}',
    'units': '{n} 个工作单元',
    'unit.of': '第 {i} 个工作单元，共 {n} 个',
    'reconciled': '{actor} 调谐了 {key}',
    'saw': '（看到 {cause}）',
    'error': ' 出错：{err}',
    'no.change': '  （无变化）',
    'events.recorded': '  → 记录了 {n} 个 Event',
    'idle': '无事可做：所有控制回路都空闲，也没有到期的定时器。',
    'scenario.step.done': '场景步骤完成（没有控制回路运行）',
    'past': '正在查看第 {i} 个工作单元（共 {n} 个）之后的状态，由追踪记录（trace）重建（页面显示的每种对象：创建、绑定、写入、删除）。按 End 或“回到现在”返回实时视图。',
    'past.none': '还没有',
    'past.status': '状态由 {actor} 写入',
    'past.created': '由 {actor} 创建',
    'past.updated': '由 {actor} 写入',
    'past.bound': '由 {actor} 绑定',
    'past.deleting': '正在删除',
    'owned.by': '属主：{owners}',
    'owned.nothing': '无',
    'why.live': '实时模式：因果链沿着记录的写入追溯：你的写入从服务器启动起记录，控制回路的写入从页面首次打开起记录。',
    'no.events': '没有 Event。',
    'sched.node': '节点',
    'sched.filters': '过滤',
    'sched.score': '打分',
    'sched.chosen': '（已选中）',
    'sched.passed': '通过',
    'sched.ties': '{n} 个节点平局；由随机种子选出一个。',
    'sched.extenders': '（其中扩展程序 {n}）',
    'sched.error': '这一轮调度出错：{err}。退避之后会再次尝试调度这个 Pod。',
    'sched.permit': 'Permit（许可）：{permit}。',
  },
};

// pickLang: the remembered choice, else the browser's first language.
function pickLang() {
  let saved = '';
  try { saved = localStorage.getItem('kubesim.lang') || ''; } catch (e) { /* storage off */ }
  if (saved === 'en' || saved === 'zh') return saved;
  const first = ((navigator.languages && navigator.languages[0]) || navigator.language || 'en').toLowerCase();
  return first.startsWith('zh') ? 'zh' : 'en';
}

let LANG = pickLang();

// t translates a key, filling {name} from vars; a key missing in Chinese
// falls back to English, and an unknown key shows as itself.
function t(key, vars) {
  const s = (I18N[LANG] && I18N[LANG][key]) ?? I18N.en[key] ?? key;
  return vars ? s.replace(/\{(\w+)\}/g, (m, k) => (k in vars ? String(vars[k]) : m)) : s;
}

// translateStatic sets the labels marked in the HTML: data-i18n (text),
// data-i18n-title, data-i18n-aria-label, data-i18n-placeholder.
function translateStatic(root) {
  document.documentElement.lang = LANG === 'zh' ? 'zh-CN' : 'en';
  document.documentElement.dataset.lang = LANG;
  for (const el of (root || document).querySelectorAll('[data-i18n]')) el.textContent = t(el.dataset.i18n);
  for (const attr of ['title', 'aria-label', 'placeholder']) {
    for (const el of (root || document).querySelectorAll('[data-i18n-' + attr + ']')) el.setAttribute(attr, t(el.getAttribute('data-i18n-' + attr)));
  }
  // The switch names the other language in that language.
  const sw = document.getElementById('btn-lang');
  if (sw) sw.lang = LANG === 'zh' ? 'en' : 'zh-CN';
  const title = document.querySelector('title[data-i18n]');
  if (title) document.title = title.textContent;
}

// setLang switches the language and remembers it.
function setLang(lang) {
  LANG = lang === 'zh' ? 'zh' : 'en';
  try { localStorage.setItem('kubesim.lang', LANG); } catch (e) { /* storage off */ }
  translateStatic();
}

// The labels are right from the first paint (app.js redraws what it makes).
if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', () => translateStatic());
else translateStatic();
