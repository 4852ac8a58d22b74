package writers_test

import (
	"context"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/domain/writers"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// renewals is a Leaser that tells of every renewal.
type renewals struct {
	*fake.Leaser
	renewed chan time.Duration // the ttl of each renewal
}

func (r renewals) Renew(ctx context.Context, pane ports.PaneID, owner string, ttl time.Duration) error {
	err := r.Leaser.Renew(ctx, pane, owner, ttl)
	r.renewed <- ttl
	return err
}

// dueNow reports whether clock has a timer due d from now, without waiting.
func dueNow(clock *fake.Clock, d time.Duration) bool {
	done, cancel := context.WithCancel(context.Background())
	cancel()
	return clock.WaitForTimer(done, d) == nil
}

func TestALeaseLastsItsTTLOrTheDefaultWhenNoneIsGiven(t *testing.T) {
	for _, c := range []struct {
		ttl, want time.Duration
	}{{10 * time.Second, 10 * time.Second}, {0, writers.DefaultLeaseTTL}, {-time.Second, writers.DefaultLeaseTTL}} {
		clock := fake.NewClock(time.Unix(1000, 0))
		leaser := fake.NewLeaser(clock)
		ls := writers.NewLeases(leaser, clock, "me", c.ttl)
		l, err := ls.Take(context.Background(), "%1")
		if err != nil {
			t.Fatal(err)
		}
		if owner, expires, ok := leaser.Holder("%1"); !ok || owner != "me" || !expires.Equal(clock.Now().Add(c.want)) {
			t.Errorf("ttl %v: the lease is held by %q until %v (%v); want me, until %v", c.ttl, owner, expires, ok, clock.Now().Add(c.want))
		}
		if !dueNow(clock, c.want/3) {
			t.Errorf("ttl %v: no renewal due a third of %v from now", c.ttl, c.want)
		}
		l.Release()
		ls.Close()
	}
}

func TestALeaseIsRenewedEveryThirdOfItsLife(t *testing.T) {
	const ttl = 30 * time.Second
	clock := fake.NewClock(time.Unix(1000, 0))
	leaser := renewals{fake.NewLeaser(clock), make(chan time.Duration, 1)}
	ls := writers.NewLeases(leaser, clock, "me", ttl)
	defer ls.Close()
	l, err := ls.Take(context.Background(), "%1")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	for i := range 3 {
		if !dueNow(clock, ttl/3) {
			t.Fatalf("renewal %d: none is due %v from now", i+1, ttl/3)
		}
		clock.Advance(ttl / 3)
		select {
		case got := <-leaser.renewed:
			if got != ttl {
				t.Errorf("renewal %d for %v, want %v", i+1, got, ttl)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("renewal %d never came", i+1)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := clock.WaitForTimer(ctx, ttl/3) // the renewal is over, the next one waits
		cancel()
		if err != nil {
			t.Fatalf("after renewal %d: %v", i+1, err)
		}
		if _, expires, _ := leaser.Holder("%1"); !expires.Equal(clock.Now().Add(ttl)) {
			t.Errorf("after renewal %d the lease expires at %v, want %v", i+1, expires, clock.Now().Add(ttl))
		}
	}
}

// unanswered is a Leaser whose renewals the multiplexer never answers:
// each waits for its context.
type unanswered struct {
	*fake.Leaser
	started, ended chan error
}

func (u unanswered) Renew(ctx context.Context, _ ports.PaneID, _ string, _ time.Duration) error {
	u.started <- nil
	<-ctx.Done()
	u.ended <- ctx.Err()
	return ctx.Err()
}

// A renewal is bounded by the time to the next one: a multiplexer that
// does not answer holds up neither the next renewal nor Release.
func TestARenewalThatGetsNoAnswerIsGivenUpWhenTheNextIsDue(t *testing.T) {
	const ttl = 30 * time.Second
	clock := fake.NewClock(time.Unix(1000, 0))
	leaser := unanswered{fake.NewLeaser(clock), make(chan error, 1), make(chan error, 1)}
	ls := writers.NewLeases(leaser, clock, "me", ttl)
	defer ls.Close()
	l, err := ls.Take(context.Background(), "%1")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	clock.Advance(ttl / 3)
	wait := func(ch chan error, what string) error {
		t.Helper()
		select {
		case err := <-ch:
			return err
		case <-time.After(10 * time.Second):
			t.Fatalf("the renewal never %s", what)
			return nil
		}
	}
	wait(leaser.started, "started")
	clock.Advance(ttl / 3)
	if err := wait(leaser.ended, "was given up"); err == nil {
		t.Error("the renewal ended without its context's error")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := clock.WaitForTimer(ctx, ttl/3); err != nil {
		t.Fatalf("no renewal due after the one given up: %v", err)
	}
}

// describing is a Leaser that describes the pane as it leases it.
type describing struct{ *fake.Leaser }

func (d describing) AcquireAndDescribe(ctx context.Context, pane ports.PaneID, owner string, ttl time.Duration) (bool, string, ports.PaneInfo, error) {
	ok, holder, err := d.TryAcquire(ctx, pane, owner, ttl)
	return ok, holder, ports.PaneInfo{ID: pane, Command: "bash"}, err
}

// A lease taken from a Leaser that describes the pane (one round trip for
// both) carries that description; another lease has none.
func TestALeaseCarriesThePaneDescribedWithIt(t *testing.T) {
	clock := fake.NewClock(time.Unix(1000, 0))
	for _, c := range []struct {
		leaser ports.Leaser
		want   bool
	}{{describing{fake.NewLeaser(clock)}, true}, {fake.NewLeaser(clock), false}} {
		ls := writers.NewLeases(c.leaser, clock, "me", time.Minute)
		l, err := ls.Take(context.Background(), "%1")
		if err != nil {
			t.Fatal(err)
		}
		info, ok := l.Described()
		if ok != c.want || ok && (info.ID != "%1" || info.Command != "bash") {
			t.Errorf("%T: Described = %+v, %v; want a description: %v", c.leaser, info, ok, c.want)
		}
		l.Release()
		ls.Close()
	}
}

// A process without a Leaser has nil *Leases: it takes no lease, and
// closing it is harmless.
func TestNilLeasesTakeNothingAndCloseHarmlessly(t *testing.T) {
	var ls *writers.Leases
	l, err := ls.Take(context.Background(), "%1")
	if l != nil || err != nil {
		t.Errorf("Take of nil Leases = %v, %v; want nil, nil", l, err)
	}
	if _, ok := l.Described(); ok {
		t.Error("a nil Lease describes a pane")
	}
	l.Release()
	ls.Close()
}
