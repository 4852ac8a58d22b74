package test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/tmux"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// The domain Service on a real tmux Terminal and the system clock: what
// run_shell_command, the refusal policy and the waiting tools do in real
// panes, under every shell the framing supports that is installed. Every
// case has a private tmux server of its own, so that cases run side by
// side and one case's sessions and clients never meet another's.

// rig is one case's private server, a shell pane on it, and the Terminal
// and Service a server process would have.
type rig struct {
	srv  *tmuxServer
	sh   shellSpec
	pane ports.PaneID
	svc  *domain.Service
}

func newRig(t *testing.T, sh shellSpec) *rig {
	t.Helper()
	srv, p := newTmuxServer(t, sh)
	return &rig{srv: srv, sh: sh, pane: p, svc: service(t, srv.terminal(t, tmux.Options{}))}
}

// run runs a command and fails the test on an error.
func (r *rig) run(t *testing.T, req domain.RunRequest) domain.RunResult {
	t.Helper()
	if req.PaneID == "" {
		req.PaneID = r.pane
	}
	if req.TimeoutMs == 0 {
		req.TimeoutMs = 20_000
	}
	res, err := r.svc.RunShellCommand(itContext(t), req)
	if err != nil {
		t.Fatalf("run_shell_command %q: %v", req.Command, err)
	}
	return res
}

// settle waits until the shell is back in the foreground of p after a
// command, before the next one: see TestTmuxBackToBackCommands for why.
func (r *rig) settle(t *testing.T, p ports.PaneID) {
	t.Helper()
	r.srv.waitCommand(t, p, r.sh.name)
}

// wantCompleted checks that res is a completed command with exactly this
// output and exit status, nothing withheld, cut, lost or foreign.
func wantCompleted(t *testing.T, res domain.RunResult, output string, status int) {
	t.Helper()
	if res.Outcome != domain.OutcomeCompleted || res.ExitStatus == nil || *res.ExitStatus != status {
		t.Fatalf("outcome %s, exit status %v; want completed with status %d (output %q)", res.Outcome, deref(res.ExitStatus), status, res.Output)
	}
	if res.Output != output {
		t.Errorf("output = %q, want %q", res.Output, output)
	}
	if !res.OutputComplete || res.MissedBytes != 0 || res.DroppedLines != 0 || res.OmittedBytes != 0 ||
		res.ForeignOutputSuspected || res.StillRunning || res.ReturnedBytes != int64(len(output)) {
		t.Errorf("accounting of a complete run = %+v", res)
	}
}

// byShell is a command in the POSIX shells' language and, where fish's
// differs, in fish's ("-" when fish has no way to say it).
type byShell struct{ posix, fish string }

func (c byShell) in(t *testing.T, sh shellSpec) string {
	t.Helper()
	if sh.name != "fish" || c.fish == "" {
		return c.posix
	}
	if c.fish == "-" {
		t.Skipf("fish has no equivalent of %q", c.posix)
	}
	return c.fish
}

// bigArg is 64 KiB of text that no shell quotes specially.
var bigArg = strings.Repeat("0123456789abcdef", 4096)

func TestTmuxRunShellCommandInEveryShell(t *testing.T) {
	needTmux(t)
	outputs := []struct {
		name    string
		command byShell
		output  string
		status  int
	}{
		{"echo", byShell{posix: "echo hello"}, "hello", 0},
		{"exit 0", byShell{posix: "echo zero; exit 0"}, "zero", 0},
		{"exit 1", byShell{posix: "false"}, "", 1},
		{"exit 3", byShell{posix: "echo three; exit 3"}, "three", 3},
		{"exit 255", byShell{posix: "exit 255"}, "", 255},
		{"multi-line", byShell{posix: "echo one\necho two\n\necho three"}, "one\ntwo\nthree", 0},
		{"heredoc as the last line", byShell{posix: "cat <<EOF\nline 1\n  line 2\nEOF", fish: "-"}, "line 1\n  line 2", 0},
		{"trailing comment", byShell{posix: "echo kept # a comment with 'quotes"}, "kept", 0},
		{"quotes and unicode", byShell{posix: `printf '%s\n' "double \"quoted\" 'single'" 'dollar $HOME, tab	é ✓ 日本語 🙂'`},
			"double \"quoted\" 'single'\ndollar $HOME, tab\té ✓ 日本語 🙂", 0},
		{"a 64 KB command", byShell{posix: "printf %s '" + bigArg + "' | wc -c | tr -d ' '"}, "65536", 0},
	}
	for _, sh := range shells {
		t.Run(sh.name, func(t *testing.T) {
			t.Parallel()
			needShell(t, sh)
			for _, c := range outputs {
				t.Run(c.name, func(t *testing.T) {
					t.Parallel()
					command := c.command.in(t, sh)
					wantCompleted(t, newRig(t, sh).run(t, domain.RunRequest{Command: command}), c.output, c.status)
				})
			}
			for _, c := range []struct {
				name string
				test func(t *testing.T, r *rig)
			}{
				{"large output with maxLines", testLargeOutput},
				{"a pane whose history is full", testFullHistory},
				{"timeout, then busy, then free", testTimeoutBusyFree},
				{"C-c from outside", testInterruptFromOutside},
				{"pane killed during a command", testPaneKilled},
				{"two concurrent calls", testConcurrentCalls},
				{"watched pane refused even with force", testWatchedPane},
				{"self pane refused without force", testSelfPane},
				{"synchronized panes refused", testSynchronizedPanes},
				{"cd and export do not persist", testNoPersistence},
			} {
				t.Run(c.name, func(t *testing.T) {
					t.Parallel()
					c.test(t, newRig(t, sh))
				})
			}
		})
	}
}

// seq 1 100000 prints 588,895 bytes; maxLines keeps the last 200 lines
// exactly and counts the rest.
func testLargeOutput(t *testing.T, r *rig) {
	res := r.run(t, domain.RunRequest{Command: "seq 1 100000", MaxLines: 200})
	var want strings.Builder
	for i := 99801; i <= 100000; i++ {
		fmt.Fprintf(&want, "%d\n", i)
	}
	wantText := strings.TrimSuffix(want.String(), "\n") // the line break before the end is not output
	if res.Outcome != domain.OutcomeCompleted || deref(res.ExitStatus) != 0 {
		t.Fatalf("outcome %s, status %v; want completed, 0", res.Outcome, deref(res.ExitStatus))
	}
	if res.Output != wantText {
		t.Errorf("output: %d bytes from %q to %q; want the last 200 lines, 99801 to 100000",
			len(res.Output), firstLine(res.Output), lastLine(res.Output))
	}
	if res.DroppedLines != 99800 || res.MissedBytes != 0 || res.OmittedBytes != 0 || res.OutputComplete ||
		res.ReturnedBytes != int64(len(wantText)) {
		t.Errorf("accounting = dropped %d, missed %d, omitted %d, complete %v, returned %d; want 99800, 0, 0, false, %d",
			res.DroppedLines, res.MissedBytes, res.OmittedBytes, res.OutputComplete, res.ReturnedBytes, len(wantText))
	}
}

// A pane that keeps 100 rows of history prints 5000 lines: the output is
// right, or it says it is incomplete; it is never silently wrong or empty.
func testFullHistory(t *testing.T, r *rig) {
	session := r.srv.tmux(t, "display-message", "-p", "-t", string(r.pane), "#{session_name}")
	// history-limit applies to panes made after it is set.
	r.srv.tmux(t, "set-option", "-t", session, "history-limit", "100")
	args := append([]string{"new-window", "-d", "-t", session + ":", "-c", r.srv.home, "-P", "-F", "#{pane_id}"}, r.sh.paneArgs()...)
	p := ports.PaneID(r.srv.tmux(t, args...))
	r.srv.waitPrompt(t, p)
	if limit := r.srv.tmux(t, "display-message", "-p", "-t", string(p), "#{history_limit}"); limit != "100" {
		t.Fatalf("history limit of the pane = %s, want 100", limit)
	}

	res := r.run(t, domain.RunRequest{PaneID: p, Command: "seq 1 5000", MaxLines: 10_000})
	var want strings.Builder
	for i := 1; i <= 5000; i++ {
		fmt.Fprintf(&want, "%d\n", i)
	}
	if res.Outcome != domain.OutcomeCompleted || deref(res.ExitStatus) != 0 {
		t.Fatalf("outcome %s, status %v; want completed, 0", res.Outcome, deref(res.ExitStatus))
	}
	switch {
	case res.Output == "":
		t.Errorf("output is empty (accounting %+v)", res)
	case res.Output == strings.TrimSuffix(want.String(), "\n"):
		if !res.OutputComplete || res.MissedBytes != 0 || res.DroppedLines != 0 {
			t.Errorf("the whole output came back, yet accounting = %+v", res)
		}
	default:
		if res.OutputComplete || res.MissedBytes == 0 {
			t.Errorf("output differs (%d bytes, %q to %q) but is not flagged incomplete: missed %d, complete %v",
				len(res.Output), firstLine(res.Output), lastLine(res.Output), res.MissedBytes, res.OutputComplete)
		}
	}
}

// A command that outlives its call keeps the pane until it ends: writes
// are refused as busy meanwhile, and the pane is free once it ends.
func testTimeoutBusyFree(t *testing.T, r *rig) {
	p := r.pane
	res := r.run(t, domain.RunRequest{PaneID: p, Command: "sleep 2", TimeoutMs: 300})
	if res.Outcome != domain.OutcomeTimedOut || !res.StillRunning || res.ExitStatus != nil || res.EffectiveTimeoutMs != 300 {
		t.Fatalf("sleep 2 with timeoutMs 300 = %+v, want timed_out, still running, no status", res)
	}
	ctx := itContext(t)
	_, err := r.svc.PasteText(ctx, domain.PasteRequest{PaneID: p, Text: "echo intruder", Enter: true})
	if !errors.Is(err, fault.ErrBusy) {
		t.Errorf("paste_text while the command runs: %v, want ErrBusy", err)
	}
	_, err = r.svc.RunShellCommand(ctx, domain.RunRequest{PaneID: p, Command: "echo intruder"})
	if !errors.Is(err, fault.ErrBusy) {
		t.Errorf("run_shell_command while the command runs: %v, want ErrBusy", err)
	}
	select {
	case <-r.svc.Released(p):
		t.Fatalf("the pane was released while sleep 2 still ran")
	default:
	}
	select {
	case <-r.svc.Released(p):
	case <-time.After(10 * time.Second):
		t.Fatalf("the pane was not released after sleep 2 ended")
	}
	r.settle(t, p)
	wantCompleted(t, r.run(t, domain.RunRequest{PaneID: p, Command: "echo free"}), "free", 0)
	if screen := r.srv.screen(t, p); strings.Contains(screen, "intruder") {
		t.Errorf("a refused write reached the pane:\n%s", screen)
	}
}

// C-c typed from outside (a person, another tool) ends the command: the
// call returns at once with the status of a command killed by SIGINT.
func testInterruptFromOutside(t *testing.T, r *rig) {
	p := r.pane
	done := make(chan domain.RunResult, 1)
	go func() {
		res, err := r.svc.RunShellCommand(context.Background(), domain.RunRequest{PaneID: p, Command: "sleep 30", TimeoutMs: 20_000})
		if err != nil {
			t.Errorf("run_shell_command: %v", err)
		}
		done <- res
	}()
	r.srv.waitProcess(t, p, "sleep")
	sent := time.Now()
	r.srv.tmux(t, "send-keys", "-t", string(p), "C-c")
	res := <-done
	took := time.Since(sent)
	if res.Outcome != domain.OutcomeCompleted || deref(res.ExitStatus) != 130 {
		t.Errorf("sleep 30 interrupted by C-c = outcome %s, status %v; want completed, 130", res.Outcome, deref(res.ExitStatus))
	}
	if took > time.Second {
		t.Errorf("the call returned %v after C-c; want it within 1s", took)
	}
}

// A pane killed while its command runs ends the call with pane_died
// within a second, whether its window lives on or its session goes with
// it (and with the session, the control client that followed it).
func testPaneKilled(t *testing.T, r *rig) {
	for _, c := range []struct {
		name string
		pane func() ports.PaneID
	}{
		{"beside another pane", func() ports.PaneID { return r.srv.split(t, r.pane, r.sh) }},
		{"the last of its session", func() ports.PaneID { return r.srv.newSession(t, "", r.sh) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := c.pane()
			done := make(chan domain.RunResult, 1)
			go func() {
				res, err := r.svc.RunShellCommand(context.Background(), domain.RunRequest{PaneID: p, Command: "sleep 30", TimeoutMs: 20_000})
				if err != nil {
					t.Errorf("run_shell_command: %v", err)
				}
				done <- res
			}()
			r.srv.waitProcess(t, p, "sleep")
			killed := time.Now()
			r.srv.tmux(t, "kill-pane", "-t", string(p))
			res := <-done
			took := time.Since(killed)
			if res.Outcome != domain.OutcomePaneDied || res.ExitStatus != nil || res.StillRunning {
				t.Errorf("run in a killed pane = %+v, want pane_died, no status, not running", res)
			}
			if took >= time.Second {
				t.Errorf("pane_died came %v after the kill; want it within 1s", took)
			}
		})
	}
}

// Of two calls at once on one pane, exactly one runs; the other is
// refused as busy, at once.
func testConcurrentCalls(t *testing.T, r *rig) {
	p := r.pane
	type reply struct {
		res domain.RunResult
		err error
	}
	replies := make(chan reply, 2)
	start := make(chan struct{})
	for range 2 {
		go func() {
			<-start
			res, err := r.svc.RunShellCommand(context.Background(), domain.RunRequest{PaneID: p, Command: "sleep 1; echo done", TimeoutMs: 20_000})
			replies <- reply{res, err}
		}()
	}
	close(start)
	var busy, ran int
	for range 2 {
		rep := <-replies
		switch {
		case errors.Is(rep.err, fault.ErrBusy):
			busy++
		case rep.err != nil:
			t.Errorf("run_shell_command: %v", rep.err)
		default:
			ran++
			wantCompleted(t, rep.res, "done", 0)
		}
	}
	if busy != 1 || ran != 1 {
		t.Errorf("%d calls ran and %d were refused busy; want one of each", ran, busy)
	}
}

// A pane on a person's screen is refused for every write, force or not,
// and nothing reaches it.
func testWatchedPane(t *testing.T, r *rig) {
	p := r.pane
	session := r.srv.tmux(t, "display-message", "-p", "-t", string(p), "#{session_name}")
	tty := r.srv.attach(t, session)
	ctx := itContext(t)
	for _, force := range []bool{false, true} {
		_, err := r.svc.RunShellCommand(ctx, domain.RunRequest{PaneID: p, Command: "echo watched-run", Force: force})
		wantRefusal(t, err, fault.RefusedWatched, "watching", tty)
		_, err = r.svc.PasteText(ctx, domain.PasteRequest{PaneID: p, Text: "echo watched-paste", Enter: true, Force: force})
		wantRefusal(t, err, fault.RefusedWatched, "watching", tty)
		_, err = r.svc.SendKeys(ctx, domain.SendKeysRequest{PaneID: p, Keys: "echo watched-keys", Literal: true, Force: force})
		wantRefusal(t, err, fault.RefusedWatched, "watching", tty)
	}
	if screen := r.srv.screen(t, p); strings.Contains(screen, "watched-") || strings.Contains(screen, "7717") {
		t.Errorf("a refused write reached the watched pane:\n%s", screen)
	}
}

// The pane this server runs in (TMUX and TMUX_PANE name it) is refused
// unless the call forces it.
func testSelfPane(t *testing.T, r *rig) {
	p := r.pane
	tmuxVar := r.srv.tmux(t, "display-message", "-p", "-t", string(p), "#{socket_path},#{pid},0")
	env := map[string]string{"TMUX": tmuxVar, "TMUX_PANE": string(p)}
	svc := service(t, r.srv.terminal(t, tmux.Options{Env: func(k string) string { return env[k] }}))
	_, err := svc.RunShellCommand(itContext(t), domain.RunRequest{PaneID: p, Command: "echo self"})
	wantRefusal(t, err, fault.RefusedSelf, "this server itself")
	if screen := r.srv.screen(t, p); strings.Contains(screen, "7717") {
		t.Errorf("the refused command reached the pane:\n%s", screen)
	}
	res, err := svc.RunShellCommand(itContext(t), domain.RunRequest{PaneID: p, Command: "echo self", Force: true, TimeoutMs: 20_000})
	if err != nil {
		t.Fatalf("forced run in the self pane: %v", err)
	}
	wantCompleted(t, res, "self", 0)
}

// Input to a pane of a window with synchronize-panes on would reach the
// other panes too: refused, and nothing reaches any of them.
func testSynchronizedPanes(t *testing.T, r *rig) {
	p := r.pane
	q := r.srv.split(t, p, r.sh)
	r.srv.tmux(t, "set-window-option", "-t", string(p), "synchronize-panes", "on")
	ctx := itContext(t)
	_, err := r.svc.RunShellCommand(ctx, domain.RunRequest{PaneID: p, Command: "echo synced"})
	wantRefusal(t, err, fault.RefusedSynchronized, "synchronized", string(q))
	_, err = r.svc.PasteText(ctx, domain.PasteRequest{PaneID: q, Text: "echo synced", Enter: true})
	wantRefusal(t, err, fault.RefusedSynchronized, "synchronized", string(p))
	for _, pane := range []ports.PaneID{p, q} {
		if screen := r.srv.screen(t, pane); strings.Contains(screen, "synced") || strings.Contains(screen, "7717") {
			t.Errorf("a refused write reached %s:\n%s", pane, screen)
		}
	}
}

// Each command runs in a subshell: cd and export do not reach the next.
func testNoPersistence(t *testing.T, r *rig) {
	p := r.pane
	first := byShell{posix: "cd / && export TMCP_PERSIST=1 && pwd", fish: "cd /; and set -gx TMCP_PERSIST 1; and pwd"}
	second := byShell{posix: `pwd; echo "${TMCP_PERSIST:-unset}"`, fish: "pwd; set -q TMCP_PERSIST; and echo set; or echo unset"}
	wantCompleted(t, r.run(t, domain.RunRequest{PaneID: p, Command: first.in(t, r.sh)}), "/", 0)
	r.settle(t, p)
	wantCompleted(t, r.run(t, domain.RunRequest{PaneID: p, Command: second.in(t, r.sh)}), r.srv.home+"\nunset", 0)
}

// Commands run back to back in one pane, each as soon as the one before
// returned, are never refused: the shell that printed the end of one
// command is the pane's foreground program again by the time the next is
// checked.
func TestTmuxBackToBackCommands(t *testing.T) {
	needTmux(t)
	for _, sh := range shells {
		t.Run(sh.name, func(t *testing.T) {
			t.Parallel()
			r := newRig(t, sh)
			for i := range 20 {
				res, err := r.svc.RunShellCommand(itContext(t), domain.RunRequest{PaneID: r.pane, Command: fmt.Sprintf("echo %d", i), TimeoutMs: 20_000})
				if err != nil {
					t.Fatalf("command %d of 20, right after the one before: %v", i+1, err)
				}
				wantCompleted(t, res, fmt.Sprint(i), 0)
			}
		})
	}
}

// A Terminal following many sessions attaches control clients while it
// detaches others. tmux 3.3a crashes when it tells a control client that
// is still attaching that another client left; the Terminal must never
// bring that about itself.
func TestTmuxControlClientsComingAndGoingLeaveTmuxRunning(t *testing.T) {
	t.Parallel()
	srv, first := newTmuxServer(t, bash)
	panes := []ports.PaneID{first}
	for range 7 {
		panes = append(panes, srv.newSession(t, "", bash))
	}
	// A client is stopped a millisecond after its last stream closes: in
	// every round some stop while others start.
	term := srv.terminal(t, tmux.Options{IdleTimeout: time.Millisecond})
	ctx := itContext(t)
	for round := range 20 {
		var wg sync.WaitGroup
		for _, p := range panes {
			wg.Go(func() {
				s, err := term.OpenOutput(ctx, p)
				if err != nil {
					t.Errorf("round %d: %v", round+1, err)
					return
				}
				s.Close()
			})
		}
		wg.Wait()
		if _, err := srv.tmuxErr("has-session"); err != nil {
			t.Fatalf("round %d: the tmux server is gone: %v", round+1, err)
		}
	}
}

// wantRefusal checks that err is a refusal whose message says each of
// says.
func wantRefusal(t *testing.T, err error, why fault.Refusal, says ...string) {
	t.Helper()
	var refusal *fault.RefusalError
	if !errors.As(err, &refusal) || refusal.Why != why {
		t.Errorf("got %v, want a refusal of kind %s", err, why)
		return
	}
	for _, s := range says {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("refusal %q does not say %q", err, s)
		}
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func lastLine(s string) string {
	s = strings.TrimSuffix(s, "\n")
	return s[strings.LastIndexByte(s, '\n')+1:]
}

// The waiting and input tools on real tmux, under bash: they depend on the
// stream of output, not on the shell.

// Full-screen programs (vi, less) and a batch of top's output do not break
// capture_since: each call returns text and moves the cursor on.
func TestTmuxCaptureSinceThroughFullScreenPrograms(t *testing.T) {
	t.Parallel()
	srv, p := newTmuxServer(t, bash)
	svc := service(t, srv.terminal(t, tmux.Options{}))
	ctx := itContext(t)
	file := filepath.Join(srv.home, "notes.txt")
	if err := os.WriteFile(file, []byte("tmcp full-screen line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	seed, err := svc.CaptureSince(ctx, domain.CaptureSinceRequest{PaneID: p})
	if err != nil || seed.Cursor == nil || !seed.Seeded {
		t.Fatalf("capture_since without a cursor = %+v, %v; want the screen and a cursor", seed, err)
	}
	cur := *seed.Cursor

	// readUntil calls capture_since from the cursor until the text read
	// holds want, checking that every call with text moves the cursor.
	readUntil := func(want string) string {
		t.Helper()
		var text strings.Builder
		deadline := time.Now().Add(10 * time.Second)
		for !strings.Contains(text.String(), want) {
			if time.Now().After(deadline) {
				t.Fatalf("capture_since never returned %q; read %q", want, text.String())
			}
			res, err := svc.CaptureSince(ctx, domain.CaptureSinceRequest{PaneID: p, Cursor: cur, WaitMs: 2000, MaxLines: 1000})
			if err != nil {
				t.Fatalf("capture_since: %v", err)
			}
			if res.Cursor == nil || res.Seeded || !res.Streaming {
				t.Fatalf("capture_since from a cursor = %+v, want streaming text and a cursor", res)
			}
			if res.Text != "" && *res.Cursor == cur {
				t.Fatalf("capture_since returned %q without moving the cursor", res.Text)
			}
			text.WriteString(res.Text)
			cur = *res.Cursor
		}
		return text.String()
	}
	keys := func(keys string, literal, enter bool) {
		t.Helper()
		if _, err := svc.SendKeys(ctx, domain.SendKeysRequest{PaneID: p, Keys: keys, Literal: literal, Enter: enter}); err != nil {
			t.Fatalf("send_keys %q: %v", keys, err)
		}
	}

	keys("top -b -n 1 -w 120 | head -20", true, true)
	readUntil("PID")
	srv.waitPrompt(t, p)

	keys("vi "+file, true, true)
	readUntil("tmcp full-screen line")
	srv.waitCommand(t, p, "vi")
	keys("Escape", false, false)
	keys(":q!", true, true)
	srv.waitPrompt(t, p)

	keys("less "+file, true, true)
	readUntil("tmcp full-screen line")
	srv.waitCommand(t, p, "less")
	keys("q", true, false)
	srv.waitPrompt(t, p)

	// The shell is back and the stream still serves commands.
	wantCompleted(t, runIn(t, svc, p, "echo after"), "after", 0)
	keys("echo tail-marker", true, true)
	readUntil("tail-marker")
}

// runIn runs command in p through svc and fails the test on an error.
func runIn(t *testing.T, svc *domain.Service, p ports.PaneID, command string) domain.RunResult {
	t.Helper()
	res, err := svc.RunShellCommand(itContext(t), domain.RunRequest{PaneID: p, Command: command, TimeoutMs: 20_000})
	if err != nil {
		t.Fatalf("run_shell_command %q: %v", command, err)
	}
	return res
}

// "Build OK" printed in two writes half a second apart still matches.
func TestTmuxWaitForTextMatchesAPatternSplitAcrossWrites(t *testing.T) {
	t.Parallel()
	srv, p := newTmuxServer(t, bash)
	svc := service(t, srv.terminal(t, tmux.Options{}))
	ctx := itContext(t)
	seed, err := svc.CaptureSince(ctx, domain.CaptureSinceRequest{PaneID: p})
	if err != nil || seed.Cursor == nil {
		t.Fatalf("capture_since: %+v, %v", seed, err)
	}
	// Typed at the prompt, not framed: the echo of the line shows the
	// two halves apart, never "Build OK".
	if _, err := svc.SendKeys(ctx, domain.SendKeysRequest{PaneID: p, Keys: `printf 'Buil'; sleep 0.5; printf 'd OK\n'`, Literal: true, Enter: true}); err != nil {
		t.Fatal(err)
	}
	res, err := svc.WaitForText(ctx, domain.WaitForTextRequest{PaneID: p, Patterns: []string{"Build OK"}, Cursor: *seed.Cursor, TimeoutMs: 10_000})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != domain.WaitMatched || res.Matched == nil || *res.Matched != "Build OK" {
		t.Errorf("wait_for_text = outcome %s, matched %v; want matched \"Build OK\"", res.Outcome, derefS(res.Matched))
	}
	if !strings.Contains(res.Output, "Build OK") || !strings.Contains(res.Screen, "Build OK") {
		t.Errorf("output %q and screen %q should both show Build OK", res.Output, res.Screen)
	}
}

// A pane that dies while wait_for_text waits ends the wait with pane_died
// within a second, whether tmux removes it or keeps it dead
// (remain-on-exit), which it announces to nobody.
func TestTmuxWaitForTextPaneDied(t *testing.T) {
	for _, c := range []struct {
		name string
		kill func(t *testing.T, srv *tmuxServer, p ports.PaneID)
	}{
		{"pane killed", func(t *testing.T, srv *tmuxServer, p ports.PaneID) {
			srv.tmux(t, "kill-pane", "-t", string(p))
		}},
		{"process killed, pane kept", func(t *testing.T, srv *tmuxServer, p ports.PaneID) {
			srv.tmux(t, "set-option", "-w", "-t", string(p), "remain-on-exit", "on")
			pid, err := strconv.Atoi(srv.tmux(t, "display-message", "-p", "-t", string(p), "#{pane_pid}"))
			if err != nil {
				t.Fatal(err)
			}
			if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			srv, first := newTmuxServer(t, bash)
			p := srv.split(t, first, bash)
			svc := service(t, srv.terminal(t, tmux.Options{}))
			done := make(chan domain.WaitForTextResult, 1)
			// The first progress report tells that the call is waiting.
			waiting := make(chan struct{})
			var once sync.Once
			progress := func(domain.Progress) { once.Do(func() { close(waiting) }) }
			go func() {
				res, err := svc.WaitForText(context.Background(), domain.WaitForTextRequest{PaneID: p, Patterns: []string{"never printed"},
					TimeoutMs: 20_000, Progress: progress})
				if err != nil {
					t.Errorf("wait_for_text: %v", err)
				}
				done <- res
			}()
			select {
			case <-waiting:
			case res := <-done:
				t.Fatalf("wait_for_text returned before the pane died: %+v", res)
			}
			c.kill(t, srv, p)
			killed := time.Now()
			select {
			case res := <-done:
				if took := time.Since(killed); took >= time.Second {
					t.Errorf("pane_died came %v after the pane died; want it within 1s", took)
				}
				if res.Outcome != domain.WaitPaneDied || res.Matched != nil {
					t.Errorf("wait_for_text on a pane that died = outcome %s, matched %v; want pane_died", res.Outcome, derefS(res.Matched))
				}
			case <-time.After(10 * time.Second):
				t.Fatal("wait_for_text did not return after the pane died")
			}
		})
	}
}

// After run_shell_command returned timed_out, C-c may reach the busy pane
// (and nothing else may); the command dies and the pane is free.
func TestTmuxSendKeysInterruptsATimedOutCommand(t *testing.T) {
	t.Parallel()
	srv, p := newTmuxServer(t, bash)
	svc := service(t, srv.terminal(t, tmux.Options{}))
	ctx := itContext(t)
	res := runInWithTimeout(t, svc, p, "sleep 30", 300)
	if res.Outcome != domain.OutcomeTimedOut || !res.StillRunning {
		t.Fatalf("sleep 30 with timeoutMs 300 = %+v, want timed_out and still running", res)
	}
	if _, err := svc.SendKeys(ctx, domain.SendKeysRequest{PaneID: p, Keys: "echo intruder", Literal: true, Enter: true}); !errors.Is(err, fault.ErrBusy) {
		t.Errorf("literal keys to the busy pane: %v, want ErrBusy", err)
	}
	if _, err := svc.SendKeys(ctx, domain.SendKeysRequest{PaneID: p, Keys: "Escape"}); !errors.Is(err, fault.ErrBusy) {
		t.Errorf("Escape to the busy pane: %v, want ErrBusy", err)
	}
	keys, err := svc.SendKeys(ctx, domain.SendKeysRequest{PaneID: p, Keys: "C-c", Enter: true})
	if err != nil {
		t.Fatalf("C-c to the pane of a timed-out command: %v", err)
	}
	if len(keys.Sent) != 1 || keys.Sent[0] != "C-c" {
		t.Errorf("sent %q, want C-c alone (no Enter into the interrupted pane)", keys.Sent)
	}
	select {
	case <-svc.Released(p):
	case <-time.After(5 * time.Second):
		t.Fatal("the pane was not released after C-c ended its command")
	}
	wantCompleted(t, runIn(t, svc, p, "echo free"), "free", 0)
}

func runInWithTimeout(t *testing.T, svc *domain.Service, p ports.PaneID, command string, timeoutMs int64) domain.RunResult {
	t.Helper()
	res, err := svc.RunShellCommand(itContext(t), domain.RunRequest{PaneID: p, Command: command, TimeoutMs: timeoutMs})
	if err != nil {
		t.Fatalf("run_shell_command %q: %v", command, err)
	}
	return res
}
