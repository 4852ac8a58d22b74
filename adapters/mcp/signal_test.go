package mcp_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmux-mcp/tmux-mcp/adapters/mcp"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// signal_command through a client: the request reaches the domain as
// given, the result names who got the signal, and KILL waits for the
// destructive tier.

func signalClient(t *testing.T, tier mcp.Tier) (*manageStub, *mcpClient) {
	t.Helper()
	stub := newManageStub(t)
	stub.signal = func(_ context.Context, req domain.SignalRequest) (domain.SignalResult, error) {
		return domain.SignalResult{PaneID: req.PaneID, Signal: ports.Signal(req.Signal), Group: 4242,
			Processes: []ports.Process{{PID: 4242, Command: "sleep 30"}}}, nil
	}
	cs, _ := connectWith(t, stub, mcp.Options{Manage: stub, Safety: tier})
	return stub, &mcpClient{t: t, cs: cs}
}

func TestSignalCommandReportsTheGroupAndPointsAtWaitForCommand(t *testing.T) {
	stub, c := signalClient(t, mcp.TierMutating)
	res := c.call("signal_command", map[string]any{"paneId": "%3", "signal": "TERM"})
	got := structured(t, res)
	want := map[string]any{"paneId": "%3", "signal": "TERM", "processGroup": float64(4242),
		"processes": []any{map[string]any{"pid": float64(4242), "command": "sleep 30"}}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("result %v, want %v", got, want)
	}
	if len(stub.signals) != 1 || stub.signals[0] != (domain.SignalRequest{PaneID: "%3", Signal: "TERM"}) {
		t.Errorf("the domain got %+v", stub.signals)
	}
	var text strings.Builder
	for _, content := range res.Content {
		if tc, ok := content.(*sdk.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	if !strings.Contains(text.String(), "wait_for_command") || !strings.Contains(text.String(), "(143)") {
		t.Errorf("text %q does not point at wait_for_command and 143", text.String())
	}
}

func TestSignalCommandSendsKillOnlyInTheDestructiveTier(t *testing.T) {
	stub, c := signalClient(t, mcp.TierMutating)
	if msg := c.toolError("signal_command", map[string]any{"paneId": "%3", "signal": "KILL"}); !strings.Contains(msg, "destructive") || !strings.Contains(msg, "TERM") {
		t.Errorf("KILL at the mutating tier: %q", msg)
	}
	if len(stub.signals) != 0 {
		t.Errorf("the domain got %+v", stub.signals)
	}
	stub, c = signalClient(t, mcp.TierDestructive)
	if got := c.ok("signal_command", map[string]any{"paneId": "%3", "signal": "KILL"}); got["signal"] != "KILL" || len(stub.signals) != 1 {
		t.Errorf("KILL at the destructive tier: %v, domain got %+v", got, stub.signals)
	}
}

func TestSignalCommandRefusalsAreToolErrorsThatSayWhatToDo(t *testing.T) {
	stub, c := signalClient(t, mcp.TierMutating)
	for _, e := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("signal the command in pane %%3: %w", fault.ErrNoCommand), "run_shell_command"},
		{fmt.Errorf("signal the command in pane %%3: the group is the shell's: %w", ports.ErrNoGroup), "send_keys C-c"},
	} {
		stub.signal = func(context.Context, domain.SignalRequest) (domain.SignalResult, error) {
			return domain.SignalResult{}, e.err
		}
		if msg := c.toolError("signal_command", map[string]any{"paneId": "%3", "signal": "INT"}); !strings.Contains(msg, e.err.Error()) || !strings.Contains(msg, e.want) {
			t.Errorf("%v: tool error %q, want it with %q", e.err, msg, e.want)
		}
	}
	// A name outside the enum never reaches the domain.
	calls := len(stub.signals)
	c.toolError("signal_command", map[string]any{"paneId": "%3", "signal": "STOP"})
	if len(stub.signals) != calls {
		t.Error("a signal outside the enum reached the domain")
	}
}
