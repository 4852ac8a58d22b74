package tmux

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// Capture returns the rows r selects with capture-pane, whose -S and -E
// use the port's row numbers: 0 is the top of the visible screen, -1 the
// newest history row. Empty rows are kept, so a range within the pane
// yields End-Start+1 rows (fewer with JoinWrapped); tmux clamps a range
// that reaches past the pane. Rows carry no escape sequences and no
// trailing blanks. A dead pane can still be captured.
//
// Errors wrap ports.ErrPaneNotFound or ports.ErrUnavailable.
func (t *Terminal) Capture(ctx context.Context, id ports.PaneID, r ports.CaptureRange) ([]string, error) {
	if err := checkPaneID(id); err != nil {
		return nil, err
	}
	args := []string{"capture-pane", "-p", "-t", string(id),
		"-S", strconv.Itoa(r.Start), "-E", strconv.Itoa(r.End)}
	if r.JoinWrapped {
		args = append(args, "-J")
	}
	out, err := t.run(ctx, nil, args...)
	if err != nil {
		return nil, fmt.Errorf("capture pane %s: %w", id, err)
	}
	return splitRows(out), nil
}

// splitRows splits capture-pane output, one row per line, and trims the
// trailing spaces that tmux keeps with -J.
func splitRows(out string) []string {
	if out == "" {
		return nil
	}
	// Every row, empty ones too, ends with a newline.
	rows := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	for i, row := range rows {
		rows[i] = strings.TrimRight(row, " ")
	}
	return rows
}
