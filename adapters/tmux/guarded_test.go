package tmux

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/clock"
	"github.com/tmux-mcp/tmux-mcp/adapters/random"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/domain/writers"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// Guarded writes on real tmux: a pane that changes between the
// description a write was judged on and the write is not written to, and
// nothing at all reaches it.

func TestGuardedWriteRefusesAPaneThatChanged(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		change func(s *testServer, p ports.PaneID)
		holder string // the lease holder GuardedWrite names
	}{
		{"copy mode", func(s *testServer, p ports.PaneID) { s.tmux("copy-mode", "-t", string(p)) }, ""},
		{"a watcher attached", func(s *testServer, p ports.PaneID) { s.attach(string(p)) }, ""},
		{"leased by another process", func(s *testServer, p ports.PaneID) {
			other := s.terminal(Options{})
			if ok, _, err := other.TryAcquire(testContext(t), p, "server-b", time.Hour); !ok || err != nil {
				t.Fatalf("TryAcquire by another process = %v, %v", ok, err)
			}
		}, "server-b"},
		{"respawned", func(s *testServer, p ports.PaneID) {
			s.tmux("respawn-pane", "-k", "-t", string(p))
			s.waitPrompt(p)
		}, ""},
		{"synchronized", func(s *testServer, p ports.PaneID) {
			s.split(p, bashCmd)
			s.tmux("set-option", "-w", "-t", string(p), "synchronize-panes", "on")
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newTestServer(t)
			p := s.session("main", bashCmd)
			s.waitPrompt(p)
			term := s.terminal(Options{})
			ctx := testContext(t)
			info, guard, err := term.DescribeGuarded(ctx, p)
			if err != nil || guard == "" || info.Mode != "" || len(info.Watchers) != 0 {
				t.Fatalf("DescribeGuarded = %+v, %q, %v", info, guard, err)
			}
			tc.change(s, p)
			for _, act := range []ports.GuardedAction{
				{Text: "echo typed-MARK", Enter: true},
				{Keys: []string{"e", "c", "h", "o", "Space", "k"}, Enter: true},
				{Paste: "echo pasted-MARK", Enter: true},
			} {
				res, err := term.GuardedWrite(ctx, ports.GuardedWrite{Pane: p, Guard: guard, Owner: "server-a", Action: act})
				if err != nil {
					t.Fatalf("GuardedWrite(%+v): %v", act, err)
				}
				if res.Written || res.Holder != tc.holder || res.Guard == guard && tc.holder == "" {
					t.Errorf("GuardedWrite(%+v) = written %v, holder %q, guard %q (was %q); want not written, holder %q, a new guard",
						act, res.Written, res.Holder, res.Guard, guard, tc.holder)
				}
			}
			s.tmuxErr("send-keys", "-X", "-t", string(p), "cancel") // fails harmlessly outside copy mode
			time.Sleep(200 * time.Millisecond)                      // what was typed would show by now
			if screen := s.screen(p); strings.Contains(screen, "MARK") || strings.Contains(screen, "echo k") {
				t.Errorf("the pane got input:\n%s", screen)
			}
		})
	}
}

func TestGuardedWriteWritesWhenNothingChanged(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	p := s.session("main", bashCmd)
	s.waitPrompt(p)
	term := s.terminal(Options{})
	ctx := testContext(t)
	_, guard, err := term.DescribeGuarded(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	for i, act := range []ports.GuardedAction{
		{Text: "echo one-$((40+2))", Enter: true},
		{Keys: []string{"e", "c", "h", "o", "Space", "t", "w", "o", "-", "$", "(", "(", "4", "+", "3", ")", ")"}, Enter: true},
		{Paste: "echo 'three-;'\"$((4+4))\"", Enter: true},
	} {
		res, err := term.GuardedWrite(ctx, ports.GuardedWrite{Pane: p, Guard: guard, Owner: "server-a", Action: act})
		if err != nil || !res.Written || res.Info.ID != p {
			t.Fatalf("GuardedWrite %d = %+v, %v; want written", i, res, err)
		}
		guard = res.Guard
	}
	var screen string
	defer func() {
		if t.Failed() {
			t.Logf("screen:\n%s", screen)
		}
	}()
	eventually(t, 10*time.Second, "the three lines' output", func() bool {
		screen = s.screen(p)
		return strings.Contains(screen, "\none-42\n") && strings.Contains(screen, "\ntwo-7\n") && strings.Contains(screen, "\nthree-;8\n")
	})
	if v := strings.TrimSpace(s.tmux("show-options", "-p", "-q", "-v", "-t", string(p), LeaseOwnerOption)); v != "" {
		t.Errorf("a guarded write left the lease set: %q", v)
	}
	if _, err := term.GuardedWrite(ctx, ports.GuardedWrite{Pane: p, Guard: "x,}", Action: ports.GuardedAction{Text: "x"}}); !errors.Is(err, ports.ErrUnsupported) {
		t.Errorf("a guard this adapter did not make: %v, want ErrUnsupported", err)
	}
	if _, err := term.GuardedWrite(ctx, ports.GuardedWrite{Pane: p, Guard: guard, Action: ports.GuardedAction{Keys: []string{"Bogus"}}}); !errors.Is(err, ports.ErrUnknownKey) {
		t.Errorf("an unknown key: %v, want ErrUnknownKey", err)
	}
}

// The domain on real tmux: a pane that changed since its last write is
// refused with the rule the policy names, and nothing is typed.
func TestGuardedSendKeysRefusesWithThePolicysRule(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		change func(s *testServer, p ports.PaneID)
		want   fault.Refusal
	}{
		{"watched", func(s *testServer, p ports.PaneID) { s.attach(string(p)) }, fault.RefusedWatched},
		{"copy mode", func(s *testServer, p ports.PaneID) { s.tmux("copy-mode", "-t", string(p)) }, fault.RefusedInMode},
		{"synchronized", func(s *testServer, p ports.PaneID) {
			s.split(p, bashCmd)
			s.tmux("set-option", "-w", "-t", string(p), "synchronize-panes", "on")
		}, fault.RefusedSynchronized},
		{"leased", func(s *testServer, p ports.PaneID) {
			if ok, _, err := s.terminal(Options{}).TryAcquire(testContext(t), p, "server-b", time.Hour); !ok || err != nil {
				t.Fatalf("TryAcquire by another process = %v, %v", ok, err)
			}
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newTestServer(t)
			p := s.session("main", bashCmd)
			s.waitPrompt(p)
			term := s.terminal(Options{})
			clk := clock.New()
			pool := writers.NewPool(writers.NewLeases(term, clk, "server-a", time.Minute))
			svc := domain.NewService(term, clk, random.New(), domain.DefaultConfig(), domain.WithWriters(pool))
			t.Cleanup(func() { svc.Close(); pool.Close() })
			ctx := testContext(t)
			// The pane described by a first write.
			if _, err := svc.SendKeys(ctx, domain.SendKeysRequest{PaneID: p, Keys: "true", Literal: true, Enter: true}); err != nil {
				t.Fatal(err)
			}
			tc.change(s, p)
			for _, req := range []domain.SendKeysRequest{
				{PaneID: p, Keys: "echo typed-MARK", Literal: true, Enter: true},
			} {
				if tc.want == fault.RefusedInMode {
					break // keys may go to a mode: the paste below is refused
				}
				_, err := svc.SendKeys(ctx, req)
				var refused *fault.RefusalError
				var busy *fault.BusyError
				switch {
				case tc.want == "" && !(errors.As(err, &busy) && busy.Owner == "server-b"):
					t.Errorf("SendKeys = %v, want busy, leased by server-b", err)
				case tc.want != "" && !(errors.As(err, &refused) && refused.Why == tc.want):
					t.Errorf("SendKeys = %v, want refused %s", err, tc.want)
				}
			}
			_, err := svc.PasteText(ctx, domain.PasteRequest{PaneID: p, Text: "echo pasted-MARK", Enter: true})
			var refused *fault.RefusalError
			var busy *fault.BusyError
			switch {
			case tc.want == "" && !errors.As(err, &busy):
				t.Errorf("PasteText = %v, want busy", err)
			case tc.want != "" && !(errors.As(err, &refused) && refused.Why == tc.want):
				t.Errorf("PasteText = %v, want refused %s", err, tc.want)
			}
			s.tmuxErr("send-keys", "-X", "-t", string(p), "cancel")
			time.Sleep(200 * time.Millisecond)
			if screen := s.screen(p); strings.Contains(screen, "MARK") {
				t.Errorf("the pane got input:\n%s", screen)
			}
		})
	}
}

// On a pane already written to, send_keys, typed text and paste_text are
// one exchange with tmux each: the guard, the lease's check and the action
// in one command line of the control client.
func TestALightWriteOnAWarmPaneIsOneExchange(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	p := s.session("main", bashCmd)
	s.waitPrompt(p)
	// No poll of the recorded panes may fall into what is counted.
	term := s.terminal(Options{PollInterval: time.Hour})
	svc, _ := leasingService(t, term, "server-a")
	ctx := testContext(t)
	if _, err := svc.SendKeys(ctx, domain.SendKeysRequest{PaneID: p, Keys: "true", Literal: true, Enter: true}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		write func() error
	}{
		{"send_keys", func() error {
			_, err := svc.SendKeys(ctx, domain.SendKeysRequest{PaneID: p, Keys: "C-u"})
			return err
		}},
		{"typed text", func() error {
			_, err := svc.SendKeys(ctx, domain.SendKeysRequest{PaneID: p, Keys: "echo typed-$((1+1))", Literal: true, Enter: true})
			return err
		}},
		{"paste_text", func() error {
			_, err := svc.PasteText(ctx, domain.PasteRequest{PaneID: p, Text: "echo pasted-$((2+2))", Enter: true})
			return err
		}},
	} {
		before := term.controlLines.Load()
		if err := tc.write(); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if n := term.controlLines.Load() - before; n != 1 {
			t.Errorf("%s on a warm pane took %d command lines, want 1", tc.name, n)
		}
	}
	defer func() {
		if t.Failed() {
			t.Logf("screen:\n%s", s.screen(p))
		}
	}()
	s.waitScreen(p, "both writes' output", func(screen string) bool {
		return strings.Contains(screen, "\ntyped-2\n") && strings.Contains(screen, "\npasted-4\n")
	})
}
