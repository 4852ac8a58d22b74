package mcp_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmux-mcp/tmux-mcp/domain/lifecycle"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// manageStub is a stubTools that also serves the inspect and lifecycle
// tools: each method records its request and answers with the result set
// for it in results (by method name), or the error in errs. A method with
// neither fails the test.
type manageStub struct {
	*stubTools
	results map[string]any
	errs    map[string]error

	mu   sync.Mutex
	made []manageCall
}

type manageCall struct {
	method string
	req    any // the domain request; nil for methods that take none
}

func newManageStub(t *testing.T) *manageStub {
	return &manageStub{stubTools: &stubTools{t: t}, results: map[string]any{}, errs: map[string]error{}}
}

// recorded returns the calls made so far.
func (m *manageStub) recorded() []manageCall {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]manageCall(nil), m.made...)
}

func answer[T any](m *manageStub, method string, req any) (T, error) {
	m.mu.Lock()
	m.made = append(m.made, manageCall{method, req})
	res, hasRes := m.results[method]
	err := m.errs[method]
	m.mu.Unlock()
	var zero T
	if err != nil {
		return zero, err
	}
	if !hasRes {
		m.t.Errorf("unexpected %s(%+v)", method, req)
		return zero, fmt.Errorf("unexpected %s", method)
	}
	return res.(T), nil
}

func (m *manageStub) ListSessions(context.Context) (lifecycle.SessionList, error) {
	return answer[lifecycle.SessionList](m, "ListSessions", nil)
}

func (m *manageStub) ListWindows(_ context.Context, req lifecycle.ListWindowsRequest) (lifecycle.WindowList, error) {
	return answer[lifecycle.WindowList](m, "ListWindows", req)
}

func (m *manageStub) ListPanes(_ context.Context, req lifecycle.ListPanesRequest) (lifecycle.PaneList, error) {
	return answer[lifecycle.PaneList](m, "ListPanes", req)
}

func (m *manageStub) SearchPanes(_ context.Context, req lifecycle.SearchPanesRequest) (lifecycle.SearchPanesResult, error) {
	return answer[lifecycle.SearchPanesResult](m, "SearchPanes", req)
}

func (m *manageStub) Display(_ context.Context, req lifecycle.PaneRequest) (lifecycle.PaneFacts, error) {
	return answer[lifecycle.PaneFacts](m, "Display", req)
}

func (m *manageStub) GetPaneInfo(_ context.Context, req lifecycle.PaneRequest) (lifecycle.PaneDetails, error) {
	return answer[lifecycle.PaneDetails](m, "GetPaneInfo", req)
}

func (m *manageStub) GetServerInfo(context.Context) (ports.ServerInfo, error) {
	return answer[ports.ServerInfo](m, "GetServerInfo", nil)
}

func (m *manageStub) CreateSession(_ context.Context, req lifecycle.CreateSessionRequest) (ports.Created, error) {
	return answer[ports.Created](m, "CreateSession", req)
}

func (m *manageStub) CreateWindow(_ context.Context, req lifecycle.CreateWindowRequest) (ports.Created, error) {
	return answer[ports.Created](m, "CreateWindow", req)
}

func (m *manageStub) SplitWindow(_ context.Context, req lifecycle.SplitWindowRequest) (ports.Created, error) {
	return answer[ports.Created](m, "SplitWindow", req)
}

func (m *manageStub) SelectPane(_ context.Context, req lifecycle.PaneRequest) (lifecycle.Pane, error) {
	return answer[lifecycle.Pane](m, "SelectPane", req)
}

func (m *manageStub) SelectWindow(_ context.Context, req lifecycle.SelectWindowRequest) (ports.WindowInfo, error) {
	return answer[ports.WindowInfo](m, "SelectWindow", req)
}

func (m *manageStub) ResizePane(_ context.Context, req lifecycle.ResizePaneRequest) (lifecycle.Pane, error) {
	return answer[lifecycle.Pane](m, "ResizePane", req)
}

func (m *manageStub) ResizeWindow(_ context.Context, req lifecycle.ResizeWindowRequest) (ports.WindowInfo, error) {
	return answer[ports.WindowInfo](m, "ResizeWindow", req)
}

func (m *manageStub) RenameSession(_ context.Context, req lifecycle.RenameSessionRequest) (ports.SessionInfo, error) {
	return answer[ports.SessionInfo](m, "RenameSession", req)
}

func (m *manageStub) RenameWindow(_ context.Context, req lifecycle.RenameWindowRequest) (ports.WindowInfo, error) {
	return answer[ports.WindowInfo](m, "RenameWindow", req)
}

func (m *manageStub) ClearPaneScrollback(_ context.Context, req lifecycle.ClearScrollbackRequest) (lifecycle.ClearScrollbackResult, error) {
	return answer[lifecycle.ClearScrollbackResult](m, "ClearPaneScrollback", req)
}

func (m *manageStub) RespawnPane(_ context.Context, req lifecycle.RespawnPaneRequest) (lifecycle.Pane, error) {
	return answer[lifecycle.Pane](m, "RespawnPane", req)
}

func (m *manageStub) KillPane(_ context.Context, req lifecycle.KillPaneRequest) (lifecycle.KillResult, error) {
	return answer[lifecycle.KillResult](m, "KillPane", req)
}

func (m *manageStub) KillWindow(_ context.Context, req lifecycle.KillWindowRequest) (lifecycle.KillResult, error) {
	return answer[lifecycle.KillResult](m, "KillWindow", req)
}

func (m *manageStub) KillSession(_ context.Context, req lifecycle.KillSessionRequest) (lifecycle.KillResult, error) {
	return answer[lifecycle.KillResult](m, "KillSession", req)
}

// Tool sets, by tier (the tools of a tier and of the tiers below it).
var (
	readonlyTools = []string{"capture_pane", "capture_since", "display", "get_pane_info", "get_server_info", "list_panes",
		"list_sessions", "list_windows", "read_output", "search_panes", "wait_for_command", "wait_for_text"}
	mutatingOnlyTools = []string{"create_session", "create_window", "paste_text", "rename_session", "rename_window",
		"resize_pane", "resize_window", "run_shell_command", "select_pane", "select_window", "send_keys", "signal_command", "split_window"}
	destructiveOnlyTools = []string{"clear_pane_scrollback", "kill_pane", "kill_session", "kill_window", "respawn_pane"}

	// hostTools are the tools of a server of several hosts alone.
	hostTools = []string{"list_hosts"}

	// manageTools are the inspect and lifecycle tools.
	manageTools = []string{"clear_pane_scrollback", "create_session", "create_window", "display", "get_pane_info",
		"get_server_info", "kill_pane", "kill_session", "kill_window", "list_panes", "list_sessions", "list_windows",
		"rename_session", "rename_window", "resize_pane", "resize_window", "respawn_pane", "search_panes", "select_pane",
		"select_window", "split_window"}
)

// mcpClient calls tools on a connected session, failing the test on a
// protocol error.
type mcpClient struct {
	t  *testing.T
	cs *sdk.ClientSession
}

// ok calls tool and returns its structured content, failing the test on a
// tool error.
func (c *mcpClient) ok(tool string, args map[string]any) map[string]any {
	c.t.Helper()
	return structured(c.t, c.call(tool, args))
}

// toolError calls tool and returns the text of the tool error it must end
// in.
func (c *mcpClient) toolError(tool string, args map[string]any) string {
	c.t.Helper()
	return toolErrorText(c.t, c.call(tool, args))
}

func (c *mcpClient) call(tool string, args map[string]any) *sdk.CallToolResult {
	c.t.Helper()
	if args == nil {
		args = map[string]any{}
	}
	return call(c.t, c.cs, tool, args)
}
