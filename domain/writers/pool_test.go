package writers_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/domain/writers"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// slowLeaser is a Leaser whose Release waits until the test lets it go,
// and which records the order of what it was asked.
type slowLeaser struct {
	ports.Leaser
	mu       sync.Mutex
	calls    []string
	letGo    chan struct{}
	released chan struct{}
}

func newSlowLeaser(clock *fake.Clock) *slowLeaser {
	return &slowLeaser{Leaser: fake.NewLeaser(clock), letGo: make(chan struct{}), released: make(chan struct{}, 8)}
}

func (l *slowLeaser) record(call string) {
	l.mu.Lock()
	l.calls = append(l.calls, call)
	l.mu.Unlock()
}

func (l *slowLeaser) TryAcquire(ctx context.Context, pane ports.PaneID, owner string, ttl time.Duration) (bool, string, error) {
	l.record("acquire")
	return l.Leaser.TryAcquire(ctx, pane, owner, ttl)
}

func (l *slowLeaser) Release(ctx context.Context, pane ports.PaneID, owner string) error {
	<-l.letGo
	l.record("release")
	err := l.Leaser.Release(ctx, pane, owner)
	l.released <- struct{}{}
	return err
}

// Giving a lease back is off the caller's path: Release returns before
// the multiplexer has answered, the pane is no longer busy meanwhile, and
// the next writer of the process waits for the release to land before it
// leases the pane again, so its lease is never given back under it. In a
// bubble (synctest), "the next writer waits" is checked once it can go
// no further, not after a pause that a slow machine may not fill.
func TestALeaseIsGivenBackAfterTheCallerMovesOn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clock := fake.NewClock(time.Unix(0, 0))
		leaser := newSlowLeaser(clock)
		pool := writers.NewPool(writers.NewLeases(leaser, clock, "me", time.Minute))
		t.Cleanup(func() {
			select {
			case <-leaser.letGo:
			default:
				close(leaser.letGo)
			}
			pool.Close()
		})
		ctx := context.Background()

		first, err := pool.Hold(ctx, "%1", "paste_text")
		if err != nil {
			t.Fatal(err)
		}
		first.Release() // returns although the leaser has not answered
		if holder, _, held := pool.Lookup("%1"); held {
			t.Errorf("the pane counts as held by %q while its lease is given back", holder)
		}
		select {
		case <-pool.Released("%1"):
			t.Fatal("Released before the lease was given back")
		default:
		}

		second := make(chan error, 1)
		go func() {
			h, err := pool.Hold(ctx, "%1", "send_keys")
			if err == nil {
				h.Release()
			}
			second <- err
		}()
		synctest.Wait() // the next writer is as far as it goes
		select {
		case err := <-second:
			t.Fatalf("the next writer went ahead before the lease was given back: %v", err)
		default:
		}
		close(leaser.letGo)
		if err := <-second; err != nil {
			t.Fatalf("the next writer: %v", err)
		}
		pool.Settle()
		<-leaser.released
		<-leaser.released
		leaser.mu.Lock()
		calls := append([]string(nil), leaser.calls...)
		leaser.mu.Unlock()
		if want := []string{"acquire", "release", "acquire", "release"}; !slices.Equal(calls, want) {
			t.Errorf("leaser calls %v, want %v: a lease is taken again only once the last is back", calls, want)
		}
	})
}

// A writer that waits for a release in flight gives up with its context.
func TestWaitingForAReleaseEndsWithTheContext(t *testing.T) {
	clock := fake.NewClock(time.Unix(0, 0))
	leaser := newSlowLeaser(clock)
	pool := writers.NewPool(writers.NewLeases(leaser, clock, "me", time.Minute))
	t.Cleanup(func() { close(leaser.letGo); pool.Close() })
	h, err := pool.Hold(context.Background(), "%1", "paste_text")
	if err != nil {
		t.Fatal(err)
	}
	h.Release()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := pool.Hold(ctx, "%1", "send_keys"); !errors.Is(err, context.Canceled) {
		t.Errorf("Hold while the release hangs, with a cancelled context: %v, want context.Canceled", err)
	}
	// A writer that holds the pane for real is still refused at once.
	other := writers.NewPool(nil)
	busy, err := other.Hold(context.Background(), "%2", "run_shell_command \"make\"")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Release()
	if _, err := other.Hold(context.Background(), "%2", "paste_text"); !errors.Is(err, fault.ErrBusy) {
		t.Errorf("Hold of a busy pane: %v, want busy at once", err)
	}
}
