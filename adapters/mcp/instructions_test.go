package mcp_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/adapters/mcp"
)

// The instructions a client gets at initialize name only tools the server
// offers, whatever the tier, the tool allowlist and the backend leave
// out: a model sent to a tool it cannot call wastes a turn on an error.
func TestTheInstructionsNameOnlyOfferedTools(t *testing.T) {
	word := regexp.MustCompile(`[a-z]+(?:_[a-z]+)+`)
	tests := []struct {
		name   string
		manage bool
		tier   mcp.Tier
		tools  []string
	}{
		{"every tool", true, mcp.TierDestructive, nil},
		{"the default tier", true, mcp.TierMutating, nil},
		{"read only", true, mcp.TierReadonly, nil},
		{"a backend that cannot list (GNU screen)", false, mcp.TierMutating, nil},
		{"an allowlist of two", true, mcp.TierMutating, []string{"run_shell_command", "capture_pane"}},
		{"one tool", true, mcp.TierMutating, []string{"capture_pane"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stub := newManageStub(t)
			opts := mcp.Options{Safety: tt.tier, Tools: tt.tools, PanesNote: "Pane %N is window N."}
			if tt.manage {
				opts.Manage = stub
			}
			cs, srv := connectWith(t, stub, opts)
			text := cs.InitializeResult().Instructions
			if !strings.HasPrefix(text, "Tools to work in terminal panes.") {
				t.Fatalf("instructions %q", text)
			}
			for _, name := range word.FindAllString(text, -1) {
				if slices.Contains(mcp.ToolNames(), name) && !slices.Contains(srv.Offered(), name) {
					t.Errorf("the instructions name %s, which is not offered (offered: %v):\n%s", name, srv.Offered(), text)
				}
			}
			for _, name := range srv.Offered() {
				if isPaneTool(name) && !strings.Contains(text, name) {
					t.Errorf("the instructions leave out %s, which is offered:\n%s", name, text)
				}
			}
			listed := slices.Contains(srv.Offered(), "list_panes")
			if noted := strings.Contains(text, "Pane %N is window N."); noted == listed {
				t.Errorf("list_panes offered %v, the panes note said %v; want it said exactly when no tool lists the panes:\n%s", listed, noted, text)
			}
		})
	}
}

// isPaneTool reports whether name is one of the pane tools, which the
// instructions explain one by one.
func isPaneTool(name string) bool {
	return slices.Contains([]string{"run_shell_command", "wait_for_command", "read_output", "paste_text", "send_keys",
		"capture_pane", "capture_since", "wait_for_text"}, name)
}

// With every tool offered, the instructions are the whole text, in one
// piece: the tools in the order a model meets them, the listing and
// making tools, the tier, and the one writer per pane.
func TestTheInstructionsOfAFullServer(t *testing.T) {
	stub := newManageStub(t)
	cs, _ := connectWith(t, stub, mcp.Options{Manage: stub, Safety: mcp.TierDestructive})
	want := "Tools to work in terminal panes. Pane ids look like %3. " +
		"Use run_shell_command to run a command and get exactly its output and exit status; " +
		"wait_for_command to wait on for one whose call returned before it ended; " +
		"read_output to read all of a run's output, by the runId its result gave, where the result returned only its tail; " +
		"signal_command to stop such a command (TERM) when C-c does not; " +
		"paste_text to type text into a pane exactly as given; send_keys to press keys such as C-c, Escape or Up; " +
		"capture_pane to read what a pane shows; capture_since to read only what a pane wrote since a cursor; " +
		"wait_for_text to wait until a pane prints something. " +
		"list_panes and get_pane_info tell which panes exist and which a write would be refused for. " +
		"create_session, create_window and split_window make panes to work in. " +
		"Tools above the server's safety tier (see get_server_info) are not offered. " +
		"A pane running a command through run_shell_command refuses other writes until the command ends " +
		"(send_keys C-c may interrupt it once its call has returned timed_out or cancelled)."
	if got := cs.InitializeResult().Instructions; got != want {
		t.Errorf("instructions\n got %q\nwant %q", got, want)
	}
}
