package screen

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// Capture returns rows of window N from a hardcopy of it: "hardcopy -h"
// writes the scrollback, oldest row first, and then the screen, as plain
// text without trailing blanks. The port's row r is line HistorySize+r of
// it. Rows of r outside what the window holds are left out.
//
// JoinWrapped yields an error wrapping ports.ErrUnsupported: screen keeps
// no record of which rows were wrapped, and a full row followed by another
// may as well be a line exactly as wide as the window.
func (t *Terminal) Capture(ctx context.Context, id ports.PaneID, r ports.CaptureRange) ([]string, error) {
	w, err := t.lookup(ctx, id)
	if err != nil {
		return nil, err
	}
	if r.JoinWrapped {
		return nil, fmt.Errorf("capture pane %s joining wrapped rows: screen does not record which rows were wrapped: %w", id, ports.ErrUnsupported)
	}
	rows, err := t.hardcopy(ctx, w, true)
	if err != nil {
		return nil, fmt.Errorf("capture pane %s: %w", id, err)
	}
	_, height, _ := t.geometry(w)
	if height == 0 {
		if height, err = t.screenHeight(ctx, w); err != nil {
			return nil, fmt.Errorf("capture pane %s: %w", id, err)
		}
	}
	return sliceRows(rows, height, r.Start, r.End), nil
}

// sliceRows picks rows start..end (port numbering) out of a hardcopy with
// scrollback whose last height lines are the screen.
func sliceRows(lines []string, height, start, end int) []string {
	hist := max(0, len(lines)-height)
	from, to := max(hist+start, 0), min(hist+end, len(lines)-1)
	out := []string{}
	for i := from; i <= to; i++ {
		out = append(out, lines[i])
	}
	return out
}

// hardcopy writes the window's screen (and its scrollback, with history)
// to a private file and returns its rows, without trailing blanks.
func (t *Terminal) hardcopy(ctx context.Context, w window, history bool) ([]string, error) {
	path := t.privateFile("hardcopy")
	defer os.Remove(path)
	args := []string{"hardcopy", path}
	if history {
		args = []string{"hardcopy", "-h", path}
	}
	if err := t.command(ctx, w.n, args...); err != nil {
		return nil, err
	}
	// The window list doubles as the barrier after which the hardcopy is
	// written, and tells whether the window was still there to copy.
	nums, err := t.listWindows(ctx)
	if err != nil {
		return nil, fmt.Errorf("hardcopy: %w", err)
	}
	if !nums[w.n] {
		return nil, fmt.Errorf("hardcopy: window %d is gone: %w", w.n, ports.ErrPaneNotFound)
	}
	b, err := readWhenThere(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("hardcopy: %w", err)
	}
	return splitRows(string(b)), nil
}

// readWhenThere reads a file that screen has been asked to write, giving
// it a moment in case screen took a later client first.
func readWhenThere(ctx context.Context, path string) ([]byte, error) {
	for wait := time.Millisecond; ; wait *= 2 {
		b, err := os.ReadFile(path)
		if err == nil || !errors.Is(err, fs.ErrNotExist) || wait > 200*time.Millisecond {
			return b, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait):
		}
	}
}

// splitRows splits a hardcopy into rows, one per line, trailing blanks
// removed.
func splitRows(s string) []string {
	if s == "" {
		return nil
	}
	rows := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i, r := range rows {
		rows[i] = strings.TrimRight(r, " ")
	}
	return rows
}
