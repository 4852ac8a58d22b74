package mcp

import (
	"context"
	"slices"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/domain/lifecycle"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// list_sessions, list_windows, list_panes, search_panes, get_pane_info and
// get_server_info, the tools that say what there is, and the session,
// window and pane results the lifecycle tools share. As
// everywhere, a fact the backend could not determine is null, never a zero
// value that would read as a fact.

func (s *Server) listSessions() declaration {
	return tool[noArgs, sessionListOutput]{
		name:        "list_sessions",
		description: listSessionsDescription,
		annotations: readingAnnotations("List sessions"),
		call: serveNoArgs(s.manage.ListSessions, func(l lifecycle.SessionList) sessionListOutput {
			out := fromSessionList(l)
			out.UnreachableHosts = s.unreachable()
			return out
		}),
	}
}

const listSessionsDescription = "List sessions; accepts no client-supplied executable input. " +
	"Every session of the terminal multiplexer, with its id (e.g. $1), name, number of windows, the number of " +
	"people attached to it and when it was created. Sessions are named by id or exact name in list_windows, " +
	"list_panes, create_window, rename_session and kill_session."

type sessionListOutput struct {
	Sessions         []sessionOutput     `json:"sessions" jsonschema:"Every session, in the multiplexer's order."`
	UnreachableHosts []unreachableOutput `json:"unreachableHosts,omitzero" hosts:"only" jsonschema:"The hosts that could not be reached, left out of the list: each one's name and why (list_hosts tells more). Empty when every host answered."`
}

// sessionOutput is a session as list_sessions and rename_session report it.
type sessionOutput struct {
	Clients int       `json:"clients" jsonschema:"How many people are attached to the session: attached clients that show it on a terminal. Clients that only read output, such as this server's own, are not counted."`
	Created *string   `json:"created" jsonschema:"When the session was created, in RFC 3339; null when the backend cannot tell."`
	Host    string    `json:"host,omitzero" hosts:"only" jsonschema:"The host holding it: what its id carries before the colon."`
	ID      sessionID `json:"id"`
	Name    string    `json:"name" jsonschema:"The session's name."`
	Windows int       `json:"windows" jsonschema:"How many windows the session has."`
}

func fromSession(s ports.SessionInfo) sessionOutput {
	return sessionOutput{Clients: s.Clients, Created: timeOrNull(s.Created), Host: hostOf(s.ID), ID: sessionID(s.ID), Name: s.Name, Windows: s.Windows}
}

func fromSessionList(l lifecycle.SessionList) sessionListOutput {
	out := sessionListOutput{Sessions: make([]sessionOutput, 0, len(l.Sessions))}
	for _, s := range l.Sessions {
		out.Sessions = append(out.Sessions, fromSession(s))
	}
	return out
}

func (s *Server) listWindows() declaration {
	return tool[listWindowsArgs, windowListOutput]{
		name:        "list_windows",
		description: listWindowsDescription,
		annotations: readingAnnotations("List windows"),
		call: serve(s.manage.ListWindows, listWindowsArgs.request, func(l lifecycle.WindowList) windowListOutput {
			out := fromWindowList(l)
			out.UnreachableHosts = s.unreachable()
			return out
		}),
	}
}

const listWindowsDescription = "List windows; accepts no client-supplied executable input. " +
	"The windows of one session (by id or exact name), or of every session: each window's id (e.g. @2), index, " +
	"name, whether it is its session's current window, how many panes it has, its size and whether a pane is " +
	"zoomed."

type listWindowsArgs struct {
	Session sessionRef `json:"session,omitempty" jsonschema:"Only the windows of this session: its id (e.g. $1) or its exact name (list_sessions lists them)."`
}

func (a listWindowsArgs) request() lifecycle.ListWindowsRequest {
	return lifecycle.ListWindowsRequest{Session: string(a.Session)}
}

type windowListOutput struct {
	Windows          []windowOutput      `json:"windows" jsonschema:"The windows, session by session, each session's in index order. Without session, those of every session."`
	UnreachableHosts []unreachableOutput `json:"unreachableHosts,omitzero" hosts:"only" jsonschema:"The hosts that could not be reached, left out of the list: each one's name and why (list_hosts tells more). Empty when every host answered."`
}

// windowOutput is a window as list_windows, select_window and
// rename_window report it.
type windowOutput struct {
	Active      bool      `json:"active" jsonschema:"The window is its session's current window."`
	Height      int       `json:"height" jsonschema:"The window's height in cells."`
	Host        string    `json:"host,omitzero" hosts:"only" jsonschema:"The host holding it: what its id carries before the colon."`
	ID          windowID  `json:"id"`
	Index       int       `json:"index" jsonschema:"The window's number in its session, as the status line shows it."`
	Name        string    `json:"name" jsonschema:"The window's name."`
	Panes       int       `json:"panes" jsonschema:"How many panes the window has."`
	SessionID   sessionID `json:"sessionId" jsonschema:"The id of the session the window was listed in, e.g. $1. A window linked into several sessions is listed once for each."`
	SessionName string    `json:"sessionName" jsonschema:"The name of that session."`
	Width       int       `json:"width" jsonschema:"The window's width in cells."`
	Zoomed      bool      `json:"zoomed" jsonschema:"One pane fills the window, hiding the others."`
}

func fromWindow(w ports.WindowInfo) windowOutput {
	return windowOutput{
		Active:      w.Active,
		Height:      w.Height,
		Host:        hostOf(w.ID),
		ID:          windowID(w.ID),
		Index:       w.Index,
		Name:        w.Name,
		Panes:       w.Panes,
		SessionID:   sessionID(w.Session.ID),
		SessionName: w.Session.Name,
		Width:       w.Width,
		Zoomed:      w.Zoomed,
	}
}

func fromWindowList(l lifecycle.WindowList) windowListOutput {
	out := windowListOutput{Windows: make([]windowOutput, 0, len(l.Windows))}
	for _, w := range l.Windows {
		out.Windows = append(out.Windows, fromWindow(w))
	}
	return out
}

func (s *Server) listPanes() declaration {
	return tool[listPanesArgs, paneListOutput]{
		name:        "list_panes",
		description: listPanesDescription,
		annotations: readingAnnotations("List panes"),
		call: serve(s.manage.ListPanes, listPanesArgs.request, func(l lifecycle.PaneList) paneListOutput {
			out := fromPaneList(l)
			out.UnreachableHosts = s.unreachable()
			return out
		}),
	}
}

const listPanesDescription = "List panes; accepts no client-supplied executable input. " +
	"Every pane, or those of one session or one window: where each is (session, window, index), what it runs " +
	"(command, workingDirectory), its size and title, and what decides whether a write to it is refused: watched " +
	"(a person has it on screen: refused even with force), isServerOwn (this server's own pane: refused without " +
	"force), busy (a call of this server holds it) and dead. Pane ids (e.g. %3) are what run_shell_command, " +
	"paste_text, capture_pane and the other pane tools take."

type listPanesArgs struct {
	Session  sessionRef `json:"session,omitempty" jsonschema:"Only the panes of this session's windows: its id (e.g. $1) or its exact name (list_sessions lists them)."`
	WindowID windowID   `json:"windowId,omitempty" jsonschema:"Only the panes of this window, e.g. @2. Give session or windowId, not both; give neither to list every pane."`
}

func (a listPanesArgs) request() lifecycle.ListPanesRequest {
	return lifecycle.ListPanesRequest{Session: string(a.Session), Window: string(a.WindowID)}
}

type paneListOutput struct {
	Panes            []paneOutput        `json:"panes" jsonschema:"The panes, each once, in session, window and pane order."`
	UnreachableHosts []unreachableOutput `json:"unreachableHosts,omitzero" hosts:"only" jsonschema:"The hosts that could not be reached, left out of the list: each one's name and why (list_hosts tells more). Empty when every host answered."`
}

// paneOutput is a pane as list_panes, select_pane and resize_pane report
// it, and the first part of what get_pane_info does.
type paneOutput struct {
	Active           bool         `json:"active" jsonschema:"The pane is its window's active pane."`
	Busy             *string      `json:"busy" jsonschema:"What of this server holds the pane, such as run_shell_command \"make test\": other writes, kills and clears are refused until it is free. Null when nothing does."`
	Command          *string      `json:"command" jsonschema:"The pane's foreground program, without a path, such as bash or vim; null when the backend cannot tell."`
	Dead             bool         `json:"dead" jsonschema:"The pane's program has exited: the pane takes no input and every write to it is refused."`
	Height           int          `json:"height" jsonschema:"The height of the pane's visible screen in cells."`
	Host             string       `json:"host,omitzero" hosts:"only" jsonschema:"The host holding it: what its id carries before the colon."`
	Index            int          `json:"index" jsonschema:"The pane's number in its window."`
	IsServerOwn      *bool        `json:"isServerOwn" jsonschema:"This MCP server itself runs in the pane: writing to it, killing or clearing it needs force. Null when the backend cannot tell, which is refused."`
	PaneID           ports.PaneID `json:"paneId"`
	SessionID        sessionID    `json:"sessionId" jsonschema:"The id of the session holding the pane, e.g. $1. A pane whose window is linked into several sessions is reported once, in the first."`
	SessionName      string       `json:"sessionName" jsonschema:"The name of the session holding the pane."`
	Title            string       `json:"title" jsonschema:"The title the pane's program set, or the multiplexer's default."`
	Watched          *bool        `json:"watched" jsonschema:"A person has the pane on screen in an attached client: every write to it, and killing or clearing it, is refused, even with force. Null when the backend cannot tell, which is refused the same way."`
	Watchers         []string     `json:"watchers" jsonschema:"Who has the pane on screen, such as an attached client's terminal (/dev/pts/3); empty when nobody does or when watched is null."`
	Width            int          `json:"width" jsonschema:"The width of the pane's visible screen in cells."`
	WindowID         windowID     `json:"windowId" jsonschema:"The id of the window holding the pane, e.g. @2."`
	WindowIndex      int          `json:"windowIndex" jsonschema:"The number of the window holding the pane, in its session."`
	WindowName       string       `json:"windowName" jsonschema:"The name of the window holding the pane."`
	WorkingDirectory *string      `json:"workingDirectory" jsonschema:"The pane's working directory; null when unknown."`
}

func fromPane(p lifecycle.Pane) paneOutput {
	unknown := func(f ports.Fact) bool { return slices.Contains(p.Unknown, f) }
	out := paneOutput{
		Active:      p.Active,
		Busy:        stringOrNull(p.Busy),
		Dead:        p.Dead,
		Height:      p.Height,
		Host:        hostOf(string(p.ID)),
		Index:       p.Index,
		PaneID:      p.ID,
		SessionID:   sessionID(p.Session.ID),
		SessionName: p.Session.Name,
		Title:       p.Title,
		Watchers:    []string{},
		Width:       p.Width,
		WindowID:    windowID(p.Window.ID),
		WindowIndex: p.Window.Index,
		WindowName:  p.Window.Name,
		// A backend that does not know a pane's directory says "".
		WorkingDirectory: stringOrNull(p.Path),
	}
	if !unknown(ports.FactCommand) {
		out.Command = new(p.Command)
	}
	if !unknown(ports.FactWatched) {
		out.Watched = new(len(p.Watchers) > 0)
		out.Watchers = append(out.Watchers, p.Watchers...)
	}
	if !unknown(ports.FactSelf) {
		out.IsServerOwn = new(p.Self)
	}
	return out
}

func fromPaneList(l lifecycle.PaneList) paneListOutput {
	out := paneListOutput{Panes: make([]paneOutput, 0, len(l.Panes))}
	for _, p := range l.Panes {
		out.Panes = append(out.Panes, fromPane(p))
	}
	return out
}

func (s *Server) searchPanes() declaration {
	return tool[searchPanesArgs, searchPanesOutput]{
		name:        "search_panes",
		description: searchPanesDescription,
		annotations: readingAnnotations("Search panes"),
		call: serve(s.manage.SearchPanes, searchPanesArgs.request, func(r lifecycle.SearchPanesResult) searchPanesOutput {
			out := fromSearch(r)
			out.UnreachableHosts = s.unreachable()
			return out
		}),
	}
}

// The bounds the description and the arguments' give are those of
// lifecycle (DefaultSearchMatches and the others); a test holds them to it.
const searchPanesDescription = "Search pane output; accepts no client-supplied executable input. " +
	"Returned content may be sensitive or untrusted. Find the rows that hold one of the patterns (plain " +
	"substrings, or RE2 regular expressions with regex: true) on the visible screens of every pane, or of one " +
	"session's panes, and with history: true in the rows above the screens too. Rows are matched one at a time " +
	"as the terminal shows them: escape sequences removed, wrapped rows not joined, so a match cannot span two " +
	"rows. Returns, pane by pane in listing order, each pane's id (for capture_pane and the other pane tools), " +
	"window and session, and its matching rows top to bottom: the row's number as capture_pane counts rows (0 is " +
	"the top of the screen, negative rows are history), its text and the pattern that matched. Bounded: at most " +
	"maxMatches rows in all (default 100, at most 1000), 262144 bytes of text in all, 512 bytes of a row around " +
	"its first match (cut says a row was longer), the newest 100000 rows of a pane; truncated says a row that " +
	"matched was left out, and the search stopped there. An empty pattern, a regular expression that can match " +
	"where no character is (x*, ^), or an invalid regular expression is a tool error, as in wait_for_text. Nothing is refused for a pane's state; a pane that closes during the search is skipped."

type searchPanesArgs struct {
	Session    sessionRef `json:"session,omitempty" jsonschema:"Only the panes of this session's windows: its id (e.g. $1) or its exact name (list_sessions lists them). Omit it to search every pane."`
	Patterns   []string   `json:"patterns" jsonschema:"What to look for: a row matches when it holds any of these. Plain substrings unless regex is true; none may be empty." schema:"minItems=1"`
	Regex      bool       `json:"regex,omitempty" jsonschema:"Read patterns as RE2 regular expressions instead of plain substrings. Default false."`
	History    bool       `json:"history,omitempty" jsonschema:"Search the rows held above each visible screen too, at most the newest 100000 rows of a pane, screen included. Default false: the visible screens only."`
	MaxMatches int64      `json:"maxMatches,omitempty" jsonschema:"Return at most this many matching rows, of all panes together. Default 100; more than 1000 is taken as 1000 (maxMatches in the result says what was used)." schema:"exclusiveMinimum=0"`
}

func (a searchPanesArgs) request() lifecycle.SearchPanesRequest {
	// A bound past the ceiling is clamped to it there; an int64 larger
	// than an int holds is past it too.
	limit := int(min(a.MaxMatches, int64(lifecycle.MaxSearchMatches)+1))
	return lifecycle.SearchPanesRequest{Session: string(a.Session), Patterns: a.Patterns, Regex: a.Regex, History: a.History, MaxMatches: limit}
}

type searchPanesOutput struct {
	Matches          int                 `json:"matches" jsonschema:"How many matching rows the result holds, in all panes."`
	MaxMatches       int                 `json:"maxMatches" jsonschema:"The bound on matches that was applied: the call's maxMatches, its default, or the ceiling."`
	Panes            []paneMatchesOutput `json:"panes" jsonschema:"The panes with a matching row, in listing order (session, window, pane); panes without one are left out."`
	PanesGone        int                 `json:"panesGone" jsonschema:"Panes that were listed but closed before their rows could be read: skipped."`
	PanesSearched    int                 `json:"panesSearched" jsonschema:"Panes whose rows were read (the last of them only in part when truncated)."`
	RangeClamped     bool                `json:"rangeClamped" jsonschema:"A pane held more rows than the search reads of one pane (100000, screen included), so only its newest were searched."`
	Truncated        bool                `json:"truncated" jsonschema:"A matching row was found that the result could not hold (maxMatches or the byte ceiling reached): the search stopped there, and more rows may match. Narrow the patterns or the session, or raise maxMatches."`
	UnreachableHosts []unreachableOutput `json:"unreachableHosts,omitzero" hosts:"only" jsonschema:"The hosts that could not be reached, whose panes were not searched: each one's name and why (list_hosts tells more). Empty when every host answered."`
}

type paneMatchesOutput struct {
	Lines       []lineMatchOutput `json:"lines" jsonschema:"The pane's matching rows, top to bottom."`
	Host        string            `json:"host,omitzero" hosts:"only" jsonschema:"The host holding it: what its id carries before the colon."`
	PaneID      ports.PaneID      `json:"paneId" jsonschema:"The pane, e.g. %3: what capture_pane and the other pane tools take."`
	SessionID   sessionID         `json:"sessionId" jsonschema:"The id of the session holding the pane, e.g. $1."`
	SessionName string            `json:"sessionName" jsonschema:"The name of the session holding the pane."`
	WindowID    windowID          `json:"windowId" jsonschema:"The id of the window holding the pane, e.g. @2."`
	WindowIndex int               `json:"windowIndex" jsonschema:"The number of the window holding the pane, in its session."`
	WindowName  string            `json:"windowName" jsonschema:"The name of the window holding the pane."`
}

type lineMatchOutput struct {
	Cut     bool   `json:"cut" jsonschema:"The row was longer than 512 bytes, so text is the part of it around its first match."`
	Pattern string `json:"pattern" jsonschema:"The first of the patterns that matched the row, exactly as given."`
	Row     int    `json:"row" jsonschema:"The row's number as capture_pane counts rows: 0 is the top of the visible screen, negative rows are history (-1 the newest). capture_pane with start and end around it reads the rows near it."`
	Text    string `json:"text" jsonschema:"The row's text as the terminal shows it, without trailing blanks; when cut is true, at most 512 bytes of it, around its first match."`
}

func fromSearch(r lifecycle.SearchPanesResult) searchPanesOutput {
	out := searchPanesOutput{
		Matches:       r.Matches,
		MaxMatches:    r.MaxMatches,
		Panes:         make([]paneMatchesOutput, 0, len(r.Panes)),
		PanesGone:     r.PanesGone,
		PanesSearched: r.PanesSearched,
		RangeClamped:  r.RangeClamped,
		Truncated:     r.Truncated,
	}
	for _, p := range r.Panes {
		pm := paneMatchesOutput{
			Lines:       make([]lineMatchOutput, 0, len(p.Lines)),
			Host:        hostOf(string(p.PaneID)),
			PaneID:      p.PaneID,
			SessionID:   sessionID(p.Session.ID),
			SessionName: p.Session.Name,
			WindowID:    windowID(p.Window.ID),
			WindowIndex: p.Window.Index,
			WindowName:  p.Window.Name,
		}
		for _, l := range p.Lines {
			pm.Lines = append(pm.Lines, lineMatchOutput{Cut: l.Cut, Pattern: l.Pattern, Row: l.Row, Text: l.Text})
		}
		out.Panes = append(out.Panes, pm)
	}
	return out
}

func (s *Server) getPaneInfo() declaration {
	return tool[paneArgs, paneDetailsOutput]{
		name:        "get_pane_info",
		description: getPaneInfoDescription,
		annotations: readingAnnotations("Get pane info"),
		call:        s.paneInfoWithLeft,
	}
}

// leftTeller tells what commands left running in a pane (domain.Service
// does); Tools that cannot leave get_pane_info's leftRunning null.
type leftTeller interface {
	LeftRunning(ctx context.Context, pane ports.PaneID) (*domain.LeftRunning, error)
}

// paneInfoWithLeft is get_pane_info: the pane's description, and what
// this server's commands left running there.
func (s *Server) paneInfoWithLeft(ctx context.Context, req *sdk.CallToolRequest, a paneArgs) (paneDetailsOutput, string, error) {
	out, text, err := serve(s.manage.GetPaneInfo, paneArgs.request, fromPaneInfo)(ctx, req, a)
	if err != nil {
		return out, text, err
	}
	if lt, ok := s.tools.(leftTeller); ok {
		l, err := lt.LeftRunning(ctx, a.PaneID)
		if err != nil {
			return paneDetailsOutput{}, "", err
		}
		if l != nil {
			out.LeftRunning, out.LeftRunningCount = new(leftProcesses(l.Processes)), l.Count
		}
	}
	return out, text, nil
}

const getPaneInfoDescription = "Describe one pane; accepts no client-supplied executable input. " +
	"What list_panes says of the pane, plus the other facts every write to it is checked against: its mode " +
	"(in copy mode input goes to the mode, so writes are refused), the other panes its input would also reach " +
	"(synchronized panes, also refused), its history size and limit, and whether a person is attached to its " +
	"session. Call it to find out why a write was refused or before writing to a pane you did not create."

// paneArgs name one pane.
type paneArgs struct {
	PaneID ports.PaneID `json:"paneId"`
}

func (a paneArgs) request() lifecycle.PaneRequest { return lifecycle.PaneRequest{PaneID: a.PaneID} }

// paneDetailsOutput is get_pane_info's: a listing entry and more. The
// embedded fields are encoded at the top level.
type paneDetailsOutput struct {
	paneOutput
	// AlsoReaches is null when unknown, else a list, maybe empty.
	AlsoReaches      *[]ports.PaneID      `json:"alsoReaches" jsonschema:"Other panes that input to this pane would also reach (synchronized input): writes are refused while it is not empty. Null when the backend cannot tell."`
	Attended         bool                 `json:"attended" jsonschema:"A person is attached to a session holding the pane, whether or not it is on their screen: input may be noticed."`
	HistoryLimit     int                  `json:"historyLimit" jsonschema:"How many rows may be held above the screen before the oldest are dropped."`
	HistorySize      int                  `json:"historySize" jsonschema:"Rows held above the visible screen, which capture_pane reaches with negative rows."`
	Mode             *string              `json:"mode" jsonschema:"The mode the pane is in, such as copy-mode, where input goes to the mode instead of the program and writes are refused; empty when none; null when the backend cannot tell."`
	LeftRunning      *[]leftProcessOutput `json:"leftRunning" jsonschema:"What this server's run_shell_command calls left running in the pane (processes they started that outlived them, such as a server started with &) and that still runs: at most 20, by process id; null when the backend cannot see the pane's processes (such as over -ssh to a host without Linux's /proc)."`
	LeftRunningCount int                  `json:"leftRunningCount" jsonschema:"How many such processes there are, of which leftRunning lists at most 20."`
}

func fromPaneInfo(d lifecycle.PaneDetails) paneDetailsOutput {
	out := paneDetailsOutput{
		paneOutput:   fromPane(d.Pane),
		Attended:     d.Attended,
		HistoryLimit: d.HistoryLimit,
		HistorySize:  d.HistorySize,
	}
	if !slices.Contains(d.Unknown, ports.FactMode) {
		out.Mode = new(d.Mode)
	}
	if !slices.Contains(d.Unknown, ports.FactAlsoReaches) {
		out.AlsoReaches = new(paneIDs(d.AlsoReaches))
	}
	return out
}

func (s *Server) display() declaration {
	return tool[displayArgs, displayOutput]{
		name:        "display",
		description: displayDescription,
		annotations: readingAnnotations("Display pane facts"),
		call:        serve(s.manage.Display, displayArgs.request, fromFacts),
	}
}

const displayDescription = "Display a fixed set of facts about one pane; accepts no client-supplied executable " +
	"input. The server reads them itself: no format or command of yours reaches the multiplexer, only the pane id. " +
	"Returns the pane's working directory, the process id of its program (the one the pane started, such as its " +
	"shell), the size of its visible screen, where the cursor is (cursorX and cursorY count from 0 at the top " +
	"left: the row a program waits for input on), its foreground program, whether it is dead, and the mode it is " +
	"in (inMode, mode; in copy mode input goes to the mode, not the program). A fact the backend cannot tell is " +
	"null, never a guess. For where the pane is and whether a write to it would be refused, use get_pane_info."

type displayArgs struct {
	PaneID ports.PaneID `json:"paneId" jsonschema:"The pane to describe, e.g. %3."`
}

func (a displayArgs) request() lifecycle.PaneRequest { return lifecycle.PaneRequest{PaneID: a.PaneID} }

// displayOutput is display's: each fact the backend could not tell is
// null, so that a zero is always one that was read.
type displayOutput struct {
	Command          *string      `json:"command" jsonschema:"The pane's foreground program, without a path, such as bash or vim; null when the backend cannot tell."`
	CursorX          *int         `json:"cursorX" jsonschema:"The cursor's column on the visible screen, 0 at the left; null when the backend cannot tell."`
	CursorY          *int         `json:"cursorY" jsonschema:"The cursor's row on the visible screen, 0 at the top (capture_pane's row numbers); null when the backend cannot tell."`
	Dead             bool         `json:"dead" jsonschema:"The pane's program has exited: the pane takes no input, and pid is that of the program that exited."`
	Height           int          `json:"height" jsonschema:"The height of the pane's visible screen in cells."`
	Host             string       `json:"host,omitzero" hosts:"only" jsonschema:"The host holding it: what its id carries before the colon."`
	InMode           *bool        `json:"inMode" jsonschema:"The pane is in a mode, such as copy mode, where input goes to the mode instead of the program; null when the backend cannot tell."`
	Mode             *string      `json:"mode" jsonschema:"The mode the pane is in, such as copy-mode; empty when none; null when the backend cannot tell."`
	PaneID           ports.PaneID `json:"paneId" jsonschema:"The pane described, e.g. %3."`
	PID              *int         `json:"pid" jsonschema:"The process id of the pane's program (the process the pane started, such as its shell, not the command it runs in the foreground), on the multiplexer's host; null when the backend cannot tell."`
	Width            int          `json:"width" jsonschema:"The width of the pane's visible screen in cells."`
	WorkingDirectory *string      `json:"workingDirectory" jsonschema:"The pane's working directory; null when the backend cannot tell."`
}

func fromFacts(f lifecycle.PaneFacts) displayOutput {
	unknown := func(fact ports.Fact) bool { return slices.Contains(f.Unknown, fact) }
	out := displayOutput{
		Dead:   f.Dead,
		Height: f.Height,
		Host:   hostOf(string(f.PaneID)),
		PaneID: f.PaneID,
		Width:  f.Width,
		// A backend that does not know a pane's directory says "".
		WorkingDirectory: stringOrNull(f.Path),
	}
	if !unknown(ports.FactCommand) {
		out.Command = new(f.Command)
	}
	if !unknown(ports.FactCursor) {
		out.CursorX, out.CursorY = new(f.CursorX), new(f.CursorY)
	}
	if !unknown(ports.FactMode) {
		out.InMode, out.Mode = new(f.InMode), new(f.Mode)
	}
	// No process has id 0 or less: such a pid was not read, whatever the
	// backend says.
	if !unknown(ports.FactPID) && f.PID > 0 {
		out.PID = new(f.PID)
	}
	return out
}

func (s *Server) getServerInfo() declaration {
	return tool[noArgs, serverInfoOutput]{
		name:        "get_server_info",
		description: getServerInfoDescription,
		annotations: readingAnnotations("Get server info"),
		call: serveNoArgs(s.manage.GetServerInfo, func(i ports.ServerInfo) serverInfoOutput {
			return fromServerInfo(i, s.tier)
		}),
	}
}

const getServerInfoDescription = "Describe the terminal multiplexer server; accepts no client-supplied executable input. " +
	"Its socket, version, process id and start time, how many sessions, windows, panes and attached clients it " +
	"has, and this MCP server's safety tier, which decides the tools it offers (readonly, mutating, destructive)."

type serverInfoOutput struct {
	Clients  int     `json:"clients" jsonschema:"How many clients people use are attached (clients that only read output are not counted)."`
	Panes    int     `json:"panes" jsonschema:"How many panes the server has."`
	PID      *int    `json:"pid" jsonschema:"The multiplexer server's process id; null when unknown."`
	Safety   string  `json:"safety" jsonschema:"This MCP server's safety tier, which decides the tools it offers: readonly (reading tools only), mutating (also tools that write to panes or create, select, resize and rename), destructive (also tools that kill or clear)." schema:"enum=readonly|mutating|destructive"`
	Sessions int     `json:"sessions" jsonschema:"How many sessions the server has."`
	Socket   string  `json:"socket" jsonschema:"How the multiplexer server is reached, such as its socket path."`
	Started  *string `json:"started" jsonschema:"When the multiplexer server started, in RFC 3339; null when unknown."`
	Version  string  `json:"version" jsonschema:"The multiplexer's version, as it reports it."`
	Windows  int     `json:"windows" jsonschema:"How many windows the server has; a window linked into several sessions counts once."`
}

func fromServerInfo(i ports.ServerInfo, tier Tier) serverInfoOutput {
	out := serverInfoOutput{
		Clients:  i.Clients,
		Panes:    i.Panes,
		Safety:   string(tier),
		Sessions: i.Sessions,
		Socket:   i.Address,
		Started:  timeOrNull(i.Started),
		Version:  i.Version,
		Windows:  i.Windows,
	}
	if i.PID > 0 {
		out.PID = new(i.PID)
	}
	return out
}

// paneIDs returns ids, never nil: an empty list reaches JSON as [], which
// the schemas require of a known list.
func paneIDs(ids []ports.PaneID) []ports.PaneID {
	return append([]ports.PaneID{}, ids...)
}

// timeOrNull formats t in RFC 3339, in UTC, or returns nil for the zero
// time, which the ports use for "unknown".
func timeOrNull(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	return new(t.UTC().Format(time.RFC3339))
}

// stringOrNull returns nil for "", which the domain uses for "none" or
// "unknown".
func stringOrNull(s string) *string {
	if s == "" {
		return nil
	}
	return new(s)
}
