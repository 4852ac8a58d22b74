package mcp_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmux-mcp/tmux-mcp/adapters/mcp"
)

func TestTierOfFollowsTheAnnotations(t *testing.T) {
	tests := []struct {
		name string
		a    *sdk.ToolAnnotations
		want mcp.Tier
	}{
		{"read-only", &sdk.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: new(false)}, mcp.TierReadonly},
		// Read-only wins: a tool that changes nothing destroys nothing.
		{"read-only with the destructive default", &sdk.ToolAnnotations{ReadOnlyHint: true}, mcp.TierReadonly},
		{"writing, not destructive", &sdk.ToolAnnotations{DestructiveHint: new(false)}, mcp.TierMutating},
		{"destructive", &sdk.ToolAnnotations{DestructiveHint: new(true)}, mcp.TierDestructive},
		// The MCP defaults: not read-only, destructive.
		{"destructiveHint absent", &sdk.ToolAnnotations{}, mcp.TierDestructive},
		{"no annotations", nil, mcp.TierDestructive},
	}
	for _, tt := range tests {
		if got := mcp.TierOf(tt.a); got != tt.want {
			t.Errorf("%s: TierOf = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestTierOffers(t *testing.T) {
	tiers := []mcp.Tier{mcp.TierReadonly, mcp.TierMutating, mcp.TierDestructive}
	for i, server := range tiers {
		for j, tool := range tiers {
			if got, want := server.Offers(tool), j <= i; got != want {
				t.Errorf("%s.Offers(%s) = %v, want %v", server, tool, got, want)
			}
		}
		if server.Offers("everything") {
			t.Errorf("%s offers a tool of an unknown tier", server)
		}
	}
	if mcp.Tier("all").Offers(mcp.TierReadonly) {
		t.Error("an unknown tier offers tools")
	}
}

// Each tier, served to a real client: tools/list holds exactly the tier's
// tools, and a tool above the tier cannot be called (the call is an
// unknown tool, a protocol error) and never reaches the domain.
func TestEachTierListsAndServesExactlyItsTools(t *testing.T) {
	tests := []struct {
		tier   mcp.Tier
		want   []string
		hidden []string
	}{
		{mcp.TierReadonly, readonlyTools, append(slices.Clone(mutatingOnlyTools), destructiveOnlyTools...)},
		{mcp.TierMutating, append(slices.Clone(readonlyTools), mutatingOnlyTools...), destructiveOnlyTools},
		{"", append(slices.Clone(readonlyTools), mutatingOnlyTools...), destructiveOnlyTools}, // the default
		{mcp.TierDestructive, append(append(slices.Clone(readonlyTools), mutatingOnlyTools...), destructiveOnlyTools...), nil},
	}
	for _, tt := range tests {
		t.Run(string(tt.tier), func(t *testing.T) {
			stub := newManageStub(t)
			stub.results = validResults()
			cs, _ := connectWith(t, stub, mcp.Options{Manage: stub, Safety: tt.tier})
			res, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, tool := range res.Tools {
				got = append(got, tool.Name)
				if tier := mcp.TierOf(tool.Annotations); !effectiveTier(tt.tier).Offers(tier) {
					t.Errorf("%s (tier %s) listed at tier %s", tool.Name, tier, tt.tier)
				}
			}
			slices.Sort(got)
			if want := slices.Sorted(slices.Values(tt.want)); !slices.Equal(got, want) {
				t.Errorf("tools/list = %v\nwant %v", got, want)
			}

			for _, name := range tt.hidden {
				if _, ok := hiddenCallArgs[name]; !ok {
					t.Errorf("%s has no valid arguments in hiddenCallArgs", name)
				}
				_, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: hiddenCallArgs[name]})
				if err == nil || !strings.Contains(err.Error(), "unknown tool") {
					t.Errorf("call of hidden %s: error %v, want an unknown tool", name, err)
				}
			}
			if calls := stub.recorded(); len(calls) != 0 || stub.calls() != 0 {
				t.Errorf("hidden tools reached the domain: %+v", calls)
			}

			// What is listed can be called.
			c := &mcpClient{t: t, cs: cs}
			c.ok("list_sessions", nil)
			if slices.Contains(tt.want, "kill_pane") {
				c.ok("kill_pane", map[string]any{"paneId": "%3"})
			}
		})
	}
}

func effectiveTier(t mcp.Tier) mcp.Tier {
	if t == "" {
		return mcp.DefaultTier
	}
	return t
}

// hiddenCallArgs are valid arguments for each tool that some tier hides,
// so that a refusal cannot come from the arguments.
var hiddenCallArgs = map[string]map[string]any{
	"run_shell_command":     {"paneId": "%3", "command": "true"},
	"paste_text":            {"paneId": "%3", "text": "x"},
	"send_keys":             {"paneId": "%3", "keys": "Enter"},
	"signal_command":        {"paneId": "%3", "signal": "TERM"},
	"create_session":        {},
	"create_window":         {"session": "work"},
	"split_window":          {"paneId": "%3"},
	"select_pane":           {"paneId": "%3"},
	"select_window":         {"windowId": "@2"},
	"resize_pane":           {"paneId": "%3", "width": 10},
	"resize_window":         {"windowId": "@2", "width": 200},
	"rename_session":        {"session": "work", "name": "w"},
	"rename_window":         {"windowId": "@2", "name": "w"},
	"clear_pane_scrollback": {"paneId": "%3"},
	"respawn_pane":          {"paneId": "%3"},
	"kill_pane":             {"paneId": "%3"},
	"kill_window":           {"windowId": "@2"},
	"kill_session":          {"session": "work"},
}

func TestAnUnknownTierIsRefused(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("NewServer with tier \"all\" did not panic")
		}
	}()
	mcp.NewServer(&stubTools{t: t}, mcp.Options{Safety: "all"})
}

func TestServerInfoReportsTheTier(t *testing.T) {
	for _, tier := range []mcp.Tier{mcp.TierReadonly, mcp.TierMutating, mcp.TierDestructive} {
		_, c := connectManage(t, tier)
		if got := c.ok("get_server_info", nil)["safety"]; got != string(tier) {
			t.Errorf("tier %s: get_server_info safety = %v", tier, got)
		}
	}
}
