package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// The warm-up waits while a request is in flight or one ended lately, and
// goes on once the server has been quiet for warmIdle.
func TestWarmUpWaitsForAQuietServer(t *testing.T) {
	long := time.Now().Add(-time.Hour)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()

	busy := &idleWatch{inFlight: 1, last: long}
	assert.False(t, busy.wait(cancelled), "a request in flight")

	recent := &idleWatch{last: time.Now()}
	assert.False(t, recent.wait(cancelled), "a request ended just now")

	quiet := &idleWatch{last: long}
	assert.True(t, quiet.wait(cancelled), "quiet for longer than warmIdle")
}
