// Package screencap is ports.ScreenCapturer for a backend that has no one
// exchange for it, or not at the moment: Pane, then Capture of the screen
// that Pane described.
package screencap

import (
	"context"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// A PaneReader describes and captures panes, as ports.Terminal does.
type PaneReader interface {
	Pane(ctx context.Context, id ports.PaneID) (ports.PaneInfo, error)
	Capture(ctx context.Context, id ports.PaneID, r ports.CaptureRange) ([]string, error)
}

// InTwoCalls describes pane id through t, then captures rows 0 to
// Height-1 of that description, wrapped rows joined when joinWrapped. A
// pane of no rows is described and has none. Errors are t's.
func InTwoCalls(ctx context.Context, t PaneReader, id ports.PaneID, joinWrapped bool) (ports.PaneInfo, []string, error) {
	info, err := t.Pane(ctx, id)
	if err != nil || info.Height < 1 {
		return info, nil, err
	}
	rows, err := t.Capture(ctx, id, ports.CaptureRange{Start: 0, End: info.Height - 1, JoinWrapped: joinWrapped})
	if err != nil {
		return ports.PaneInfo{}, nil, err
	}
	return info, rows, nil
}
