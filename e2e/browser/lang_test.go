package browser

import (
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// TestChineseBrowserGetsChineseLabels: a browser whose language is
// Chinese gets the page's labels in Chinese (the terms of the Chinese
// labs' glossary), the login page too; the switch in the header turns the
// page to English and the choice is kept; a note shows in Chinese when it
// has a Chinese text.
func TestChineseBrowserGetsChineseLabels(t *testing.T) {
	_, page := stepScenario(t, mustParse(t, threeNodes))
	ctx := newBrowser(t, chromedp.Flag("lang", "zh-CN"), chromedp.Flag("accept-lang", "zh-CN,zh"))
	do(t, ctx, chromedp.Navigate(page.URL), waitJS(`document.getElementById('login-submit') && document.getElementById('login-submit').textContent === '登录'`))
	require.Equal(t, "zh-CN", eval[string](t, ctx, `navigator.languages[0]`), "the browser's language")
	do(t, ctx, chromedp.Navigate(page.LoginURL), waitJS(stepModeShown), runIdle(),
		waitJS(`document.querySelectorAll('#nodes .node:not(.unscheduled)').length === 3`))
	labels := eval[map[string]string](t, ctx, `({
		lang: document.documentElement.lang,
		nodes: document.querySelector('#nodes-h [data-i18n="nodes"]').textContent,
		workloads: document.getElementById('workloads-h').textContent,
		step: document.getElementById('btn-step').textContent,
		why: document.getElementById('tab-why').textContent,
		sched: document.getElementById('tab-sched').textContent,
		mode: document.getElementById('mode').textContent,
		switches: document.querySelector('#switches-box summary').textContent,
		apply: document.getElementById('btn-apply').textContent,
		stop: document.querySelector('.node[data-node="node-1"] .node-toggle').textContent,
		idle: document.getElementById('current-write').textContent,
	})`)
	t.Logf("labels: %v", labels)
	require.Equal(t, map[string]string{"lang": "zh-CN", "nodes": "节点", "workloads": "工作负载", "step": "s 单步", "why": "它为什么存在？",
		"sched": "调度", "mode": "单步模式", "switches": "控制器开关", "apply": "应用", "stop": "停止节点",
		"idle": "无事可做：所有控制回路都空闲，也没有到期的定时器。"}, labels)
	// A note with a Chinese text is shown in Chinese; one without, in English.
	require.Equal(t, "[1.000s] 时间推进", eval[string](t, ctx,
		`describeEntry({elapsed: '1.000s', note: 'time advances', note_zh: '时间推进', writes: []}), document.getElementById('current-write').textContent`))
	require.Equal(t, "[1.000s] only English", eval[string](t, ctx,
		`describeEntry({elapsed: '1.000s', note: 'only English', writes: []}), document.getElementById('current-write').textContent`))
	screenshot(t, ctx, "page-zh")

	// The switch: English, and it stays so after a reload.
	do(t, ctx, chromedp.Click(chromedp.ID("btn-lang")),
		waitJS(`document.documentElement.lang === 'en' && document.getElementById('workloads-h').textContent === 'Workloads'`))
	require.Equal(t, "Stop node", eval[string](t, ctx, `document.querySelector('.node[data-node="node-1"] .node-toggle').textContent`))
	require.Equal(t, "[1.000s] time advances", eval[string](t, ctx,
		`describeEntry({elapsed: '1.000s', note: 'time advances', note_zh: '时间推进', writes: []}), document.getElementById('current-write').textContent`))
	do(t, ctx, chromedp.Reload(), waitJS(stepModeShown), waitJS(`document.getElementById('tab-why').textContent === 'Why does this exist?'`))
	require.Equal(t, "中文 (zh)", text(t, ctx, "btn-lang"), "the switch offers Chinese back, its code in Latin letters for a machine without CJK fonts")
}
