package test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/adapters/screen"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/domain/input"
	"github.com/tmux-mcp/tmux-mcp/test/gate"
)

// Commands that ask for input, on real tmux: each is seen blocked reading
// the pane's terminal, told apart by kind, answered through its own
// reservation, and followed to its end; and commands that read what the
// server typed for them (a heredoc, a pipe) are not taken for asking.

// ask runs command in a fresh bash pane, awaiting input, and returns the
// rig and the result, which must say awaiting_input of kind.
func ask(t *testing.T, sh shellSpec, command string, kind input.Kind, prompt string) (*rig, domain.RunResult) {
	t.Helper()
	r := newRig(t, sh)
	start := time.Now()
	res := r.run(t, domain.RunRequest{Command: command, AwaitInput: true, Caller: "agent"})
	if res.Outcome != domain.OutcomeAwaitingInput || !res.StillRunning || res.Input == nil {
		t.Fatalf("%s: %+v; want awaiting_input, still running", command, res)
	}
	if res.Input.Kind != kind || !strings.Contains(res.Input.Prompt, prompt) {
		t.Errorf("%s: input = %+v; want %s, prompt holding %q", command, *res.Input, kind, prompt)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("%s: awaiting_input came after %v", command, took)
	}
	return r, res
}

// answer pastes text (Enter after it) as the caller that ran the command,
// and waits for the end.
func (r *rig) answer(t *testing.T, text string) domain.RunResult {
	t.Helper()
	if _, err := r.svc.PasteText(itContext(t), domain.PasteRequest{PaneID: r.pane, Text: text, Enter: true, Caller: "agent"}); err != nil {
		t.Fatalf("the answer: %v", err)
	}
	return r.waitEnd(t)
}

// keys presses keys as the caller that ran the command, and waits for the
// end.
func (r *rig) keys(t *testing.T, keys string) domain.RunResult {
	t.Helper()
	if _, err := r.svc.SendKeys(itContext(t), domain.SendKeysRequest{PaneID: r.pane, Keys: keys, Caller: "agent"}); err != nil {
		t.Fatalf("the keys %q: %v", keys, err)
	}
	return r.waitEnd(t)
}

func (r *rig) waitEnd(t *testing.T) domain.RunResult {
	t.Helper()
	res, err := r.svc.WaitForCommand(itContext(t), domain.WaitCommandRequest{PaneID: r.pane, TimeoutMs: 20_000, AwaitInput: true})
	if err != nil {
		t.Fatalf("wait_for_command: %v", err)
	}
	return res
}

func TestTmuxAwaitingInput(t *testing.T) {
	needTmux(t)
	t.Run("read -s", func(t *testing.T) {
		t.Parallel()
		// Each shell's way to read a secret: zsh's subshell keeps the
		// terminal, dash and mksh have no read -s (stty turns echo
		// off), fish reads with its own line editor.
		for _, sh := range shells {
			t.Run(sh.name, func(t *testing.T) {
				needShell(t, sh)
				read := `read -s -p 'Password: ' pw; echo`
				switch sh.name {
				case "zsh":
					read = `read -s 'pw?Password: '; echo`
				case "dash", "mksh":
					read = `printf 'Password: '; stty -echo; read pw; stty echo; echo`
				case "fish":
					read = `read -s -P 'Password: ' pw`
				}
				r, _ := ask(t, sh, read+`; echo "got [$pw]"`, input.Secret, "Password:")
				// Another session may not answer; nothing reaches the read.
				if _, err := r.svc.PasteText(itContext(t), domain.PasteRequest{PaneID: r.pane, Text: "guess", Enter: true, Caller: "other"}); err == nil {
					t.Fatal("another caller's paste went through")
				}
				end := r.answer(t, "hunter2")
				if end.Outcome != domain.OutcomeCompleted || exitOf(end) != "0" || !strings.HasSuffix(end.Output, "got [hunter2]") ||
					strings.Count(end.Output, "hunter2") != 1 {
					t.Errorf("end = %+v; want completed, the answer read and never echoed", end)
				}
			})
		}
	})
	t.Run("read -p with a y/N question", func(t *testing.T) {
		t.Parallel()
		r, _ := ask(t, bash, `read -p 'Continue? [y/N] ' x; echo "x=$x"`, input.Confirm, "Continue? [y/N]")
		if end := r.keys(t, "y Enter"); end.Outcome != domain.OutcomeCompleted || !strings.HasSuffix(end.Output, "x=y") {
			t.Errorf("end = %+v", end)
		}
	})
	t.Run("python3 input()", func(t *testing.T) {
		t.Parallel()
		gate.Need(t, "python3")
		r, _ := ask(t, bash, `python3 -c 'print("hello, " + input("Name: "))'`, input.Line, "Name:")
		if end := r.answer(t, "Ada"); end.Outcome != domain.OutcomeCompleted || exitOf(end) != "0" || !strings.HasSuffix(end.Output, "hello, Ada") {
			t.Errorf("end = %+v", end)
		}
	})
	t.Run("less on a file", func(t *testing.T) {
		t.Parallel()
		gate.Need(t, "less")
		file := filepath.Join(t.TempDir(), "notes.txt")
		writeLines(t, file, 200)
		r, _ := ask(t, bash, "less '"+file+"'", input.Pager, "")
		if end := r.keys(t, "q"); end.Outcome != domain.OutcomeCompleted || exitOf(end) != "0" {
			t.Errorf("end = %+v", end)
		}
	})
	t.Run("vi -u NONE", func(t *testing.T) {
		t.Parallel()
		gate.Need(t, "vi")
		r, _ := ask(t, bash, "vi -u NONE '"+filepath.Join(t.TempDir(), "new.txt")+"'", input.Editor, "")
		if end := r.keys(t, "Escape : q ! Enter"); end.Outcome != domain.OutcomeCompleted || exitOf(end) != "0" {
			t.Errorf("end = %+v", end)
		}
	})
	t.Run("ssh-keygen asks for a key's passphrase", func(t *testing.T) {
		t.Parallel()
		keygen := gate.Need(t, "ssh-keygen")
		key := filepath.Join(t.TempDir(), "id")
		if out, err := exec.Command(keygen, "-q", "-t", "ed25519", "-N", "open sesame", "-C", "", "-f", key).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v: %s", err, out)
		}
		r, _ := ask(t, bash, "ssh-keygen -y -f '"+key+"'", input.Secret, "passphrase")
		if end := r.answer(t, "open sesame"); end.Outcome != domain.OutcomeCompleted || exitOf(end) != "0" || !strings.Contains(end.Output, "ssh-ed25519 AAAA") {
			t.Errorf("end = %+v; want the public key", end)
		}
	})
	t.Run("sudo asks a user for a password", func(t *testing.T) {
		t.Parallel()
		gate.Need(t, "sudo")
		if os.Geteuid() != 0 {
			t.Skip("needs root, to be another user whose sudo asks (nobody)")
		}
		r, _ := ask(t, bash, "sudo -u nobody sudo -k; sudo -u nobody sudo true", input.Secret, "[sudo] password for nobody")
		// The secret is the person's to type; interrupting is the agent's.
		if _, err := r.svc.SendKeys(itContext(t), domain.SendKeysRequest{PaneID: r.pane, Keys: "C-c", Caller: "other"}); err != nil {
			t.Fatalf("C-c for a command whose call returned: %v", err)
		}
		if end := r.waitEnd(t); end.Outcome != domain.OutcomeCompleted || exitOf(end) == "0" {
			t.Errorf("end = %+v; want completed, a failure", end)
		}
	})
	t.Run("what the server typed is no question", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, bash)
		for _, c := range []struct{ command, output string }{
			{"cat <<'EOF'\nhello\nEOF\nsleep 1.5", "hello"},
			{"sleep 1.5 | cat; echo piped", "piped"},
			{"echo a | (sleep 1.5; cat)", "a"},
			{"sleep 1.5; echo slept", "slept"},
		} {
			res := r.run(t, domain.RunRequest{Command: c.command, AwaitInput: true})
			wantCompleted(t, res, c.output, 0)
			r.settle(t, r.pane)
		}
	})
	t.Run("awaitInput false waits to the deadline", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, bash)
		res := r.run(t, domain.RunRequest{Command: "read -p 'Name: ' x", TimeoutMs: 2000})
		if res.Outcome != domain.OutcomeTimedOut || !res.StillRunning {
			t.Fatalf("%+v; want timed_out", res)
		}
		ctx, cancel := context.WithTimeout(itContext(t), 20*time.Second)
		defer cancel()
		got, err := r.svc.WaitForCommand(ctx, domain.WaitCommandRequest{PaneID: r.pane, AwaitInput: true})
		if err != nil || got.Outcome != domain.OutcomeAwaitingInput || got.Input == nil || got.Input.Kind != input.Line {
			t.Fatalf("wait = %+v, %v; want awaiting_input, line", got, err)
		}
	})
}

func exitOf(res domain.RunResult) string {
	if res.ExitStatus == nil {
		return "null"
	}
	return strconv.Itoa(*res.ExitStatus)
}

func itoa(n int) string { return strconv.Itoa(n) }

func writeLines(t *testing.T, path string, n int) {
	t.Helper()
	var b strings.Builder
	for i := range n {
		b.WriteString("line " + itoa(i) + "\n")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Through the built binary over stdio: a password prompt ends the call as
// awaiting_input with a secret's notice that names how the person
// attaches, the session's own paste answers it, and wait_for_command
// returns the end.
func TestBinaryAnswersACommandAwaitingInput(t *testing.T) {
	t.Parallel()
	srv, p := newTmuxServer(t, bash)
	b := startBinary(t, nil, "-socket-name", srv.sock)
	pane := string(p)
	res := b.call(t, "run_shell_command", map[string]any{"paneId": pane, "command": `read -s -p 'Password: ' pw; echo; echo "len ${#pw}"`,
		"timeoutMs": 20000})
	run := decodeRun(t, res)
	if run.Outcome != "awaiting_input" || !run.StillRunning || run.Input == nil || run.Input.Kind != "secret" || run.Input.Prompt != "Password:" {
		t.Fatalf("run = %+v; want awaiting_input, a secret, prompt Password:", run)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	for _, want := range []string{"Do not guess", "ask the person", "-L " + srv.sock, "pane " + pane} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the text does not say %q:\n%s", want, text.String())
		}
	}
	if r := b.call(t, "paste_text", map[string]any{"paneId": pane, "text": "s3cret", "enter": true}); r.IsError {
		t.Fatalf("the session's own answer was refused: %+v", r.Content)
	}
	end := decodeRun(t, b.call(t, "wait_for_command", map[string]any{"paneId": pane, "timeoutMs": 20000}))
	if end.Outcome != "completed" || end.ExitStatus == nil || *end.ExitStatus != 0 || !strings.HasSuffix(end.Output, "len 6") ||
		strings.Contains(end.Output, "s3cret") {
		t.Errorf("end = %+v; want completed, the secret read, never shown", end)
	}
}

// On GNU screen, through the binary: a y/N question is seen and answered,
// as on tmux.
func TestBinaryOnScreenAnswersACommandAwaitingInput(t *testing.T) {
	gate.Real(t, "GNU screen and the built binary")
	gate.Need(t, "screen")
	t.Parallel()
	session, stop, err := screen.StartPrivate(screen.Options{})
	if err != nil {
		t.Fatalf("start a screen session: %v", err)
	}
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Errorf("stop the screen session: %v", err)
		}
	})
	b := startBinary(t, nil, "-backend", "screen", "-screen-session", session, "-screen-no-copy-mode")
	const pane = "%0"
	run := decodeRun(t, b.call(t, "run_shell_command", map[string]any{"paneId": pane, "command": `printf 'Continue? [y/N] '; read x; echo "x=$x"`,
		"timeoutMs": 20000}))
	if run.Outcome != "awaiting_input" || !run.StillRunning || run.Input == nil || run.Input.Kind != "confirm" || run.Input.Prompt != "Continue? [y/N]" {
		t.Fatalf("run = %+v (input %+v); want awaiting_input, confirm", run, run.Input)
	}
	if r := b.call(t, "send_keys", map[string]any{"paneId": pane, "keys": "y"}); r.IsError {
		t.Fatalf("the session's own answer was refused: %+v", r.Content)
	}
	end := decodeRun(t, b.call(t, "wait_for_command", map[string]any{"paneId": pane, "timeoutMs": 20000}))
	if end.Outcome != "completed" || end.ExitStatus == nil || *end.ExitStatus != 0 || !strings.HasSuffix(end.Output, "x=y") {
		t.Errorf("end = %+v; want completed, x=y", end)
	}
}
