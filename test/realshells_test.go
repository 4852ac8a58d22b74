package test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/tmux"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/domain/fault"
)

// run_shell_command and what a shell really is in real tmux panes under
// every shell: the program that runs in front, whatever its name.

func TestTmuxRealShells(t *testing.T) {
	needTmux(t)
	for _, sh := range shells {
		t.Run(sh.name, func(t *testing.T) {
			t.Parallel()
			needShell(t, sh)
			for _, c := range []struct {
				name string
				test func(t *testing.T, r *rig)
			}{
				{"a REPL started under the shell's name is not typed into", testProgramNamedLikeTheShell},
			} {
				t.Run(c.name, func(t *testing.T) {
					t.Parallel()
					c.test(t, newRig(t, sh))
				})
			}
		})
	}
}

// testProgramNamedLikeTheShell starts, in front of the pane's terminal, a
// Python REPL whose argv[0] is the shell's name, as `exec -a bash python3
// -i -q` does (perl names it so from every shell; as a job of the shell,
// the REPL leads its own process group, as after an exec at a person's
// prompt): tmux names the pane's program after argv[0], and only the
// executable tells.
func testProgramNamedLikeTheShell(t *testing.T, r *rig) {
	python, err := filepath.EvalSymlinks("/usr/bin/python3")
	if err != nil {
		t.Skip("no /usr/bin/python3")
	}
	if _, err := os.Stat("/proc/self/exe"); err != nil {
		t.Skip("no /proc to read what runs from")
	}
	r.srv.tmux(t, "send-keys", "-t", string(r.pane), "-l",
		`perl -e 'exec {"/usr/bin/python3"} "`+r.sh.name+`", "-i", "-q"'`)
	r.srv.tmux(t, "send-keys", "-t", string(r.pane), "Enter")
	eventually(t, 10*time.Second, "the REPL's prompt", func() bool { return strings.HasSuffix(r.srv.screen(t, r.pane), ">>>") })
	if got := r.srv.tmux(t, "display-message", "-p", "-t", string(r.pane), "#{pane_current_command}"); got != r.sh.name {
		out, _ := exec.Command("ps", "-o", "pid,pgid,tpgid,comm,args", "-t", r.srv.tmux(t, "display-message", "-p", "-t", string(r.pane), "#{pane_tty}")).CombinedOutput()
		t.Fatalf("tmux names the REPL %q; the test needs it named %q\n%s\n%s", got, r.sh.name, out, r.srv.screen(t, r.pane))
	}
	term := r.srv.terminal(t, tmux.Options{})
	info, err := term.Pane(itContext(t), r.pane)
	if err != nil || info.Program != filepath.Base(python) || info.Command != r.sh.name {
		t.Errorf("Pane = %+v, %v; want the program %s named %s", info, err, filepath.Base(python), r.sh.name)
	}
	_, err = r.svc.RunShellCommand(itContext(t), domain.RunRequest{PaneID: r.pane, Command: "print('typed')", TimeoutMs: 5000})
	var refusal *fault.RefusalError
	if !errors.As(err, &refusal) || refusal.Why != fault.RefusedNotAShell || !strings.Contains(err.Error(), filepath.Base(python)) {
		t.Fatalf("run_shell_command into the REPL named %s: %v; want a not-a-shell refusal naming %s", r.sh.name, err, filepath.Base(python))
	}
	// What reaches the REPL after the refusal shows after anything the
	// refused call typed.
	r.srv.tmux(t, "send-keys", "-t", string(r.pane), "-l", "print('probe', 6*7)")
	r.srv.tmux(t, "send-keys", "-t", string(r.pane), "Enter")
	eventually(t, 10*time.Second, "the REPL to answer the probe", func() bool { return strings.Contains(r.srv.screen(t, r.pane), "probe 42") })
	if screen := r.srv.screen(t, r.pane); strings.Contains(screen, "typed") || strings.Contains(screen, "tmcp") {
		t.Errorf("the refused call typed into the REPL:\n%s", screen)
	}
}
