package mcp

import (
	"context"
	"testing"
	"testing/synctest"
)

// A change seen before the SDK has recorded the subscription is not sent
// into the void: it is held, and told once the subscription is heard;
// after that every change passes at once. In a bubble, synctest.Wait
// returns once holdUntilHeard is blocked, so "nothing was passed on" is
// a fact, not a guess after a pause.
func TestChangesBeforeTheSubscriptionIsHeardAreHeldForIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		heard := make(chan struct{})
		signals := make(chan struct{}, 1)
		out := make(chan struct{}, 1)
		go holdUntilHeard(ctx, heard, signals, out)

		passed := func() bool {
			synctest.Wait()
			select {
			case <-out:
				return true
			default:
				return false
			}
		}
		signals <- struct{}{}
		signals <- struct{}{}
		if passed() {
			t.Fatal("a change was passed on before the subscription was heard")
		}
		close(heard)
		if !passed() {
			t.Fatal("the held change was not passed on once the subscription was heard")
		}
		if passed() {
			t.Fatal("two held changes were passed on as two; one stands for all")
		}
		signals <- struct{}{}
		if !passed() {
			t.Fatal("a change after the subscription was heard was not passed on")
		}
	})
}
