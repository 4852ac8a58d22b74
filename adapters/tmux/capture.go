package tmux

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/adapters/internal/screencap"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// Capture returns the rows r selects with capture-pane, whose -S and -E
// use the port's row numbers: 0 is the top of the visible screen, -1 the
// newest history row. Empty rows are kept, so a range within the pane
// yields End-Start+1 rows (fewer with JoinWrapped); tmux clamps a range
// that reaches past the pane. Rows carry no escape sequences and no
// trailing blanks. A dead pane can still be captured.
//
// With a control client at hand (on this host or over ssh), the rows come
// in the client's reply, read so that no row of the pane's can end it
// (see controlParser and doc.go); otherwise capture-pane -p runs as a
// process, whose standard output carries no framing to forge.
//
// Errors wrap ports.ErrPaneNotFound or ports.ErrUnavailable.
func (t *Terminal) Capture(ctx context.Context, id ports.PaneID, r ports.CaptureRange) ([]string, error) {
	if err := checkPaneID(id); err != nil {
		return nil, err
	}
	args := []string{"capture-pane", "-t", string(id), "-S", strconv.Itoa(r.Start), "-E", strconv.Itoa(r.End)}
	if r.JoinWrapped {
		args = append(args, "-J")
	}
	rows, _, ok, err := t.captureInBand(ctx, id, append(args, "-p"), nil)
	if ok {
		if err != nil {
			return nil, fmt.Errorf("capture pane %s: %w", id, err)
		}
		return rows, nil
	}
	out, err := t.exec(ctx, route{process: true}, tmuxCmd(append(args, "-p")...))
	if err != nil {
		return nil, fmt.Errorf("capture pane %s: %w", id, err)
	}
	return splitRows(out), nil
}

var _ ports.ScreenCapturer = (*Terminal)(nil)

// CaptureScreen is Pane and Capture of the visible screen in one write to a
// control client (the description's command list, then the capture as a
// printing part), answered in one round trip; where Capture would run a
// process it is Pane and then Capture.
func (t *Terminal) CaptureScreen(ctx context.Context, id ports.PaneID, joinWrapped bool) (ports.PaneInfo, []string, error) {
	if err := checkPaneID(id); err != nil {
		return ports.PaneInfo{}, nil, err
	}
	// Without -S and -E, capture-pane reads the visible screen: rows 0
	// to the height that the description, run just before, prints.
	args := []string{"capture-pane", "-t", string(id)}
	if joinWrapped {
		args = append(args, "-J")
	}
	rows, out, ok, err := t.captureInBand(ctx, id, append(args, "-p"), paneCmds(id))
	if !ok {
		return screencap.InTwoCalls(ctx, t, id, joinWrapped)
	}
	if err != nil {
		return ports.PaneInfo{}, nil, fmt.Errorf("describe and capture pane %s: %w", id, err)
	}
	info, err := t.paneInfo(id, out)
	if err != nil {
		return ports.PaneInfo{}, nil, fmt.Errorf("describe pane %s: %w", id, err)
	}
	return info, rows, nil
}

// captureInBand runs capture (a capture-pane with -p) over a control
// client, after the commands of before, if any, in one write: out is what
// they printed, rows what capture printed. The capture is a printing part
// (see controlParser), whose reply no line of the pane's text can end. ok
// is false when it could not be done that way (no control client, or it
// failed) and the caller is to capture as a process; a missing pane is
// reported, not retried.
func (t *terminal) captureInBand(ctx context.Context, id ports.PaneID, capture []string, before cmdList) (rows []string, out string, ok bool, err error) {
	line, lineOK := printingLine(capture)
	if !lineOK {
		return nil, "", false, nil
	}
	parts := []commandPart{{line: line, printing: true}}
	if len(before) > 0 {
		first, firstOK := commandLine(before)
		if !firstOK {
			return nil, "", false, nil
		}
		parts = append([]commandPart{{line: first}}, parts...)
	}
	c, release, err := t.commandClient(ctx, id)
	if err != nil {
		return nil, "", true, err
	}
	if c == nil {
		return nil, "", false, nil
	}
	// Printing the pane's text notifies no control client, so no client
	// that attaches holds it up (see notifies).
	gated := notifies(before)
	if gated {
		t.attachGate.RLock()
	}
	printed, err := c.send(ctx, "capture-pane", parts...)
	if gated {
		t.attachGate.RUnlock()
	}
	release()
	if err != nil {
		if errors.Is(err, ports.ErrPaneNotFound) || errors.Is(err, errNoAnswer) || ctx.Err() != nil {
			// A process would find no pane, or no answer, either.
			return nil, "", true, err
		}
		t.debug("tmux capture over the control client failed, capturing as a process", "pane", id, "reason", err)
		return nil, "", false, nil
	}
	if len(before) > 0 {
		out = strings.Join(printed[0], "\n")
	}
	return trimRows(printed[len(printed)-1]), out, true, nil
}

// splitRows splits capture-pane output, one row per line, and trims the
// trailing spaces that tmux keeps with -J.
func splitRows(out string) []string {
	if out == "" {
		return nil
	}
	// Every row, empty ones too, ends with a newline.
	return trimRows(strings.Split(strings.TrimSuffix(out, "\n"), "\n"))
}

// trimRows trims the trailing spaces that tmux keeps with -J off each
// row, in place, and returns rows; nil for none.
func trimRows(rows []string) []string {
	if len(rows) == 0 {
		return nil
	}
	for i, row := range rows {
		rows[i] = strings.TrimRight(row, " ")
	}
	return rows
}
