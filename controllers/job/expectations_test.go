package job

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/kubesim/kubesim/clock"
)

func TestExpectations(t *testing.T) {
	clk := clock.NewFake(t0)
	e := newExpectations(clk)
	assert.True(t, e.satisfied("j1"), "nothing recorded")
	e.expect("j1", 2, []string{"default/a"})
	assert.False(t, e.satisfied("j1"))
	e.lowerAdds("j1")
	e.lowerAdds("j1")
	assert.False(t, e.satisfied("j1"), "the deletion is not seen yet")
	e.deletionObserved("j1", "default/a")
	assert.True(t, e.satisfied("j1"))

	e.expect("j1", 1, nil)
	clk.Step(ExpectationsTimeout + time.Second)
	assert.True(t, e.satisfied("j1"), "a lost event: expired")
	e.forget("j1")
	assert.True(t, e.satisfied("j1"))
}
