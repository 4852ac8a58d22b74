package lifecycle_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/domain/lifecycle"
	"github.com/tmux-mcp/tmux-mcp/domain/writers"
)

// A command that ignores its interrupts (trap '' INT QUIT; sleep 30, a
// program exec'd in the shell's place) would hold its pane for good: the
// destructive tools take such a pane when told to with force, and the
// command's call, or wait_for_command, reports how it ended.

// stuckRun starts, in the bottom pane, a command that ignores C-c, lets
// its call return timed_out, and checks that C-c does not free the pane.
func stuckRun(t *testing.T, l *layout) {
	t.Helper()
	l.term.Expect(l.bottom, fake.Run{Output: "stuck\n", Hang: true, IgnoreInterrupt: true})
	done := make(chan domain.RunResult, 1)
	go func() {
		res, err := l.svc.RunShellCommand(l.ctx, domain.RunRequest{PaneID: l.bottom, Command: "trap '' INT; sleep 30", TimeoutMs: 1000})
		if err != nil {
			t.Errorf("run: %v", err)
		}
		done <- res
	}()
	ctx, cancel := context.WithTimeout(l.ctx, 10*time.Second)
	defer cancel()
	if err := l.clock.WaitForTimer(ctx, domain.DefaultConfig().LivenessInterval); err != nil {
		t.Fatal(err)
	}
	l.clock.Advance(time.Second)
	if res := <-done; res.Outcome != domain.OutcomeTimedOut || !res.StillRunning {
		t.Fatalf("run = %+v; want timed_out, still running", res)
	}
	if _, err := l.svc.SendKeys(l.ctx, domain.SendKeysRequest{PaneID: l.bottom, Keys: "C-c"}); err != nil {
		t.Fatalf("C-c: %v", err)
	}
	if _, _, held := l.pool.Lookup(l.bottom); !held {
		t.Fatal("the pane was freed by a C-c its command ignores")
	}
}

// waitEnd is wait_for_command on the bottom pane, moving the clock past
// each liveness check until one notices the pane's end.
func waitEnd(t *testing.T, l *layout) domain.RunResult {
	t.Helper()
	got := make(chan domain.RunResult, 1)
	go func() {
		res, err := l.svc.WaitForCommand(l.ctx, domain.WaitCommandRequest{PaneID: l.bottom, TimeoutMs: 60_000})
		if err != nil {
			t.Errorf("wait_for_command: %v", err)
		}
		got <- res
	}()
	return untilDone(t, l, got)
}

// untilDone moves the clock past each liveness check until got delivers.
func untilDone(t *testing.T, l *layout, got <-chan domain.RunResult) domain.RunResult {
	t.Helper()
	for range 100 {
		ctx, cancel := context.WithTimeout(l.ctx, 50*time.Millisecond)
		err := l.clock.WaitForTimer(ctx, domain.DefaultConfig().LivenessInterval)
		cancel()
		select {
		case res := <-got:
			return res
		default:
		}
		if err == nil {
			l.clock.Advance(domain.DefaultConfig().LivenessInterval)
		}
	}
	t.Fatal("the wait never ended")
	return domain.RunResult{}
}

func TestKillPaneWithForceTakesAPaneThatItsOwnCommandHolds(t *testing.T) {
	l := newLayout(t)
	stuckRun(t, l)
	if _, err := l.life.KillPane(l.ctx, lifecycle.KillPaneRequest{PaneID: l.bottom}); !errors.Is(err, fault.ErrBusy) {
		t.Fatalf("kill_pane without force: %v; want busy", err)
	}
	res, err := l.life.KillPane(l.ctx, lifecycle.KillPaneRequest{PaneID: l.bottom, Force: true})
	if err != nil || len(res.Killed) != 1 || res.Killed[0] != l.bottom {
		t.Fatalf("kill_pane with force = %+v, %v; want the pane killed", res, err)
	}
	if end := waitEnd(t, l); end.Outcome != domain.OutcomePaneDied || end.StillRunning {
		t.Fatalf("wait_for_command = %+v; want pane_died", end)
	}
	select {
	case <-l.pool.Released(l.bottom):
	case <-time.After(10 * time.Second):
		t.Fatal("the killed pane is still held")
	}
}

func TestRespawnPaneWithForceTakesAPaneThatItsOwnCommandHolds(t *testing.T) {
	l := newLayout(t)
	stuckRun(t, l)
	if _, err := l.life.RespawnPane(l.ctx, lifecycle.RespawnPaneRequest{PaneID: l.bottom}); !errors.Is(err, fault.ErrBusy) {
		t.Fatalf("respawn_pane without force: %v; want busy", err)
	}
	p, err := l.life.RespawnPane(l.ctx, lifecycle.RespawnPaneRequest{PaneID: l.bottom, Force: true})
	if err != nil || p.ID != l.bottom {
		t.Fatalf("respawn_pane with force = %+v, %v", p, err)
	}
	if end := waitEnd(t, l); end.Outcome != domain.OutcomePaneDied {
		t.Fatalf("wait_for_command = %+v; want pane_died", end)
	}
	// The respawned pane takes the next command.
	res, err := l.svc.RunShellCommand(l.ctx, domain.RunRequest{PaneID: l.bottom, Command: "echo again"})
	if err != nil || res.Outcome != domain.OutcomeCompleted || res.Output != "again" {
		t.Fatalf("the next command = %+v, %v", res, err)
	}
}

// The call itself, still waiting, hears the pane's end.
func TestAForcedKillEndsACallStillWaitingOnItsCommand(t *testing.T) {
	l := newLayout(t)
	l.term.Expect(l.bottom, fake.Run{Hang: true, IgnoreInterrupt: true})
	done := make(chan domain.RunResult, 1)
	go func() {
		res, _ := l.svc.RunShellCommand(l.ctx, domain.RunRequest{PaneID: l.bottom, Command: "sleep infinity", TimeoutMs: 60_000})
		done <- res
	}()
	ctx, cancel := context.WithTimeout(l.ctx, 10*time.Second)
	defer cancel()
	if err := l.clock.WaitForTimer(ctx, domain.DefaultConfig().LivenessInterval); err != nil {
		t.Fatal(err) // the command runs
	}
	if _, err := l.life.KillPane(l.ctx, lifecycle.KillPaneRequest{PaneID: l.bottom, Force: true}); err != nil {
		t.Fatalf("kill_pane with force: %v", err)
	}
	if res := untilDone(t, l, done); res.Outcome != domain.OutcomePaneDied {
		t.Fatalf("run = %+v; want pane_died", res)
	}
}

// Force takes only this process's own commands: a pane another call
// holds for a moment (a paste), or another process leases, stays busy.
func TestForceTakesNoOtherWritersPane(t *testing.T) {
	l := newLayout(t)
	paste, err := l.pool.Hold(l.ctx, l.bottom, "paste_text")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.life.KillPane(l.ctx, lifecycle.KillPaneRequest{PaneID: l.bottom, Force: true}); !errors.Is(err, fault.ErrBusy) {
		t.Errorf("kill_pane with force of a pane a paste holds: %v; want busy", err)
	}
	if _, err := l.life.RespawnPane(l.ctx, lifecycle.RespawnPaneRequest{PaneID: l.bottom, Force: true}); !errors.Is(err, fault.ErrBusy) {
		t.Errorf("respawn_pane with force of a pane a paste holds: %v; want busy", err)
	}
	paste.Release()

	// Another process's lease, on a Leaser both pools share.
	leaser := fake.NewLeaser(l.clock)
	other := writers.NewPool(writers.NewLeases(leaser, l.clock, "other", time.Minute))
	held, err := other.Hold(l.ctx, l.bottom, `run_shell_command "make"`)
	if err != nil {
		t.Fatal(err)
	}
	held.Yield()
	defer held.Release()
	mine := writers.NewPool(writers.NewLeases(leaser, l.clock, "mine", time.Minute))
	life := lifecycle.New(lifecycle.FromManager(l.mgr), l.term, mine, nil)
	if _, err := life.KillPane(l.ctx, lifecycle.KillPaneRequest{PaneID: l.bottom, Force: true}); !errors.Is(err, fault.ErrBusy) {
		t.Errorf("kill_pane with force of a pane another process leases: %v; want busy", err)
	}
	if info, err := l.term.Pane(l.ctx, l.bottom); err != nil || info.Dead {
		t.Errorf("pane %s after the refused kills: %+v, %v", l.bottom, info, err)
	}
}
