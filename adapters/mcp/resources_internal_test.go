package mcp

import (
	"context"
	"testing"
	"time"
)

// A change seen before the SDK has recorded the subscription is not sent
// into the void: it is held, and told once the subscription is heard;
// after that every change passes at once.
func TestChangesBeforeTheSubscriptionIsHeardAreHeldForIt(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	heard := make(chan struct{})
	signals := make(chan struct{}, 1)
	out := make(chan struct{}, 1)
	go holdUntilHeard(ctx, heard, signals, out)

	signals <- struct{}{}
	signals <- struct{}{}
	select {
	case <-out:
		t.Fatal("a change was passed on before the subscription was heard")
	case <-time.After(50 * time.Millisecond):
	}
	close(heard)
	select {
	case <-out:
	case <-time.After(10 * time.Second):
		t.Fatal("the held change was not passed on once the subscription was heard")
	}
	select {
	case <-out:
		t.Fatal("two held changes were passed on as two; one stands for all")
	case <-time.After(50 * time.Millisecond):
	}
	signals <- struct{}{}
	select {
	case <-out:
	case <-time.After(10 * time.Second):
		t.Fatal("a change after the subscription was heard was not passed on")
	}
}
