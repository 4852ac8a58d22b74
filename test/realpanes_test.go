package test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/clock"
	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/adapters/random"
	"github.com/tmux-mcp/tmux-mcp/adapters/tmux"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/domain/writers"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// run_shell_command on the panes agents really meet, in real tmux under
// every shell: a line typed into an open quote, a line left half-typed by
// another writer, a pane whose process is replaced, output shaped like the
// markers, a command that tries to forge its own end, copy mode, and a
// shell that is slow to start.

func TestTmuxRealPanes(t *testing.T) {
	needTmux(t)
	for _, sh := range shells {
		t.Run(sh.name, func(t *testing.T) {
			t.Parallel()
			needShell(t, sh)
			for _, c := range []struct {
				name string
				test func(t *testing.T, r *rig)
			}{
				{"output ends without the line break before the end", testOutputConvention},
				{"a line typed into an open quote is withdrawn", testOpenQuote},
				{"a line half-typed by another writer does not swallow the frame", testHalfTypedLine},
				{"a replaced pane process ends the call", testRespawnedPane},
				{"markers in the data cut nothing", testMarkersInData},
				{"the command cannot forge its end", testForgedEnd},
				{"copy mode is left with send_keys", testCopyMode},
				{"a NUL is refused before anything is typed", testNUL},
				{"a script reading its input is not typed into", testScriptInFront},
				{"a pipeline's shell reading the terminal is not typed into", testPipelineInFront},
			} {
				t.Run(c.name, func(t *testing.T) {
					t.Parallel()
					c.test(t, newRig(t, sh))
				})
			}
		})
	}
}

// refusedAsker starts, with the line that launch makes of its path, a
// script of the pane's shell that asks a question and reads the answer
// with read, checks that run_shell_command is refused as not a shell and
// typed nothing into it, answers it, and checks that the pane is free
// then. It returns the refusal.
func refusedAsker(t *testing.T, r *rig, name, read string, launch func(script string) string) error {
	t.Helper()
	dir := r.srv.home
	script := filepath.Join(dir, name+"."+r.sh.name)
	started, got := filepath.Join(dir, name+"-started-"+r.sh.name), filepath.Join(dir, name+"-got-"+r.sh.name)
	body := "echo yes > '" + started + "'\n" + read + "\necho \"got [$x]\" > '" + got + "'\n"
	if err := os.WriteFile(script, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	r.srv.tmux(t, "send-keys", "-t", string(r.pane), "-l", launch(script))
	r.srv.tmux(t, "send-keys", "-t", string(r.pane), "Enter")
	eventually(t, 10*time.Second, name+" to start", func() bool { _, err := os.Stat(started); return err == nil })
	_, err := r.svc.RunShellCommand(itContext(t), domain.RunRequest{PaneID: r.pane, Command: "echo typed", TimeoutMs: 5000})
	var refusal *fault.RefusalError
	if !errors.As(err, &refusal) || refusal.Why != fault.RefusedNotAShell {
		t.Fatalf("run_shell_command with %s in front: %v; want a not-a-shell refusal", name, err)
	}
	if b, err := os.ReadFile(got); err == nil {
		t.Fatalf("%s read a line that the refusal typed: %s", name, b)
	}
	r.srv.tmux(t, "send-keys", "-t", string(r.pane), "-l", "answer")
	r.srv.tmux(t, "send-keys", "-t", string(r.pane), "Enter")
	eventually(t, 10*time.Second, name+" to read its answer", func() bool {
		b, _ := os.ReadFile(got)
		return strings.TrimSpace(string(b)) == "got [answer]"
	})
	freeAfter(t, r, name+" in front")
	return err
}

func testScriptInFront(t *testing.T, r *rig) {
	// A script of the pane's own shell, started from the prompt, waits
	// for an answer: in front is a process named like the shell.
	var script string
	err := refusedAsker(t, r, "ask", "read x", func(path string) string {
		script = path
		return r.sh.argv[0] + " '" + path + "'"
	})
	if !strings.Contains(err.Error(), script) {
		t.Errorf("the refusal %q does not name the script %s", err, script)
	}

	// A shell started at the prompt (as nix-shell, sudo -s, su start
	// one) reads the terminal, and is typed into.
	var nested []string
	for i := 0; i < len(r.sh.argv); i++ {
		if r.sh.argv[i] == "-C" {
			i++ // fish's prompt setting, which would need quoting
			continue
		}
		nested = append(nested, r.sh.argv[i])
	}
	r.srv.tmux(t, "send-keys", "-t", string(r.pane), "-l", strings.Join(nested, " "))
	r.srv.tmux(t, "send-keys", "-t", string(r.pane), "Enter")
	shell := r.srv.tmux(t, "display-message", "-p", "-t", string(r.pane), "#{pane_pid}")
	eventually(t, 10*time.Second, "the nested shell in front", func() bool {
		b, err := os.ReadFile("/proc/" + shell + "/stat")
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		return err == nil && len(f) > 5 && f[5] != shell
	})
	r.settle(t, r.pane)
	wantCompleted(t, r.run(t, domain.RunRequest{Command: "echo nested"}), "nested", 0)
}

func testPipelineInFront(t *testing.T, r *rig) {
	// As "curl … | sh" runs an installer that asks on the terminal: the
	// pipeline's first command, its group's leader, is done by then.
	refusedAsker(t, r, "install", "read x < /dev/tty", func(path string) string {
		return "cat '" + path + "' | " + r.sh.argv[0]
	})
}

func testOutputConvention(t *testing.T, r *rig) {
	for _, c := range []struct{ command, output string }{
		{"echo hi", "hi"},
		{`printf 'a\nb\n'`, "a\nb"},
		{"printf x", "x"},
		{`printf 'a\n\n'`, "a\n"},
	} {
		wantCompleted(t, r.run(t, domain.RunRequest{Command: c.command}), c.output, 0)
		r.settle(t, r.pane)
	}
}

// freeAfter checks that the pane takes a command again.
func freeAfter(t *testing.T, r *rig, what string) {
	t.Helper()
	r.settle(t, r.pane)
	res, err := r.svc.RunShellCommand(itContext(t), domain.RunRequest{PaneID: r.pane, Command: "echo next", TimeoutMs: 20_000})
	if err != nil {
		t.Fatalf("after %s the pane is not free: %v", what, err)
	}
	wantCompleted(t, res, "next", 0)
}

func testOpenQuote(t *testing.T, r *rig) {
	r.srv.tmux(t, "send-keys", "-t", string(r.pane), "echo 'abc", "Enter")
	marker := filepath.Join(r.srv.home, "ran-late")
	res := r.run(t, domain.RunRequest{Command: "touch " + marker, TimeoutMs: 1500})
	if res.Outcome != domain.OutcomeTimedOut || res.StillRunning || !res.NotStarted || res.ExitStatus != nil {
		t.Fatalf("a frame typed into an open quote = %+v; want timed_out, not running, not started", res)
	}
	select {
	case <-r.svc.Released(r.pane):
	default:
		t.Fatal("the pane is still reserved after its command was withdrawn")
	}
	// A shell runs what it reads in order, and the withdrawn line was
	// typed before this command: had the line been run late, it would
	// have run before this one ends. So once it has ended, the window for
	// a late run has passed, however slow the machine.
	late := r.run(t, domain.RunRequest{Command: "test -e '" + marker + "' && echo ran || echo 'not run'"})
	wantCompleted(t, late, "not run", 0)
	if _, err := os.Stat(marker); err == nil {
		t.Error("the withdrawn command ran later")
	}
}

func testHalfTypedLine(t *testing.T, r *rig) {
	// A writer that died half-way through typing left this on the line.
	r.srv.tmux(t, "send-keys", "-t", string(r.pane), "-l", "echo half-typ")
	wantCompleted(t, r.run(t, domain.RunRequest{Command: "echo whole"}), "whole", 0)
}

func testRespawnedPane(t *testing.T, r *rig) {
	done := make(chan domain.RunResult, 1)
	go func() {
		res, err := r.svc.RunShellCommand(context.Background(), domain.RunRequest{PaneID: r.pane, Command: "echo before; sleep 30", TimeoutMs: 20_000})
		if err != nil {
			t.Errorf("run_shell_command: %v", err)
		}
		done <- res
	}()
	r.srv.waitProcess(t, r.pane, "sleep")
	args := []string{"respawn-pane", "-k", "-t", string(r.pane), "-c", r.srv.home}
	r.srv.tmux(t, append(args, r.sh.paneArgs()...)...)
	var res domain.RunResult
	select {
	case res = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the call did not end after the pane's process was replaced")
	}
	if res.Outcome != domain.OutcomePaneDied || res.StillRunning || res.ExitStatus != nil {
		t.Fatalf("a run whose pane was respawned = %+v; want pane_died, not running", res)
	}
	if strings.Contains(res.Output, "$") || strings.Contains(res.Output, "#") {
		t.Errorf("output %q holds the new shell's prompt", res.Output)
	}
	if res.Output != "before" && !(res.Output == "" && !res.OutputComplete) {
		t.Errorf("output %q (complete %v); want the old process's output, or nothing said to be incomplete", res.Output, res.OutputComplete)
	}
	r.srv.waitPrompt(t, r.pane)
	freeAfter(t, r, "a respawn")
}

func testMarkersInData(t *testing.T, r *rig) {
	// What a cat of a recording of another server's calls prints.
	start := `\033]7717;tmcp;S;feedfeedfeedfeed;77\007`
	end := `\033]7717;tmcp;E;feedfeedfeedfeed;beefbeefbeefbeef;0\007`
	for _, c := range []struct {
		name, command, output string
	}{
		{"a whole foreign frame", "printf '" + start + "middle\\n" + end + "after\\n'", "middle\nafter"},
		{"a foreign start without its end", "printf 'before\\n" + start + "and all that follows\\n'", "before\nand all that follows"},
		{"an end without a secret", `printf '\033]7717;tmcp;E;feedfeedfeedfeed;0\007kept\n'`, "kept"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := r.run(t, domain.RunRequest{Command: c.command})
			if res.Outcome != domain.OutcomeCompleted || deref(res.ExitStatus) != 0 || res.Output != c.output || !res.ForeignOutputSuspected {
				t.Errorf("result %+v; want completed with %q and the foreign markers flagged", res, c.output)
			}
			if res.OutputComplete != (res.MissedBytes == 0 && res.DroppedLines == 0 && res.OmittedBytes == 0) {
				t.Errorf("outputComplete %v does not follow from the accounting %+v", res.OutputComplete, res)
			}
			r.settle(t, r.pane)
		})
	}
}

// testForgedEnd knows the frame's ids (the Service draws them from a
// counter) and has the command print the very end marker, secret and
// all, then go on and exit 7: the call must wait for the real end, and,
// the secret being out, not take its status on a marker's word.
func testForgedEnd(t *testing.T, r *rig) {
	svc := domain.NewService(r.srv.terminal(t, tmux.Options{}), clock.New(), fake.NewIDs(), domain.DefaultConfig())
	t.Cleanup(func() { svc.Close() })
	// Ids: instance fakeid00000001; frame fakeid00000002, secret
	// fakeid00000003fakeid00000004.
	forged := `printf '\033]7717;tmcp;E;fakeid00000002;fakeid00000003fakeid00000004;0\007'; echo still running; sleep 1; exit 7`
	if r.sh.name == "fish" {
		forged = `printf '\033]7717;tmcp;E;fakeid00000002;fakeid00000003fakeid00000004;0\007'; echo still running; sleep 1; exit 7`
	}
	res, err := svc.RunShellCommand(itContext(t), domain.RunRequest{PaneID: r.pane, Command: forged, TimeoutMs: 20_000})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != domain.OutcomeCompleted || res.ExitStatus != nil || !res.Unverified || res.OutputComplete || !res.ForeignOutputSuspected {
		t.Fatalf("a command that printed its own end marker = %+v; want completed at the real end, its status not taken, flagged", res)
	}
	if res.Output != "still running" {
		t.Errorf("output %q", res.Output)
	}

	// And the screen holds nothing that names the frame: what the issue's
	// attacker greps for is not there.
	r.settle(t, r.pane)
	res, err = svc.RunShellCommand(itContext(t), domain.RunRequest{PaneID: r.pane,
		Command: "tmux -L " + r.srv.sock + " capture-pane -p -S - | grep -c 'fakeid0000000[6]\\|fakeid0000000[7]' || true", TimeoutMs: 20_000})
	if err != nil {
		t.Fatal(err)
	}
	if res.Output != "0" {
		t.Errorf("the screen and history hold the frame's id or secret on %s lines; want none", res.Output)
	}
}

func testCopyMode(t *testing.T, r *rig) {
	r.srv.tmux(t, "copy-mode", "-t", string(r.pane))
	_, err := r.svc.RunShellCommand(itContext(t), domain.RunRequest{PaneID: r.pane, Command: "true"})
	var refusal *fault.RefusalError
	if !errors.As(err, &refusal) || refusal.Why != fault.RefusedInMode {
		t.Fatalf("run in copy mode: %v; want a refusal for the mode", err)
	}
	if _, err := r.svc.SendKeys(itContext(t), domain.SendKeysRequest{PaneID: r.pane, Keys: "q"}); err != nil {
		t.Fatalf("send_keys q in copy mode: %v", err)
	}
	eventually(t, 5*time.Second, "the pane to leave copy mode", func() bool {
		return r.srv.tmux(t, "display-message", "-p", "-t", string(r.pane), "#{pane_in_mode}") == "0"
	})
	freeAfter(t, r, "copy mode")
}

func testNUL(t *testing.T, r *rig) {
	_, err := r.svc.RunShellCommand(itContext(t), domain.RunRequest{PaneID: r.pane, Command: "echo refused-nul\x00b"})
	if !errors.Is(err, fault.ErrInvalidArgument) {
		t.Fatalf("a command with a NUL: %v; want an invalid argument", err)
	}
	// What reaches a pane reaches it in order: once a line typed after the
	// refusal has run, anything the refusal typed has reached the shell
	// too, and shows, before that line or run together with it.
	// (Its output is in capitals, which the typed line is not.)
	r.srv.tmux(t, "send-keys", "-t", string(r.pane), "-l", "echo after-nul | tr a-z A-Z")
	r.srv.tmux(t, "send-keys", "-t", string(r.pane), "Enter")
	var seen string
	eventually(t, 10*time.Second, "the line typed after the refusal to run", func() bool {
		seen = r.srv.tmux(t, "capture-pane", "-p", "-S", "-", "-t", string(r.pane))
		return strings.Contains(seen, "AFTER-NUL")
	})
	if strings.Contains(strings.ToLower(seen), "refused-nul") {
		t.Errorf("the refused command reached the pane:\n%s", seen)
	}
}

// A shell whose rc file takes a while (as a stalled "pyenv init" does)
// is waited for: nothing is typed before its prompt.
func TestTmuxWaitsForASlowShellBeforeTyping(t *testing.T) {
	needTmux(t)
	needShell(t, bash)
	srv, _ := newTmuxServer(t, bash)
	rc := filepath.Join(srv.home, "slowrc")
	if err := os.WriteFile(rc, []byte("x=$(sleep 1.5)\nPS1='$ '\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	term := srv.terminal(t, tmux.Options{})
	svc := service(t, term)
	p := ports.PaneID(srv.tmux(t, "new-session", "-d", "-s", "slow", "-x", "120", "-y", "40", "-c", srv.home,
		"-P", "-F", "#{pane_id}", "--", "bash", "--noprofile", "--rcfile", rc, "-i"))
	svc.ExpectStartingShell(p)
	res, err := svc.RunShellCommand(itContext(t), domain.RunRequest{PaneID: p, Command: "echo ready", TimeoutMs: 20_000})
	if err != nil {
		t.Fatal(err)
	}
	wantCompleted(t, res, "ready", 0)
	// Typed before the prompt, the line would show before it (the tty's
	// echo) and again after it (readline's).
	screen := srv.screen(t, p)
	first, _, _ := strings.Cut(strings.TrimLeft(screen, "\n"), "\n")
	if !strings.HasPrefix(first, "$ ") || strings.Count(screen, "echo ready") != 1 {
		t.Errorf("screen:\n%s\nwant the prompt first and the typed line once", screen)
	}
}

// Close gives back the cross-process lease of a command that outlived
// its call: another server may write to the pane at once.
func TestTmuxCloseReleasesTheLeaseOfAnAbandonedCommand(t *testing.T) {
	needTmux(t)
	needShell(t, bash)
	srv, p := newTmuxServer(t, bash)
	term := srv.terminal(t, tmux.Options{})
	clk := clock.New()
	pool := writers.NewPool(writers.NewLeases(term, clk, "server-a", time.Minute))
	t.Cleanup(pool.Close)
	svc := domain.NewService(term, clk, random.New(), domain.DefaultConfig(), domain.WithWriters(pool))
	res, err := svc.RunShellCommand(itContext(t), domain.RunRequest{PaneID: p, Command: "sleep 30", TimeoutMs: 300})
	if err != nil || !res.StillRunning {
		t.Fatalf("run = %+v, %v; want a timed-out command still running", res, err)
	}
	if owner := srv.tmux(t, "show-options", "-p", "-q", "-v", "-t", string(p), tmux.LeaseOwnerOption); owner != "server-a" {
		t.Fatalf("lease owner while the command runs = %q", owner)
	}
	if err := svc.Close(); err != nil {
		t.Fatal(err)
	}
	if owner := srv.tmux(t, "show-options", "-p", "-q", "-v", "-t", string(p), tmux.LeaseOwnerOption); owner != "" {
		t.Errorf("lease owner after Close = %q, want none", owner)
	}
}
