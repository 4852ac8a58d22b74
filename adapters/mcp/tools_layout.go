package mcp

import (
	"github.com/tmux-mcp/tmux-mcp/domain/lifecycle"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// create_session, create_window, split_window, select_pane, select_window,
// resize_pane, resize_window, rename_session and rename_window, the tools
// that shape the sessions.

func (s *Server) createSession() declaration {
	return tool[createSessionArgs, createdOutput]{
		name:        "create_session",
		description: createSessionDescription,
		annotations: layoutAnnotations("Create session", true),
		call:        serve(s.manage.CreateSession, createSessionArgs.request, fromCreated),
	}
}

const createSessionDescription = "Start a program with your user's permissions: create a session, detached so that " +
	"nobody's screen switches to it, with one window and one pane running your shell, or command instead. " +
	"Returns the new pane's id (paneId), for run_shell_command and the other pane tools, and the ids of its " +
	"window and session. Names are taken literally: a name holding \"#(\", \"#{\" or \"#[\" (which tmux would " +
	"expand), control characters, \":\" or \".\", or starting with \"-\", is refused, and so is the name of " +
	"another session."

type createSessionArgs struct {
	Name    string `json:"name,omitempty" jsonschema:"The new session's name; omit it to let the multiplexer choose one. Refused if another session has it. Taken literally; refused if it holds control characters, \"#(\", \"#{\" or \"#[\" (which tmux would expand) or starts with \"-\", or holds \":\" or \".\" (which separate the parts of a target)." hostsjsonschema:"The new session's host and name: web2:work makes the session work on host web2; web2: lets the multiplexer choose the name there. A name without a host makes it on the first host configured; omit it for that host and a name the multiplexer chooses. Refused if another session of the host has the name. Taken literally; refused if it holds control characters, \"#(\", \"#{\" or \"#[\" (which tmux would expand), or its name starts with \"-\" or holds \":\" or \".\" (which separate the parts of a target)." schema:"minLength=1,maxLength=256" hostsschema:"maxLength=321"`
	Command string `json:"command,omitempty" jsonschema:"A shell command line the session's first pane runs instead of your shell, with your user's permissions; the pane ends when it does. Omit it to start your shell." schema:"minLength=1,maxLength=65536"`
	Width   int    `json:"width,omitempty" jsonschema:"The width of the session's first window in cells; omit it for the multiplexer's default." schema:"exclusiveMinimum=0,maximum=10000"`
	Height  int    `json:"height,omitempty" jsonschema:"The height of the session's first window in cells; omit it for the multiplexer's default." schema:"exclusiveMinimum=0,maximum=10000"`
}

func (a createSessionArgs) request() lifecycle.CreateSessionRequest {
	return lifecycle.CreateSessionRequest{Name: a.Name, Command: a.Command, Width: a.Width, Height: a.Height}
}

// createdOutput is what create_session, create_window and split_window
// report: the new pane and what holds it.
type createdOutput struct {
	PaneID      ports.PaneID `json:"paneId" jsonschema:"The new pane's id, e.g. %1: what run_shell_command and the other pane tools take."`
	SessionID   sessionID    `json:"sessionId" jsonschema:"The id of the session holding it, e.g. $1."`
	SessionName string       `json:"sessionName" jsonschema:"The name of the session holding it."`
	WindowID    windowID     `json:"windowId" jsonschema:"The id of the window holding it, e.g. @2."`
	WindowIndex int          `json:"windowIndex" jsonschema:"The number of the window holding it, in its session."`
	WindowName  string       `json:"windowName" jsonschema:"The name of the window holding it."`
}

func fromCreated(c ports.Created) createdOutput {
	return createdOutput{
		PaneID:      c.Pane,
		SessionID:   sessionID(c.Session.ID),
		SessionName: c.Session.Name,
		WindowID:    windowID(c.Window.ID),
		WindowIndex: c.Window.Index,
		WindowName:  c.Window.Name,
	}
}

func (s *Server) createWindow() declaration {
	return tool[createWindowArgs, createdOutput]{
		name:        "create_window",
		description: createWindowDescription,
		annotations: layoutAnnotations("Create window", false),
		call:        serve(s.manage.CreateWindow, createWindowArgs.request, fromCreated),
	}
}

const createWindowDescription = "Start your shell with your user's permissions: add a window to a session, " +
	"without making it the session's current window, with one pane running your shell. Returns the new " +
	"pane's id (paneId) and the ids of its window and session. A name is taken literally, and refused as " +
	"create_session's are."

type createWindowArgs struct {
	Session sessionRef `json:"session" jsonschema:"The session to add the window to: its id (e.g. $1) or its exact name (list_sessions lists them)."`
	Name    string     `json:"name,omitempty" jsonschema:"The new window's name; omit it to have the window named after its program. Taken literally; refused if it holds control characters, \"#(\", \"#{\" or \"#[\" (which tmux would expand) or starts with \"-\"." schema:"minLength=1,maxLength=256"`
}

func (a createWindowArgs) request() lifecycle.CreateWindowRequest {
	return lifecycle.CreateWindowRequest{Session: string(a.Session), Name: a.Name}
}

func (s *Server) splitWindow() declaration {
	return tool[splitWindowArgs, createdOutput]{
		name:        "split_window",
		description: splitWindowDescription,
		annotations: layoutAnnotations("Split window", false),
		call:        serve(s.manage.SplitWindow, splitWindowArgs.request, fromCreated),
	}
}

const splitWindowDescription = "Start your shell with your user's permissions: split a pane in two and run your " +
	"shell in the new pane, to the right of the pane (the default) or below it. The window's active pane does " +
	"not change. Returns the new pane's id (paneId) and the ids of its window and session."

type splitWindowArgs struct {
	PaneID    ports.PaneID `json:"paneId" jsonschema:"The pane to split, e.g. %1."`
	Direction string       `json:"direction,omitempty" jsonschema:"Where the new pane goes: right (the default) beside the pane, below under it." schema:"enum=right|below"`
	Size      int          `json:"size,omitempty" jsonschema:"The new pane's width (right) or height (below) in cells; omit it to halve the pane." schema:"exclusiveMinimum=0,maximum=10000"`
}

func (a splitWindowArgs) request() lifecycle.SplitWindowRequest {
	return lifecycle.SplitWindowRequest{PaneID: a.PaneID, Vertical: a.Direction == "below", Size: a.Size}
}

func (s *Server) selectPane() declaration {
	return tool[selectPaneArgs, paneOutput]{
		name:        "select_pane",
		description: selectPaneDescription,
		annotations: layoutAnnotations("Select pane", false),
		call:        serve(s.manage.SelectPane, selectPaneArgs.request, fromPane),
	}
}

const selectPaneDescription = "Change what people attached to the session see; sends no input. " +
	"Make a pane its window's active pane. The window does not become its session's current window: use " +
	"select_window for that. Returns the pane as list_panes describes it."

type selectPaneArgs struct {
	PaneID ports.PaneID `json:"paneId" jsonschema:"The pane to make its window's active pane, e.g. %1."`
}

func (a selectPaneArgs) request() lifecycle.PaneRequest {
	return lifecycle.PaneRequest{PaneID: a.PaneID}
}

func (s *Server) selectWindow() declaration {
	return tool[selectWindowArgs, windowOutput]{
		name:        "select_window",
		description: selectWindowDescription,
		annotations: layoutAnnotations("Select window", false),
		call:        serve(s.manage.SelectWindow, selectWindowArgs.request, fromWindow),
	}
}

const selectWindowDescription = "Change what people attached to the session see; sends no input. " +
	"Make a window its session's current window. Returns the window as list_windows describes it."

type selectWindowArgs struct {
	WindowID windowID `json:"windowId" jsonschema:"The window to make its session's current window, e.g. @2."`
}

func (a selectWindowArgs) request() lifecycle.SelectWindowRequest {
	return lifecycle.SelectWindowRequest{WindowID: string(a.WindowID)}
}

func (s *Server) resizePane() declaration {
	return tool[resizePaneArgs, paneOutput]{
		name:        "resize_pane",
		description: resizePaneDescription,
		annotations: layoutAnnotations("Resize pane", false),
		call:        serve(s.manage.ResizePane, resizePaneArgs.request, fromPane),
	}
}

const resizePaneDescription = "Change a pane's size; its program sees the new size. " +
	"Ask for a width, a height or both, in cells. A pane cannot outgrow its window, so it may get less than " +
	"asked: the result is the pane as list_panes describes it, with the size it got."

type resizePaneArgs struct {
	PaneID ports.PaneID `json:"paneId"`
	Width  int          `json:"width,omitempty" jsonschema:"The width wanted, in cells; omit it to keep the width. Give width, height or both." schema:"exclusiveMinimum=0,maximum=10000"`
	Height int          `json:"height,omitempty" jsonschema:"The height wanted, in cells; omit it to keep the height. Give width, height or both." schema:"exclusiveMinimum=0,maximum=10000"`
}

func (a resizePaneArgs) request() lifecycle.ResizePaneRequest {
	return lifecycle.ResizePaneRequest{PaneID: a.PaneID, Width: a.Width, Height: a.Height}
}

func (s *Server) resizeWindow() declaration {
	return tool[resizeWindowArgs, windowOutput]{
		name:        "resize_window",
		description: resizeWindowDescription,
		annotations: layoutAnnotations("Resize window", false),
		call:        serve(s.manage.ResizeWindow, resizeWindowArgs.request, fromWindow),
	}
}

const resizeWindowDescription = "Change a window's size; the programs in its panes see their new sizes. " +
	"Ask for a width, a height or both, in cells; the panes share the new size as the multiplexer lays them " +
	"out. A detached session's windows have the multiplexer's default size, often 80 columns, at which programs " +
	"wrap or cut their output: give the window room before reading wide output. tmux then keeps the size asked " +
	"for instead of following the terminals of people who attach later. Returns the window as list_windows " +
	"describes it, with the size it got."

type resizeWindowArgs struct {
	WindowID windowID `json:"windowId" jsonschema:"The window to resize, e.g. @2."`
	Width    int      `json:"width,omitempty" jsonschema:"The width wanted, in cells; omit it to keep the width. Give width, height or both." schema:"exclusiveMinimum=0,maximum=10000"`
	Height   int      `json:"height,omitempty" jsonschema:"The height wanted, in cells; omit it to keep the height. Give width, height or both." schema:"exclusiveMinimum=0,maximum=10000"`
}

func (a resizeWindowArgs) request() lifecycle.ResizeWindowRequest {
	return lifecycle.ResizeWindowRequest{WindowID: string(a.WindowID), Width: a.Width, Height: a.Height}
}

func (s *Server) renameSession() declaration {
	return tool[renameSessionArgs, sessionOutput]{
		name:        "rename_session",
		description: renameSessionDescription,
		annotations: layoutAnnotations("Rename session", false),
		call:        serve(s.manage.RenameSession, renameSessionArgs.request, fromSession),
	}
}

const renameSessionDescription = "Rename a session; sends no input. The session keeps its id. The name is taken " +
	"literally and refused as create_session's are, and when another session has it. Returns the session as " +
	"list_sessions describes it."

type renameSessionArgs struct {
	Session sessionRef `json:"session" jsonschema:"The session to rename: its id (e.g. $1) or its exact name (list_sessions lists them)."`
	Name    string     `json:"name" jsonschema:"The session's new name. Refused if another session has it. Taken literally; refused if it holds control characters, \"#(\", \"#{\" or \"#[\" (which tmux would expand) or starts with \"-\", or holds \":\" or \".\" (which separate the parts of a target)." schema:"minLength=1,maxLength=256"`
}

func (a renameSessionArgs) request() lifecycle.RenameSessionRequest {
	return lifecycle.RenameSessionRequest{Session: string(a.Session), Name: a.Name}
}

func (s *Server) renameWindow() declaration {
	return tool[renameWindowArgs, windowOutput]{
		name:        "rename_window",
		description: renameWindowDescription,
		annotations: layoutAnnotations("Rename window", false),
		call:        serve(s.manage.RenameWindow, renameWindowArgs.request, fromWindow),
	}
}

const renameWindowDescription = "Rename a window; sends no input. The window keeps the name instead of being " +
	"named after its program, and keeps its id. The name is taken literally and refused as create_window's are. " +
	"Returns the window as list_windows describes it."

type renameWindowArgs struct {
	WindowID windowID `json:"windowId" jsonschema:"The window to rename, e.g. @2."`
	Name     string   `json:"name" jsonschema:"The window's new name, which it keeps (it is no longer named after its program). Taken literally; refused if it holds control characters, \"#(\", \"#{\" or \"#[\" (which tmux would expand) or starts with \"-\"." schema:"minLength=1,maxLength=256"`
}

func (a renameWindowArgs) request() lifecycle.RenameWindowRequest {
	return lifecycle.RenameWindowRequest{WindowID: string(a.WindowID), Name: a.Name}
}
