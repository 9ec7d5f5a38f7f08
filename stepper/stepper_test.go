package stepper

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/runmode"
)

var bg = context.Background()

// paused is a Pausable that is stopped or not as the test says.
type paused struct{ stopped bool }

func (p *paused) Stopped() bool { return p.stopped }

// newLoop is a controller that notes each key it reconciles in seen and
// asks for "again" keys to come back after a second.
func newLoop(t *testing.T, s *Stepper, name string, seen *[]string) *controllers.Controller {
	t.Helper()
	c, err := controllers.New(controllers.Config{Name: name, Clock: s.Clock(), Mode: runmode.Step,
		Reconciler: controllers.ReconcileFunc(func(_ context.Context, key string) (controllers.Result, error) {
			*seen = append(*seen, name+":"+key)
			if key == "again" {
				return controllers.Result{RequeueAfter: time.Second}, nil
			}
			return controllers.Result{}, nil
		})})
	require.NoError(t, err)
	return c
}

func TestStepperOrderSwitchesPausesAndTime(t *testing.T) {
	enabled := map[string]bool{"a": true, "b": true, "k": true}
	s := New(Config{Enabled: func(name string) bool { return enabled[name] }})
	var seen []string
	a, b, k := newLoop(t, s, "a", &seen), newLoop(t, s, "b", &seen), newLoop(t, s, "k", &seen)
	kubelet := &paused{}
	s.Add(Actor{Switch: "a", Loops: []*controllers.Controller{a}})
	s.Add(Actor{Switch: "b", Loops: []*controllers.Controller{b}})
	s.Add(Actor{Switch: "k", Loops: []*controllers.Controller{k}, Pausable: kubelet})

	for _, c := range []*controllers.Controller{a, b, k} {
		c.Enqueue("1", controllers.Cause{Event: "test"})
		c.Enqueue("2", controllers.Cause{Event: "test"})
	}
	enabled["b"] = false
	kubelet.stopped = true
	_, err := s.RunUntilStable(bg, Limits{})
	require.NoError(t, err)
	assert.Equal(t, []string{"a:1", "a:2"}, seen, "a disabled switch and a stopped actor are left alone")

	seen = nil
	enabled["b"] = true
	kubelet.stopped = false
	_, err = s.RunUntilStable(bg, Limits{})
	require.NoError(t, err)
	assert.Equal(t, []string{"b:1", "k:1", "b:2", "k:2"}, seen, "round robin, one key per step")

	seen = nil
	start := s.Clock().Now()
	a.Enqueue("again", controllers.Cause{Event: "test"})
	_, err = s.Advance(bg, 2500*time.Millisecond, Limits{})
	require.NoError(t, err)
	assert.Equal(t, []string{"a:again", "a:again", "a:again"}, seen, "at 0s, 1s and 2s")
	assert.Equal(t, start.Add(2500*time.Millisecond), s.Clock().Now())

	var lines []string
	notes := 0
	for _, e := range s.Trace() {
		lines = append(lines, e.String())
		if e.Note != "" {
			notes++
			assert.Equal(t, "时间推进", e.NoteZh, "the note in Chinese too, not in the trace's text")
		}
	}
	assert.NotZero(t, notes)
	assert.Contains(t, lines, "[   1.000s]  time advances")
	assert.Contains(t, lines, "[   1.000s]  a                      again  (saw requeue after 1s)  (no change)")
}

// countingSource counts its Syncs and fails them with err.
type countingSource struct {
	syncs int
	err   error
}

func (c *countingSource) Run(context.Context) {}
func (c *countingSource) Sync(context.Context) error {
	c.syncs++
	return c.err
}
func (c *countingSource) HasSynced() bool { return true }

// With Config.Changes, a loop's lists are read again only when the count
// or the clock moved since they were last read; a loop whose resource is
// not served stays out until then.
func TestStepListsAgainOnlyAfterAChange(t *testing.T) {
	var changes uint64
	s := New(Config{Changes: func() uint64 { return changes }})
	var seen []string
	a, b := newLoop(t, s, "a", &seen), newLoop(t, s, "b", &seen)
	src, absent := &countingSource{}, &countingSource{err: api.NewNotFound(schema.GroupResource{Resource: "crontabs"}, "")}
	a.AddSource(src)
	b.AddSource(absent)
	s.Add(Actor{Switch: "a", Loops: []*controllers.Controller{a}})
	s.Add(Actor{Switch: "b", Loops: []*controllers.Controller{b}})

	step := func() {
		t.Helper()
		_, _, err := s.Step(bg)
		require.NoError(t, err)
	}
	step()
	step()
	assert.Equal(t, 1, src.syncs, "nothing changed: listed once")
	assert.Equal(t, 1, absent.syncs)

	b.Enqueue("1", controllers.Cause{Event: "test"})
	step()
	assert.Empty(t, seen, "the loop whose resource is not served stays out")

	changes++
	step()
	assert.Equal(t, 2, src.syncs, "a change: listed again")
	assert.Equal(t, 2, absent.syncs)

	s.clock.SetTime(s.clock.Now().Add(time.Second))
	step()
	assert.Equal(t, 3, src.syncs, "the clock moved: listed again")

	absent.err = nil
	changes++
	step()
	assert.Equal(t, []string{"b:1"}, seen, "served now: it runs")

	// Without Changes every step lists.
	plain := New(Config{})
	c := newLoop(t, plain, "c", &seen)
	every := &countingSource{}
	c.AddSource(every)
	plain.Add(Actor{Switch: "c", Loops: []*controllers.Controller{c}})
	for range 3 {
		_, _, err := plain.Step(bg)
		require.NoError(t, err)
	}
	assert.Equal(t, 3, every.syncs)
}
