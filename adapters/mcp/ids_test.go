package mcp_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/adapters/mcp"
)

// The ports and the domain take ids as opaque strings, so the contract's
// forms of them (a pane %3, a window @2, a session $1 or its name) are
// the transport's to check: every argument that holds an id is refused in
// a malformed form, before any call, as an invalid argument that says
// what to correct.
func TestEveryIDArgumentIsCheckedByTheTransport(t *testing.T) {
	// Valid values of what a call may require, by argument name.
	valid := map[string]any{"paneId": "%1", "windowId": "@1", "session": "work", "command": "ls", "text": "hi", "keys": "C-c", "name": "n", "patterns": []any{"x"}}
	// Malformed ids, by the form their argument's pattern gives.
	malformed := map[string][]any{
		`^%\d+$`:                 {"", "1", "%", "%a", "%1 ", " %1", "%-1", "@1", "$1", "%1.0"},
		`^@\d+$`:                 {"", "2", "@", "@x", "@2 ", "%2", "$2"},
		`^(\$\d+|[^-:.][^:.]*)$`: {"", "-t", "a:b", "a.b", "$1:2", ":", "."},
	}
	tools := listManageTools(t)
	var checked []string
	for _, name := range slices.Sorted(maps.Keys(tools)) {
		var in struct {
			Properties map[string]struct {
				Pattern string `json:"pattern"`
			} `json:"properties"`
			Required []string `json:"required"`
		}
		if err := json.Unmarshal([]byte(mustJSON(tools[name].InputSchema)), &in); err != nil {
			t.Fatal(err)
		}
		for _, prop := range slices.Sorted(maps.Keys(in.Properties)) {
			pattern := in.Properties[prop].Pattern
			if pattern == "" {
				continue
			}
			bad, ok := malformed[pattern]
			if !ok {
				t.Errorf("%s %s has pattern %s, which is no id form of the contract", name, prop, pattern)
				continue
			}
			checked = append(checked, name+"."+prop)
			t.Run(name+" "+prop, func(t *testing.T) {
				stub, c := connectManage(t, mcp.TierDestructive)
				for _, v := range bad {
					args := map[string]any{}
					for _, r := range in.Required {
						args[r] = valid[r]
					}
					args[prop] = v
					msg := c.toolError(name, args)
					for _, want := range []string{"invalid " + prop, fmt.Sprintf("got %q", v), pattern, "correct it and call again"} {
						if !strings.Contains(msg, want) {
							t.Errorf("%s with %s %q: error %q lacks %q", name, prop, v, msg, want)
						}
					}
				}
				if calls := stub.recorded(); len(calls) != 0 || stub.calls() != 0 {
					t.Errorf("the domain was called with a malformed id: %+v", calls)
				}
			})
		}
	}
	// Every id argument of the contract, and only those, has a form.
	want := []string{
		"capture_pane.paneId", "capture_since.paneId", "clear_pane_scrollback.paneId", "create_window.session",
		"display.paneId", "get_pane_info.paneId", "kill_pane.paneId", "kill_session.session", "kill_window.windowId",
		"list_panes.session", "list_panes.windowId", "list_windows.session", "paste_text.paneId",
		"rename_session.session", "rename_window.windowId", "resize_pane.paneId", "resize_window.windowId", "respawn_pane.paneId", "run_shell_command.paneId",
		"search_panes.session", "select_pane.paneId", "select_window.windowId", "send_keys.paneId", "signal_command.paneId", "split_window.paneId", "wait_for_command.paneId", "wait_for_text.paneId",
	}
	if !slices.Equal(checked, want) {
		t.Errorf("id arguments checked %v, want %v", checked, want)
	}
}
