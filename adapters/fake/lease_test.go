package fake_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

func TestLeaserGivesAPaneToOneOwnerUntilItExpires(t *testing.T) {
	clock := fake.NewClock(time.Unix(0, 0))
	l := fake.NewLeaser(clock)
	const ttl = 10 * time.Second

	steps := []struct {
		name       string
		act        func() (bool, string, error)
		ok         bool
		holder     string
		advanceBy  time.Duration // after the step
		wantHolder string        // who holds %1 after the step ("" for nobody)
	}{
		{"a takes a free pane", func() (bool, string, error) { return l.TryAcquire(ctx, "%1", "a", ttl) }, true, "", 0, "a"},
		{"b is refused", func() (bool, string, error) { return l.TryAcquire(ctx, "%1", "b", ttl) }, false, "a", 9 * time.Second, "a"},
		{"a again is renewed", func() (bool, string, error) { return l.TryAcquire(ctx, "%1", "a", ttl) }, true, "", 10*time.Second - time.Nanosecond, "a"},
		{"b just before expiry", func() (bool, string, error) { return l.TryAcquire(ctx, "%1", "b", ttl) }, false, "a", time.Nanosecond, "a"},
		{"b at expiry takes over", func() (bool, string, error) { return l.TryAcquire(ctx, "%1", "b", ttl) }, true, "", 0, "b"},
		{"another pane is free", func() (bool, string, error) { return l.TryAcquire(ctx, "%2", "a", ttl) }, true, "", 0, "b"},
	}
	for _, s := range steps {
		ok, holder, err := s.act()
		if err != nil || ok != s.ok || holder != s.holder {
			t.Fatalf("%s: got %v, %q, %v; want %v, %q", s.name, ok, holder, err, s.ok, s.holder)
		}
		clock.Advance(s.advanceBy)
		if owner, _, _ := l.Holder("%1"); owner != s.wantHolder {
			t.Fatalf("after %q: %%1 held by %q, want %q", s.name, owner, s.wantHolder)
		}
	}
}

func TestLeaserRenewAndRelease(t *testing.T) {
	clock := fake.NewClock(time.Unix(0, 0))
	l := fake.NewLeaser(clock)
	const ttl = time.Minute
	l.TryAcquire(ctx, "%1", "a", ttl)

	clock.Advance(30 * time.Second)
	if err := l.Renew(ctx, "%1", "a", ttl); err != nil {
		t.Fatalf("Renew by the holder: %v", err)
	}
	if _, expires, _ := l.Holder("%1"); !expires.Equal(time.Unix(90, 0)) {
		t.Errorf("renewed lease expires %v, want 90 s after the start", expires)
	}
	if err := l.Renew(ctx, "%1", "b", ttl); !errors.Is(err, ports.ErrLeaseLost) {
		t.Errorf("Renew by another owner: err = %v, want ErrLeaseLost", err)
	}
	if err := l.Release(ctx, "%1", "b"); err != nil {
		t.Errorf("Release by another owner: %v", err)
	}
	if owner, _, ok := l.Holder("%1"); !ok || owner != "a" {
		t.Errorf("after another owner's Release: held by %q (%v), want still a", owner, ok)
	}
	if err := l.Release(ctx, "%1", "a"); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := l.Holder("%1"); ok {
		t.Error("the holder's Release left the lease")
	}
	if err := l.Release(ctx, "%1", "a"); err != nil {
		t.Errorf("releasing twice: %v", err)
	}
	if err := l.Renew(ctx, "%1", "b", ttl); err != nil {
		t.Errorf("Renew of a free pane: %v, want it leased again", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, _, err := l.TryAcquire(cancelled, "%3", "a", ttl); !errors.Is(err, context.Canceled) {
		t.Errorf("TryAcquire with a cancelled context: err = %v", err)
	}
}
