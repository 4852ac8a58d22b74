package mcpadapter

import (
	"slices"
	"time"

	"github.com/tmux-mcp/tmux-mcp/domain/lifecycle"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// The output types of the inspect and lifecycle tools, field for field
// those of their schemas (schemas/*.output.json). As in results.go, no
// field has omitempty; a fact the backend could not determine is null,
// never a zero value that would read as a fact.

type sessionOutput struct {
	Clients int     `json:"clients"`
	Created *string `json:"created"`
	ID      string  `json:"id"`
	Name    string  `json:"name"`
	Windows int     `json:"windows"`
}

type sessionListOutput struct {
	Sessions []sessionOutput `json:"sessions"`
}

type windowOutput struct {
	Active      bool   `json:"active"`
	Height      int    `json:"height"`
	ID          string `json:"id"`
	Index       int    `json:"index"`
	Name        string `json:"name"`
	Panes       int    `json:"panes"`
	SessionID   string `json:"sessionId"`
	SessionName string `json:"sessionName"`
	Width       int    `json:"width"`
	Zoomed      bool   `json:"zoomed"`
}

type windowListOutput struct {
	Windows []windowOutput `json:"windows"`
}

type paneOutput struct {
	Active           bool     `json:"active"`
	Busy             *string  `json:"busy"`
	Command          *string  `json:"command"`
	Dead             bool     `json:"dead"`
	Height           int      `json:"height"`
	Index            int      `json:"index"`
	IsServerOwn      *bool    `json:"isServerOwn"`
	PaneID           string   `json:"paneId"`
	SessionID        string   `json:"sessionId"`
	SessionName      string   `json:"sessionName"`
	Title            string   `json:"title"`
	Watched          *bool    `json:"watched"`
	Watchers         []string `json:"watchers"`
	Width            int      `json:"width"`
	WindowID         string   `json:"windowId"`
	WindowIndex      int      `json:"windowIndex"`
	WindowName       string   `json:"windowName"`
	WorkingDirectory *string  `json:"workingDirectory"`
}

type paneListOutput struct {
	Panes []paneOutput `json:"panes"`
}

// paneDetailsOutput is get_pane_info's: a listing entry and more. The
// embedded fields are encoded at the top level.
type paneDetailsOutput struct {
	paneOutput
	// AlsoReaches is nil (null) when unknown, else a list, maybe empty.
	AlsoReaches  []string `json:"alsoReaches"`
	Attended     bool     `json:"attended"`
	HistoryLimit int      `json:"historyLimit"`
	HistorySize  int      `json:"historySize"`
	Mode         *string  `json:"mode"`
}

type serverInfoOutput struct {
	Clients  int     `json:"clients"`
	Panes    int     `json:"panes"`
	PID      *int    `json:"pid"`
	Safety   string  `json:"safety"`
	Sessions int     `json:"sessions"`
	Socket   string  `json:"socket"`
	Started  *string `json:"started"`
	Version  string  `json:"version"`
	Windows  int     `json:"windows"`
}

type createdOutput struct {
	PaneID      string `json:"paneId"`
	SessionID   string `json:"sessionId"`
	SessionName string `json:"sessionName"`
	WindowID    string `json:"windowId"`
	WindowIndex int    `json:"windowIndex"`
	WindowName  string `json:"windowName"`
}

type clearOutput struct {
	ClearedLines int64  `json:"clearedLines"`
	PaneID       string `json:"paneId"`
}

type killPaneOutput struct {
	Killed []string `json:"killedPaneIds"`
	PaneID string   `json:"paneId"`
}

type killWindowOutput struct {
	Killed   []string `json:"killedPaneIds"`
	WindowID string   `json:"windowId"`
}

type killSessionOutput struct {
	Killed      []string `json:"killedPaneIds"`
	SessionID   string   `json:"sessionId"`
	SessionName string   `json:"sessionName"`
}

func fromSession(s ports.SessionInfo) sessionOutput {
	return sessionOutput{Clients: s.Clients, Created: timeOrNull(s.Created), ID: s.ID, Name: s.Name, Windows: s.Windows}
}

func fromSessionList(l lifecycle.SessionList) sessionListOutput {
	out := sessionListOutput{Sessions: make([]sessionOutput, 0, len(l.Sessions))}
	for _, s := range l.Sessions {
		out.Sessions = append(out.Sessions, fromSession(s))
	}
	return out
}

func fromWindow(w ports.WindowInfo) windowOutput {
	return windowOutput{
		Active:      w.Active,
		Height:      w.Height,
		ID:          w.ID,
		Index:       w.Index,
		Name:        w.Name,
		Panes:       w.Panes,
		SessionID:   w.Session.ID,
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

func fromPane(p lifecycle.Pane) paneOutput {
	unknown := func(f ports.Fact) bool { return slices.Contains(p.Unknown, f) }
	out := paneOutput{
		Active:      p.Active,
		Busy:        stringOrNull(p.Busy),
		Dead:        p.Dead,
		Height:      p.Height,
		Index:       p.Index,
		PaneID:      string(p.ID),
		SessionID:   p.Session.ID,
		SessionName: p.Session.Name,
		Title:       p.Title,
		Watchers:    []string{},
		Width:       p.Width,
		WindowID:    p.Window.ID,
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
		out.AlsoReaches = paneIDStrings(d.AlsoReaches)
	}
	return out
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

func fromCreated(c ports.Created) createdOutput {
	return createdOutput{
		PaneID:      string(c.Pane),
		SessionID:   c.Session.ID,
		SessionName: c.Session.Name,
		WindowID:    c.Window.ID,
		WindowIndex: c.Window.Index,
		WindowName:  c.Window.Name,
	}
}

// paneIDStrings returns ids as strings, never nil: an empty list reaches
// JSON as [], which the schemas require of a known list.
func paneIDStrings(ids []ports.PaneID) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = string(id)
	}
	return out
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
