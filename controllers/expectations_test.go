package controllers

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/clock"
)

var e0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func TestControllerExpectations(t *testing.T) {
	clk := clock.NewFake(e0)
	e := NewControllerExpectations(clk, time.Minute)
	assert.True(t, e.SatisfiedExpectations("ns/rs"), "nothing recorded")

	e.ExpectCreations("ns/rs", 2)
	assert.False(t, e.SatisfiedExpectations("ns/rs"))
	e.CreationObserved("ns/rs")
	assert.False(t, e.SatisfiedExpectations("ns/rs"))
	e.CreationObserved("ns/rs")
	assert.True(t, e.SatisfiedExpectations("ns/rs"))
	_, pending := e.Expiry("ns/rs")
	assert.False(t, pending)

	e.ExpectDeletions("ns/rs", []string{"ns/a", "ns/b"})
	e.DeletionObserved("ns/rs", "ns/other") // not ours
	e.DeletionObserved("ns/rs", "ns/a")
	e.DeletionObserved("ns/rs", "ns/a") // twice counts once
	add, del := e.Pending("ns/rs")
	assert.Equal(t, 0, add)
	assert.Equal(t, 1, del)
	assert.False(t, e.SatisfiedExpectations("ns/rs"))
	at, pending := e.Expiry("ns/rs")
	require.True(t, pending)
	assert.Equal(t, e0.Add(time.Minute), at)
	clk.Step(time.Minute + time.Second)
	assert.True(t, e.SatisfiedExpectations("ns/rs"), "expired")

	e.DeleteExpectations("ns/rs")
	add, del = e.Pending("ns/rs")
	assert.Equal(t, 0, add+del)
	e.CreationObserved("ns/unknown") // no panic, no record
	assert.True(t, e.SatisfiedExpectations("ns/unknown"))
}

func TestSetExpectations(t *testing.T) {
	e := NewControllerExpectations(clock.NewFake(e0), 0)
	e.SetExpectations("ns/ds", 1, []string{"ns/old"})
	e.CreationObserved("ns/ds")
	assert.False(t, e.SatisfiedExpectations("ns/ds"), "the deletion is still in flight")
	e.DeletionObserved("ns/ds", "ns/old")
	assert.True(t, e.SatisfiedExpectations("ns/ds"))
}
