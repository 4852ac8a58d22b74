package test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The toolkit of issue 11 through the built binary on real tmux:
// wait_for_command finishing a command that outlived its call, the
// prompts and completion, MCP logging and the tool allowlist. Nothing
// here waits on a clock to make something happen: a command that must
// outlive its call waits for a file the test creates.

// heldCommand is a command started in a pane whose run_shell_command call
// was cancelled once it had started: it runs on, holding the pane, until
// release creates the file it waits for.
type heldCommand struct {
	pane    string
	release func()
}

// holdCommand starts, through b, a command in pane that prints
// tmcp-started-<n>, waits for a file, then prints done and exits with
// status 5; it cancels the call once the pane shows the command started.
func holdCommand(t *testing.T, b *binServer, pane string) heldCommand {
	t.Helper()
	gate := filepath.Join(t.TempDir(), "go")
	command := fmt.Sprintf("printf 'tmcp-%%s\\n' started-42; while [ ! -e %s ]; do sleep 0.1; done; echo done; exit 5", gate)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	returned := make(chan error, 1)
	go func() {
		_, err := b.cs.CallTool(ctx, &sdk.CallToolParams{Name: "run_shell_command",
			Arguments: map[string]any{"paneId": pane, "command": command, "timeoutMs": 120000}})
		returned <- err
	}()
	eventually(t, 30*time.Second, "the command to start", func() bool {
		var capture captureOutput
		decode(t, b.call(t, "capture_pane", map[string]any{"paneId": pane}), captureFields, &capture)
		return strings.Contains(capture.Text, "tmcp-started-42")
	})
	// The client gives up at once; the server answers the cancelled call
	// a moment later, and only then counts it as returned (which the
	// advice of a busy refusal depends on).
	answer := func(text string) bool {
		return strings.Contains(text, `\"outcome\":\"cancelled\"`) && strings.Contains(text, "wait_for_command with paneId "+pane)
	}
	answered := func() int {
		n := 0
		for _, line := range b.stdout.snapshot() {
			if answer(line.text) {
				n++
			}
		}
		return n
	}
	before := answered()
	cancel()
	if err := <-returned; !errors.Is(err, context.Canceled) {
		t.Fatalf("the cancelled run_shell_command returned %v, want context.Canceled", err)
	}
	eventually(t, 10*time.Second, "the server's answer to the cancelled call", func() bool { return answered() > before })
	return heldCommand{pane: pane, release: func() {
		if err := os.WriteFile(gate, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}}
}

// A command that outlives its run_shell_command call is finished by
// wait_for_command: a wait that runs out says it still runs, and the one
// after the command ended returns its exit status and its whole output;
// then nothing of ours runs there, which is a tool error saying so.
func TestBinaryWaitForCommandFinishesACommandThatOutlivedItsCall(t *testing.T) {
	t.Parallel()
	srv, p := newTmuxServer(t, bash)
	b := startBinary(t, nil, "-socket-name", srv.sock)
	pane := string(p)
	held := holdCommand(t, b, pane)

	// The cancelled call's own answer named wait_for_command.
	b.stdout.await(t, 10*time.Second, "the cancelled call's answer", func(text string) bool {
		return strings.Contains(text, `\"outcome\":\"cancelled\"`) && strings.Contains(text, "wait_for_command with paneId "+pane)
	})

	run := decodeRun(t, b.call(t, "wait_for_command", map[string]any{"paneId": pane, "timeoutMs": 200}))
	checkRun(t, run, runOutput{Outcome: "timed_out", StillRunning: true, Output: "tmcp-started-42", ReturnedBytes: 15,
		OutputComplete: true, PaneID: pane, EffectiveTimeoutMs: 200})
	if msg := errorText(t, b.call(t, "paste_text", map[string]any{"paneId": pane, "text": "x"})); !strings.Contains(msg, "busy") {
		t.Errorf("paste_text while the command runs: %q, want busy", msg)
	}

	held.release()
	run = decodeRun(t, b.call(t, "wait_for_command", map[string]any{"paneId": pane, "timeoutMs": 25000}))
	checkRun(t, run, runOutput{Outcome: "completed", ExitStatus: status(5), Output: "tmcp-started-42\ndone", ReturnedBytes: 20,
		OutputComplete: true, PaneID: pane, EffectiveTimeoutMs: 25000})

	msg := errorText(t, b.call(t, "wait_for_command", map[string]any{"paneId": pane}))
	if !strings.Contains(msg, "no command of this server runs in the pane") || !strings.Contains(msg, "run_shell_command") {
		t.Errorf("wait_for_command after the end was returned: %q, want a tool error naming run_shell_command", msg)
	}
	// The pane is free again.
	run = decodeRun(t, b.call(t, "run_shell_command", map[string]any{"paneId": pane, "command": "echo free"}))
	if run.Outcome != "completed" || run.Output != "free" {
		t.Errorf("run_shell_command after the end = %+v", run)
	}
}

// A client that sets a log level hears what the server writes to stderr:
// here the lease another tmux-mcp process holds, refused to a paste, with
// the very line stderr has.
func TestBinarySendsTheLeaseRefusedToAClientThatAsks(t *testing.T) {
	t.Parallel()
	srv, p := newTmuxServer(t, bash)
	pane := string(p)
	holder := startBinary(t, nil, "-socket-name", srv.sock)
	held := holdCommand(t, holder, pane)
	defer held.release()

	var (
		mu sync.Mutex
		//lint:ignore SA1019 MCP logging is deprecated from protocol 2026-07-28, not removed: see adapters/mcp/logging.go
		heard []*sdk.LoggingMessageParams
	)
	//lint:ignore SA1019 MCP logging is deprecated from protocol 2026-07-28, not removed: see adapters/mcp/logging.go
	other := startBinary(t, &sdk.ClientOptions{LoggingMessageHandler: func(_ context.Context, req *sdk.LoggingMessageRequest) {
		mu.Lock()
		heard = append(heard, req.Params)
		mu.Unlock()
	}}, "-socket-name", srv.sock)
	//lint:ignore SA1019 MCP logging is deprecated from protocol 2026-07-28, not removed: see adapters/mcp/logging.go
	if err := other.cs.SetLoggingLevel(context.Background(), &sdk.SetLoggingLevelParams{Level: "warning"}); err != nil {
		t.Fatal(err)
	}
	if msg := errorText(t, other.call(t, "paste_text", map[string]any{"paneId": pane, "text": "x"})); !strings.Contains(msg, "busy") {
		t.Fatalf("paste_text into a pane another process holds: %q, want busy", msg)
	}
	//lint:ignore SA1019 MCP logging is deprecated from protocol 2026-07-28, not removed: see adapters/mcp/logging.go
	var line *sdk.LoggingMessageParams
	eventually(t, 20*time.Second, "the lease-refused notification", func() bool {
		mu.Lock()
		defer mu.Unlock()
		for _, l := range heard {
			if strings.Contains(fmt.Sprint(l.Data), "lease-refused") {
				line = l
				return true
			}
		}
		return false
	})
	text := fmt.Sprint(line.Data)
	if line.Level != "warning" || line.Logger != "tmux-mcp" || !strings.Contains(text, "leased by another tmux-mcp process") {
		t.Errorf("notification %s from %q: %q", line.Level, line.Logger, text)
	}
	// The binary's stderr reaches the test through a pipe, copied by a
	// goroutine of its own: the line may come after the notification.
	eventually(t, 10*time.Second, fmt.Sprintf("the line the client heard, %q, in the server's stderr", text), func() bool {
		return strings.Contains(other.stderr.String(), text+"\n")
	})
	mu.Lock()
	defer mu.Unlock()
	for _, l := range heard {
		if l.Level == "info" || l.Level == "debug" {
			t.Errorf("a client at the warning level heard an %s line: %v", l.Level, l.Data)
		}
	}
}

// The prompts are listed and written for the pane asked about, and their
// pane arguments and the pane resources' {id} complete to the live panes.
func TestBinaryServesPromptsAndCompletesTheirArguments(t *testing.T) {
	t.Parallel()
	srv, p := newTmuxServer(t, bash)
	b := startBinary(t, nil, "-socket-name", srv.sock)
	pane := string(p)
	ctx := context.Background()

	list, err := b.cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, pr := range list.Prompts {
		names = append(names, pr.Name)
	}
	if want := []string{"answer_input", "diagnose_pane", "interrupt_program", "run_and_check", "survey_panes", "watch_pane"}; !slices.Equal(names, want) {
		t.Errorf("prompts/list = %v, want %v", names, want)
	}
	got, err := b.cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "diagnose_pane", Arguments: map[string]string{"paneId": pane}})
	if err != nil {
		t.Fatal(err)
	}
	text := got.Messages[0].Content.(*sdk.TextContent).Text
	for _, want := range []string{`get_pane_info {"paneId": "` + pane + `"}`, `capture_pane {"paneId": "` + pane + `", "start": -200}`} {
		if !strings.Contains(text, want) {
			t.Errorf("diagnose_pane lacks %q:\n%s", want, text)
		}
	}

	complete := func(ref *sdk.CompleteReference, arg, value string) []string {
		t.Helper()
		res, err := b.cs.Complete(ctx, &sdk.CompleteParams{Ref: ref, Argument: sdk.CompleteParamsArgument{Name: arg, Value: value}})
		if err != nil {
			t.Fatalf("completion/complete %s: %v", arg, err)
		}
		return res.Completion.Values
	}
	if v := complete(&sdk.CompleteReference{Type: "ref/prompt", Name: "interrupt_program"}, "paneId", "%"); !slices.Contains(v, pane) {
		t.Errorf("paneId completes to %v, want %s among them", v, pane)
	}
	if v := complete(&sdk.CompleteReference{Type: "ref/resource", URI: "tmux://panes/{id}/content"}, "id", ""); !slices.Contains(v, strings.TrimPrefix(pane, "%")) {
		t.Errorf("the content resource's id completes to %v, want %s among them", v, strings.TrimPrefix(pane, "%"))
	}
	sessionID := strings.TrimSpace(srv.tmux(t, "display-message", "-p", "-t", pane, "#{session_id}"))
	if v := complete(&sdk.CompleteReference{Type: "ref/prompt", Name: "survey_panes"}, "session", ""); !slices.Contains(v, sessionID) || !slices.Contains(v, "s") {
		t.Errorf("session completes to %v, want %s and s among them", v, sessionID)
	}
}

// -tools narrows what the binary offers to the tools it names, and a name
// that is no tool stops it before it serves, with status 2.
func TestBinaryOffersOnlyTheToolsOfItsAllowlist(t *testing.T) {
	t.Parallel()
	srv, p := newTmuxServer(t, bash)
	b := startBinary(t, nil, "-socket-name", srv.sock, "-tools", "run_shell_command,wait_for_command,capture_pane")
	list, err := b.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	if want := []string{"capture_pane", "run_shell_command", "wait_for_command"}; !slices.Equal(names, want) {
		t.Errorf("tools/list = %v, want %v", names, want)
	}
	if _, err := b.cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "paste_text",
		Arguments: map[string]any{"paneId": string(p), "text": "x"}}); err == nil || !strings.Contains(err.Error(), "unknown tool") {
		t.Errorf("paste_text, outside the allowlist: %v, want an unknown tool", err)
	}
	run := decodeRun(t, b.call(t, "run_shell_command", map[string]any{"paneId": string(p), "command": "echo allowed"}))
	if run.Output != "allowed" {
		t.Errorf("run_shell_command = %+v", run)
	}

	cmd := exec.Command(serverBinary(t), "-socket-name", srv.sock, "-tools", "capture_pane,rm_rf")
	cmd.Env = cleanEnv(os.Environ())
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(string(out), `"rm_rf" is not a tool of this server`) {
		t.Errorf("-tools with an unknown tool: %v, output %q; want status 2 naming it", err, out)
	}
}
