package domain

import (
	"context"
	"fmt"
	"time"

	"github.com/tmux-mcp/tmux-mcp/domain/fault"
)

// startingPasteWait bounds how long paste_text waits for a starting shell
// (see ready.go): paste_text has no timeout of its own.
const startingPasteWait = 10 * time.Second

// PasteText delivers req.Text to the pane through a paste buffer, exactly
// as given, and presses Enter afterwards if req.Enter.
//
// Errors: *fault.BusyError when another writer holds the pane; *fault.RefusalError when
// the policy forbids writing to it; wrapped ports errors from the terminal.
func (s *Service) PasteText(ctx context.Context, req PasteRequest) (PasteResult, error) {
	hold, err := s.hold(ctx, req.PaneID, "paste_text")
	if err != nil {
		return PasteResult{}, err
	}
	defer hold.Release()
	info, err := s.writable(ctx, hold, req.PaneID, req.Force)
	if err != nil {
		return PasteResult{}, err
	}
	if s.starting.has(req.PaneID) {
		w := s.newWaiter(startingPasteWait, nil)
		o := s.awaitStarted(ctx, w, info)
		w.stop()
		switch o {
		case OutcomeTimedOut:
			return PasteResult{}, &fault.RefusalError{Pane: req.PaneID, Why: fault.RefusedShellStarting,
				Reason: "its shell is still starting and does not read input yet"}
		case OutcomeCancelled:
			return PasteResult{}, ctx.Err()
		}
	}
	if req.Text != "" {
		if err := s.term.Paste(ctx, req.PaneID, req.Text); err != nil {
			return PasteResult{}, err
		}
	}
	if req.Enter {
		if err := s.term.SendKeys(ctx, req.PaneID, []string{"Enter"}); err != nil {
			return PasteResult{}, fmt.Errorf("press Enter after pasting: %w", err)
		}
	}
	return PasteResult{PaneID: req.PaneID, Bytes: int64(len(req.Text))}, nil
}
