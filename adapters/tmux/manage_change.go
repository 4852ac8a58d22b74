package tmux

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// createdFormat is what the creating commands print (-P -F).
var createdFormat = strings.Join([]string{
	"#{session_id}", clean("session_name"), "#{window_id}", "#{window_index}", clean("window_name"), "#{pane_id}",
}, sep)

// parseCreated reads what createdFormat printed.
func parseCreated(out string) (ports.Created, error) {
	f := strings.Split(strings.TrimRight(out, "\n"), sep)
	if len(f) != 6 || !isID(f[5], '%') {
		return ports.Created{}, fmt.Errorf("tmux printed %q, not the new pane", out)
	}
	return ports.Created{
		Session: ports.SessionRef{ID: f[0], Name: f[1]},
		Window:  ports.WindowRef{ID: f[2], Index: atoi(f[3]), Name: f[4]},
		Pane:    ports.PaneID(f[5]),
	}, nil
}

// CreateSession runs new-session -d. The command, if any, goes to tmux as
// one argument after "--", which tmux hands to the default shell with -c;
// tmux does not expand formats in it. Without one, the pane's shell may
// start with the shell integration (see shellStart), as may the panes of
// CreateWindow and SplitWindow.
func (t *manager) CreateSession(ctx context.Context, spec ports.SessionSpec) (ports.Created, error) {
	args := []string{"new-session", "-d", "-P", "-F", createdFormat}
	if spec.Name != "" {
		if err := storableSession(spec.Name); err != nil {
			return ports.Created{}, fmt.Errorf("create session: %w", err)
		}
		args = append(args, "-s", literalName(spec.Name))
	}
	if spec.Width > 0 {
		args = append(args, "-x", strconv.Itoa(spec.Width))
	}
	if spec.Height > 0 {
		args = append(args, "-y", strconv.Itoa(spec.Height))
	}
	if spec.Command != "" {
		// tmux hands the command to the shell as "sh -c COMMAND", where a
		// leading "-" would be read as an option of the shell's.
		if strings.HasPrefix(strings.TrimSpace(spec.Command), "-") {
			return ports.Created{}, fmt.Errorf(`create session: command %q starts with "-", which the shell would read as an option: %w`,
				spec.Command, ports.ErrUnsupported)
		}
		args = append(args, "--", escapeArg(spec.Command))
	} else {
		args = append(args, t.shellStart(ctx, "")...)
	}
	out, err := t.run(ctx, nil, args...)
	if err != nil {
		return ports.Created{}, fmt.Errorf("create session: %w", manageError(err))
	}
	c, err := parseCreated(out)
	if err != nil {
		return ports.Created{}, fmt.Errorf("create session: %w", err)
	}
	return c, nil
}

// CreateWindow runs new-window -d at the session's next free index.
func (t *manager) CreateWindow(ctx context.Context, session, name string) (ports.Created, error) {
	id, err := t.sessionTarget(ctx, session)
	if err != nil {
		return ports.Created{}, fmt.Errorf("create window: %w", err)
	}
	args := []string{"new-window", "-d", "-P", "-F", createdFormat, "-t", id + ":"}
	if name != "" {
		if err := storable(name); err != nil {
			return ports.Created{}, fmt.Errorf("create window: %w", err)
		}
		args = append(args, "-n", literalName(name))
	}
	args = append(args, t.shellStart(ctx, id)...)
	out, err := t.run(ctx, nil, args...)
	if err != nil {
		return ports.Created{}, fmt.Errorf("create window: %w", manageError(err))
	}
	c, err := parseCreated(out)
	if err != nil {
		return ports.Created{}, fmt.Errorf("create window: %w", err)
	}
	return c, nil
}

// SplitWindow runs split-window -d, -v when vertical and -h otherwise,
// with -l size when size is not 0.
func (t *manager) SplitWindow(ctx context.Context, pane ports.PaneID, vertical bool, size int) (ports.Created, error) {
	if err := checkPaneID(pane); err != nil {
		return ports.Created{}, fmt.Errorf("split pane: %w", err)
	}
	dir := "-h"
	if vertical {
		dir = "-v"
	}
	args := []string{"split-window", "-d", dir, "-P", "-F", createdFormat, "-t", string(pane)}
	if size > 0 {
		args = append(args, "-l", strconv.Itoa(size))
	}
	args = append(args, t.shellStart(ctx, string(pane))...)
	out, err := t.run(ctx, nil, args...)
	if err != nil {
		return ports.Created{}, fmt.Errorf("split pane %s: %w", pane, manageError(err))
	}
	c, err := parseCreated(out)
	if err != nil {
		return ports.Created{}, fmt.Errorf("split pane %s: %w", pane, err)
	}
	return c, nil
}

// SelectPane runs select-pane.
func (t *manager) SelectPane(ctx context.Context, pane ports.PaneID) error {
	return t.paneCommand(ctx, pane, "select pane", "select-pane")
}

// SelectWindow runs select-window.
func (t *manager) SelectWindow(ctx context.Context, window string) error {
	return t.windowCommand(ctx, window, "select window", "select-window")
}

// ResizePane runs resize-pane -x/-y for the dimensions given.
func (t *manager) ResizePane(ctx context.Context, pane ports.PaneID, width, height int) error {
	var size []string
	if width > 0 {
		size = append(size, "-x", strconv.Itoa(width))
	}
	if height > 0 {
		size = append(size, "-y", strconv.Itoa(height))
	}
	if size == nil {
		return nil
	}
	return t.paneCommand(ctx, pane, "resize pane", "resize-pane", size...)
}

// ResizeWindow runs resize-window -x/-y for the dimensions given. tmux
// then sets the window's window-size option to manual: the window keeps
// that size when clients attach, until the option is changed.
func (t *manager) ResizeWindow(ctx context.Context, window string, width, height int) error {
	var size []string
	if width > 0 {
		size = append(size, "-x", strconv.Itoa(width))
	}
	if height > 0 {
		size = append(size, "-y", strconv.Itoa(height))
	}
	if size == nil {
		if err := checkWindowID(window); err != nil {
			return fmt.Errorf("resize window: %w", err)
		}
		return nil
	}
	return t.windowCommand(ctx, window, "resize window", "resize-window", size...)
}

// RenameSession runs rename-session on the session's id.
func (t *manager) RenameSession(ctx context.Context, session, name string) error {
	if err := storableSession(name); err != nil {
		return fmt.Errorf("rename session %s: %w", session, err)
	}
	id, err := t.sessionTarget(ctx, session)
	if err != nil {
		return fmt.Errorf("rename session: %w", err)
	}
	if _, err := t.run(ctx, nil, "rename-session", "-t", id, literalName(name)); err != nil {
		return fmt.Errorf("rename session %s: %w", session, manageError(err))
	}
	return nil
}

// RenameWindow runs rename-window, which also turns the window's
// automatic-rename off.
func (t *manager) RenameWindow(ctx context.Context, window, name string) error {
	if err := storable(name); err != nil {
		return fmt.Errorf("rename window %s: %w", window, err)
	}
	return t.windowCommand(ctx, window, "rename window", "rename-window", literalName(name))
}

// ClearHistory runs clear-history.
func (t *manager) ClearHistory(ctx context.Context, pane ports.PaneID) error {
	return t.paneCommand(ctx, pane, "clear the history of pane", "clear-history")
}

// KillPane runs kill-pane.
func (t *manager) KillPane(ctx context.Context, pane ports.PaneID) error {
	return t.paneCommand(ctx, pane, "kill pane", "kill-pane")
}

// KillWindow runs kill-window.
func (t *manager) KillWindow(ctx context.Context, window string) error {
	return t.windowCommand(ctx, window, "kill window", "kill-window")
}

// KillSession runs kill-session on the session's id. tmux exits when its
// last session goes.
func (t *manager) KillSession(ctx context.Context, session string) error {
	id, err := t.sessionTarget(ctx, session)
	if err != nil {
		return fmt.Errorf("kill session: %w", err)
	}
	if _, err := t.run(ctx, nil, "kill-session", "-t", id); err != nil {
		return fmt.Errorf("kill session %s: %w", session, manageError(err))
	}
	return nil
}

// RespawnPane runs respawn-pane -k, which kills the pane's process if it
// still runs and starts the command the pane was made with again, in a
// new terminal of the same pane id: the visible screen is cleared, the
// history kept, any mode left. Control clients go on sending the pane's
// output, so open streams carry the new process's bytes after the old
// one's (with one byte counted as missed where tmux may have dropped some;
// see pausedOutput); a dead pane's streams have ended already. The
// terminal this adapter remembers for the pane is forgotten, to be asked
// for again.
//
// tmux up to 3.6a at least crashes, taking every session with it, when
// the new process first writes after respawn-pane if a control client was
// behind on the pane's output at the respawn: the pane gets a new, empty
// buffer, while the offsets into the old one that the pane and each
// control client keep are not reset (tmux/tmux#5499). A client falls
// behind when it reads slowly, and for good when the pane died while
// output to it was still queued, which is common: the last words of a
// shell that exits. So RespawnPane first pauses the pane for every
// control client attached to the server, its own and other programs'
// (refresh-client -t CLIENT -A %N:pause, which drops what was queued for
// the client), respawns it and continues it for each (which sets the
// client's offset to the pane's), all in one command list, which tmux
// runs to its end before it reads from any pane. It holds attachGate
// across listing the clients and that command list, so that no control
// client of this Terminal attaches unseen in between; one of another
// program's that attaches in that moment is not paused.
func (t *manager) RespawnPane(ctx context.Context, pane ports.PaneID) error {
	if err := checkPaneID(pane); err != nil {
		return fmt.Errorf("respawn pane: %w", err)
	}
	t.attachGate.RLock()
	defer t.attachGate.RUnlock()
	out, err := t.runGated(ctx, nil, "list-clients", "-F", "R"+sep+"#{client_control_mode}"+sep+clean("client_name"))
	if err != nil {
		return fmt.Errorf("respawn pane %s: list the control clients: %w", pane, err)
	}
	var controls []string
	for _, f := range tagged(out, "R", 2) {
		if f[0] == "1" {
			controls = append(controls, f[1])
		}
	}
	each := func(state string) cmdList {
		var l cmdList
		for _, name := range controls {
			l = l.then("refresh-client", "-t", name, "-A", string(pane)+":"+state)
		}
		return l
	}
	l := each("pause").then("respawn-pane", "-k", "-t", string(pane)).and(each("continue"))
	if _, err := t.runGated(ctx, nil, l.argv()...); err != nil {
		// A failing command ends the list: a client that left in between
		// may have kept the rest from running, the respawn too. None may
		// stay paused.
		for _, name := range controls {
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			t.runGated(cctx, nil, tmuxCmd("refresh-client", "-t", name, "-A", string(pane)+":continue").argv()...)
			cancel()
		}
		return fmt.Errorf("respawn pane %s: %w", pane, manageError(err))
	}
	t.mu.Lock()
	delete(t.ttys, pane)
	t.mu.Unlock()
	return nil
}

// paneCommand runs "command -t pane args...".
func (t *manager) paneCommand(ctx context.Context, pane ports.PaneID, what, command string, args ...string) error {
	if err := checkPaneID(pane); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if _, err := t.run(ctx, nil, append([]string{command, "-t", string(pane)}, args...)...); err != nil {
		return fmt.Errorf("%s %s: %w", what, pane, manageError(err))
	}
	return nil
}

// windowCommand runs "command -t window args...".
func (t *manager) windowCommand(ctx context.Context, window, what, command string, args ...string) error {
	if err := checkWindowID(window); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if _, err := t.run(ctx, nil, append([]string{command, "-t", window}, args...)...); err != nil {
		return fmt.Errorf("%s %s: %w", what, window, manageError(err))
	}
	return nil
}
