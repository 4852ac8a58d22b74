package mcpadapter

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmux-mcp/tmux-mcp/domain/lifecycle"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// ManageTools is what the inspect and lifecycle tools need from the
// domain: listings, and creating, selecting, resizing, renaming, clearing
// and killing sessions, windows and panes. *lifecycle.Service implements it.
// A Server serves them when Options.Manage is set.
//
// Errors are turned into tool errors as Tools' are (see toolError): a
// *fault.ArgumentError for a malformed id or name, a *fault.RefusalError
// or *fault.BusyError for a kill or clear the write policy forbids, or an
// error wrapping a ports sentinel (ErrPaneNotFound, ErrNotFound,
// ErrNameInUse, ErrUnsupported, ErrUnavailable).
type ManageTools interface {
	ListSessions(ctx context.Context) (lifecycle.SessionList, error)
	ListWindows(ctx context.Context, req lifecycle.ListWindowsRequest) (lifecycle.WindowList, error)
	ListPanes(ctx context.Context, req lifecycle.ListPanesRequest) (lifecycle.PaneList, error)
	GetPaneInfo(ctx context.Context, req lifecycle.PaneRequest) (lifecycle.PaneDetails, error)
	GetServerInfo(ctx context.Context) (ports.ServerInfo, error)
	CreateSession(ctx context.Context, req lifecycle.CreateSessionRequest) (ports.Created, error)
	CreateWindow(ctx context.Context, req lifecycle.CreateWindowRequest) (ports.Created, error)
	SplitWindow(ctx context.Context, req lifecycle.SplitWindowRequest) (ports.Created, error)
	SelectPane(ctx context.Context, req lifecycle.PaneRequest) (lifecycle.Pane, error)
	SelectWindow(ctx context.Context, req lifecycle.SelectWindowRequest) (ports.WindowInfo, error)
	ResizePane(ctx context.Context, req lifecycle.ResizePaneRequest) (lifecycle.Pane, error)
	RenameSession(ctx context.Context, req lifecycle.RenameSessionRequest) (ports.SessionInfo, error)
	RenameWindow(ctx context.Context, req lifecycle.RenameWindowRequest) (ports.WindowInfo, error)
	ClearPaneScrollback(ctx context.Context, req lifecycle.ClearScrollbackRequest) (lifecycle.ClearScrollbackResult, error)
	KillPane(ctx context.Context, req lifecycle.KillPaneRequest) (lifecycle.KillResult, error)
	KillWindow(ctx context.Context, req lifecycle.KillWindowRequest) (lifecycle.KillResult, error)
	KillSession(ctx context.Context, req lifecycle.KillSessionRequest) (lifecycle.KillResult, error)
}

var _ ManageTools = (*lifecycle.Service)(nil)

// The descriptions open as the reference pages' do, with what a tool may
// do to the user's world: the reading tools with "accepts no
// client-supplied executable input", the others with what they change.
// Then they say what a model needs to use them: the ids they take and
// return, and when a call is refused.
const (
	listSessionsDescription = "List sessions; accepts no client-supplied executable input. " +
		"Every session of the terminal multiplexer, with its id (e.g. $1), name, number of windows, the number of " +
		"people attached to it and when it was created. Sessions are named by id or exact name in list_windows, " +
		"list_panes, create_window, rename_session and kill_session."

	listWindowsDescription = "List windows; accepts no client-supplied executable input. " +
		"The windows of one session (by id or exact name), or of every session: each window's id (e.g. @2), index, " +
		"name, whether it is its session's current window, how many panes it has, its size and whether a pane is " +
		"zoomed."

	listPanesDescription = "List panes; accepts no client-supplied executable input. " +
		"Every pane, or those of one session or one window: where each is (session, window, index), what it runs " +
		"(command, workingDirectory), its size and title, and what decides whether a write to it is refused: watched " +
		"(a person has it on screen: refused even with force), isServerOwn (this server's own pane: refused without " +
		"force), busy (a call of this server holds it) and dead. Pane ids (e.g. %3) are what run_shell_command, " +
		"paste_text, capture_pane and the other pane tools take."

	getPaneInfoDescription = "Describe one pane; accepts no client-supplied executable input. " +
		"What list_panes says of the pane, plus the other facts every write to it is checked against: its mode " +
		"(in copy mode input goes to the mode, so writes are refused), the other panes its input would also reach " +
		"(synchronized panes, also refused), its history size and limit, and whether a person is attached to its " +
		"session. Call it to find out why a write was refused or before writing to a pane you did not create."

	getServerInfoDescription = "Describe the terminal multiplexer server; accepts no client-supplied executable input. " +
		"Its socket, version, process id and start time, how many sessions, windows, panes and attached clients it " +
		"has, and this MCP server's safety tier, which decides the tools it offers (readonly, mutating, destructive)."

	createSessionDescription = "Start a program with your user's permissions: create a session, detached so that " +
		"nobody's screen switches to it, with one window and one pane running your shell, or command instead. " +
		"Returns the new pane's id (paneId), for run_shell_command and the other pane tools, and the ids of its " +
		"window and session. Names are taken literally: a name holding \"#(\", \"#{\" or \"#[\" (which tmux would " +
		"expand), control characters, \":\" or \".\", or starting with \"-\", is refused, and so is the name of " +
		"another session."

	createWindowDescription = "Start your shell with your user's permissions: add a window to a session, " +
		"without making it the session's current window, with one pane running your shell. Returns the new " +
		"pane's id (paneId) and the ids of its window and session. A name is taken literally, and refused as " +
		"create_session's are."

	splitWindowDescription = "Start your shell with your user's permissions: split a pane in two and run your " +
		"shell in the new pane, to the right of the pane (the default) or below it. The window's active pane does " +
		"not change. Returns the new pane's id (paneId) and the ids of its window and session."

	selectPaneDescription = "Change what people attached to the session see; sends no input. " +
		"Make a pane its window's active pane. The window does not become its session's current window: use " +
		"select_window for that. Returns the pane as list_panes describes it."

	selectWindowDescription = "Change what people attached to the session see; sends no input. " +
		"Make a window its session's current window. Returns the window as list_windows describes it."

	resizePaneDescription = "Change a pane's size; its program sees the new size. " +
		"Ask for a width, a height or both, in cells. A pane cannot outgrow its window, so it may get less than " +
		"asked: the result is the pane as list_panes describes it, with the size it got."

	renameSessionDescription = "Rename a session; sends no input. The session keeps its id. The name is taken " +
		"literally and refused as create_session's are, and when another session has it. Returns the session as " +
		"list_sessions describes it."

	renameWindowDescription = "Rename a window; sends no input. The window keeps the name instead of being " +
		"named after its program, and keeps its id. The name is taken literally and refused as create_window's are. " +
		"Returns the window as list_windows describes it."

	// The refusals every kill and clear share.
	endRefusals = "Refused, before anything is done, for a pane a person is watching (even with force), for the " +
		"pane this server itself runs in unless force, for a pane a command of this server or of another tmux-mcp " +
		"process holds (busy), and when the backend cannot tell who watches the pane."

	clearPaneScrollbackDescription = "Discard a pane's scrollback for good: the rows held above its visible " +
		"screen, which can no longer be read. The screen itself is left as it is. " + endRefusals

	killPaneDescription = "End a pane's program and remove the pane for good; a window left without panes " +
		"closes, and a session left without windows ends. " + endRefusals

	killWindowDescription = "Close a window for good and end the programs of all its panes; a session left " +
		"without windows ends. Every pane is checked first as kill_pane checks one; if any is refused, nothing is " +
		"killed and the error names that pane. " + endRefusals

	killSessionDescription = "End a session for good: close its windows and end the programs of all their " +
		"panes. Every pane is checked first as kill_pane checks one; if any is refused, nothing is killed and the " +
		"error names that pane. Ending the last session may stop the multiplexer server itself. " + endRefusals
)

// layoutAnnotations are those of the tools that create, select, resize
// and rename. CONTRACT.md makes every writing tool non-idempotent. They
// act on the multiplexer alone, a closed world, except where a program
// starts that the caller chose (create_session's command).
func layoutAnnotations(title string, openWorld bool) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{
		Title:           title,
		ReadOnlyHint:    false,
		IdempotentHint:  false,
		DestructiveHint: new(false),
		OpenWorldHint:   new(openWorld),
	}
}

// endingAnnotations are those of the tools that kill or clear: the only
// destructive ones.
func endingAnnotations(title string) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{
		Title:           title,
		ReadOnlyHint:    false,
		IdempotentHint:  false,
		DestructiveHint: new(true),
		OpenWorldHint:   new(false),
	}
}

// manageSpecs are the inspect and lifecycle tools, in the order they are
// listed.
func (s *Server) manageSpecs() []toolSpec {
	return []toolSpec{
		{name: "list_sessions", title: "List sessions", description: listSessionsDescription,
			annotations: readingAnnotations("List sessions"), call: s.listSessions},
		{name: "list_windows", title: "List windows", description: listWindowsDescription,
			annotations: readingAnnotations("List windows"), call: s.listWindows},
		{name: "list_panes", title: "List panes", description: listPanesDescription,
			annotations: readingAnnotations("List panes"), call: s.listPanes},
		{name: "get_pane_info", title: "Get pane info", description: getPaneInfoDescription,
			annotations: readingAnnotations("Get pane info"), call: s.getPaneInfo},
		{name: "get_server_info", title: "Get server info", description: getServerInfoDescription,
			annotations: readingAnnotations("Get server info"), call: s.getServerInfo},
		{name: "create_session", title: "Create session", description: createSessionDescription,
			annotations: layoutAnnotations("Create session", true), call: s.createSession},
		{name: "create_window", title: "Create window", description: createWindowDescription,
			annotations: layoutAnnotations("Create window", false), call: s.createWindow},
		{name: "split_window", title: "Split window", description: splitWindowDescription,
			annotations: layoutAnnotations("Split window", false), call: s.splitWindow},
		{name: "select_pane", title: "Select pane", description: selectPaneDescription,
			annotations: layoutAnnotations("Select pane", false), call: s.selectPane},
		{name: "select_window", title: "Select window", description: selectWindowDescription,
			annotations: layoutAnnotations("Select window", false), call: s.selectWindow},
		{name: "resize_pane", title: "Resize pane", description: resizePaneDescription,
			annotations: layoutAnnotations("Resize pane", false), call: s.resizePane},
		{name: "rename_session", title: "Rename session", description: renameSessionDescription,
			annotations: layoutAnnotations("Rename session", false), call: s.renameSession},
		{name: "rename_window", title: "Rename window", description: renameWindowDescription,
			annotations: layoutAnnotations("Rename window", false), call: s.renameWindow},
		{name: "clear_pane_scrollback", title: "Clear pane scrollback", description: clearPaneScrollbackDescription,
			annotations: endingAnnotations("Clear pane scrollback"), call: s.clearPaneScrollback},
		{name: "kill_pane", title: "Kill pane", description: killPaneDescription,
			annotations: endingAnnotations("Kill pane"), call: s.killPane},
		{name: "kill_window", title: "Kill window", description: killWindowDescription,
			annotations: endingAnnotations("Kill window"), call: s.killWindow},
		{name: "kill_session", title: "Kill session", description: killSessionDescription,
			annotations: endingAnnotations("Kill session"), call: s.killSession},
	}
}

func (s *Server) listSessions(ctx context.Context, _ *mcp.CallToolRequest, _ arguments) (any, string, error) {
	r, err := s.manage.ListSessions(ctx)
	if err != nil {
		return nil, "", err
	}
	return fromSessionList(r), "", nil
}

func (s *Server) listWindows(ctx context.Context, _ *mcp.CallToolRequest, a arguments) (any, string, error) {
	r, err := s.manage.ListWindows(ctx, lifecycle.ListWindowsRequest{Session: a.str("session")})
	if err != nil {
		return nil, "", err
	}
	return fromWindowList(r), "", nil
}

func (s *Server) listPanes(ctx context.Context, _ *mcp.CallToolRequest, a arguments) (any, string, error) {
	r, err := s.manage.ListPanes(ctx, lifecycle.ListPanesRequest{Session: a.str("session"), Window: a.str("windowId")})
	if err != nil {
		return nil, "", err
	}
	return fromPaneList(r), "", nil
}

func (s *Server) getPaneInfo(ctx context.Context, _ *mcp.CallToolRequest, a arguments) (any, string, error) {
	r, err := s.manage.GetPaneInfo(ctx, lifecycle.PaneRequest{PaneID: a.pane()})
	if err != nil {
		return nil, "", err
	}
	return fromPaneInfo(r), "", nil
}

func (s *Server) getServerInfo(ctx context.Context, _ *mcp.CallToolRequest, _ arguments) (any, string, error) {
	r, err := s.manage.GetServerInfo(ctx)
	if err != nil {
		return nil, "", err
	}
	return fromServerInfo(r, s.tier), "", nil
}

func (s *Server) createSession(ctx context.Context, _ *mcp.CallToolRequest, a arguments) (any, string, error) {
	r, err := s.manage.CreateSession(ctx, lifecycle.CreateSessionRequest{
		Name:    a.str("name"),
		Command: a.str("command"),
		Width:   a.cells("width"),
		Height:  a.cells("height"),
	})
	if err != nil {
		return nil, "", err
	}
	return fromCreated(r), "", nil
}

func (s *Server) createWindow(ctx context.Context, _ *mcp.CallToolRequest, a arguments) (any, string, error) {
	r, err := s.manage.CreateWindow(ctx, lifecycle.CreateWindowRequest{Session: a.str("session"), Name: a.str("name")})
	if err != nil {
		return nil, "", err
	}
	return fromCreated(r), "", nil
}

func (s *Server) splitWindow(ctx context.Context, _ *mcp.CallToolRequest, a arguments) (any, string, error) {
	r, err := s.manage.SplitWindow(ctx, lifecycle.SplitWindowRequest{
		PaneID:   a.pane(),
		Vertical: a.str("direction") == "below",
		Size:     a.cells("size"),
	})
	if err != nil {
		return nil, "", err
	}
	return fromCreated(r), "", nil
}

func (s *Server) selectPane(ctx context.Context, _ *mcp.CallToolRequest, a arguments) (any, string, error) {
	r, err := s.manage.SelectPane(ctx, lifecycle.PaneRequest{PaneID: a.pane()})
	if err != nil {
		return nil, "", err
	}
	return fromPane(r), "", nil
}

func (s *Server) selectWindow(ctx context.Context, _ *mcp.CallToolRequest, a arguments) (any, string, error) {
	r, err := s.manage.SelectWindow(ctx, lifecycle.SelectWindowRequest{WindowID: a.str("windowId")})
	if err != nil {
		return nil, "", err
	}
	return fromWindow(r), "", nil
}

func (s *Server) resizePane(ctx context.Context, _ *mcp.CallToolRequest, a arguments) (any, string, error) {
	r, err := s.manage.ResizePane(ctx, lifecycle.ResizePaneRequest{PaneID: a.pane(), Width: a.cells("width"), Height: a.cells("height")})
	if err != nil {
		return nil, "", err
	}
	return fromPane(r), "", nil
}

func (s *Server) renameSession(ctx context.Context, _ *mcp.CallToolRequest, a arguments) (any, string, error) {
	r, err := s.manage.RenameSession(ctx, lifecycle.RenameSessionRequest{Session: a.str("session"), Name: a.str("name")})
	if err != nil {
		return nil, "", err
	}
	return fromSession(r), "", nil
}

func (s *Server) renameWindow(ctx context.Context, _ *mcp.CallToolRequest, a arguments) (any, string, error) {
	r, err := s.manage.RenameWindow(ctx, lifecycle.RenameWindowRequest{WindowID: a.str("windowId"), Name: a.str("name")})
	if err != nil {
		return nil, "", err
	}
	return fromWindow(r), "", nil
}

func (s *Server) clearPaneScrollback(ctx context.Context, _ *mcp.CallToolRequest, a arguments) (any, string, error) {
	r, err := s.manage.ClearPaneScrollback(ctx, lifecycle.ClearScrollbackRequest{PaneID: a.pane(), Force: a.flag("force")})
	if err != nil {
		return nil, "", err
	}
	return clearOutput{PaneID: string(r.PaneID), ClearedLines: int64(r.ClearedLines)}, "", nil
}

func (s *Server) killPane(ctx context.Context, _ *mcp.CallToolRequest, a arguments) (any, string, error) {
	r, err := s.manage.KillPane(ctx, lifecycle.KillPaneRequest{PaneID: a.pane(), Force: a.flag("force")})
	if err != nil {
		return nil, "", err
	}
	return killPaneOutput{PaneID: a.str("paneId"), Killed: paneIDStrings(r.Killed)}, "", nil
}

func (s *Server) killWindow(ctx context.Context, _ *mcp.CallToolRequest, a arguments) (any, string, error) {
	r, err := s.manage.KillWindow(ctx, lifecycle.KillWindowRequest{WindowID: a.str("windowId"), Force: a.flag("force")})
	if err != nil {
		return nil, "", err
	}
	return killWindowOutput{WindowID: r.WindowID, Killed: paneIDStrings(r.Killed)}, "", nil
}

func (s *Server) killSession(ctx context.Context, _ *mcp.CallToolRequest, a arguments) (any, string, error) {
	r, err := s.manage.KillSession(ctx, lifecycle.KillSessionRequest{Session: a.str("session"), Force: a.flag("force")})
	if err != nil {
		return nil, "", err
	}
	return killSessionOutput{SessionID: r.Session.ID, SessionName: r.Session.Name, Killed: paneIDStrings(r.Killed)}, "", nil
}
