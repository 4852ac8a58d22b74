package mcp

import (
	"context"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmux-mcp/tmux-mcp/domain/lifecycle"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// clear_pane_scrollback, respawn_pane, kill_pane, kill_window and
// kill_session, the tools that end or discard something for good: the only
// destructive ones. respawn_pane is among them because it ends the pane's
// program as kill_pane does (tmux's respawn-pane -k); that it then starts
// the program again does not bring back what the old one held.

// endRefusals are the refusals every kill and clear shares.
const endRefusals = "Refused, before anything is done, for a pane a person is watching (even with force), for the " +
	"pane this server itself runs in unless force, for a pane a command of this server or of another tmux-mcp " +
	"process holds (busy), and when the backend cannot tell who watches the pane."

// endForce is the force argument of the tools that end or discard.
type endForce struct {
	Force bool `json:"force,omitempty" jsonschema:"Allow this for the pane this server itself runs in (or a window or session holding it), which is otherwise refused. It does not override the refusal for a pane a person is watching."`
}

// killed is what every kill reports first: the panes it ended.
type killed struct {
	KilledPaneIDs []ports.PaneID `json:"killedPaneIds" jsonschema:"The panes that were ended, in listing order."`
}

func (s *Server) clearPaneScrollback() declaration {
	return tool[clearArgs, clearOutput]{
		name:        "clear_pane_scrollback",
		description: clearPaneScrollbackDescription,
		annotations: endingAnnotations("Clear pane scrollback"),
		call: serve(s.manage.ClearPaneScrollback, clearArgs.request, func(r lifecycle.ClearScrollbackResult) clearOutput {
			return clearOutput{ClearedLines: int64(r.ClearedLines), PaneID: r.PaneID}
		}),
	}
}

const clearPaneScrollbackDescription = "Discard a pane's scrollback for good: the rows held above its visible " +
	"screen, which can no longer be read. The screen itself is left as it is. " + endRefusals

type clearArgs struct {
	PaneID ports.PaneID `json:"paneId"`
	endForce
}

func (a clearArgs) request() lifecycle.ClearScrollbackRequest {
	return lifecycle.ClearScrollbackRequest{PaneID: a.PaneID, Force: a.Force}
}

type clearOutput struct {
	ClearedLines int64        `json:"clearedLines" jsonschema:"How many history rows were discarded."`
	PaneID       ports.PaneID `json:"paneId"`
}

func (s *Server) respawnPane() declaration {
	return tool[respawnPaneArgs, paneOutput]{
		name:        "respawn_pane",
		description: respawnPaneDescription,
		annotations: endingAnnotations("Respawn pane"),
		call:        serve(s.manage.RespawnPane, respawnPaneArgs.request, fromPane),
	}
}

const respawnPaneDescription = "End a pane's program for good and start it again in the same pane, with your " +
	"user's permissions: the program the pane was started with (your shell, or the command it was created with) " +
	"runs afresh, and the pane keeps its id and its place. For a pane whose program exited (dead: it takes no " +
	"input) or is stuck past what send_keys C-c and C-\\ reach. What the old program held is lost, the screen " +
	"starts blank, and capture_since cursors taken before no longer work; run_shell_command waits for the new " +
	"shell to read input. Returns the pane as list_panes describes it. " + endRefusals + " These are kill_pane's " +
	"refusals, for a live pane. A dead pane ends nothing, so it is respawned even while a person has it on screen " +
	"or the backend cannot tell who does; one another writer holds is refused all the same."

type respawnPaneArgs struct {
	PaneID ports.PaneID `json:"paneId" jsonschema:"The pane whose program to start again, e.g. %1. It keeps this id."`
	Force  bool         `json:"force,omitempty" jsonschema:"Allow this for the pane this server itself runs in, which is otherwise refused while its program runs. It does not override the refusal for a pane a person is watching, nor for a busy one."`
}

func (a respawnPaneArgs) request() lifecycle.RespawnPaneRequest {
	return lifecycle.RespawnPaneRequest{PaneID: a.PaneID, Force: a.Force}
}

func (s *Server) killPane() declaration {
	return tool[killPaneArgs, killPaneOutput]{
		name:        "kill_pane",
		description: killPaneDescription,
		annotations: endingAnnotations("Kill pane"),
		// The result names the pane as the call did: a killed pane has no
		// other id to report.
		call: func(ctx context.Context, _ *sdk.CallToolRequest, a killPaneArgs) (killPaneOutput, string, error) {
			r, err := s.manage.KillPane(ctx, lifecycle.KillPaneRequest{PaneID: a.PaneID, Force: a.Force})
			if err != nil {
				return killPaneOutput{}, "", err
			}
			return killPaneOutput{killed: killed{paneIDs(r.Killed)}, PaneID: a.PaneID}, "", nil
		},
	}
}

const killPaneDescription = "End a pane's program and remove the pane for good; a window left without panes " +
	"closes, and a session left without windows ends. " + endRefusals

type killPaneArgs struct {
	PaneID ports.PaneID `json:"paneId" jsonschema:"The pane to end, e.g. %1."`
	endForce
}

type killPaneOutput struct {
	killed
	PaneID ports.PaneID `json:"paneId"`
}

func (s *Server) killWindow() declaration {
	return tool[killWindowArgs, killWindowOutput]{
		name:        "kill_window",
		description: killWindowDescription,
		annotations: endingAnnotations("Kill window"),
		call: serve(s.manage.KillWindow, killWindowArgs.request, func(r lifecycle.KillResult) killWindowOutput {
			return killWindowOutput{killed: killed{paneIDs(r.Killed)}, WindowID: windowID(r.WindowID)}
		}),
	}
}

const killWindowDescription = "Close a window for good and end the programs of all its panes; a session left " +
	"without windows ends. Every pane is checked first as kill_pane checks one; if any is refused, nothing is " +
	"killed and the error names that pane. " + endRefusals

type killWindowArgs struct {
	WindowID windowID `json:"windowId" jsonschema:"The window to close, e.g. @2."`
	endForce
}

func (a killWindowArgs) request() lifecycle.KillWindowRequest {
	return lifecycle.KillWindowRequest{WindowID: string(a.WindowID), Force: a.Force}
}

type killWindowOutput struct {
	killed
	WindowID windowID `json:"windowId" jsonschema:"The window that was closed, e.g. @2."`
}

func (s *Server) killSession() declaration {
	return tool[killSessionArgs, killSessionOutput]{
		name:        "kill_session",
		description: killSessionDescription,
		annotations: endingAnnotations("Kill session"),
		call: serve(s.manage.KillSession, killSessionArgs.request, func(r lifecycle.KillResult) killSessionOutput {
			return killSessionOutput{killed: killed{paneIDs(r.Killed)}, SessionID: sessionID(r.Session.ID), SessionName: r.Session.Name}
		}),
	}
}

const killSessionDescription = "End a session for good: close its windows and end the programs of all their " +
	"panes. Every pane is checked first as kill_pane checks one; if any is refused, nothing is killed and the " +
	"error names that pane. Ending the last session may stop the multiplexer server itself. " + endRefusals

type killSessionArgs struct {
	Session sessionRef `json:"session" jsonschema:"The session to end: its id (e.g. $1) or its exact name (list_sessions lists them)."`
	endForce
}

func (a killSessionArgs) request() lifecycle.KillSessionRequest {
	return lifecycle.KillSessionRequest{Session: string(a.Session), Force: a.Force}
}

type killSessionOutput struct {
	killed
	SessionID   sessionID `json:"sessionId" jsonschema:"The id of the session that was ended, e.g. $1."`
	SessionName string    `json:"sessionName" jsonschema:"Its name."`
}
