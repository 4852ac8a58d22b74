package test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/tmux"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/test/gate"
)

// run_shell_command against another process of the same user that tries
// to forge a command's end (test/testdata/forger): it learns the frame's
// secret from the real end marker, or from the script before the shell
// empties it, then prints a false end marker and writes a false status
// into the script's file. No result may then say a status the command did
// not have, nor may the pane stay busy.

// buildForger builds the adversary once per test binary.
func buildForger(t *testing.T) string {
	t.Helper()
	gate.Real(t, "the Go toolchain, to build the forger")
	forgerOnce.Do(func() {
		dir, err := os.MkdirTemp("", "tmcp-forger-")
		if err != nil {
			forgerErr = err
			return
		}
		forgerBin = filepath.Join(dir, "forger")
		out, err := exec.Command("go", "build", "-o", forgerBin, "./testdata/forger").CombinedOutput()
		if err != nil {
			forgerErr = errors.New(string(out))
		}
	})
	if forgerErr != nil {
		t.Fatalf("build the forger: %v", forgerErr)
	}
	return forgerBin
}

// slowPrompts make the shell run a program for 0.3 s before each prompt,
// as a git prompt on a large repository does.
var slowPrompts = map[string]string{
	"bash": "PROMPT_COMMAND='sleep 0.3'",
	"zsh":  "precmd() { sleep 0.3; }",
	"fish": "function fish_prompt; sleep 0.3; echo -n '$ '; end",
}

// The real end marker comes while the prompt's program runs; the forger,
// reading the pane's output, prints the same marker with status 0 50 ms
// later and writes 0 into the script's file. The first end stands.
func TestTmuxAForgedEndAfterTheRealOneChangesNothing(t *testing.T) {
	forger := buildForger(t)
	for _, sh := range shells {
		prompt, ok := slowPrompts[sh.name]
		if !ok {
			continue
		}
		t.Run(sh.name, func(t *testing.T) {
			t.Parallel()
			srv, pane := newTmuxServer(t, sh)
			scripts := t.TempDir()
			svc := service(t, srv.terminal(t, tmux.Options{ScriptDir: scripts}))
			srv.tmux(t, "send-keys", "-t", string(pane), "-l", prompt)
			srv.tmux(t, "send-keys", "-t", string(pane), "Enter")
			time.Sleep(time.Second) // the setting and its first slow prompt
			srv.waitCommand(t, pane, sh.name)
			tty := srv.tmux(t, "display-message", "-p", "-t", string(pane), "#{pane_tty}")
			srv.tmux(t, "pipe-pane", "-o", "-t", string(pane), forger+" stream '"+scripts+"' '"+tty+"'")
			for i := range 3 {
				res, err := svc.RunShellCommand(itContext(t), domain.RunRequest{PaneID: pane, Command: "echo hello; exit 3", TimeoutMs: 20_000})
				if err != nil {
					t.Fatalf("run %d: %v", i, err)
				}
				if res.Outcome != domain.OutcomeCompleted || deref(res.ExitStatus) != 3 || res.Output != "hello" || res.Unverified {
					t.Fatalf("run %d: %+v; want completed 3, as the command ended", i, res)
				}
				// The forged marker and the prompt's end pass; the pane takes
				// the next command.
				time.Sleep(400 * time.Millisecond)
				srv.waitCommand(t, pane, sh.name)
			}
		})
	}
}

// The forger, as root, watches the script directory and reads every
// script the moment it appears, racing the pane's shell. Whenever it
// learns a frame's secret, the server's witness has seen it: a script read
// before the line was typed is never typed (the call is refused), one read
// after leaves the end unverified. A script the shell emptied first taught
// it nothing, and its run is exact. No result says the forged 0, and the
// pane stays free.
func TestTmuxAScriptReadByAnotherProcessIsNeverTrusted(t *testing.T) {
	forger := buildForger(t)
	if os.Geteuid() != 0 {
		t.Skip("only root can watch the script directory without changing it (see the next test)")
	}
	for _, sh := range shells {
		t.Run(sh.name, func(t *testing.T) {
			t.Parallel()
			srv, pane := newTmuxServer(t, sh)
			base := t.TempDir()
			svc := service(t, srv.terminal(t, tmux.Options{ScriptDir: base}))
			// The first run makes the directory, and proves the pane works.
			res, err := svc.RunShellCommand(itContext(t), domain.RunRequest{PaneID: pane, Command: "echo ready", TimeoutMs: 20_000})
			if err != nil || deref(res.ExitStatus) != 0 || res.Unverified {
				t.Fatalf("first run: %+v, %v", res, err)
			}
			dirs, _ := filepath.Glob(filepath.Join(base, "tmux-mcp-*"))
			if len(dirs) != 1 {
				t.Fatalf("script directories %q", dirs)
			}
			tty := srv.tmux(t, "display-message", "-p", "-t", string(pane), "#{pane_tty}")
			learnt := filepath.Join(t.TempDir(), "learnt")
			cmd := exec.Command(forger, "watch", dirs[0], tty)
			cmd.Env = append(os.Environ(), "FORGER_LOG="+learnt)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
			time.Sleep(100 * time.Millisecond) // its watch is in place
			var refused, unverified, exact int
			// Until the forger has won the race for a script at least
			// once (it mostly does), and three runs have been made.
			for i := 0; i < 60 && (i < 3 || refused+unverified == 0); i++ {
				srv.waitCommand(t, pane, sh.name)
				res, err := svc.RunShellCommand(itContext(t), domain.RunRequest{PaneID: pane, Command: "echo hello; exit 3", TimeoutMs: 20_000})
				var refusal *fault.RefusalError
				switch {
				case errors.As(err, &refusal) && refusal.Why == fault.RefusedExposed:
					refused++
					if got := srv.tmux(t, "capture-pane", "-p", "-t", string(pane)); strings.Contains(got, "echo hello") {
						t.Fatalf("run %d was refused, yet its line was typed:\n%s", i, got)
					}
				case err != nil:
					t.Fatalf("run %d: %v", i, err)
				case res.ExitStatus != nil && *res.ExitStatus != 3:
					t.Fatalf("run %d: %+v; the forged status was taken", i, res)
				case res.ExitStatus == nil && res.Unverified && !res.OutputComplete && res.ForeignOutputSuspected:
					unverified++
				case res.ExitStatus != nil && !res.Unverified && res.OutputComplete && res.Output == "hello":
					exact++
				default:
					t.Fatalf("run %d: %+v; want it refused, unverified or exact", i, res)
				}
				time.Sleep(100 * time.Millisecond) // the forger's marker
			}
			b, _ := os.ReadFile(learnt)
			n := strings.Count(string(b), "\n")
			t.Logf("%s: the forger learnt %d secrets; %d runs refused before typing, %d unverified, %d exact", sh.name, n, refused, unverified, exact)
			if refused+unverified < n {
				t.Errorf("the forger learnt %d secrets, but only %d runs were refused or unverified", n, refused+unverified)
			}
			if n == 0 {
				t.Errorf("the forger never learnt a secret: the test proved nothing")
			}
			cmd.Process.Kill()
			cmd.Wait()
			srv.waitCommand(t, pane, sh.name)
			res, err = svc.RunShellCommand(itContext(t), domain.RunRequest{PaneID: pane, Command: "echo after; exit 4", TimeoutMs: 20_000})
			if err != nil || res.Outcome != domain.OutcomeCompleted || deref(res.ExitStatus) != 4 || res.Unverified || res.Output != "after" {
				t.Fatalf("a run once the forger is gone: %+v, %v", res, err)
			}
		})
	}
}

// A process that is not root must give the script directory read
// permission before it can watch it; the witness sees the change, and the
// server moves on to a new directory that the watch does not reach: every
// result stays exact.
func TestTmuxAWatcherThatChangesTheDirectoryIsLeftBehind(t *testing.T) {
	forger := buildForger(t)
	sh := shells[0]
	srv, pane := newTmuxServer(t, sh)
	base := t.TempDir()
	svc := service(t, srv.terminal(t, tmux.Options{ScriptDir: base}))
	if res, err := svc.RunShellCommand(itContext(t), domain.RunRequest{PaneID: pane, Command: "echo ready", TimeoutMs: 20_000}); err != nil || deref(res.ExitStatus) != 0 {
		t.Fatalf("first run: %+v, %v", res, err)
	}
	dirs, _ := filepath.Glob(filepath.Join(base, "tmux-mcp-*"))
	if len(dirs) != 1 {
		t.Fatalf("script directories %q", dirs)
	}
	tty := srv.tmux(t, "display-message", "-p", "-t", string(pane), "#{pane_tty}")
	cmd := exec.Command(forger, "watch", dirs[0], tty)
	cmd.Env = append(os.Environ(), "FORGER_CHMOD=1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	time.Sleep(100 * time.Millisecond) // its watch is in place
	for i := range 3 {
		srv.waitCommand(t, pane, sh.name)
		res, err := svc.RunShellCommand(itContext(t), domain.RunRequest{PaneID: pane, Command: "echo hello; exit 3", TimeoutMs: 20_000})
		if err != nil || res.Outcome != domain.OutcomeCompleted || deref(res.ExitStatus) != 3 || res.Unverified || res.Output != "hello" {
			t.Fatalf("run %d: %+v, %v; want completed 3, exact", i, res, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if dirs, _ := filepath.Glob(filepath.Join(base, "tmux-mcp-*")); len(dirs) != 2 {
		t.Errorf("script directories %q; want the changed one and a new one", dirs)
	}
}

var (
	forgerOnce sync.Once
	forgerBin  string
	forgerErr  error
)
