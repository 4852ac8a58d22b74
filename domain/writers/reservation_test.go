package writers

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/domain/fault"
)

func TestReservationsAreOnePerPane(t *testing.T) {
	r := NewReservations()
	a, err := r.Acquire(context.Background(), "%1", "first")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Acquire(context.Background(), "%1", "second"); !errors.Is(err, fault.ErrBusy) || !strings.Contains(err.Error(), "first") {
		t.Fatalf("second writer: %v", err)
	}
	if _, err := r.Acquire(context.Background(), "%2", "other pane"); err != nil {
		t.Fatalf("another pane: %v", err)
	}
	released := r.Released("%1")
	a.Release()
	a.Release() // harmless
	select {
	case <-released:
	case <-time.After(time.Second):
		t.Fatal("Released channel not closed")
	}
	if _, err := r.Acquire(context.Background(), "%1", "third"); err != nil {
		t.Fatalf("after release: %v", err)
	}
}

func TestWhileReturnedHoldsOffRelease(t *testing.T) {
	r := NewReservations()
	rv, _ := r.Acquire(context.Background(), "%1", "run")
	if ran, _ := r.WhileReturned("%1", func() error { return nil }); ran {
		t.Fatal("ran while the call had not returned")
	}
	rv.Returned("run (returned)", nil)
	released := make(chan struct{})
	ran, err := r.WhileReturned("%1", func() error {
		go func() { rv.Release(); close(released) }()
		select {
		case <-released:
			t.Error("the reservation was released while an interrupt was being sent")
		case <-time.After(20 * time.Millisecond):
		}
		return nil
	})
	if !ran || err != nil {
		t.Fatalf("ran %v, %v", ran, err)
	}
	<-released
	if ran, _ := r.WhileReturned("%1", func() error { return nil }); ran {
		t.Fatal("ran after the release")
	}
}

// The hook a returned call leaves (Returned) hears of an interrupt that
// reached its pane, and of no other: an interrupt that failed to be sent
// changes nothing for the command.
func TestOnlyAnInterruptThatWasSentTellsTheReturnedCall(t *testing.T) {
	r := NewReservations()
	rv, err := r.Acquire(context.Background(), "%1", "run")
	if err != nil {
		t.Fatal(err)
	}
	told := 0
	rv.Returned("run (returned)", func() { told++ })
	lost := errors.New("the terminal is unreachable")
	if ran, err := r.WhileReturned("%1", func() error { return lost }); !ran || !errors.Is(err, lost) || told != 0 {
		t.Errorf("a failed interrupt: ran %v, %v, hook called %d times; want ran, the error, no call", ran, err, told)
	}
	if ran, err := r.WhileReturned("%1", func() error { return nil }); !ran || err != nil || told != 1 {
		t.Errorf("an interrupt sent: ran %v, %v, hook called %d times; want ran, nil, one call", ran, err, told)
	}
}

// A writer turned away is told whether the holder's call has returned,
// which is when interrupt keys reach its command.
func TestABusyPaneSaysWhetherItsHoldersCallReturned(t *testing.T) {
	r := NewReservations()
	rv, err := r.Acquire(context.Background(), "%1", "run")
	if err != nil {
		t.Fatal(err)
	}
	busy := func() *fault.BusyError {
		t.Helper()
		_, err := r.Acquire(context.Background(), "%1", "paste")
		var b *fault.BusyError
		if !errors.As(err, &b) {
			t.Fatalf("second writer: %v, want a *fault.BusyError", err)
		}
		return b
	}
	if b := busy(); b.Returned || b.Holder != "run" {
		t.Errorf("while the call is in flight: %+v, want holder run, not returned", b)
	}
	rv.Returned("run (its call returned timed_out)", nil)
	if b := busy(); !b.Returned || b.Holder != "run (its call returned timed_out)" {
		t.Errorf("after the call returned: %+v, want returned and the new holder", b)
	}
}

// An answer goes through only for the caller the reservation names, only
// once it is answerable, tells the hook, and holds off both the release
// and the start of it (Releasing), so that the writer's lease is not
// given back under the answer.
func TestWhileAnswerableIsTheCallersAndHoldsOffRelease(t *testing.T) {
	r := NewReservations()
	rv, _ := r.Acquire(context.Background(), "%1", "run")
	if ran, _ := r.WhileAnswerable("%1", "alice", func() error { return nil }); ran {
		t.Fatal("an answer went through before the command asked")
	}
	answered := 0
	rv.Answerable("alice", func() { answered++ })
	if ran, _ := r.WhileAnswerable("%1", "bob", func() error { return nil }); ran {
		t.Fatal("another caller's answer went through")
	}
	if _, err := r.Acquire(context.Background(), "%1", "paste"); !errors.As(err, new(*fault.BusyError)) {
		t.Fatalf("another writer: %v, want busy", err)
	} else if busy := (*fault.BusyError)(nil); errors.As(err, &busy) && !busy.AwaitingInput {
		t.Errorf("the busy error does not say the command awaits input: %+v", busy)
	}
	released := make(chan struct{})
	ran, err := r.WhileAnswerable("%1", "alice", func() error {
		go func() { rv.Releasing(); rv.Release(); close(released) }()
		select {
		case <-released:
			t.Error("the reservation was released while an answer was being written")
		case <-time.After(20 * time.Millisecond):
		}
		return nil
	})
	if !ran || err != nil || answered != 1 {
		t.Fatalf("ran %v, %v, hook told %d times", ran, err, answered)
	}
	<-released
	if ran, _ := r.WhileAnswerable("%1", "alice", func() error { return nil }); ran {
		t.Fatal("an answer went through after the release")
	}
	if answered != 1 {
		t.Errorf("hook told %d times, want once", answered)
	}
}
