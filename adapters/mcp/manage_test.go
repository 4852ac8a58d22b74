package mcp_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/mcp"
	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/domain/lifecycle"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

var (
	workSession = ports.SessionRef{ID: "$1", Name: "work"}
	logsWindow  = ports.WindowRef{ID: "@2", Index: 1, Name: "logs"}
	created     = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	paneFixture = lifecycle.Pane{PaneSummary: ports.PaneSummary{
		ID: "%3", Session: workSession, Window: logsWindow, Index: 0, Active: true, Command: "bash", Path: "/src",
		Width: 80, Height: 24, Title: "host"}}
	newPane = ports.Created{Session: workSession, Window: logsWindow, Pane: "%7"}
)

// validResults answers every method with a result that fits its schema.
func validResults() map[string]any {
	return map[string]any{
		"ListSessions":        lifecycle.SessionList{Sessions: []ports.SessionInfo{{SessionRef: workSession, Windows: 2, Created: created}}},
		"ListWindows":         lifecycle.WindowList{Windows: []ports.WindowInfo{{WindowRef: logsWindow, Session: workSession}}},
		"ListPanes":           lifecycle.PaneList{Panes: []lifecycle.Pane{paneFixture}},
		"SearchPanes":         lifecycle.SearchPanesResult{Panes: []lifecycle.PaneMatches{}, MaxMatches: lifecycle.DefaultSearchMatches},
		"GetPaneInfo":         lifecycle.PaneDetails{Pane: paneFixture},
		"Display":             lifecycle.PaneFacts{PaneID: "%3", Unknown: []ports.Fact{}},
		"GetServerInfo":       ports.ServerInfo{Address: "/tmp/tmux-0/default", Version: "3.3a"},
		"CreateSession":       newPane,
		"CreateWindow":        newPane,
		"SplitWindow":         newPane,
		"SelectPane":          paneFixture,
		"SelectWindow":        ports.WindowInfo{WindowRef: logsWindow, Session: workSession},
		"ResizePane":          paneFixture,
		"ResizeWindow":        ports.WindowInfo{WindowRef: logsWindow, Session: workSession},
		"RenameSession":       ports.SessionInfo{SessionRef: workSession},
		"RenameWindow":        ports.WindowInfo{WindowRef: logsWindow, Session: workSession},
		"ClearPaneScrollback": lifecycle.ClearScrollbackResult{PaneID: "%3"},
		"RespawnPane":         paneFixture,
		"KillPane":            lifecycle.KillResult{Killed: []ports.PaneID{"%3"}},
		"KillWindow":          lifecycle.KillResult{Killed: []ports.PaneID{"%3"}, WindowID: "@2"},
		"KillSession":         lifecycle.KillResult{Killed: []ports.PaneID{"%3"}, Session: workSession},
	}
}

func connectManage(t *testing.T, tier mcp.Tier) (*manageStub, *mcpClient) {
	t.Helper()
	stub := newManageStub(t)
	stub.results = validResults()
	cs, _ := connectWith(t, stub, mcp.Options{Manage: stub, Safety: tier})
	return stub, &mcpClient{t: t, cs: cs}
}

func TestManageToolsPassArgumentsToTheDomain(t *testing.T) {
	tests := []struct {
		tool   string
		args   map[string]any
		method string
		want   any
	}{
		{"list_sessions", nil, "ListSessions", nil},
		{"list_windows", map[string]any{}, "ListWindows", lifecycle.ListWindowsRequest{}},
		{"list_windows", map[string]any{"session": "work"}, "ListWindows", lifecycle.ListWindowsRequest{Session: "work"}},
		{"list_panes", map[string]any{}, "ListPanes", lifecycle.ListPanesRequest{}},
		{"list_panes", map[string]any{"session": "$2"}, "ListPanes", lifecycle.ListPanesRequest{Session: "$2"}},
		{"list_panes", map[string]any{"windowId": "@3"}, "ListPanes", lifecycle.ListPanesRequest{Window: "@3"}},
		{"search_panes", map[string]any{"patterns": []any{"error"}}, "SearchPanes", lifecycle.SearchPanesRequest{Patterns: []string{"error"}}},
		{"search_panes", map[string]any{"session": "work", "patterns": []any{`exit status [1-9]`, "FAIL"}, "regex": true, "history": true, "maxMatches": 5},
			"SearchPanes", lifecycle.SearchPanesRequest{Session: "work", Patterns: []string{`exit status [1-9]`, "FAIL"}, Regex: true, History: true, MaxMatches: 5}},
		// A bound past the ceiling reaches the domain past it, however
		// large, for the domain to clamp and report.
		{"search_panes", map[string]any{"patterns": []any{"x"}, "maxMatches": 1<<53 - 1}, "SearchPanes",
			lifecycle.SearchPanesRequest{Patterns: []string{"x"}, MaxMatches: lifecycle.MaxSearchMatches + 1}},
		{"get_pane_info", map[string]any{"paneId": "%4"}, "GetPaneInfo", lifecycle.PaneRequest{PaneID: "%4"}},
		{"display", map[string]any{"paneId": "%4"}, "Display", lifecycle.PaneRequest{PaneID: "%4"}},
		// display takes no format: one a client adds is not read, and
		// only the pane id reaches the domain.
		{"display", map[string]any{"paneId": "%4", "format": "#(touch /tmp/x) #{pane_pid}"}, "Display", lifecycle.PaneRequest{PaneID: "%4"}},
		{"get_server_info", map[string]any{}, "GetServerInfo", nil},
		{"create_session", map[string]any{}, "CreateSession", lifecycle.CreateSessionRequest{}},
		{"create_session", map[string]any{"name": "build", "command": "make watch", "width": 120, "height": 40},
			"CreateSession", lifecycle.CreateSessionRequest{Name: "build", Command: "make watch", Width: 120, Height: 40}},
		{"create_window", map[string]any{"session": "$1"}, "CreateWindow", lifecycle.CreateWindowRequest{Session: "$1"}},
		{"create_window", map[string]any{"session": "work", "name": "logs"}, "CreateWindow",
			lifecycle.CreateWindowRequest{Session: "work", Name: "logs"}},
		{"split_window", map[string]any{"paneId": "%2"}, "SplitWindow", lifecycle.SplitWindowRequest{PaneID: "%2"}},
		{"split_window", map[string]any{"paneId": "%2", "direction": "right", "size": 30}, "SplitWindow",
			lifecycle.SplitWindowRequest{PaneID: "%2", Size: 30}},
		{"split_window", map[string]any{"paneId": "%2", "direction": "below"}, "SplitWindow",
			lifecycle.SplitWindowRequest{PaneID: "%2", Vertical: true}},
		{"select_pane", map[string]any{"paneId": "%5"}, "SelectPane", lifecycle.PaneRequest{PaneID: "%5"}},
		{"select_window", map[string]any{"windowId": "@5"}, "SelectWindow", lifecycle.SelectWindowRequest{WindowID: "@5"}},
		{"resize_pane", map[string]any{"paneId": "%1", "height": 12}, "ResizePane", lifecycle.ResizePaneRequest{PaneID: "%1", Height: 12}},
		{"resize_pane", map[string]any{"paneId": "%1", "width": 100, "height": 10000}, "ResizePane",
			lifecycle.ResizePaneRequest{PaneID: "%1", Width: 100, Height: 10000}},
		{"resize_window", map[string]any{"windowId": "@2", "width": 200}, "ResizeWindow", lifecycle.ResizeWindowRequest{WindowID: "@2", Width: 200}},
		{"resize_window", map[string]any{"windowId": "@2", "width": 1, "height": 10000}, "ResizeWindow",
			lifecycle.ResizeWindowRequest{WindowID: "@2", Width: 1, Height: 10000}},
		{"rename_session", map[string]any{"session": "work", "name": "play time"}, "RenameSession",
			lifecycle.RenameSessionRequest{Session: "work", Name: "play time"}},
		{"rename_window", map[string]any{"windowId": "@2", "name": "a.b:c"}, "RenameWindow",
			lifecycle.RenameWindowRequest{WindowID: "@2", Name: "a.b:c"}},
		{"clear_pane_scrollback", map[string]any{"paneId": "%1"}, "ClearPaneScrollback", lifecycle.ClearScrollbackRequest{PaneID: "%1"}},
		{"clear_pane_scrollback", map[string]any{"paneId": "%1", "force": true}, "ClearPaneScrollback",
			lifecycle.ClearScrollbackRequest{PaneID: "%1", Force: true}},
		{"respawn_pane", map[string]any{"paneId": "%1"}, "RespawnPane", lifecycle.RespawnPaneRequest{PaneID: "%1"}},
		{"respawn_pane", map[string]any{"paneId": "%1", "force": true}, "RespawnPane", lifecycle.RespawnPaneRequest{PaneID: "%1", Force: true}},
		{"kill_pane", map[string]any{"paneId": "%1"}, "KillPane", lifecycle.KillPaneRequest{PaneID: "%1"}},
		{"kill_window", map[string]any{"windowId": "@1", "force": true}, "KillWindow", lifecycle.KillWindowRequest{WindowID: "@1", Force: true}},
		{"kill_session", map[string]any{"session": "work"}, "KillSession", lifecycle.KillSessionRequest{Session: "work"}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s %v", tt.tool, tt.args), func(t *testing.T) {
			stub, c := connectManage(t, mcp.TierDestructive)
			c.ok(tt.tool, tt.args)
			got := stub.recorded()
			if len(got) != 1 || got[0].method != tt.method || !reflect.DeepEqual(got[0].req, tt.want) {
				t.Errorf("domain calls = %+v, want one %s(%+v)", got, tt.method, tt.want)
			}
		})
	}
}

func TestManageToolsReportEveryField(t *testing.T) {
	watchedPane := paneFixture
	watchedPane.Watchers = []string{"/dev/pts/3"}
	watchedPane.Self = true
	watchedPane.Busy = `run_shell_command "make test"`
	unknownPane := lifecycle.Pane{PaneSummary: ports.PaneSummary{
		ID: "%4", Session: workSession, Window: logsWindow, Index: 1, Dead: true, Title: "t",
		Unknown: []ports.Fact{ports.FactWatched, ports.FactSelf, ports.FactCommand}}}
	paneJSON := map[string]any{
		"paneId": "%3", "sessionId": "$1", "sessionName": "work", "windowId": "@2", "windowIndex": 1, "windowName": "logs",
		"index": 0, "active": true, "dead": false, "command": "bash", "workingDirectory": "/src", "width": 80, "height": 24,
		"title": "host", "watched": false, "watchers": []any{}, "isServerOwn": false, "busy": nil,
	}
	with := func(m map[string]any, kv ...any) map[string]any {
		out := map[string]any{}
		for k, v := range m {
			out[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i].(string)] = kv[i+1]
		}
		return out
	}
	windowJSON := map[string]any{"id": "@2", "index": 1, "name": "logs", "sessionId": "$1", "sessionName": "work",
		"active": true, "panes": 2, "width": 200, "height": 50, "zoomed": true}
	createdJSON := map[string]any{"paneId": "%7", "sessionId": "$1", "sessionName": "work", "windowId": "@2", "windowIndex": 1, "windowName": "logs"}

	tests := []struct {
		name   string
		tool   string
		args   map[string]any
		method string
		result any
		want   map[string]any
	}{
		{
			name: "sessions, a creation time unknown", tool: "list_sessions", method: "ListSessions",
			result: lifecycle.SessionList{Sessions: []ports.SessionInfo{
				{SessionRef: workSession, Windows: 2, Clients: 1, Created: created.In(time.FixedZone("CEST", 7200))},
				{SessionRef: ports.SessionRef{ID: "$4", Name: "4"}, Windows: 1},
			}},
			want: map[string]any{"sessions": []any{
				map[string]any{"id": "$1", "name": "work", "windows": 2, "clients": 1, "created": "2025-06-01T12:00:00Z"},
				map[string]any{"id": "$4", "name": "4", "windows": 1, "clients": 0, "created": nil},
			}},
		},
		{
			name: "no sessions is an empty list", tool: "list_sessions", method: "ListSessions",
			result: lifecycle.SessionList{}, want: map[string]any{"sessions": []any{}},
		},
		{
			name: "windows", tool: "list_windows", method: "ListWindows",
			result: lifecycle.WindowList{Windows: []ports.WindowInfo{{WindowRef: logsWindow, Session: workSession, Active: true,
				Panes: 2, Width: 200, Height: 50, Zoomed: true}}},
			want: map[string]any{"windows": []any{windowJSON}},
		},
		{
			name: "panes: known facts, and unknown ones as null", tool: "list_panes", method: "ListPanes",
			result: lifecycle.PaneList{Panes: []lifecycle.Pane{paneFixture, watchedPane, unknownPane}},
			want: map[string]any{"panes": []any{
				paneJSON,
				with(paneJSON, "watched", true, "watchers", []any{"/dev/pts/3"}, "isServerOwn", true, "busy", `run_shell_command "make test"`),
				map[string]any{"paneId": "%4", "sessionId": "$1", "sessionName": "work", "windowId": "@2", "windowIndex": 1,
					"windowName": "logs", "index": 1, "active": false, "dead": true, "command": nil, "workingDirectory": nil,
					"width": 0, "height": 0, "title": "t", "watched": nil, "watchers": []any{}, "isServerOwn": nil, "busy": nil},
			}},
		},
		{
			name: "search: rows of two panes, in listing order, top to bottom", tool: "search_panes",
			args: map[string]any{"patterns": []any{"error", "FAIL"}, "history": true}, method: "SearchPanes",
			result: lifecycle.SearchPanesResult{
				Panes: []lifecycle.PaneMatches{
					{PaneID: "%3", Session: workSession, Window: logsWindow, Lines: []lifecycle.LineMatch{
						{Row: -12, Text: "FAIL: TestX", Pattern: "FAIL"},
						{Row: 4, Text: "error: no such file", Pattern: "error"},
					}},
					{PaneID: "%5", Session: ports.SessionRef{ID: "$2", Name: "ci"}, Window: ports.WindowRef{ID: "@7", Index: 0, Name: "make"},
						Lines: []lifecycle.LineMatch{{Row: 0, Text: "…an error in a long row…", Cut: true, Pattern: "error"}}},
				},
				Matches: 3, MaxMatches: 100, PanesSearched: 4, PanesGone: 1,
			},
			want: map[string]any{
				"panes": []any{
					map[string]any{"paneId": "%3", "sessionId": "$1", "sessionName": "work", "windowId": "@2", "windowIndex": 1, "windowName": "logs",
						"lines": []any{
							map[string]any{"row": -12, "text": "FAIL: TestX", "cut": false, "pattern": "FAIL"},
							map[string]any{"row": 4, "text": "error: no such file", "cut": false, "pattern": "error"},
						}},
					map[string]any{"paneId": "%5", "sessionId": "$2", "sessionName": "ci", "windowId": "@7", "windowIndex": 0, "windowName": "make",
						"lines": []any{map[string]any{"row": 0, "text": "…an error in a long row…", "cut": true, "pattern": "error"}}},
				},
				"matches": 3, "maxMatches": 100, "panesSearched": 4, "panesGone": 1, "rangeClamped": false, "truncated": false,
			},
		},
		{
			name: "search: nothing found is an empty list", tool: "search_panes", args: map[string]any{"patterns": []any{"error"}},
			method: "SearchPanes", result: lifecycle.SearchPanesResult{MaxMatches: 100, PanesSearched: 2},
			want: map[string]any{"panes": []any{}, "matches": 0, "maxMatches": 100, "panesSearched": 2, "panesGone": 0,
				"rangeClamped": false, "truncated": false},
		},
		{
			name: "search: stopped at the bound, history clamped", tool: "search_panes",
			args: map[string]any{"patterns": []any{"x"}, "maxMatches": 1, "history": true}, method: "SearchPanes",
			result: lifecycle.SearchPanesResult{
				Panes: []lifecycle.PaneMatches{{PaneID: "%3", Session: workSession, Window: logsWindow,
					Lines: []lifecycle.LineMatch{{Row: -99999, Text: "x", Pattern: "x"}}}},
				Matches: 1, MaxMatches: 1, PanesSearched: 1, Truncated: true, RangeClamped: true,
			},
			want: map[string]any{
				"panes": []any{map[string]any{"paneId": "%3", "sessionId": "$1", "sessionName": "work", "windowId": "@2", "windowIndex": 1,
					"windowName": "logs", "lines": []any{map[string]any{"row": -99999, "text": "x", "cut": false, "pattern": "x"}}}},
				"matches": 1, "maxMatches": 1, "panesSearched": 1, "panesGone": 0, "rangeClamped": true, "truncated": true,
			},
		},
		{
			name: "pane info", tool: "get_pane_info", args: map[string]any{"paneId": "%3"}, method: "GetPaneInfo",
			result: lifecycle.PaneDetails{Pane: paneFixture, Mode: "copy-mode", HistorySize: 120, HistoryLimit: 2000,
				AlsoReaches: []ports.PaneID{"%8"}, Attended: true},
			want: with(paneJSON, "mode", "copy-mode", "historySize", 120, "historyLimit", 2000, "alsoReaches", []any{"%8"}, "attended", true, "leftRunning", nil, "leftRunningCount", 0),
		},
		{
			name: "pane info: no mode, input reaching no other pane", tool: "get_pane_info", args: map[string]any{"paneId": "%3"},
			method: "GetPaneInfo", result: lifecycle.PaneDetails{Pane: paneFixture},
			want: with(paneJSON, "mode", "", "historySize", 0, "historyLimit", 0, "alsoReaches", []any{}, "attended", false, "leftRunning", nil, "leftRunningCount", 0),
		},
		{
			name: "pane info: mode and synchronization unknown", tool: "get_pane_info", args: map[string]any{"paneId": "%3"},
			method: "GetPaneInfo", result: func() lifecycle.PaneDetails {
				d := lifecycle.PaneDetails{Pane: paneFixture}
				d.Unknown = []ports.Fact{ports.FactMode, ports.FactAlsoReaches}
				return d
			}(),
			want: with(paneJSON, "mode", nil, "historySize", 0, "historyLimit", 0, "alsoReaches", nil, "attended", false, "leftRunning", nil, "leftRunningCount", 0),
		},
		{
			name: "display: the fixed facts", tool: "display", args: map[string]any{"paneId": "%3"}, method: "Display",
			result: lifecycle.PaneFacts{PaneID: "%3", Path: "/src", PID: 4242, Width: 80, Height: 24, CursorX: 2, CursorY: 7,
				Command: "vim", InMode: true, Mode: "copy-mode", Unknown: []ports.Fact{}},
			want: map[string]any{"paneId": "%3", "workingDirectory": "/src", "pid": 4242, "width": 80, "height": 24,
				"cursorX": 2, "cursorY": 7, "command": "vim", "dead": false, "inMode": true, "mode": "copy-mode"},
		},
		{
			// A cursor at the top left and no mode are facts read, not
			// unknowns: they are reported as zeros.
			name: "display: zeros that were read", tool: "display", args: map[string]any{"paneId": "%3"}, method: "Display",
			result: lifecycle.PaneFacts{PaneID: "%3", Path: "/src", PID: 4242, Width: 80, Height: 24, Command: "bash", Dead: true,
				Unknown: []ports.Fact{}},
			want: map[string]any{"paneId": "%3", "workingDirectory": "/src", "pid": 4242, "width": 80, "height": 24,
				"cursorX": 0, "cursorY": 0, "command": "bash", "dead": true, "inMode": false, "mode": ""},
		},
		{
			name: "display: what the backend cannot tell is null", tool: "display", args: map[string]any{"paneId": "%3"}, method: "Display",
			result: lifecycle.PaneFacts{PaneID: "%3", Width: 80, Height: 24,
				Unknown: []ports.Fact{ports.FactPID, ports.FactCursor, ports.FactCommand, ports.FactMode}},
			want: map[string]any{"paneId": "%3", "workingDirectory": nil, "pid": nil, "width": 80, "height": 24,
				"cursorX": nil, "cursorY": nil, "command": nil, "dead": false, "inMode": nil, "mode": nil},
		},
		{
			// No process has id 0: a backend that says so did not read one.
			name: "display: a pid of 0 is no pid", tool: "display", args: map[string]any{"paneId": "%3"}, method: "Display",
			result: lifecycle.PaneFacts{PaneID: "%3", Path: "/src", Width: 80, Height: 24, Command: "bash", Unknown: []ports.Fact{}},
			want: map[string]any{"paneId": "%3", "workingDirectory": "/src", "pid": nil, "width": 80, "height": 24,
				"cursorX": 0, "cursorY": 0, "command": "bash", "dead": false, "inMode": false, "mode": ""},
		},
		{
			name: "server info", tool: "get_server_info", method: "GetServerInfo",
			result: ports.ServerInfo{Address: "/tmp/tmux-0/default", Version: "3.3a", PID: 4242, Started: created,
				Sessions: 2, Windows: 5, Panes: 9, Clients: 1},
			want: map[string]any{"socket": "/tmp/tmux-0/default", "version": "3.3a", "pid": 4242, "started": "2025-06-01T12:00:00Z",
				"sessions": 2, "windows": 5, "panes": 9, "clients": 1, "safety": "destructive"},
		},
		{
			name: "server info: pid and start unknown", tool: "get_server_info", method: "GetServerInfo",
			result: ports.ServerInfo{Address: "fake", Version: "fake"},
			want: map[string]any{"socket": "fake", "version": "fake", "pid": nil, "started": nil,
				"sessions": 0, "windows": 0, "panes": 0, "clients": 0, "safety": "destructive"},
		},
		{name: "create session", tool: "create_session", method: "CreateSession", result: newPane, want: createdJSON},
		{name: "create window", tool: "create_window", args: map[string]any{"session": "work"}, method: "CreateWindow", result: newPane, want: createdJSON},
		{name: "split window", tool: "split_window", args: map[string]any{"paneId": "%3"}, method: "SplitWindow", result: newPane, want: createdJSON},
		{name: "select pane", tool: "select_pane", args: map[string]any{"paneId": "%3"}, method: "SelectPane", result: paneFixture, want: paneJSON},
		{
			name: "select window", tool: "select_window", args: map[string]any{"windowId": "@2"}, method: "SelectWindow",
			result: ports.WindowInfo{WindowRef: logsWindow, Session: workSession, Active: true, Panes: 2, Width: 200, Height: 50, Zoomed: true},
			want:   windowJSON,
		},
		{
			name: "resize pane: the size it got", tool: "resize_pane", args: map[string]any{"paneId": "%3", "width": 500},
			method: "ResizePane", result: func() lifecycle.Pane { p := paneFixture; p.Width = 200; return p }(),
			want: with(paneJSON, "width", 200),
		},
		{
			name: "resize window: the size it got", tool: "resize_window", args: map[string]any{"windowId": "@2", "width": 200},
			method: "ResizeWindow",
			result: ports.WindowInfo{WindowRef: logsWindow, Session: workSession, Active: true, Panes: 2, Width: 200, Height: 50, Zoomed: true},
			want:   windowJSON,
		},
		{
			name: "rename session", tool: "rename_session", args: map[string]any{"session": "$1", "name": "work"}, method: "RenameSession",
			result: ports.SessionInfo{SessionRef: workSession, Windows: 3, Clients: 2, Created: created},
			want:   map[string]any{"id": "$1", "name": "work", "windows": 3, "clients": 2, "created": "2025-06-01T12:00:00Z"},
		},
		{
			name: "rename window", tool: "rename_window", args: map[string]any{"windowId": "@2", "name": "logs"}, method: "RenameWindow",
			result: ports.WindowInfo{WindowRef: logsWindow, Session: workSession, Active: true, Panes: 2, Width: 200, Height: 50, Zoomed: true},
			want:   windowJSON,
		},
		{
			name: "clear scrollback", tool: "clear_pane_scrollback", args: map[string]any{"paneId": "%3"}, method: "ClearPaneScrollback",
			result: lifecycle.ClearScrollbackResult{PaneID: "%3", ClearedLines: 1500},
			want:   map[string]any{"paneId": "%3", "clearedLines": 1500},
		},
		{
			name: "respawn pane: the pane, alive again", tool: "respawn_pane", args: map[string]any{"paneId": "%3"},
			method: "RespawnPane", result: paneFixture, want: paneJSON,
		},
		{
			name: "kill pane", tool: "kill_pane", args: map[string]any{"paneId": "%3"}, method: "KillPane",
			result: lifecycle.KillResult{Killed: []ports.PaneID{"%3"}},
			want:   map[string]any{"paneId": "%3", "killedPaneIds": []any{"%3"}},
		},
		{
			name: "kill window", tool: "kill_window", args: map[string]any{"windowId": "@2"}, method: "KillWindow",
			result: lifecycle.KillResult{Killed: []ports.PaneID{"%3", "%4"}, WindowID: "@2"},
			want:   map[string]any{"windowId": "@2", "killedPaneIds": []any{"%3", "%4"}},
		},
		{
			name: "kill session whose panes were gone already", tool: "kill_session", args: map[string]any{"session": "work"},
			method: "KillSession", result: lifecycle.KillResult{Session: workSession},
			want: map[string]any{"sessionId": "$1", "sessionName": "work", "killedPaneIds": []any{}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stub, c := connectManage(t, mcp.TierDestructive)
			stub.results[tt.method] = tt.result
			if got := c.ok(tt.tool, tt.args); !jsonEqual(got, tt.want) {
				t.Errorf("structured content =\n %s\nwant\n %s", mustJSON(got), mustJSON(tt.want))
			}
		})
	}
}

func TestManageToolArgumentsBreakingTheSchemaAreToolErrors(t *testing.T) {
	tests := []struct {
		tool     string
		args     map[string]any
		contains []string
	}{
		{"get_pane_info", map[string]any{}, []string{"paneId", "missing"}},
		{"search_panes", map[string]any{}, []string{"patterns", "missing"}},
		{"display", map[string]any{}, []string{"paneId", "missing"}},
		{"search_panes", map[string]any{"patterns": []any{}}, []string{"patterns", "at least 1 item"}},
		{"search_panes", map[string]any{"patterns": "error"}, []string{"patterns", "an array of strings"}},
		{"search_panes", map[string]any{"patterns": []any{"x"}, "maxMatches": 0}, []string{"maxMatches", "greater than 0"}},
		{"search_panes", map[string]any{"patterns": []any{"x"}, "regex": "yes"}, []string{"regex", "true or false"}},
		{"get_pane_info", map[string]any{"paneId": "3"}, []string{"paneId", `got "3"`}},
		{"list_panes", map[string]any{"windowId": "2"}, []string{"windowId", `^@\d+$`}},
		{"list_windows", map[string]any{"session": ""}, []string{"session"}},
		{"list_windows", map[string]any{"session": "-t"}, []string{"session"}},
		{"kill_session", map[string]any{"session": "a:b"}, []string{"session"}},
		{"create_session", map[string]any{"width": 0}, []string{"width", "greater than 0"}},
		{"create_session", map[string]any{"height": 10001}, []string{"height", "at most 10000"}},
		{"create_session", map[string]any{"name": ""}, []string{"name", "of at least 1 character"}},
		{"create_session", map[string]any{"name": strings.Repeat("n", 257)}, []string{"name", "of at most 256 characters"}},
		{"create_window", map[string]any{"name": "logs"}, []string{"session", "missing"}},
		{"split_window", map[string]any{"paneId": "%1", "direction": "up"}, []string{"direction", `got "up"`, `one of "right", "below"`}},
		{"split_window", map[string]any{"paneId": "%1", "size": -3}, []string{"size"}},
		{"select_window", map[string]any{"windowId": "logs"}, []string{"windowId"}},
		{"resize_pane", map[string]any{"paneId": "%1", "width": 1.5}, []string{"width", "an integer"}},
		{"resize_window", map[string]any{"width": 100}, []string{"windowId", "missing"}},
		{"resize_window", map[string]any{"windowId": "@1", "width": 0}, []string{"width", "greater than 0"}},
		{"resize_window", map[string]any{"windowId": "@1", "height": 10001}, []string{"height", "at most 10000"}},
		{"rename_session", map[string]any{"session": "work"}, []string{"name", "missing"}},
		{"rename_window", map[string]any{"windowId": "@1", "name": 7}, []string{"name", "a string"}},
		{"kill_pane", map[string]any{"paneId": "%1", "force": "yes"}, []string{"force", "true or false"}},
		{"respawn_pane", map[string]any{}, []string{"paneId", "missing"}},
		{"respawn_pane", map[string]any{"paneId": "%1", "force": 1}, []string{"force", "true or false"}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s %v", tt.tool, tt.args), func(t *testing.T) {
			stub, c := connectManage(t, mcp.TierDestructive)
			msg := c.toolError(tt.tool, tt.args)
			for _, s := range append(tt.contains, "invalid") {
				if !strings.Contains(msg, s) {
					t.Errorf("error %q lacks %q", msg, s)
				}
			}
			if calls := stub.recorded(); len(calls) != 0 {
				t.Errorf("the domain was called with bad arguments: %+v", calls)
			}
		})
	}
}

func TestManageToolErrorsSayWhatToDo(t *testing.T) {
	tests := []struct {
		name     string
		tool     string
		args     map[string]any
		method   string
		err      error
		contains []string
	}{
		{"unknown session", "list_windows", map[string]any{"session": "nope"}, "ListWindows",
			fmt.Errorf("list windows of session nope: %w", ports.ErrNotFound), []string{"nope", "list_sessions"}},
		{"unknown window", "kill_window", map[string]any{"windowId": "@9"}, "KillWindow",
			fmt.Errorf("kill window @9: %w", ports.ErrNotFound), []string{"@9", "list_windows"}},
		{"name taken", "rename_session", map[string]any{"session": "$1", "name": "work"}, "RenameSession",
			fmt.Errorf("rename session $1 to %q: %w", "work", ports.ErrNameInUse), []string{"work", "another name"}},
		{"watched pane", "kill_pane", map[string]any{"paneId": "%3"}, "KillPane",
			&fault.RefusalError{Pane: "%3", Why: fault.RefusedWatched, Ending: true, Reason: "kill_pane would end it, and a person is watching it (/dev/pts/1)"},
			[]string{"refused", "%3", "watching", "leave panes that people have on screen alone"}},
		{"watched pane, respawned", "respawn_pane", map[string]any{"paneId": "%3"}, "RespawnPane",
			&fault.RefusalError{Pane: "%3", Why: fault.RefusedWatched, Ending: true, Reason: "respawn_pane would end its program, and a person is watching it (/dev/pts/1)"},
			[]string{"refused", "%3", "respawn_pane would end its program", "/dev/pts/1", "leave panes that people have on screen alone",
				"force does not override this", "once the program has exited (the pane is dead), respawn_pane restarts it"}},
		{"own pane, respawned", "respawn_pane", map[string]any{"paneId": "%3"}, "RespawnPane",
			&fault.RefusalError{Pane: "%3", Why: fault.RefusedSelf, Ending: true, Reason: "respawn_pane would end its program, and this server itself runs in it"},
			[]string{"respawn_pane would end its program", "pass force: true if you mean to"}},
		{"a backend that cannot tell, respawned", "respawn_pane", map[string]any{"paneId": "%3"}, "RespawnPane",
			&fault.RefusalError{Pane: "%3", Why: fault.RefusedUnknown, Ending: true, Reason: "respawn_pane would end its program, and the terminal backend cannot tell whether a person is watching the pane, so it might not be safe"},
			[]string{"cannot tell", "restart the program by hand", "respawn_pane restarts it without these checks"}},
		{"busy pane, respawned", "respawn_pane", map[string]any{"paneId": "%3"}, "RespawnPane",
			&fault.BusyError{Pane: "%3", Holder: `run_shell_command "make"`, Returned: true}, []string{"%3", "busy", `"make"`, "send_keys C-c"}},
		{"busy pane", "clear_pane_scrollback", map[string]any{"paneId": "%3"}, "ClearPaneScrollback",
			&fault.BusyError{Pane: "%3", Holder: `run_shell_command "make"`}, []string{"%3", "busy", `"make"`}},
		{"resize with no size", "resize_window", map[string]any{"windowId": "@2"}, "ResizeWindow",
			&fault.ArgumentError{Field: "width", Reason: "and height are both missing; give at least one"},
			[]string{"invalid width", "give at least one", "correct it and call again"}},
		{"unknown window, resized", "resize_window", map[string]any{"windowId": "@9", "width": 200}, "ResizeWindow",
			fmt.Errorf("resize window @9: %w", ports.ErrNotFound), []string{"@9", "list_windows"}},
		{"invalid regular expression", "search_panes", map[string]any{"patterns": []any{"ok", "a(b"}, "regex": true}, "SearchPanes",
			&fault.ArgumentError{Field: "patterns", Reason: `"a(b" is not an RE2 regular expression: error parsing regexp: missing closing ): ` + "`a(b`"},
			[]string{"invalid patterns", `"a(b" is not an RE2 regular expression`, "missing closing )", "correct it and call again"}},
		{"empty pattern", "search_panes", map[string]any{"patterns": []any{""}}, "SearchPanes",
			&fault.ArgumentError{Field: "patterns", Reason: "holds an empty pattern, which would match every row"},
			[]string{"invalid patterns", "empty pattern", "correct it and call again"}},
		{"unknown session, searched", "search_panes", map[string]any{"session": "nope", "patterns": []any{"x"}}, "SearchPanes",
			fmt.Errorf("search the panes of session nope: %w", ports.ErrNotFound), []string{"nope", "list_sessions"}},
		{"no pane, displayed", "display", map[string]any{"paneId": "%9"}, "Display",
			fmt.Errorf("display pane %%9: %w", ports.ErrPaneNotFound), []string{"%9", "check the pane id"}},
		{"no pane", "select_pane", map[string]any{"paneId": "%9"}, "SelectPane",
			fmt.Errorf("select pane %%9: %w", ports.ErrPaneNotFound), []string{"%9", "check the pane id"}},
		{"backend without a manager", "list_sessions", nil, "ListSessions",
			fmt.Errorf("list_sessions: %w", ports.ErrUnsupported), []string{"not supported", "not carried out"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stub, c := connectManage(t, mcp.TierDestructive)
			stub.errs[tt.method] = tt.err
			msg := c.toolError(tt.tool, tt.args)
			for _, s := range tt.contains {
				if !strings.Contains(msg, s) {
					t.Errorf("error %q lacks %q", msg, s)
				}
			}
		})
	}
}

func TestAResultBreakingAManageOutputSchemaIsAToolError(t *testing.T) {
	stub, c := connectManage(t, mcp.TierDestructive)
	stub.results["CreateSession"] = ports.Created{Pane: "7"} // not a pane id
	msg := c.toolError("create_session", nil)
	if !strings.Contains(msg, "output schema") {
		t.Errorf("error = %q, want it to name the output schema", msg)
	}
}
