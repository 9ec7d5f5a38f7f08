package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	scenarios "github.com/kubesim/kubesim/examples/scenarios"
	"github.com/kubesim/kubesim/scenario"
)

// TestDemoInChineseIsGolden is TestDemoTraceIsGolden with --lang zh:
// testdata/demo.zh.golden (go test -update rewrites it). Put the English
// notes and closing lines back and it is the English demo byte for byte:
// only the notes and the demo's own lines change, never the trace.
func TestDemoInChineseIsGolden(t *testing.T) {
	t.Parallel()
	a := goldenDemoRun(t, demoOptions{full: true, lang: scenario.Chinese}, "testdata/demo.zh.golden")
	want, err := os.ReadFile("testdata/demo.zh.golden")
	require.NoError(t, err, "run go test ./cmd/kubesim -run TestDemoInChineseIsGolden -update")
	assert.Equal(t, string(want), a)
	assert.Contains(t, a, "== 我们删除一个 Pod：kubelet 停止它，控制回路看到 2 < 3，于是创建一个替代的 Pod\n")
	assert.Contains(t, a, "]  时间推进\n")
	assert.NotContains(t, a, "We delete one pod")

	// The English run is the English golden (TestDemoTraceIsGolden holds
	// a run to it), or, while -update rewrites that file, a run.
	en, err := os.ReadFile("testdata/demo.golden")
	require.NoError(t, err)
	if *update {
		en = []byte(goldenDemoRun(t, demoOptions{full: true}, os.DevNull))
	}
	s, err := scenario.LoadFS(scenarios.FS(), demoScenario)
	require.NoError(t, err)
	var back []string
	for _, st := range s.Steps {
		if st.Op == scenario.OpNote {
			back = append(back, "== "+st.NoteText(scenario.Chinese)+"\n", "== "+st.NoteText(scenario.English)+"\n")
		}
	}
	m := regexp.MustCompile(`\n(\d+) steps\. Run`).FindStringSubmatch(string(en))
	require.NotNil(t, m, "the English demo's last lines")
	n, err := strconv.Atoi(m[1])
	require.NoError(t, err)
	back = append(back, "]  时间推进\n", "]  time advances\n",
		fmt.Sprintf(wordsFor(scenario.Chinese).demoEnd, n), fmt.Sprintf(wordsFor(scenario.English).demoEnd, n))
	assert.Equal(t, string(en), strings.NewReplacer(back...).Replace(a))
}

func TestDemoInChineseEndsInChinese(t *testing.T) {
	t.Parallel()
	code, out, errOut := kubesimWithInput("\n", "demo", "--step", "--lang", "zh", "--color=never")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, 2, strings.Count(out, "[Enter：下一步]"), "one Enter, then the end of the input")
	assert.Contains(t, out, "\n== 三个模拟的 kubelet 注册各自的节点，开始发送心跳\n")
	assert.Regexp(t, "\n共 \\d+ 步。运行 `kubesim serve`，用 kubectl 亲自试一试；\n", out)
	assert.NotContains(t, out, "Run `kubesim serve`")
}

func TestLangMustBeEnOrZh(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"demo", "--lang", "fr"},
		{"demo", "--lang=zh-CN"},
		{"scenario", "step", "--lang", "cn", "testdata/scenarios/small.yaml"},
		{"scenario", "run", "--lang", "", "testdata/scenarios/small.yaml"},
	} {
		code, out, errOut := kubesimWithInput("", args...)
		assert.NotEqual(t, 0, code, "%q", args)
		assert.Empty(t, out, "%q: nothing runs", args)
		assert.Equal(t, 1, code, "%q: a usage error", args)
		assert.Regexp(t, `^Error: invalid argument "[^"]*" for "--lang" flag: unknown language "[^"]*": expected en \(English\) or zh \(Chinese\)\n`, errOut, "%q", args)
		assert.Contains(t, errOut, "--lang en|zh", "%q: the usage follows", args)
	}
	code, _, errOut := kubesimWithInput("", "demo", "--lang", "en")
	assert.Equal(t, 0, code, errOut)
}

// bilingualScenario is a small scenario whose first note has a Chinese
// text and whose second has none.
const bilingualScenario = `name: one pod
description: A pod and a note.
zh:
  name: 一个 Pod
  description: 一个 Pod 和一条说明。
cluster:
  nodeCount: 1
  stages: {containerCreating: 1s, running: 1s, ready: 1s}
steps:
- note: A ReplicaSet of one.
  zh: 一个单副本的 ReplicaSet。
- apply: web-rs.yaml
- note: English only.
- runUntilStable
- advance: 5s
`

func writeBilingualScenario(t *testing.T) string {
	dir := t.TempDir()
	rs, err := os.ReadFile("testdata/web-rs.yaml")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "web-rs.yaml"), rs, 0o644))
	f := filepath.Join(dir, "s.yaml")
	require.NoError(t, os.WriteFile(f, []byte(bilingualScenario), 0o644))
	return f
}

func TestScenarioStepInChinese(t *testing.T) {
	t.Parallel()
	f := writeBilingualScenario(t)
	code, out, errOut := kubesimWithInput("c\nc\nc\nx\na\nq\n", "scenario", "step", "--lang", "zh", f)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "单步执行 "+f+"：一个 Pod（共 5 步）\n一个 Pod 和一条说明。\n")
	assert.Contains(t, out, "Enter：下一个工作单元")
	assert.Contains(t, out, "-- 下一步：第 1/5 步：note: 一个单副本的 ReplicaSet。\n> ")
	assert.Contains(t, out, "   ok: 一个单副本的 ReplicaSet。\n")
	assert.Contains(t, out, "-- 下一步：第 2/5 步：apply web-rs.yaml\n", "the rest of a title stays")
	assert.Contains(t, out, "ok: replicaset.apps/web created", "what the API answered stays")
	assert.Contains(t, out, "-- 下一步：第 3/5 步：note: English only.\n", "a note without Chinese text")
	assert.Contains(t, out, `未知命令 "x"；Enter：下一个工作单元`)
	assert.True(t, strings.HasSuffix(out, "再见\n"), out)
	assert.NotContains(t, out, "Stepping through")

	code, out, errOut = kubesimWithInput("c\nc\nc\nc\nc\n", "scenario", "step", "--lang", "zh", f)
	require.Equal(t, 0, code, errOut)
	assert.True(t, strings.HasSuffix(out, "场景结束：全部 5 步通过。\n"), out)
	assert.Contains(t, out, "]  时间推进")
}

func TestScenarioRunAndTraceInChinese(t *testing.T) {
	t.Parallel()
	f := writeBilingualScenario(t)
	// The runner's messages, back in English.
	stable := regexp.MustCompile(`(\d+) 个工作单元后稳定；时钟为 (\S+)`)
	advanced := regexp.MustCompile(`(\d+) 个工作单元；时钟为 (\S+)`)
	for _, sub := range []string{"run", "trace"} {
		code, en, errOut := kubesimWithInput("", "scenario", sub, f)
		require.Equal(t, 0, code, errOut)
		code, zh, errOut := kubesimWithInput("", "scenario", sub, "--lang", "zh", f)
		require.Equal(t, 0, code, errOut)
		assert.Contains(t, zh, "note: 一个单副本的 ReplicaSet。", sub)
		assert.Contains(t, en, "note: A ReplicaSet of one.", sub)
		assert.Regexp(t, stable, zh, sub)
		assert.NotContains(t, zh, "stable after", sub)
		back := strings.NewReplacer("一个单副本的 ReplicaSet。", "A ReplicaSet of one.", "时间推进", "time advances", "一个 Pod", "one pod").Replace(zh)
		back = stable.ReplaceAllString(back, "stable after $1 step(s); clock at $2")
		back = advanced.ReplaceAllString(back, "$1 step(s); clock at $2")
		assert.Equal(t, en, back, "%s: only the notes and the runner's messages change", sub)
	}
}

// `?` in the Chinese stepper tells the causality chain in Chinese, and the
// runner's "ok:" lines are Chinese too; the trace and what the API wrote
// stay as they are (TestScenarioStepIsDrivenByStdin in English).
func TestScenarioStepExplainsInChinese(t *testing.T) {
	t.Parallel()
	code, out, errOut := kubesimWithInput("?\nc\nc\nc\nc\n\n?\nq\n", "scenario", "step", "--lang", "zh", "testdata/scenarios/small.yaml")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "> 还没有哪个控制回路写入过任何东西：按 Enter 执行下一个工作单元。\n> ")
	assert.Regexp(t, `   ok: \d+ 个工作单元后稳定；时钟为 \d+\.\d{3}s\n`, out)
	assert.Contains(t, out, "ok: replicaset.apps/web created", "what the API answered stays")
	// One Enter ran one unit: the kubelet finishing the deleted pod, whose
	// last write is the delete itself (as in English).
	assert.Regexp(t, `最后一次写入：delete /api/v1/namespaces/default/pods/web-\w{5} 200\n`, out)
	assert.Regexp(t, `  由 kubelet/node-1 在 \d+\.\d{3}s 写入，当时它在调谐 default/web-\w{5}\n`, out)
	assert.Regexp(t, `  因为 kubelet/node-1 看到了 Pod default/web-\w{5} 在 resourceVersion \d+ 的 MODIFIED 事件\n`, out)
	assert.Regexp(t, `  resourceVersion \d+ 是你写入的：第 4 步（delete Pod -l app=web \(first 1\)）：delete /api/v1/namespaces/default/pods/web-\w{5} 200 rv=\d+\n`, out)
	for _, en := range []string{"The last write", "made by", "because ", "was written by", "stable after", "clock at", "No control loop"} {
		assert.NotContains(t, out, en)
	}
}

// Every Chinese sentence of the stepper takes the arguments its English
// one takes: formatted with the same values, it shows each of them, and
// no %!verb of a missing or extra one.
func TestChinesePhrasesTakeTheEnglishArguments(t *testing.T) {
	t.Parallel()
	args := map[string][]any{
		"Ran": {11, "1.500s"}, "Stable": {11, "1.500s"}, "Advanced": {11, "1.500s"}, "NotStable": {11}, "StillBusy": {11}, "Settles": nil,
		"NodeStopped": {"node-7"}, "NodeStarted": {"node-7"}, "ComponentKilled": {"cm-7"}, "TurnedOff": {"ctl-7"}, "TurnedOn": {"ctl-7"},
		"FailedAsExpected": {"Error from server (Invalid): x"},
		"Lead":             {"LEAD-7", "create /x 201"}, "LastWrite": nil, "CreatedBy": nil,
		"MadeBy": {"actor-7", "1.500s", "key-7"}, "NoCause": {"actor-7"}, "NotAnEvent": {"actor-7", "key-7", "timer-7"},
		"Requeued": {"key-7", "cause-7", "actor-7", "key-8", "1.500s"}, "SawEvent": {"actor-7", "ADDED", "Pod", "ns/name-7", "77"},
		"ByYou": {"77", "the web page", "create /x 201"}, "ByYouInStep": {"77", 4, "apply x.yaml", "create /x 201"},
		"NotTraced": {"77"}, "WrittenBy": {"77", "actor-7", "1.500s", "create /x 201", "key-7"},
		"YouCreated": {"the web page", "create /x 201"}, "YouCreatedInStep": {4, "apply x.yaml", "create /x 201"},
		"NoCreate": {"name-7", "/api/v1/pods"}, "NothingYet": nil,
		"DeviceUnhealthy": {"gpu-7", "example.com/gpu", "node-7"}, "DeviceHealthy": {"gpu-7", "example.com/gpu", "node-7"},
	}
	zh, en := wordsFor(scenario.Chinese), wordsFor(scenario.English)
	check := func(zhv, env reflect.Value) {
		for i := 0; i < zhv.NumField(); i++ {
			name := zhv.Type().Field(i).Name
			a, ok := args[name]
			require.True(t, ok, "the test gives %s its arguments", name)
			z, e := zhv.Field(i).String(), env.Field(i).String()
			require.NotEmpty(t, z, "%s has a Chinese text", name)
			assert.NotEqual(t, e, z, "%s is translated", name)
			out := fmt.Sprintf(z, a...)
			assert.NotContains(t, out, "%!", "%s: %q", name, out)
			for _, v := range a {
				assert.Contains(t, out, fmt.Sprint(v), "%s shows %v: %q", name, v, out)
			}
			assert.Equal(t, strings.HasSuffix(e, "\n"), strings.HasSuffix(z, "\n"), "%s ends its line as the English does", name)
		}
	}
	check(reflect.ValueOf(zh.steps), reflect.ValueOf(en.steps))
	check(reflect.ValueOf(zh.explain), reflect.ValueOf(en.explain))
}

func TestScenarioFlagsMayFollowTheFile(t *testing.T) {
	t.Parallel()
	f := writeBilingualScenario(t)
	code, out, errOut := kubesimWithInput("q\n", "scenario", "step", f, "--lang", "zh")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "-- 下一步：第 1/5 步：note: 一个单副本的 ReplicaSet。\n")

	// Flags before, between and after the files; after "--" every
	// argument is a file. The files are what scenario run is given.
	root := newRootCommand(strings.NewReader(""), io.Discard, io.Discard)
	cmd, rest, err := root.Find([]string{"scenario", "run", "a.yaml", "-v", "b.yaml", "--lang=zh", "--", "-c.yaml", "--lang"})
	require.NoError(t, err)
	require.Equal(t, "kubesim scenario run", cmd.CommandPath())
	require.NoError(t, cmd.ParseFlags(rest))
	assert.Equal(t, []string{"a.yaml", "b.yaml", "-c.yaml", "--lang"}, cmd.Flags().Args())
	assert.Equal(t, "true", cmd.Flag("v").Value.String())
	assert.Equal(t, string(scenario.Chinese), cmd.Flag("lang").Value.String())
}
