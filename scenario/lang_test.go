package scenario

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const bilingual = `cluster: {nodeCount: 1}
steps:
- note: >-
    A pod is applied;
    the scheduler binds it
  zh: >-
    应用一个 Pod；
    调度器绑定它
- note: English only
- apply: pod.yaml
- runUntilStable
`

func TestNotesCarryAChineseText(t *testing.T) {
	s, err := Parse("s.yaml", []byte(bilingual), readMap(map[string]string{"pod.yaml": podYAML}))
	require.NoError(t, err)
	require.Len(t, s.Steps, 4)
	n := s.Steps[0]
	assert.Equal(t, OpNote, n.Op)
	assert.Equal(t, "A pod is applied; the scheduler binds it", n.Text)
	assert.Equal(t, "应用一个 Pod； 调度器绑定它", n.TextZh)
	assert.Equal(t, "A pod is applied; the scheduler binds it", n.NoteText(English))
	assert.Equal(t, "应用一个 Pod； 调度器绑定它", n.NoteText(Chinese))
	assert.Equal(t, "note: A pod is applied; the scheduler binds it", n.Title(), "Title stays English")
	assert.Equal(t, "note: 应用一个 Pod； 调度器绑定它", n.TitleIn(Chinese))
	assert.Equal(t, "English only", s.Steps[1].NoteText(Chinese), "no Chinese text: the English one")
	assert.Equal(t, "apply pod.yaml", s.Steps[2].TitleIn(Chinese), "only notes change")
	// The zh key may come first.
	s, err = Parse("s.yaml", []byte("steps:\n- zh: 你好\n  note: hello\n"), nil)
	require.NoError(t, err)
	assert.Equal(t, "你好", s.Steps[0].TextZh)
}

func TestScenarioNameAndDescriptionInChinese(t *testing.T) {
	s, err := Parse("s.yaml", []byte("name: one pod\ndescription: A pod.\nzh:\n  name: 一个 Pod\n  description: >-\n    一个\n    Pod。\nsteps: []\n"), nil)
	require.NoError(t, err)
	assert.Equal(t, "one pod", s.NameIn(English))
	assert.Equal(t, "一个 Pod", s.NameIn(Chinese))
	assert.Equal(t, "A pod.", s.DescriptionIn(English))
	assert.Equal(t, "一个 Pod。", s.DescriptionIn(Chinese))
	s, err = Parse("s.yaml", []byte("name: one pod\ndescription: A pod.\nsteps: []\n"), nil)
	require.NoError(t, err)
	assert.Equal(t, "one pod", s.NameIn(Chinese), "no Chinese name: the English one")
	assert.Equal(t, "A pod.", s.DescriptionIn(Chinese))
	for _, tc := range []struct{ src, want string }{
		{"zh: 一个 Pod\nsteps: []\n", `s.yaml:1: the scenario's zh: expected a mapping with name, description, got "一个 Pod"`},
		{"zh: {title: x}\nsteps: []\n", `s.yaml:1: unknown field "title" in the scenario's zh (expected one of: name, description)`},
		{"zh: {name: [x]}\nsteps: []\n", `s.yaml:1: zh.name: expected a string, got a list`},
	} {
		_, err := Parse("s.yaml", []byte(tc.src), nil)
		assert.EqualError(t, err, tc.want)
	}
}

func TestNoteChineseTextErrors(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"zh alone", "steps:\n- zh: 你好\n", `s.yaml:2: zh: a Chinese text belongs to a note: write it below the note's text (- note: ... then   zh: ...)`},
		{"zh on another step", "steps:\n- runUntilStable: {}\n  zh: 稳定\n", `s.yaml:2: a step has exactly one key, the step's name; found 2: runUntilStable, zh (only a note carries a Chinese text, zh)`},
		{"a third key", "steps:\n- note: hi\n  zh: 你好\n  fr: salut\n", `s.yaml:4: unknown field "fr" in a note step (expected one of: note, zh)`},
		{"twice", "steps:\n- note: hi\n  zh: 你好\n  zh: 您好\n", `field "zh" given twice in a note step`},
		{"not a string", "steps:\n- note: hi\n  zh: [a]\n", `s.yaml:3: note's zh: expected a string, got a list`},
		{"a misspelt key", "steps:\n- note: hi\n  cn: 你好\n", `s.yaml:3: unknown field "cn" in a note step (expected one of: note, zh)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("s.yaml", []byte(tc.src), nil)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestParseLang(t *testing.T) {
	for _, s := range []string{"en", "zh"} {
		l, err := ParseLang(s)
		require.NoError(t, err)
		assert.Equal(t, Lang(s), l)
	}
	for _, s := range []string{"", "cn", "zh-CN", "EN", "fr"} {
		_, err := ParseLang(s)
		assert.EqualError(t, err, `unknown language "`+s+`": expected en (English) or zh (Chinese)`)
	}
}

// The reporter prints each note in its language, every style; the
// trace's entries stay as they are, but for "time advances", a note too.
func TestReporterShowsNotesInItsLanguage(t *testing.T) {
	run := func(style Style, lang Lang) string {
		s, err := Parse("s.yaml", []byte("name: a pod\nzh: {name: 一个 Pod}\n"+bilingual+"- advance: 5s\n"), readMap(map[string]string{"pod.yaml": podYAML}))
		require.NoError(t, err)
		var out bytes.Buffer
		rep := &Reporter{W: &out, Style: style, Lang: lang, Full: true}
		r, err := New(s, rep)
		require.NoError(t, err)
		defer r.Close()
		rep.Header(s)
		_, err = r.RunAll(context.Background())
		require.NoError(t, err)
		rep.Footer(s)
		return out.String()
	}
	for _, style := range []Style{StyleTrace, StyleSummary, StyleStory} {
		en, zh := run(style, English), run(style, Chinese)
		assert.Contains(t, en, "A pod is applied; the scheduler binds it")
		assert.NotContains(t, en, "调度器")
		assert.Contains(t, zh, "应用一个 Pod； 调度器绑定它")
		assert.NotContains(t, zh, "A pod is applied")
		assert.Contains(t, zh, "English only", "a note without Chinese text shows in English")
		// Everything else is the same, the trace's writes included.
		replacer := strings.NewReplacer("应用一个 Pod； 调度器绑定它", "A pod is applied; the scheduler binds it", "时间推进", "time advances", "一个 Pod", "a pod")
		assert.Equal(t, en, replacer.Replace(zh), "style %d: only notes change", style)
		if style != StyleSummary {
			assert.Contains(t, zh, "]  时间推进", "style %d", style)
			assert.Contains(t, en, "]  time advances", "style %d", style)
		}
	}
	assert.Contains(t, run(StyleTrace, Chinese), "# scenario: 一个 Pod\n== 1 note: 应用一个 Pod； 调度器绑定它\n   ok: 应用一个 Pod； 调度器绑定它\n")
	assert.Contains(t, run(StyleStory, Chinese), "一个 Pod\n\n== 应用一个 Pod； 调度器绑定它\n")
	assert.Contains(t, run(StyleSummary, Chinese), "=== s.yaml: 一个 Pod\nok     1  note: 应用一个 Pod； 调度器绑定它\n")
}

// The runner's own messages — how long a run took, a controller turned
// off — come from Options.Phrases (English without them); what the API
// answered stays kubectl's text.
func TestRunnerSpeaksItsPhrases(t *testing.T) {
	const src = `cluster: {nodeCount: 1}
steps:
- apply: pod.yaml
- runUntilStable
- run: 1
- advance: 2s
- controllerOff: replicaset
- controllerOn: replicaset
- stopNode: node-1
- startNode: node-1
`
	run := func(p Phrases) string {
		s, err := Parse("s.yaml", []byte(src), readMap(map[string]string{"pod.yaml": podYAML}))
		require.NoError(t, err)
		var out bytes.Buffer
		r, err := NewWithOptions(s, &Reporter{W: &out, Style: StyleSummary}, Options{Phrases: p})
		require.NoError(t, err)
		defer r.Close()
		ok, err := r.RunAll(context.Background())
		require.NoError(t, err)
		require.True(t, ok, out.String())
		return out.String()
	}
	en := run(Phrases{})
	assert.Regexp(t, `(?m)^\s+pod/web created$`, en)
	assert.Regexp(t, `(?m)^\s+stable after \d+ step\(s\); clock at \d+\.\d{3}s$`, en)
	assert.Regexp(t, `(?m)^\s+ran \d+ step\(s\); clock at \d+\.\d{3}s$`, en)
	assert.Regexp(t, `(?m)^\s+\d+ step\(s\); clock at \d+\.\d{3}s$`, en)
	assert.Contains(t, en, "replicaset turned off\n")
	assert.Contains(t, en, "the kubelet of node-1 started again\n")

	p := Phrases{Ran: "RAN %d @%s", Stable: "STABLE %d @%s", Advanced: "ADVANCED %d @%s", NotStable: "BUSY %d", StillBusy: "STILL %d",
		Settles: "SETTLES", NodeStopped: "STOPPED %s", NodeStarted: "STARTED %s", ComponentKilled: "KILLED %s",
		TurnedOff: "OFF %s", TurnedOn: "ON %s", FailedAsExpected: "AS EXPECTED %s"}
	other := run(p)
	assert.Regexp(t, `(?m)^\s+pod/web created$`, other, "what the API answered stays")
	assert.Regexp(t, `(?m)^\s+STABLE \d+ @\d+\.\d{3}s$`, other)
	assert.Regexp(t, `(?m)^\s+RAN \d+ @\d+\.\d{3}s$`, other)
	assert.Regexp(t, `(?m)^\s+ADVANCED \d+ @\d+\.\d{3}s$`, other)
	for _, want := range []string{"OFF replicaset\n", "ON replicaset\n", "STOPPED node-1\n", "STARTED node-1\n"} {
		assert.Contains(t, other, want)
	}
	assert.NotContains(t, other, "clock at")
}
