package multihost

import (
	"context"
	"fmt"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// The Terminal half: each call goes to the pane's host, with the host's
// own id, and what comes back carries the router's ids. Errors are the
// host's, told as the host's ("on host web1: describe pane %3: ...").

// Pane describes the pane.
func (t *Terminal) Pane(ctx context.Context, id ports.PaneID) (ports.PaneInfo, error) {
	h, own, err := t.pane(ctx, "describe pane", id)
	if err != nil {
		return ports.PaneInfo{}, err
	}
	info, err := h.Terminal.Pane(ctx, own)
	return h.paneInfo(info), h.saw(ctx, err, false, t.now)
}

// SendText types text into the pane.
func (t *Terminal) SendText(ctx context.Context, id ports.PaneID, text string) error {
	h, own, err := t.pane(ctx, "type into pane", id)
	if err != nil {
		return err
	}
	return h.saw(ctx, h.Terminal.SendText(ctx, own, text), false, t.now)
}

// SendKeys presses keys in the pane.
func (t *Terminal) SendKeys(ctx context.Context, id ports.PaneID, keys []string) error {
	h, own, err := t.pane(ctx, "press keys in pane", id)
	if err != nil {
		return err
	}
	return h.saw(ctx, h.Terminal.SendKeys(ctx, own, keys), false, t.now)
}

// Paste pastes text into the pane.
func (t *Terminal) Paste(ctx context.Context, id ports.PaneID, text string) error {
	h, own, err := t.pane(ctx, "paste into pane", id)
	if err != nil {
		return err
	}
	return h.saw(ctx, h.Terminal.Paste(ctx, own, text), false, t.now)
}

// Capture returns rows of the pane.
func (t *Terminal) Capture(ctx context.Context, id ports.PaneID, r ports.CaptureRange) ([]string, error) {
	h, own, err := t.pane(ctx, "capture pane", id)
	if err != nil {
		return nil, err
	}
	rows, err := h.Terminal.Capture(ctx, own, r)
	return rows, h.saw(ctx, err, false, t.now)
}

// OpenOutput opens the pane's output stream, which is the host's own.
func (t *Terminal) OpenOutput(ctx context.Context, id ports.PaneID) (ports.OutputStream, error) {
	h, own, err := t.pane(ctx, "listen to pane", id)
	if err != nil {
		return nil, err
	}
	s, err := h.Terminal.OpenOutput(ctx, own)
	if err := h.saw(ctx, err, false, t.now); err != nil {
		return nil, err
	}
	return s, nil
}

// PutScript stores a script for the pane's shell, on the pane's host.
func (t *Terminal) PutScript(ctx context.Context, id ports.PaneID, build func(path string) []byte) (string, error) {
	h, own, err := t.pane(ctx, "store a script for pane", id)
	if err != nil {
		return "", err
	}
	path, err := h.Terminal.PutScript(ctx, own, build)
	return path, h.saw(ctx, err, false, t.now)
}

// ReadScript reads back a script PutScript stored for the pane.
func (t *Terminal) ReadScript(ctx context.Context, id ports.PaneID, path string) ([]byte, bool, error) {
	h, own, err := t.pane(ctx, "read a script of pane", id)
	if err != nil {
		return nil, false, err
	}
	b, ok, err := h.Terminal.ReadScript(ctx, own, path)
	return b, ok, h.saw(ctx, err, false, t.now)
}

// RemoveScript removes a script PutScript stored for the pane.
func (t *Terminal) RemoveScript(ctx context.Context, id ports.PaneID, path string) (ports.ScriptState, error) {
	h, own, err := t.pane(ctx, "remove a script of pane", id)
	if err != nil {
		return ports.ScriptUnknown, err
	}
	st, err := h.Terminal.RemoveScript(ctx, own, path)
	return st, h.saw(ctx, err, false, t.now)
}

// Foreground describes the foreground group of the pane's terminal.
func (t *Terminal) Foreground(ctx context.Context, id ports.PaneID) (ports.Foreground, error) {
	h, own, err := t.pane(ctx, "read the foreground of pane", id)
	if err != nil {
		return ports.Foreground{}, err
	}
	fg, err := h.Terminal.Foreground(ctx, own)
	return fg, h.saw(ctx, err, false, t.now)
}

// LineEditing reports whether the pane's terminal is set for line editing.
func (t *Terminal) LineEditing(ctx context.Context, id ports.PaneID) (bool, error) {
	h, own, err := t.pane(ctx, "read the terminal of pane", id)
	if err != nil {
		return false, err
	}
	on, err := h.Terminal.LineEditing(ctx, own)
	return on, h.saw(ctx, err, false, t.now)
}

// lacks is the error of a capability the pane's host does not offer.
func lacks(what string, id ports.PaneID, h route, capability string) error {
	return fmt.Errorf("%s %s: the backend of host %s is no %s: %w", what, id, h.name, capability, ports.ErrUnsupported)
}

// CaptureScreen describes the pane and captures its screen, in one
// exchange where the host's backend is a ports.ScreenCapturer, else as
// Pane then Capture of rows 0 to Height-1.
func (t *Terminal) CaptureScreen(ctx context.Context, id ports.PaneID, joinWrapped bool) (ports.PaneInfo, []string, error) {
	h, own, err := t.pane(ctx, "capture the screen of pane", id)
	if err != nil {
		return ports.PaneInfo{}, nil, err
	}
	if sc, ok := h.Terminal.(ports.ScreenCapturer); ok {
		info, rows, err := sc.CaptureScreen(ctx, own, joinWrapped)
		return h.paneInfo(info), rows, h.saw(ctx, err, false, t.now)
	}
	info, err := h.Terminal.Pane(ctx, own)
	if err != nil {
		return ports.PaneInfo{}, nil, h.saw(ctx, err, false, t.now)
	}
	rows, err := h.Terminal.Capture(ctx, own, ports.CaptureRange{Start: 0, End: info.Height - 1, JoinWrapped: joinWrapped})
	return h.paneInfo(info), rows, h.saw(ctx, err, false, t.now)
}

// DescribeGuarded is the host's, where its backend is a
// ports.GuardedWriter; ErrUnsupported otherwise.
func (t *Terminal) DescribeGuarded(ctx context.Context, id ports.PaneID) (ports.PaneInfo, ports.Guard, error) {
	h, own, err := t.pane(ctx, "describe pane", id)
	if err != nil {
		return ports.PaneInfo{}, "", err
	}
	gw, ok := h.Terminal.(ports.GuardedWriter)
	if !ok {
		return ports.PaneInfo{}, "", lacks("describe pane", id, h, "guarded writer")
	}
	info, g, err := gw.DescribeGuarded(ctx, own)
	return h.paneInfo(info), g, h.saw(ctx, err, false, t.now)
}

// GuardedWrite is the host's, where its backend is a
// ports.GuardedWriter; ErrUnsupported otherwise, nothing sent.
func (t *Terminal) GuardedWrite(ctx context.Context, w ports.GuardedWrite) (ports.GuardedResult, error) {
	h, own, err := t.pane(ctx, "write to pane", w.Pane)
	if err != nil {
		return ports.GuardedResult{}, err
	}
	gw, ok := h.Terminal.(ports.GuardedWriter)
	if !ok {
		return ports.GuardedResult{}, lacks("write to pane", w.Pane, h, "guarded writer")
	}
	w.Pane = own
	res, err := gw.GuardedWrite(ctx, w)
	res.Info = h.paneInfo(res.Info)
	return res, h.saw(ctx, err, false, t.now)
}

// ScriptExposed is the host's, where its backend is a
// ports.ScriptWitness; ErrUnsupported otherwise.
func (t *Terminal) ScriptExposed(ctx context.Context, id ports.PaneID, path string) (bool, error) {
	h, own, err := t.pane(ctx, "tell who read a script of pane", id)
	if err != nil {
		return false, err
	}
	w, ok := h.Terminal.(ports.ScriptWitness)
	if !ok {
		return false, lacks("tell who read a script of pane", id, h, "script witness")
	}
	exposed, err := w.ScriptExposed(ctx, own, path)
	return exposed, h.saw(ctx, err, false, t.now)
}

// ProcessMark is the host's, where its backend is a ports.ProcessWatcher;
// ErrUnsupported otherwise. The mark is the host's, for the same pane.
func (t *Terminal) ProcessMark(ctx context.Context, id ports.PaneID) (ports.ProcessMark, error) {
	h, own, err := t.pane(ctx, "mark the processes of pane", id)
	if err != nil {
		return ports.ProcessMark{}, err
	}
	pw, ok := h.Terminal.(ports.ProcessWatcher)
	if !ok {
		return ports.ProcessMark{}, lacks("mark the processes of pane", id, h, "process watcher")
	}
	m, err := pw.ProcessMark(ctx, own)
	return m, h.saw(ctx, err, false, t.now)
}

// ProcessesSince is the host's, where its backend is a
// ports.ProcessWatcher; ErrUnsupported otherwise.
func (t *Terminal) ProcessesSince(ctx context.Context, id ports.PaneID, mark ports.ProcessMark) ([]ports.Process, error) {
	h, own, err := t.pane(ctx, "list the processes of pane", id)
	if err != nil {
		return nil, err
	}
	pw, ok := h.Terminal.(ports.ProcessWatcher)
	if !ok {
		return nil, lacks("list the processes of pane", id, h, "process watcher")
	}
	ps, err := pw.ProcessesSince(ctx, own, mark)
	return ps, h.saw(ctx, err, false, t.now)
}

// SignalGroup is the host's, where its backend is a ports.Signaler;
// ErrUnsupported otherwise, nothing sent.
func (t *Terminal) SignalGroup(ctx context.Context, id ports.PaneID, pgid int, sig ports.Signal) ([]ports.Process, error) {
	h, own, err := t.pane(ctx, "signal a process group of pane", id)
	if err != nil {
		return nil, err
	}
	sg, ok := h.Terminal.(ports.Signaler)
	if !ok {
		return nil, lacks("signal a process group of pane", id, h, "signaler")
	}
	ps, err := sg.SignalGroup(ctx, own, pgid, sig)
	return ps, h.saw(ctx, err, false, t.now)
}

// ProcessExists is the host's, where its backend is a
// ports.ProcessChecker; ErrUnsupported otherwise.
func (t *Terminal) ProcessExists(ctx context.Context, id ports.PaneID, pid int) (bool, error) {
	h, own, err := t.pane(ctx, "look for a process of pane", id)
	if err != nil {
		return false, err
	}
	pc, ok := h.Terminal.(ports.ProcessChecker)
	if !ok {
		return false, lacks("look for a process of pane", id, h, "process checker")
	}
	exists, err := pc.ProcessExists(ctx, own, pid)
	return exists, h.saw(ctx, err, false, t.now)
}

// Reading is the host's, where its backend is a ports.InputWatcher;
// ErrUnsupported otherwise.
func (t *Terminal) Reading(ctx context.Context, id ports.PaneID) (ports.Reading, error) {
	h, own, err := t.pane(ctx, "tell who reads the terminal of pane", id)
	if err != nil {
		return ports.Reading{}, err
	}
	iw, ok := h.Terminal.(ports.InputWatcher)
	if !ok {
		return ports.Reading{}, lacks("tell who reads the terminal of pane", id, h, "input watcher")
	}
	rd, err := iw.Reading(ctx, own)
	return rd, h.saw(ctx, err, false, t.now)
}
