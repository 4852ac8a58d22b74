package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmux-mcp/tmux-mcp/adapters/mcp/audit"
	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// adviceOf is what the client's text adds to an error's message, by kind:
// a phrase found in that kind's text and in no other's (for a refusal,
// the advice for a watched pane, which TestClientTextAndAuditKindAgree's
// refusal is). Unclassified errors get nothing added.
var adviceOf = map[errorKind]string{
	kindRefused:         "; choose a pane no attached client has on screen",
	kindBusy:            "; wait for that call to return",
	kindInvalidArgument: "; correct it and call again",
	kindServerClosing:   "; call again once the server is back",
	kindCancelled:       "the call was cancelled before it finished: ",
	kindDeadline:        "the call ran out of time before it finished: ",
	kindPaneNotFound:    "; check the pane id",
	kindNotFound:        "; check the id or name",
	kindNameInUse:       "; choose another name",
	kindNoCommand:       "; nothing that run_shell_command started there is still running",
	kindNoGroup:         "; no signal was sent",
	kindPaneDead:        "; its program has exited",
	kindNoAnswer:        "; the terminal multiplexer is running but did not answer in time",
	kindUnavailable:     "; check that the terminal multiplexer is installed",
	kindUnsupported:     "; this terminal backend cannot do that",
	kindUnknownKey:      "; use key names such as",
	kindInternal:        "",
}

// TestClientTextAndAuditKindAgree holds the client's text, the audit
// log's errorKind and the resource error to one classification, for each
// kind and for errors that wrap several kinds at once, where the first
// kind in classify's order wins.
func TestClientTextAndAuditKindAgree(t *testing.T) {
	refusal := &fault.RefusalError{Pane: "%1", Why: fault.RefusedWatched, Reason: "a person is watching it"}
	busy := &fault.BusyError{Pane: "%1", Holder: `run_shell_command "make"`}
	badArg := &fault.ArgumentError{Field: "timeoutMs", Reason: "is 0"}
	cases := []struct {
		name string
		err  error
		want errorKind
	}{
		{"refusal", refusal, kindRefused},
		{"wrapped busy pane", fmt.Errorf("run in pane %%1: %w", busy), kindBusy},
		{"bad argument", badArg, kindInvalidArgument},
		{"server closing", fmt.Errorf("run: %w", ErrServerClosing), kindServerClosing},
		{"cancelled", fmt.Errorf("capture pane %%3: %w", context.Canceled), kindCancelled},
		{"deadline", fmt.Errorf("run: %w", context.DeadlineExceeded), kindDeadline},
		{"pane not found", fmt.Errorf("describe pane %%9: %w", ports.ErrPaneNotFound), kindPaneNotFound},
		{"session not found", ports.ErrNotFound, kindNotFound},
		{"name in use", ports.ErrNameInUse, kindNameInUse},
		{"no command", fmt.Errorf("wait for the command in pane %%3: %w", fault.ErrNoCommand), kindNoCommand},
		{"no group", fmt.Errorf("signal the command in pane %%3: %w", ports.ErrNoGroup), kindNoGroup},
		{"pane dead", ports.ErrPaneDead, kindPaneDead},
		{"unavailable", ports.ErrUnavailable, kindUnavailable},
		{"no answer", fmt.Errorf("tmux list-panes: no answer within 30s: %w", ports.ErrNoAnswer), kindNoAnswer},
		{"unsupported", ports.ErrUnsupported, kindUnsupported},
		{"unknown key", fmt.Errorf("send keys: %w", ports.ErrUnknownKey), kindUnknownKey},
		{"anything else", errors.New("tmux exited with status 1"), kindInternal},

		{"refusal about a dead pane", fmt.Errorf("paste: %w", errors.Join(refusal, ports.ErrPaneDead)), kindRefused},
		{"busy pane and cancellation", errors.Join(context.Canceled, busy), kindBusy},
		{"bad key name", errors.Join(ports.ErrUnknownKey, badArg), kindInvalidArgument},
		{"shutdown cancels the call", fmt.Errorf("run: %w", errors.Join(context.Canceled, ErrServerClosing)), kindServerClosing},
		{"cancelled while the pane vanished", fmt.Errorf("capture pane %%3: %w", errors.Join(ports.ErrPaneNotFound, context.Canceled)), kindCancelled},
		{"deadline while the pane vanished", fmt.Errorf("%w: %w", ports.ErrPaneNotFound, context.DeadlineExceeded), kindDeadline},
		{"dead pane not found", errors.Join(ports.ErrPaneDead, ports.ErrPaneNotFound), kindPaneNotFound},
		{"window not found or name in use", errors.Join(ports.ErrNameInUse, ports.ErrNotFound), kindNotFound},
		{"unsupported on an unavailable backend", errors.Join(ports.ErrUnsupported, ports.ErrUnavailable), kindUnavailable},
		{"unknown key the backend cannot send", errors.Join(ports.ErrUnknownKey, ports.ErrUnsupported), kindUnsupported},
	}
	seen := map[errorKind]bool{}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			seen[c.want] = true
			if got := classify(c.err); got != c.want {
				t.Fatalf("classify = %s, want %s", got, c.want)
			}

			text := toolText(t, toolError(c.err))
			msg := c.err.Error()
			if advice := adviceOf[c.want]; advice == "" {
				if text != msg {
					t.Errorf("text %q, want the message alone, %q", text, msg)
				}
			} else if !strings.Contains(text, msg) || !strings.Contains(text, advice) {
				t.Errorf("text %q, want the message %q with the %s advice %q", text, msg, c.want, advice)
			}
			for k, advice := range adviceOf {
				if k != c.want && advice != "" && strings.Contains(text, advice) {
					t.Errorf("text %q gives the %s advice too", text, k)
				}
			}

			// The audit log names the same kind, whether the error came as
			// a tool error or as the call's error.
			if got := auditedKind(t, toolError(c.err), nil); got != string(c.want) {
				t.Errorf("audit errorKind of the tool error = %q, want %q", got, c.want)
			}
			if got := auditedKind(t, nil, c.err); got != string(c.want) {
				t.Errorf("audit errorKind of the call's error = %q, want %q", got, c.want)
			}

			const uri = "tmux://panes/3"
			got := resourceError(uri, c.err).Error()
			want := "read " + uri + ": " + text
			if c.want == kindPaneNotFound || c.want == kindNotFound {
				want = sdk.ResourceNotFoundError(uri).Error()
			}
			if got != want {
				t.Errorf("resource error %q, want %q", got, want)
			}
			// With a JSON-RPC code of its own: a plain error would go
			// out with code 0.
			var rpc *jsonrpc.Error
			if !errors.As(resourceError(uri, c.err), &rpc) || rpc.Code == 0 {
				t.Errorf("resource error %v has no JSON-RPC code", resourceError(uri, c.err))
			}
		})
	}
	for k := range adviceOf {
		if !seen[k] {
			t.Errorf("no case of kind %s", k)
		}
	}
}

// Every refusal the write policy can make comes with what to do about it,
// and a refused kill or clear with advice about ending, not writing.
func TestEveryRefusalSaysWhatToDo(t *testing.T) {
	for _, why := range []fault.Refusal{fault.RefusedUnknown, fault.RefusedDead, fault.RefusedWatched, fault.RefusedSelf,
		fault.RefusedSynchronized, fault.RefusedInMode, fault.RefusedNoCommand, fault.RefusedNotAShell, fault.RefusedShellStarting,
		fault.RefusedReading} {
		err := &fault.RefusalError{Pane: "%4", Why: why, Reason: "a reason"}
		if text := errorText(err); !strings.HasPrefix(text, err.Error()+"; ") || len(text) < len(err.Error())+10 {
			t.Errorf("refused (%s): %q, want the message and advice", why, text)
		}
	}
	for why, want := range map[fault.Refusal]string{
		fault.RefusedWatched: "leave panes that people have on screen alone; force does not override this",
		fault.RefusedSelf:    "pass force: true if you mean to",
		fault.RefusedUnknown: "end the pane by hand",
	} {
		err := &fault.RefusalError{Pane: "%4", Why: why, Ending: true, Reason: "kill_pane would end it, and a reason"}
		if text := errorText(err); !strings.HasSuffix(text, want) {
			t.Errorf("refused kill (%s): %q, want it to end with %q", why, text, want)
		}
	}
	inMode := errorText(&fault.RefusalError{Pane: "%4", Why: fault.RefusedInMode, Reason: "it is in copy-mode"})
	// send_keys presses Enter unless told not to, and the Enter would
	// reach the program (and run whatever is typed there) once q has left
	// the mode: the way out says enter: false.
	if !strings.Contains(inMode, "send_keys") || !strings.Contains(inMode, `"q"`) || !strings.Contains(inMode, "enter: false") {
		t.Errorf("refused in a mode: %q, want the way out named, with enter: false", inMode)
	}
}

// A refused respawn_pane is advised as a refused kill, in words that fit a
// program started again rather than a pane removed, and says that a dead
// pane is respawned all the same; a refusal of no other kind is advised
// as a kill's.
func TestARefusedRespawnSaysWhatToDo(t *testing.T) {
	for why, want := range map[fault.Refusal][]string{
		fault.RefusedWatched: {"leave panes that people have on screen alone; force does not override this",
			"once the program has exited (the pane is dead), respawn_pane restarts it whoever watches it"},
		fault.RefusedSelf:    {"pass force: true if you mean to"},
		fault.RefusedUnknown: {"restart the program by hand", "respawn_pane restarts it without these checks"},
	} {
		err := &fault.RefusalError{Pane: "%4", Why: why, Ending: true, Reason: "respawn_pane would end its program, and a reason"}
		text := errorText(err)
		if !strings.HasPrefix(text, err.Error()+"; ") {
			t.Errorf("refused respawn (%s): %q, want the message first", why, text)
		}
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Errorf("refused respawn (%s): %q lacks %q", why, text, w)
			}
		}
		if strings.Contains(text, "end the pane by hand") {
			t.Errorf("refused respawn (%s): %q advises as for a kill", why, text)
		}
	}
}

// A key name that is not one may have been meant as text.
func TestAnUnknownKeyNameNamesTheWaysToTypeText(t *testing.T) {
	text := errorText(&fault.ArgumentError{Field: "keys", Reason: `"Escpae" is not a key name`})
	if !strings.Contains(text, "literal: true") || !strings.Contains(text, "paste_text") {
		t.Errorf("text %q, want literal: true and paste_text named", text)
	}
}

// TestAToolErrorWithoutItsCauseIsAuditedAsInternal: a tool error whose
// error was not kept is still an error in the log, never a success.
func TestAToolErrorWithoutItsCauseIsAuditedAsInternal(t *testing.T) {
	res := &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "no pane %3"}}}
	if got := auditedKind(t, res, nil); got != string(kindInternal) {
		t.Errorf("errorKind = %q, want %q", got, kindInternal)
	}
}

// A paste refused for the end of a bracketed paste in its text says to
// take the sequence out, and that the text may be hostile; it neither
// sends the client to type the text instead (typed, its lines would run)
// nor gives the generic advice.
func TestARefusedPasteTextSaysToRemoveTheSequence(t *testing.T) {
	text := errorText(&fault.ArgumentError{Field: "text", Reason: "holds ESC [ 2 0 1 ~ at byte 3, the end of a bracketed paste; nothing was pasted"})
	for _, want := range []string{"invalid text: holds ESC [ 2 0 1 ~", "remove that sequence from the text", "run commands"} {
		if !strings.Contains(text, want) {
			t.Errorf("text %q, want %q in it", text, want)
		}
	}
	for _, not := range []string{"literal", "send_keys", adviceOf[kindInvalidArgument]} {
		if strings.Contains(text, not) {
			t.Errorf("text %q, want no %q in it", text, not)
		}
	}
}

// toolText is the text of a tool error.
func toolText(t *testing.T, res *sdk.CallToolResult) string {
	t.Helper()
	if !res.IsError || len(res.Content) != 1 {
		t.Fatalf("result %+v, want a tool error with one content", res)
	}
	tc, ok := res.Content[0].(*sdk.TextContent)
	if !ok {
		t.Fatalf("content %T, want text", res.Content[0])
	}
	return tc.Text
}

// auditedKind audits one call that ended in res or callErr and returns
// the errorKind of its line, after checking that its outcome is "error".
func auditedKind(t *testing.T, res *sdk.CallToolResult, callErr error) string {
	t.Helper()
	var buf bytes.Buffer
	s := &Server{audit: audit.New(&buf), logger: slog.New(slog.DiscardHandler)}
	s.audited("send_keys", time.Now(), nil, arguments{"paneId": "%3"}, res, callErr)
	var line struct {
		Outcome   string `json:"outcome"`
		ErrorKind string `json:"errorKind"`
	}
	if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
		t.Fatalf("audit line %q: %v", buf.String(), err)
	}
	if line.Outcome != "error" {
		t.Errorf("audit outcome %q, want error", line.Outcome)
	}
	return line.ErrorKind
}

// What a busy pane's text advises depends on who holds it: interrupt
// keys are accepted only for a command whose call has returned, and
// nothing of this server's reaches another process's call, whose lease
// expires by itself if that process is gone.
func TestABusyPaneIsAdvisedAsItsHolderAllows(t *testing.T) {
	cases := []struct {
		name      string
		err       *fault.BusyError
		want, not []string
	}{
		{"a call of this process in flight", &fault.BusyError{Pane: "%1", Holder: `paste_text`},
			[]string{"wait for that call to return"}, []string{"C-c", "lease"}},
		{"a command whose call returned", &fault.BusyError{Pane: "%1", Holder: `run_shell_command "sleep 9"`, Returned: true},
			[]string{"wait_for_command", "send_keys C-c"}, []string{"lease"}},
		{"another process", &fault.BusyError{Pane: "%1", Holder: "a call of another tmux-mcp process (owner h-1-a)", Owner: "h-1-a"},
			[]string{"nor interrupt it", "expires by itself", "at most 30 s"}, []string{"send_keys C-c"}},
	}
	for _, c := range cases {
		text := errorText(fmt.Errorf("run in pane %%1: %w", c.err))
		for _, w := range c.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s: %q lacks %q", c.name, text, w)
			}
		}
		for _, n := range c.not {
			if strings.Contains(text, n) {
				t.Errorf("%s: %q holds %q, which does not apply", c.name, text, n)
			}
		}
	}
}
