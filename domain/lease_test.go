package domain_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/golang/mock/gomock"

	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/adapters/mocks"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/domain/lifecycle"
	"github.com/tmux-mcp/tmux-mcp/domain/writers"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// Two server processes on one multiplexer, as two Services sharing a fake
// terminal and a fake Leaser: each keeps its own reservations, and only
// the leases keep them out of each other's panes.

const leaseTTL = 30 * time.Second

type twoServers struct {
	t      *testing.T
	clock  *fake.Clock
	term   *fake.Terminal
	leaser *fake.Leaser
	a, b   *server
	pane   ports.PaneID
	ctx    context.Context
	calls  calls
}

func newTwoServers(t *testing.T) *twoServers {
	t.Helper()
	clock := fake.NewClock(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
	term := fake.New(fake.WithClock(clock))
	mgr := fake.NewManager(term)
	leaser := fake.NewLeaser(clock)
	// A liveness check far off keeps the timers a test counts to the
	// deadline, the liveness timer and the lease's renewal.
	cfg := domain.DefaultConfig()
	cfg.LivenessInterval = time.Hour
	s := &twoServers{t: t, clock: clock, term: term, leaser: leaser, pane: term.AddPane(fake.PaneSpec{}), ctx: context.Background()}
	s.a = newServer(t, term, mgr, clock, cfg, leaser, "server-a")
	s.b = newServer(t, term, mgr, clock, cfg, leaser, "server-b")
	return s
}

// A server is what one process builds: the pane tools' Service and the
// lifecycle tools', holding panes in one pool that leases as owner (none
// for a nil leaser); with a nil mgr, no lifecycle tools.
type server struct {
	*domain.Service
	life *lifecycle.Service
}

func newServer(t *testing.T, term *fake.Terminal, mgr ports.Manager, clock ports.Clock, cfg domain.Config, leaser ports.Leaser, owner string) *server {
	var leases *writers.Leases
	if leaser != nil {
		leases = writers.NewLeases(leaser, clock, owner, leaseTTL)
	}
	pool := writers.NewPool(leases)
	svc := domain.NewService(term, clock, fake.NewIDs(), cfg, domain.WithWriters(pool))
	t.Cleanup(func() { svc.Close(); pool.Close() })
	var life *lifecycle.Service
	if mgr != nil {
		life = lifecycle.New(lifecycle.FromManager(mgr), term, pool, svc.ExpectStartingShell)
	}
	return &server{Service: svc, life: life}
}

// released returns once srv holds the pane no more, its lease given back
// included (which happens after the call's reply).
func (s *twoServers) released(srv *server) {
	s.t.Helper()
	select {
	case <-srv.Released(s.pane):
	case <-time.After(10 * time.Second):
		s.t.Fatal("the pane was never released")
	}
}

func (s *twoServers) waitTimers(n int) {
	s.t.Helper()
	s.calls.waitTimers(s.t, s.clock, n)
}

// startHanging has server a run a command in the pane that runs until
// interrupted; the returned channel receives the call's result.
func (s *twoServers) startHanging() <-chan runReply {
	s.term.Expect(s.pane, fake.Run{Hang: true})
	reply := make(chan runReply, 1)
	s.calls.start("a's run_shell_command", func() (any, error) {
		res, err := s.a.RunShellCommand(s.ctx, domain.RunRequest{PaneID: s.pane, Command: "make test", TimeoutMs: 300_000})
		reply <- runReply{res, err}
		return res, err
	})
	s.waitTimers(3) // deadline, liveness, lease renewal
	return reply
}

// writesOfB tries every kind of write from server b.
func (s *twoServers) writesOfB() map[string]error {
	_, run := s.b.RunShellCommand(s.ctx, domain.RunRequest{PaneID: s.pane, Command: "true"})
	_, paste := s.b.PasteText(s.ctx, domain.PasteRequest{PaneID: s.pane, Text: "x"})
	_, keys := s.b.SendKeys(s.ctx, domain.SendKeysRequest{PaneID: s.pane, Keys: "C-c"})
	_, clear := s.b.life.ClearPaneScrollback(s.ctx, lifecycle.ClearScrollbackRequest{PaneID: s.pane})
	_, kill := s.b.life.KillPane(s.ctx, lifecycle.KillPaneRequest{PaneID: s.pane})
	return map[string]error{"run_shell_command": run, "paste_text": paste, "send_keys": keys,
		"clear_pane_scrollback": clear, "kill_pane": kill}
}

func TestAPaneLeasedByAnotherProcessRefusesEveryWrite(t *testing.T) {
	s := newTwoServers(t)
	reply := s.startHanging()
	sentBefore := len(s.term.Sent(s.pane))

	for tool, err := range s.writesOfB() {
		var busy *fault.BusyError
		if !errors.As(err, &busy) || busy.Pane != s.pane || !strings.Contains(err.Error(), "another tmux-mcp process (owner server-a)") {
			t.Errorf("%s from the other server: err = %v, want busy naming another tmux-mcp process (owner server-a)", tool, err)
		}
	}
	if sent := s.term.Sent(s.pane); len(sent) != sentBefore {
		t.Errorf("refused writes reached the pane: %+v", sent[sentBefore:])
	}
	if _, err := s.b.CapturePane(s.ctx, domain.CaptureRequest{PaneID: s.pane}); err != nil {
		t.Errorf("reading a pane leased by another process: %v", err)
	}

	// The command ends (a person presses C-c): the lease goes with it.
	if err := s.term.SendKeys(s.ctx, s.pane, []string{"C-c"}); err != nil {
		t.Fatal(err)
	}
	if got := <-reply; got.err != nil || got.res.Outcome != domain.OutcomeCompleted {
		t.Fatalf("run = %+v, %v", got.res, got.err)
	}
	s.released(s.a)
	if owner, _, held := s.leaser.Holder(s.pane); held {
		t.Fatalf("lease still held by %s after the command ended", owner)
	}
	if _, err := s.b.PasteText(s.ctx, domain.PasteRequest{PaneID: s.pane, Text: "echo now", Enter: true}); err != nil {
		t.Errorf("paste from the other server once the pane is free: %v", err)
	}
}

func TestTheLeaseIsRenewedForAsLongAsTheCommandRuns(t *testing.T) {
	s := newTwoServers(t)
	reply := s.startHanging()
	start := s.clock.Now()
	// Four renewals take the command past three times the lease's life.
	for i := 1; i <= 10; i++ {
		s.clock.Advance(leaseTTL / 3)
		s.waitTimers(3) // the renewal has renewed and armed the next one
		owner, expires, held := s.leaser.Holder(s.pane)
		if want := start.Add(time.Duration(i)*leaseTTL/3 + leaseTTL); !held || owner != "server-a" || !expires.Equal(want) {
			t.Fatalf("after %v: lease %q until %v (held %v), want server-a until %v", s.clock.Now().Sub(start), owner, expires, held, want)
		}
	}
	if _, err := s.b.PasteText(s.ctx, domain.PasteRequest{PaneID: s.pane, Text: "x"}); !errors.Is(err, fault.ErrBusy) {
		t.Errorf("paste from the other server %v into the command: err = %v, want busy", s.clock.Now().Sub(start), err)
	}
	s.term.KillPane(s.pane)
	if got := <-reply; got.res.Outcome != domain.OutcomePaneDied {
		t.Fatalf("run = %+v, %v", got.res, got.err)
	}
}

func TestALeaseWhoseOwnerStoppedRenewingIsTakenOver(t *testing.T) {
	s := newTwoServers(t)
	// A process that died holding the pane: its lease is there, nobody
	// renews it.
	if ok, _, err := s.leaser.TryAcquire(s.ctx, s.pane, "crashed-server", leaseTTL); !ok || err != nil {
		t.Fatalf("TryAcquire = %v, %v", ok, err)
	}
	_, err := s.a.PasteText(s.ctx, domain.PasteRequest{PaneID: s.pane, Text: "x"})
	if !errors.Is(err, fault.ErrBusy) || !strings.Contains(err.Error(), "crashed-server") {
		t.Fatalf("paste while the dead owner's lease lasts: err = %v, want busy naming crashed-server", err)
	}
	s.clock.Advance(leaseTTL - time.Millisecond)
	if _, err := s.a.PasteText(s.ctx, domain.PasteRequest{PaneID: s.pane, Text: "x"}); !errors.Is(err, fault.ErrBusy) {
		t.Fatalf("paste 1 ms before the lease expires: err = %v, want busy", err)
	}
	s.clock.Advance(time.Millisecond)
	if _, err := s.a.PasteText(s.ctx, domain.PasteRequest{PaneID: s.pane, Text: "echo mine", Enter: true}); err != nil {
		t.Fatalf("paste once the lease expired: %v", err)
	}
	s.released(s.a)
	if owner, _, held := s.leaser.Holder(s.pane); held {
		t.Errorf("paste_text kept the lease (%s) after it returned", owner)
	}
}

func TestAKillLeasesEveryPaneItWouldEnd(t *testing.T) {
	s := newTwoServers(t)
	second, err := s.a.life.SplitWindow(s.ctx, lifecycle.SplitWindowRequest{PaneID: s.pane})
	if err != nil {
		t.Fatal(err)
	}
	if ok, _, _ := s.leaser.TryAcquire(s.ctx, second.Pane, "server-b", leaseTTL); !ok {
		t.Fatal("could not lease the second pane for server b")
	}
	_, err = s.a.life.KillWindow(s.ctx, lifecycle.KillWindowRequest{WindowID: second.Window.ID})
	if !errors.Is(err, fault.ErrBusy) || !strings.Contains(err.Error(), string(second.Pane)) {
		t.Fatalf("kill_window with a pane leased elsewhere: err = %v, want busy naming %s", err, second.Pane)
	}
	s.released(s.a)
	if owner, _, held := s.leaser.Holder(s.pane); held {
		t.Errorf("the refused kill left a lease by %s on %s", owner, s.pane)
	}
	if _, err := s.a.life.ListPanes(s.ctx, lifecycle.ListPanesRequest{Window: second.Window.ID}); err != nil {
		t.Errorf("the window is gone after a refused kill: %v", err)
	}
}

func TestALeaseThatCannotBeTakenStopsTheWriteBeforeAnythingIsSent(t *testing.T) {
	ctrl := gomock.NewController(t)
	leaser := mocks.NewMockLeaser(ctrl)
	clock := fake.NewClock(time.Unix(0, 0))
	term := fake.New(fake.WithClock(clock))
	pane := term.AddPane(fake.PaneSpec{})
	svc := newServer(t, term, nil, clock, domain.DefaultConfig(), leaser, "me")
	leaser.EXPECT().TryAcquire(gomock.Any(), pane, "me", leaseTTL).
		Return(false, "", ports.ErrUnavailable).Times(3)

	_, paste := svc.PasteText(context.Background(), domain.PasteRequest{PaneID: pane, Text: "x"})
	_, keys := svc.SendKeys(context.Background(), domain.SendKeysRequest{PaneID: pane, Keys: "q"})
	_, run := svc.RunShellCommand(context.Background(), domain.RunRequest{PaneID: pane, Command: "true"})
	for tool, err := range map[string]error{"paste_text": paste, "send_keys": keys, "run_shell_command": run} {
		if !errors.Is(err, ports.ErrUnavailable) {
			t.Errorf("%s: err = %v, want the lease's error", tool, err)
		}
	}
	if sent := term.Sent(pane); len(sent) != 0 {
		t.Errorf("the pane received %+v", sent)
	}
	// The reservation went with the failed lease.
	leaser.EXPECT().TryAcquire(gomock.Any(), pane, gomock.Any(), gomock.Any()).Return(true, "", nil)
	leaser.EXPECT().Release(gomock.Any(), pane, gomock.Any()).Return(nil)
	if _, err := svc.PasteText(context.Background(), domain.PasteRequest{PaneID: pane, Text: "x"}); err != nil {
		t.Errorf("paste once the lease can be taken: %v", err)
	}
}

func TestRenewalRetriesAnUnreachableLeaserAndStopsOnceTheLeaseIsLost(t *testing.T) {
	ctrl := gomock.NewController(t)
	leaser := mocks.NewMockLeaser(ctrl)
	clock := fake.NewClock(time.Unix(0, 0))
	term := fake.New(fake.WithClock(clock))
	pane := term.AddPane(fake.PaneSpec{})
	cfg := domain.DefaultConfig()
	cfg.LivenessInterval = time.Hour
	svc := newServer(t, term, nil, clock, cfg, leaser, "me")

	leaser.EXPECT().TryAcquire(gomock.Any(), pane, "me", leaseTTL).Return(true, "", nil)
	lost := make(chan struct{})
	gomock.InOrder(
		leaser.EXPECT().Renew(gomock.Any(), pane, "me", leaseTTL).Return(ports.ErrUnavailable),
		leaser.EXPECT().Renew(gomock.Any(), pane, "me", leaseTTL).DoAndReturn(
			func(context.Context, ports.PaneID, string, time.Duration) error {
				close(lost)
				return ports.ErrLeaseLost
			}),
		leaser.EXPECT().Release(gomock.Any(), pane, "me").Return(nil),
	)
	term.Expect(pane, fake.Run{Hang: true})
	reply := make(chan runReply, 1)
	var running calls
	running.start("run_shell_command", func() (any, error) {
		res, err := svc.RunShellCommand(context.Background(), domain.RunRequest{PaneID: pane, Command: "sleep 99", TimeoutMs: 300_000})
		reply <- runReply{res, err}
		return res, err
	})
	wait := func(n int) {
		t.Helper()
		running.waitTimers(t, clock, n)
	}
	wait(3)
	clock.Advance(leaseTTL / 3) // unreachable: tried again at the next tick
	wait(3)
	clock.Advance(leaseTTL / 3) // lost: no more renewals
	<-lost
	// gomock fails on any further Renew. (A renewer that wrongly went on
	// is caught when it arms its next timer before this Advance, which
	// it nearly always does; a correct one never fails here.)
	clock.Advance(10 * leaseTTL)
	if err := term.SendKeys(context.Background(), pane, []string{"C-c"}); err != nil {
		t.Fatal(err)
	}
	if got := <-reply; got.err != nil || got.res.Outcome != domain.OutcomeCompleted {
		t.Fatalf("run = %+v, %v", got.res, got.err)
	}
}
