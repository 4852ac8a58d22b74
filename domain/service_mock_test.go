package domain_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/golang/mock/gomock"

	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/adapters/mocks"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/domain/frame"
	"github.com/tmux-mcp/tmux-mcp/domain/writers"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// These tests pin down how the domain talks to its ports: which calls it
// makes, in which order, and — just as important — which it never makes.
// gomock fails a test on any call it was not told to expect, so a refused
// write that typed even one byte fails here.

// frameIDs are the ids of the first frame of a Service on fake.IDs: the
// Service's instance takes the first id, a frame the next four (its id,
// two for its secret, its unread id).
var frameIDs = frame.IDs{ID: "fakeid00000002", Secret: "fakeid00000003fakeid00000004", Unread: "fakeid00000005"}

// shellPID is the pid the mock shells' start markers name.
const shellPID = 4242

func shellPane(id ports.PaneID) ports.PaneInfo {
	return ports.PaneInfo{ID: id, Command: "bash", Width: 80, Height: 24, HistoryLimit: 2000, Generation: "1"}
}

// mockClock returns a clock whose timers never fire on their own; the
// returned channel fires the deadline timer (the first one made).
func mockClock(ctrl *gomock.Controller) (*mocks.MockClock, chan time.Time) {
	clock := mocks.NewMockClock(ctrl)
	deadline := make(chan time.Time, 1)
	first := true
	clock.EXPECT().NewTimer(gomock.Any()).DoAndReturn(func(d time.Duration) ports.Timer {
		t := mocks.NewMockTimer(ctrl)
		c := make(chan time.Time)
		if first {
			first = false
			t.EXPECT().C().Return((<-chan time.Time)(deadline)).AnyTimes()
		} else {
			t.EXPECT().C().Return((<-chan time.Time)(c)).AnyTimes()
		}
		t.EXPECT().Stop().Return(true).AnyTimes()
		return t
	}).AnyTimes()
	clock.EXPECT().Now().Return(time.Unix(0, 0)).AnyTimes()
	// The bounded calls the Service makes on its own behalf never time
	// out here.
	clock.EXPECT().WithTimeout(gomock.Any(), gomock.Any()).DoAndReturn(
		func(parent context.Context, _ time.Duration) (context.Context, context.CancelFunc) {
			return context.WithCancel(parent)
		}).AnyTimes()
	return clock, deadline
}

func newMockService(t *testing.T, info ports.PaneInfo) (*domain.Service, *mocks.MockTerminal, *gomock.Controller, chan time.Time) {
	ctrl := gomock.NewController(t)
	term := mocks.NewMockTerminal(ctrl)
	term.EXPECT().Pane(gomock.Any(), info.ID).Return(info, nil).AnyTimes()
	clock, deadline := mockClock(ctrl)
	svc := domain.NewService(term, clock, fake.NewIDs(), domain.DefaultConfig())
	return svc, term, ctrl, deadline
}

// expectStaging makes the terminal store the frame's script at path.
func expectStaging(term *mocks.MockTerminal, pane ports.PaneID, path string) *gomock.Call {
	return term.EXPECT().PutScript(gomock.Any(), pane, gomock.Any()).DoAndReturn(
		func(_ context.Context, _ ports.PaneID, build func(string) []byte) (string, error) {
			build(path)
			return path, nil
		})
}

func TestRunTypesTheFrameWithItsEnterAndReadsTheStream(t *testing.T) {
	svc, term, ctrl, _ := newMockService(t, shellPane("%1"))
	stream := mocks.NewMockOutputStream(ctrl)
	changed := make(chan struct{}, 1)
	var data []byte
	data = append(data, " : 'make it'; . '/s/1' ...echo of the typed line...\r\n"...)
	data = append(data, frame.StartMarker(frameIDs.ID, shellPID)...)
	data = append(data, "hello\r\nworld\r\n"...)
	data = append(data, frame.EndMarker(frameIDs, 7)...)
	data = append(data, "$ "...)
	cmd := frame.Command{Shell: frame.ShellBash, IDs: frameIDs, Text: "make it"}

	gomock.InOrder(
		term.EXPECT().OpenOutput(gomock.Any(), ports.PaneID("%1")).Return(stream, nil),
		stream.EXPECT().End().Return(int64(500)),
		term.EXPECT().Foreground(gomock.Any(), ports.PaneID("%1")).Return(ports.Foreground{Group: shellPID, Children: []int{}}, nil),
		term.EXPECT().LineEditing(gomock.Any(), ports.PaneID("%1")).Return(true, nil), // at its prompt
		expectStaging(term, "%1", "/s/1"),
		term.EXPECT().SendText(gomock.Any(), ports.PaneID("%1"), cmd.Line(frame.Files{Script: "/s/1"})).Return(nil),
		stream.EXPECT().ReadFrom(int64(500)).Return(ports.OutputChunk{Offset: 500, Data: data}),
		term.EXPECT().Foreground(gomock.Any(), ports.PaneID("%1")).Return(ports.Foreground{Group: shellPID, Children: []int{}}, nil),
		term.EXPECT().RemoveScript(gomock.Any(), ports.PaneID("%1"), "/s/1").Return(ports.ScriptTaken, nil),
		stream.EXPECT().Close().Return(nil),
	)
	stream.EXPECT().Changed().Return((<-chan struct{})(changed)).AnyTimes()

	res, err := svc.RunShellCommand(context.Background(), domain.RunRequest{PaneID: "%1", Command: "make it"})
	if err != nil {
		t.Fatalf("RunShellCommand: %v", err)
	}
	if res.Outcome != domain.OutcomeCompleted || res.ExitStatus == nil || *res.ExitStatus != 7 {
		t.Fatalf("outcome %s status %v, want completed 7", res.Outcome, res.ExitStatus)
	}
	if res.Output != "hello\nworld" {
		t.Errorf("output %q, want only what the command printed, less the line break before the end", res.Output)
	}
	if !res.OutputComplete || res.StillRunning || res.EffectiveTimeoutMs != 30000 {
		t.Errorf("result %+v", res)
	}
}

func TestRefusedWritesSendNothing(t *testing.T) {
	cases := []struct {
		name  string
		edit  func(*ports.PaneInfo)
		force bool
		why   fault.Refusal
	}{
		{"watched", func(p *ports.PaneInfo) { p.Watchers = []string{"/dev/pts/3"} }, false, fault.RefusedWatched},
		{"watched even with force", func(p *ports.PaneInfo) { p.Watchers = []string{"/dev/pts/3"} }, true, fault.RefusedWatched},
		{"self without force", func(p *ports.PaneInfo) { p.Self = true }, false, fault.RefusedSelf},
		{"synchronized", func(p *ports.PaneInfo) { p.AlsoReaches = []ports.PaneID{"%2"} }, true, fault.RefusedSynchronized},
		{"dead", func(p *ports.PaneInfo) { p.Dead = true }, false, fault.RefusedDead},
		{"copy mode", func(p *ports.PaneInfo) { p.Mode = "copy-mode" }, false, fault.RefusedInMode},
		{"not a shell", func(p *ports.PaneInfo) { p.Command = "vim" }, false, fault.RefusedNotAShell},
		{"watch status unknown", func(p *ports.PaneInfo) { p.Unknown = []ports.Fact{ports.FactWatched} }, false, fault.RefusedUnknown},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			info := shellPane("%4")
			c.edit(&info)
			// No other expectation: any OpenOutput, SendText, SendKeys or
			// Paste would fail the test.
			svc, _, _, _ := newMockService(t, info)
			_, err := svc.RunShellCommand(context.Background(), domain.RunRequest{PaneID: "%4", Command: "true", Force: c.force})
			var refusal *fault.RefusalError
			if !errors.As(err, &refusal) || !errors.Is(err, fault.ErrRefused) {
				t.Fatalf("err = %v, want a RefusalError", err)
			}
			if refusal.Why != c.why || refusal.Pane != "%4" || refusal.Reason == "" || refusal.Ending {
				t.Errorf("refusal %+v, want why %q for pane %%4 with a reason", refusal, c.why)
			}
		})
	}
}

func TestSelfPaneAllowedWithForce(t *testing.T) {
	info := shellPane("%5")
	info.Self = true
	svc, term, _, _ := newMockService(t, info)
	term.EXPECT().Paste(gomock.Any(), ports.PaneID("%5"), "x").Return(nil)
	if _, err := svc.PasteText(context.Background(), domain.PasteRequest{PaneID: "%5", Text: "x", Force: true}); err != nil {
		t.Fatalf("PasteText with force: %v", err)
	}
}

func TestPasteRefusedOnWatchedPaneSendsNothing(t *testing.T) {
	info := shellPane("%6")
	info.Watchers = []string{"/dev/pts/9"}
	svc, _, _, _ := newMockService(t, info)
	_, err := svc.PasteText(context.Background(), domain.PasteRequest{PaneID: "%6", Text: "rm -rf /", Enter: true, Force: true})
	if !errors.Is(err, fault.ErrRefused) {
		t.Fatalf("err = %v, want refusal", err)
	}
}

func TestPasteThenEnter(t *testing.T) {
	svc, term, _, _ := newMockService(t, shellPane("%7"))
	gomock.InOrder(
		term.EXPECT().Paste(gomock.Any(), ports.PaneID("%7"), "héllo\nworld").Return(nil),
		term.EXPECT().SendKeys(gomock.Any(), ports.PaneID("%7"), []string{"Enter"}).Return(nil),
	)
	res, err := svc.PasteText(context.Background(), domain.PasteRequest{PaneID: "%7", Text: "héllo\nworld", Enter: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Bytes != int64(len("héllo\nworld")) || res.PaneID != "%7" {
		t.Errorf("result %+v", res)
	}
}

func TestTerminalErrorsPassThroughWrapped(t *testing.T) {
	ctrl := gomock.NewController(t)
	term := mocks.NewMockTerminal(ctrl)
	clock, _ := mockClock(ctrl)
	term.EXPECT().Pane(gomock.Any(), ports.PaneID("%99")).Return(ports.PaneInfo{}, ports.ErrPaneNotFound).Times(3)
	svc := domain.NewService(term, clock, fake.NewIDs(), domain.DefaultConfig())
	ctx := context.Background()
	if _, err := svc.RunShellCommand(ctx, domain.RunRequest{PaneID: "%99", Command: "true"}); !errors.Is(err, ports.ErrPaneNotFound) {
		t.Errorf("run: %v", err)
	}
	if _, err := svc.PasteText(ctx, domain.PasteRequest{PaneID: "%99", Text: "x"}); !errors.Is(err, ports.ErrPaneNotFound) {
		t.Errorf("paste: %v", err)
	}
	if _, err := svc.CapturePane(ctx, domain.CaptureRequest{PaneID: "%99"}); !errors.Is(err, ports.ErrPaneNotFound) {
		t.Errorf("capture: %v", err)
	}
}

func TestTimedOutCallKeepsThePaneUntilTheCommandEnds(t *testing.T) {
	svc, term, ctrl, deadline := newMockService(t, shellPane("%8"))
	stream := mocks.NewMockOutputStream(ctrl)
	changed := make(chan struct{}, 1)
	later := make(chan ports.OutputChunk, 1)
	closed := make(chan struct{})
	term.EXPECT().OpenOutput(gomock.Any(), ports.PaneID("%8")).Return(stream, nil)
	expectStaging(term, "%8", "/s/8")
	term.EXPECT().SendText(gomock.Any(), ports.PaneID("%8"), gomock.Any()).Return(nil)
	term.EXPECT().Foreground(gomock.Any(), ports.PaneID("%8")).Return(ports.Foreground{Group: shellPID}, nil).AnyTimes()
	term.EXPECT().LineEditing(gomock.Any(), ports.PaneID("%8")).Return(true, nil)
	term.EXPECT().RemoveScript(gomock.Any(), ports.PaneID("%8"), "/s/8").Return(ports.ScriptTaken, nil)
	stream.EXPECT().End().Return(int64(0))
	stream.EXPECT().Changed().Return((<-chan struct{})(changed)).AnyTimes()
	started := append(frame.StartMarker(frameIDs.ID, shellPID), "working\r\n"...)
	stream.EXPECT().ReadFrom(gomock.Any()).DoAndReturn(func(off int64) ports.OutputChunk {
		if off == 0 {
			return ports.OutputChunk{Offset: 0, Data: started}
		}
		select {
		case c := <-later:
			return c
		default:
			return ports.OutputChunk{Offset: off}
		}
	}).AnyTimes()
	stream.EXPECT().Close().DoAndReturn(func() error { close(closed); return nil })

	deadline <- time.Unix(5, 0)
	res, err := svc.RunShellCommand(context.Background(), domain.RunRequest{PaneID: "%8", Command: "sleep 100", TimeoutMs: 5000})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != domain.OutcomeTimedOut || !res.StillRunning || res.ExitStatus != nil || res.Output != "working" || res.EffectiveTimeoutMs != 5000 {
		t.Fatalf("result %+v", res)
	}
	_, err = svc.PasteText(context.Background(), domain.PasteRequest{PaneID: "%8", Text: "x"})
	var busy *fault.BusyError
	if !errors.As(err, &busy) {
		t.Fatalf("paste while the command runs: %v, want BusyError", err)
	}

	later <- ports.OutputChunk{Offset: int64(len(started)), Data: frame.EndMarker(frameIDs, 0)}
	changed <- struct{}{}
	<-closed // the pane is released once the end marker is read
	term.EXPECT().Paste(gomock.Any(), ports.PaneID("%8"), "x").Return(nil)
	if _, err := svc.PasteText(context.Background(), domain.PasteRequest{PaneID: "%8", Text: "x"}); err != nil {
		t.Fatalf("paste after the command ended: %v", err)
	}
}

// A command the shell took just as it was withdrawn (its script was
// emptied, yet no start marker came) is said to have started late and
// keeps the pane; an interrupt then frees the pane if it still shows no
// start, since its end marker would come at once if it ran.
func TestWithdrawalThatRacedAStartKeepsThePaneUntilAnInterrupt(t *testing.T) {
	ctrl := gomock.NewController(t)
	term := mocks.NewMockTerminal(ctrl)
	clk := fake.NewClock(time.Unix(0, 0))
	svc := domain.NewService(term, clk, fake.NewIDs(), domain.DefaultConfig())
	t.Cleanup(func() { svc.Close() })
	stream := mocks.NewMockOutputStream(ctrl)
	changed := make(chan struct{}, 1)
	closed := make(chan struct{})
	term.EXPECT().Pane(gomock.Any(), ports.PaneID("%9")).Return(shellPane("%9"), nil).AnyTimes()
	term.EXPECT().OpenOutput(gomock.Any(), ports.PaneID("%9")).Return(stream, nil)
	term.EXPECT().Foreground(gomock.Any(), ports.PaneID("%9")).Return(ports.Foreground{Group: shellPID, Children: []int{}}, nil).AnyTimes()
	term.EXPECT().LineEditing(gomock.Any(), ports.PaneID("%9")).Return(true, nil)
	expectStaging(term, "%9", "/s/9")
	term.EXPECT().SendText(gomock.Any(), ports.PaneID("%9"), gomock.Any()).Return(nil)
	stream.EXPECT().End().Return(int64(0))
	stream.EXPECT().Changed().Return((<-chan struct{})(changed)).AnyTimes()
	stream.EXPECT().ReadFrom(gomock.Any()).Return(ports.OutputChunk{}).AnyTimes()
	// The shell had emptied the script by the time it was removed.
	term.EXPECT().RemoveScript(gomock.Any(), ports.PaneID("%9"), "/s/9").Return(ports.ScriptTaken, nil)
	term.EXPECT().SendKeys(gomock.Any(), ports.PaneID("%9"), []string{"C-c"}).Return(nil)
	stream.EXPECT().Close().DoAndReturn(func() error { close(closed); return nil })

	type reply struct {
		res domain.RunResult
		err error
	}
	done := make(chan reply, 1)
	go func() {
		res, err := svc.RunShellCommand(context.Background(), domain.RunRequest{PaneID: "%9", Command: "make", TimeoutMs: 1000})
		done <- reply{res, err}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := clk.WaitForTimer(ctx, time.Second); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Second)
	var got reply
	select {
	case got = <-done:
	case <-ctx.Done():
		t.Fatal("the call never returned")
	}
	if got.err != nil || got.res.Outcome != domain.OutcomeTimedOut || !got.res.StillRunning || !got.res.Raced || got.res.NotStarted {
		t.Fatalf("result %+v, %v; want timed_out, still running, raced", got.res, got.err)
	}
	if _, err := svc.PasteText(context.Background(), domain.PasteRequest{PaneID: "%9", Text: "x"}); !errors.Is(err, fault.ErrBusy) {
		t.Fatalf("paste while the raced command may run: %v, want busy", err)
	}
	// The interrupt; no start, no end follow.
	if _, err := svc.SendKeys(context.Background(), domain.SendKeysRequest{PaneID: "%9", Keys: "C-c"}); err != nil {
		t.Fatal(err)
	}
	if err := clk.WaitForTimer(ctx, 500*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	clk.Advance(500 * time.Millisecond)
	select {
	case <-closed:
	case <-ctx.Done():
		t.Fatal("the pane was never freed after the interrupt")
	}
}

// A Leaser that describes the pane as it leases it saves the write its
// own description: paste_text, send_keys and run_shell_command then ask
// the terminal nothing before they write.
func TestAWriteUsesTheDescriptionTakenWithItsLease(t *testing.T) {
	ctrl := gomock.NewController(t)
	term := mocks.NewMockTerminal(ctrl) // no Pane expected: gomock fails on one
	leaser := mocks.NewMockDescribingLeaser(ctrl)
	clock, _ := mockClock(ctrl)
	pool := writers.NewPool(writers.NewLeases(leaser, clock, "me", time.Minute))
	svc := domain.NewService(term, clock, fake.NewIDs(), domain.DefaultConfig(), domain.WithWriters(pool))
	t.Cleanup(func() { svc.Close(); pool.Close() })
	info := shellPane("%3")
	info.Command = "vim" // a program, not a shell: no wait for a shell to start
	leaser.EXPECT().AcquireAndDescribe(gomock.Any(), ports.PaneID("%3"), "me", time.Minute).Return(true, "", info, nil).Times(2)
	leaser.EXPECT().Release(gomock.Any(), ports.PaneID("%3"), "me").Return(nil).Times(2)
	term.EXPECT().Paste(gomock.Any(), ports.PaneID("%3"), "hello").Return(nil)
	term.EXPECT().SendKeys(gomock.Any(), ports.PaneID("%3"), []string{"Escape"}).Return(nil)

	if _, err := svc.PasteText(context.Background(), domain.PasteRequest{PaneID: "%3", Text: "hello"}); err != nil {
		t.Fatal(err)
	}
	<-svc.Released("%3")
	if _, err := svc.SendKeys(context.Background(), domain.SendKeysRequest{PaneID: "%3", Keys: "Escape"}); err != nil {
		t.Fatal(err)
	}
	<-svc.Released("%3")

	// The description taken with the lease is what the policy judges.
	watched := info
	watched.Watchers = []string{"/dev/pts/4"}
	leaser.EXPECT().AcquireAndDescribe(gomock.Any(), ports.PaneID("%3"), "me", time.Minute).Return(true, "", watched, nil)
	leaser.EXPECT().Release(gomock.Any(), ports.PaneID("%3"), "me").Return(nil)
	if _, err := svc.PasteText(context.Background(), domain.PasteRequest{PaneID: "%3", Text: "x"}); !errors.Is(err, fault.ErrRefused) {
		t.Errorf("paste to a pane the lease found watched: %v, want refused", err)
	}
	<-svc.Released("%3")
}

// screenTerminal is a Terminal that also describes and captures the screen
// in one exchange.
type screenTerminal struct {
	*mocks.MockTerminal
	*mocks.MockScreenCapturer
}

// capture_pane of the screen, its default, asks a terminal that can
// describe and capture the screen together for both at once, and judges
// the rows by that description; a range of rows still needs the
// description first, and then the capture of those rows.
func TestCaptureOfTheScreenIsOneCallWhereTheTerminalCan(t *testing.T) {
	ctrl := gomock.NewController(t)
	term := screenTerminal{mocks.NewMockTerminal(ctrl), mocks.NewMockScreenCapturer(ctrl)}
	clock, _ := mockClock(ctrl)
	svc := domain.NewService(term, clock, fake.NewIDs(), domain.DefaultConfig())
	t.Cleanup(func() { svc.Close() })
	info := shellPane("%3")
	info.Height, info.HistorySize = 3, 10
	term.MockScreenCapturer.EXPECT().CaptureScreen(gomock.Any(), ports.PaneID("%3"), true).Return(info, []string{"a", "b", ""}, nil)

	res, err := svc.CapturePane(context.Background(), domain.CaptureRequest{PaneID: "%3", JoinWrapped: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "a\nb\n\n" || res.TotalLines != 3 || *res.EffectiveStart != 0 || *res.EffectiveEnd != 2 {
		t.Errorf("capture_pane of the screen = %+v; want rows 0 to 2, a, b and an empty row", res)
	}

	start := int64(-2)
	term.MockTerminal.EXPECT().Pane(gomock.Any(), ports.PaneID("%3")).Return(info, nil)
	term.MockTerminal.EXPECT().Capture(gomock.Any(), ports.PaneID("%3"), ports.CaptureRange{Start: -2, End: 2}).Return([]string{"h1", "h2", "a", "b", ""}, nil)
	if res, err := svc.CapturePane(context.Background(), domain.CaptureRequest{PaneID: "%3", Start: &start}); err != nil || res.TotalLines != 5 {
		t.Errorf("capture_pane from row -2 = %+v, %v; want 5 rows", res, err)
	}

	term.MockScreenCapturer.EXPECT().CaptureScreen(gomock.Any(), ports.PaneID("%9"), false).Return(ports.PaneInfo{}, nil, ports.ErrPaneNotFound)
	if _, err := svc.CapturePane(context.Background(), domain.CaptureRequest{PaneID: "%9"}); !errors.Is(err, ports.ErrPaneNotFound) {
		t.Errorf("capture_pane of no pane: %v, want ErrPaneNotFound", err)
	}

	// A terminal's error names what was done and the pane (see
	// ports.Terminal), and is passed on as it is, not named again.
	term.MockTerminal.EXPECT().Pane(gomock.Any(), ports.PaneID("%3")).Return(info, nil)
	term.MockTerminal.EXPECT().Capture(gomock.Any(), ports.PaneID("%3"), ports.CaptureRange{Start: -2, End: 2}).
		Return(nil, fmt.Errorf("capture pane %%3: %w", ports.ErrUnavailable))
	_, err = svc.CapturePane(context.Background(), domain.CaptureRequest{PaneID: "%3", Start: &start})
	if !errors.Is(err, ports.ErrUnavailable) || strings.Count(err.Error(), "capture pane %3") != 1 {
		t.Errorf("capture_pane of a range when tmux is gone: %v; want the terminal's error, its context once", err)
	}
}
