package tmux

import (
	"context"
	"errors"
	"fmt"
	"os"
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
// With a control client at hand, the rows go through a paste buffer and a
// file instead of the client's replies, which a pane's text could forge
// (see doc.go); otherwise capture-pane -p runs as a process. With a remote
// host the file would be on that host, out of reach: capture-pane -p runs
// there, and its standard output, which carries no framing, comes back
// through ssh's.
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
	rows, _, ok, err := t.captureToFile(ctx, id, args, nil)
	if ok {
		if err != nil {
			return nil, fmt.Errorf("capture pane %s: %w", id, err)
		}
		return rows, nil
	}
	out, err := t.run(ctx, nil, append(args, "-p")...)
	if err != nil {
		return nil, fmt.Errorf("capture pane %s: %w", id, err)
	}
	return splitRows(out), nil
}

var _ ports.ScreenCapturer = (*Terminal)(nil)

// CaptureScreen is Pane and Capture of the visible screen in one command
// list, over a control client; where Capture would run a process it is
// Pane and then Capture.
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
	rows, out, ok, err := t.captureToFile(ctx, id, args, splitCommands(paneArgs(id)))
	if !ok {
		return screencap.InTwoCalls(ctx, t, id, joinWrapped)
	}
	if err != nil {
		return ports.PaneInfo{}, nil, fmt.Errorf("describe and capture pane %s: %w", id, err)
	}
	info, err := parsePaneInfo(id, out, t.self)
	if err != nil {
		return ports.PaneInfo{}, nil, fmt.Errorf("describe pane %s: %w", id, err)
	}
	return info, rows, nil
}

// captureToFile runs capture (a capture-pane without -p) over a control
// client into a paste buffer of its own, which save-buffer writes into a
// new file of this process and which is then deleted; the commands of
// before, if any, run first in the same list, and out is what they
// printed. ok is false when it could not be done that way (no control
// client, no file) and the caller is to capture as a process; a missing
// pane is reported, not retried.
func (t *Terminal) captureToFile(ctx context.Context, id ports.PaneID, capture []string, before [][]string) (rows []string, out string, ok bool, err error) {
	if t.launch.remote() {
		return nil, "", false, nil
	}
	c := t.commandClient(ctx, id)
	if c == nil {
		return nil, "", false, nil
	}
	// The file is made here, private to this user, for tmux to fill: in
	// the scripts' private directory (in memory where there is one), else
	// the temporary directory.
	dir := ""
	if local, ok := t.scripts.(localScripts); ok {
		dir = local.dir.Path()
	}
	f, err := os.CreateTemp(dir, "tmux-mcp-capture-")
	if err != nil {
		t.release(c)
		return nil, "", false, nil
	}
	path := f.Name()
	f.Close()
	defer os.Remove(path)
	name := fmt.Sprintf("tmux-mcp-%d-%s-%d", os.Getpid(), bufferTag, bufferSeq.Add(1))
	cmds := append(append([][]string(nil), before...),
		append(append([]string(nil), capture...), "-b", name),
		[]string{"save-buffer", "-b", name, path},
		[]string{"delete-buffer", "-b", name},
	)
	line, lineOK := commandLine(cmds)
	// save-buffer expands formats in its path.
	if !lineOK || strings.ContainsRune(path, '#') {
		t.release(c)
		return nil, "", false, nil
	}
	t.attachGate.RLock()
	printed, err := c.command(ctx, "capture-pane", line)
	t.attachGate.RUnlock()
	t.release(c)
	if err != nil {
		// The buffer may be left when a later command failed; deleting
		// a buffer that does not exist fails harmlessly.
		t.command(context.WithoutCancel(ctx), route{}, "delete-buffer", "-b", name)
		if errors.Is(err, ports.ErrPaneNotFound) || ctx.Err() != nil {
			return nil, "", true, err
		}
		t.debug("tmux capture through a file failed, capturing as a process", "pane", id, "reason", err)
		return nil, "", false, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, "", false, nil
	}
	return splitRows(string(data)), strings.Join(printed, "\n"), true, nil
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
