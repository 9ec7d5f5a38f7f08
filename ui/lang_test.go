package ui

import (
	"encoding/json"
	mrand "math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/scenario"
)

// The page follows the browser's language for the notes: the
// step answers carry a note in English (note) and, when the scenario has
// it, in Chinese (note_zh), and the steps' titles in both.
func TestStepAnswersCarryTheChineseNotes(t *testing.T) {
	s, err := scenario.Parse("t.yaml", []byte(`name: t
zh: {name: 测试}
cluster: {nodeCount: 1}
steps:
- note: One node settles.
  zh: 一个节点稳定下来。
- runUntilStable
- note: English only.
- advance: 2s
`), func(string) ([]byte, error) { return nil, os.ErrNotExist })
	require.NoError(t, err)
	r, err := scenario.New(s, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.Close() })
	srv, err := New(Config{API: r.Cluster().Server().Handler(), Runner: r, Token: "step-token",
		Clock: clock.NewFake(time.Now()), Rand: mrand.NewChaCha8([32]byte{3})})
	require.NoError(t, err)
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest("GET", srv.LoginPath(), nil))
	cookie := sessionCookie(t, rec)
	type answer struct {
		Entries  []map[string]any
		Idle     bool
		Result   string
		Note     *string
		NoteZh   *string `json:"note_zh"`
		Scenario struct {
			Name    string
			NameZh  string `json:"name_zh"`
			Steps   []string
			StepsZh []string `json:"steps_zh"`
			Current int
		}
	}
	step := func() answer {
		req := httptest.NewRequest("POST", "/ui/api/step", nil)
		req.Header.Set("Cookie", cookie)
		req.Header.Set(Header, "1")
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		var a answer
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &a), rec.Body.String())
		return a
	}

	a := step()
	require.NotNil(t, a.Note)
	require.NotNil(t, a.NoteZh)
	assert.Equal(t, "One node settles.", *a.Note)
	assert.Equal(t, "一个节点稳定下来。", *a.NoteZh)
	assert.Equal(t, "One node settles.", a.Result)
	assert.Equal(t, "t", a.Scenario.Name)
	assert.Equal(t, "测试", a.Scenario.NameZh)
	assert.Equal(t, []string{"note: One node settles.", "runUntilStable", "note: English only.", "advance 2s"}, a.Scenario.Steps)
	assert.Equal(t, []string{"note: 一个节点稳定下来。", "runUntilStable", "note: English only.", "advance 2s"}, a.Scenario.StepsZh)

	// The cluster's units carry no note; then the English-only note.
	for a = step(); a.Scenario.Current < 3; a = step() {
		assert.Nil(t, a.Note, "a unit of work is no note")
		assert.Nil(t, a.NoteZh)
	}
	require.NotNil(t, a.Note)
	assert.Equal(t, "English only.", *a.Note)
	assert.Nil(t, a.NoteZh, "no Chinese text: no note_zh")

	// Time advancing is a note of the trace, in both languages.
	advanced := false
	for i := 0; i < 100 && !advanced; i++ {
		for _, e := range step().Entries {
			if e["note"] == "time advances" {
				advanced = true
				assert.Equal(t, "时间推进", e["note_zh"])
			} else {
				assert.NotContains(t, e, "note_zh", "only a note has note_zh")
			}
		}
	}
	assert.True(t, advanced, "the advance step moves the clock")
}

func TestStepsZhLeftOutWithoutChineseNotes(t *testing.T) {
	s, err := scenario.Parse("t.yaml", []byte("name: t\ncluster: {nodeCount: 1}\nsteps:\n- note: hi\n- runUntilStable\n"),
		func(string) ([]byte, error) { return nil, os.ErrNotExist })
	require.NoError(t, err)
	r, err := scenario.New(s, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.Close() })
	srv, err := New(Config{API: r.Cluster().Server().Handler(), Runner: r, Token: "step-token",
		Clock: clock.NewFake(time.Now()), Rand: mrand.NewChaCha8([32]byte{4})})
	require.NoError(t, err)
	b, err := json.Marshal(srv.scenarioState())
	require.NoError(t, err)
	assert.NotContains(t, string(b), "steps_zh")
	assert.NotContains(t, string(b), "name_zh")
	assert.Contains(t, string(b), `"steps":["note: hi","runUntilStable"]`)
}
