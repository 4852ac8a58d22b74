package lifecycle

import (
	"context"
	"slices"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// Display describes one pane with a fixed set of facts: its working
// directory, process id, size, cursor, foreground program and mode. The
// listing gives the directory, process and cursor; the description a
// write is checked against gives the rest, as get_pane_info takes them.
// Nothing of the caller's but the pane's id reaches the backend. A fact
// the backend cannot tell is listed in Unknown, never guessed.
//
// Errors: wrapped ports errors (ErrPaneNotFound, ErrUnsupported).
func (s *Service) Display(ctx context.Context, req PaneRequest) (PaneFacts, error) {
	l, err := require("display", s.b.Lister)
	if err != nil {
		return PaneFacts{}, err
	}
	p, err := s.listPane(ctx, l, req.PaneID)
	if err != nil {
		return PaneFacts{}, err
	}
	info, err := s.panes.Pane(ctx, req.PaneID)
	if err != nil {
		return PaneFacts{}, err
	}
	f := PaneFacts{
		PaneID:  req.PaneID,
		Path:    p.Path,
		PID:     p.PID,
		Width:   info.Width,
		Height:  info.Height,
		CursorX: p.CursorX,
		CursorY: p.CursorY,
		Command: running(info.Program, info.Command),
		Dead:    info.Dead,
		InMode:  info.Mode != "",
		Mode:    info.Mode,
		Unknown: []ports.Fact{},
	}
	// Each fact is unknown as the description it was taken from says.
	unknown := func(from []ports.Fact, fact ports.Fact) bool {
		if !slices.Contains(from, fact) {
			return false
		}
		f.Unknown = append(f.Unknown, fact)
		return true
	}
	if unknown(p.Unknown, ports.FactPID) {
		f.PID = 0
	}
	if unknown(p.Unknown, ports.FactCursor) {
		f.CursorX, f.CursorY = 0, 0
	}
	if unknown(info.Unknown, ports.FactCommand) {
		f.Command = ""
	}
	if unknown(info.Unknown, ports.FactMode) {
		f.InMode, f.Mode = false, ""
	}
	return f, nil
}
