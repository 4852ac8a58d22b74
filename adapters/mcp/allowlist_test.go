package mcp_test

import (
	"bytes"
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/adapters/mcp"
)

// ToolNames names every tool a server can offer: those a destructive
// server of several hosts with the lifecycle tools lists, in its order.
func TestToolNamesAreEveryDeclaredTool(t *testing.T) {
	stub := newManageStub(t)
	srv := mcp.NewServer(stub, mcp.Options{Manage: stub, Hosts: &hostsStub{}, Safety: mcp.TierDestructive})
	if got, want := mcp.ToolNames(), srv.Offered(); !slices.Equal(got, want) {
		t.Errorf("ToolNames = %v\nwant what a server offering everything offers, %v", got, want)
	}
	if want := append(append(slices.Clone(allTools), manageTools...), hostTools...); !slices.Equal(slices.Sorted(slices.Values(mcp.ToolNames())), slices.Sorted(slices.Values(want))) {
		t.Errorf("ToolNames = %v, want %v", mcp.ToolNames(), want)
	}
}

// The allowlist narrows the tier: only the tools it names and the tier
// offers are listed; a named tool above the tier, or one the backend
// cannot serve, is logged and left out.
func TestTheToolAllowlistNarrowsTheTier(t *testing.T) {
	tests := []struct {
		name   string
		manage bool
		tier   mcp.Tier
		tools  []string
		want   []string
		warns  []string
	}{
		{"no list: the tier's tools", true, mcp.TierReadonly, nil, readonlyTools, nil},
		{"a list within the tier", true, mcp.TierMutating, []string{"run_shell_command", "wait_for_command", "list_panes"},
			[]string{"list_panes", "run_shell_command", "wait_for_command"}, nil},
		{"a tool above the tier", true, mcp.TierReadonly, []string{"capture_pane", "kill_pane"},
			[]string{"capture_pane"}, []string{"above the safety tier", "kill_pane"}},
		{"a tool the backend cannot serve", false, mcp.TierMutating, []string{"capture_pane", "list_sessions"},
			[]string{"capture_pane"}, []string{"cannot do", "list_sessions"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			stub := newManageStub(t)
			opts := mcp.Options{Safety: tt.tier, Tools: tt.tools, Logger: slog.New(slog.NewTextHandler(&logs, nil))}
			if tt.manage {
				opts.Manage = stub
			}
			cs, _ := connectWith(t, stub, opts)
			res, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, tool := range res.Tools {
				got = append(got, tool.Name)
			}
			if slices.Sort(got); !slices.Equal(got, slices.Sorted(slices.Values(tt.want))) {
				t.Errorf("tools/list = %v, want %v", got, tt.want)
			}
			for _, w := range tt.warns {
				if !strings.Contains(logs.String(), w) {
					t.Errorf("log lacks %q:\n%s", w, logs.String())
				}
			}
			if tt.warns == nil && strings.Contains(logs.String(), "allowlist") {
				t.Errorf("log warns of the allowlist:\n%s", logs.String())
			}
		})
	}
}

func TestAnUnknownToolInTheAllowlistIsRefused(t *testing.T) {
	defer func() {
		if p := recover(); p == nil || !strings.Contains(p.(string), `"run_command"`) {
			t.Errorf("NewServer with an unknown tool: panic %v, want one naming it", p)
		}
	}()
	mcp.NewServer(&stubTools{t: t}, mcp.Options{Tools: []string{"capture_pane", "run_command"}})
}
