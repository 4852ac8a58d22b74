package tmux

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/adapters/internal/tty"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// The ScriptStore and JobControl halves of the adapter. For a tmux server
// on this machine, scripts are files in a private directory of the
// Terminal's (adapters/internal/scripts), and what a pane's terminal says
// is read from the kernel, without tmux, so that it costs no round trip:
// the foreground process group from /proc (Linux), the terminal's mode
// from the pane's tty device. For one on another host (Options.SSH),
// scripts are files tmux writes there (scripts.go), and the same facts are
// read there by the remote reader (remoteproc.go), a question and its
// answer on the ssh connection.

// PutScript writes the script into the Terminal's private directory, or
// over ssh into tmux's own on the remote host (scripts.go).
func (t *shellSupport) PutScript(ctx context.Context, id ports.PaneID, build func(path string) []byte) (string, error) {
	if err := checkPaneID(id); err != nil {
		return "", err
	}
	return t.scripts.Put(ctx, id, build)
}

// RemoveScript deletes a script that PutScript wrote; the pane need not
// exist any more.
func (t *shellSupport) RemoveScript(ctx context.Context, id ports.PaneID, path string) (ports.ScriptState, error) {
	return t.scripts.Remove(ctx, id, path)
}

// Foreground reads the pane's foreground process group from /proc
// (internal/tty, or the remote reader over ssh), through the pane's first
// process, whose controlling terminal is the pane's.
func (t *shellSupport) Foreground(ctx context.Context, id ports.PaneID) (ports.Foreground, error) {
	fg, err := t.foreground(ctx, id)
	if err != nil {
		return ports.Foreground{}, fmt.Errorf("read the foreground of pane %s: %w", id, err)
	}
	return fg, nil
}

func (t *shellSupport) foreground(ctx context.Context, id ports.PaneID) (ports.Foreground, error) {
	if t.proc != nil {
		return t.remoteForeground(ctx, id)
	}
	c, dev, err := t.localTTY(ctx, id)
	if err != nil {
		return ports.Foreground{}, err
	}
	return tty.Foreground(c.pid, dev)
}

// LineEditing reads the pane's tty's mode.
func (t *shellSupport) LineEditing(ctx context.Context, id ports.PaneID) (bool, error) {
	editing, err := t.lineEditing(ctx, id)
	if err != nil {
		return false, fmt.Errorf("read the terminal of pane %s: %w", id, err)
	}
	return editing, nil
}

func (t *shellSupport) lineEditing(ctx context.Context, id ports.PaneID) (bool, error) {
	if t.proc != nil {
		return t.remoteLineEditing(ctx, id)
	}
	c, _, err := t.paneTTY(ctx, id, false)
	if err != nil {
		return false, err
	}
	return tty.LineEditing(c.path)
}

// remoteForeground asks the remote reader what tty.Foreground reads
// locally: the same fields, from the same files. The pane's first process
// and terminal are remembered as locally; the reader tells when that
// process has no entry any more (the pane's process was replaced), and
// tmux is asked again. The terminal's device number is asked once per
// pane, with its first question.
func (t *shellSupport) remoteForeground(ctx context.Context, id ports.PaneID) (ports.Foreground, error) {
	if err := checkPaneID(id); err != nil {
		return ports.Foreground{}, err
	}
	hello, err := t.proc.hello(ctx)
	if err != nil {
		return ports.Foreground{}, err
	}
	if !hello.proc {
		return ports.Foreground{}, fmt.Errorf("the remote host has no /proc to read processes from: %w", ports.ErrUnsupported)
	}
	for fresh := false; ; fresh = true {
		c, cached, err := t.paneTTY(ctx, id, fresh)
		if err != nil {
			return ports.Foreground{}, err
		}
		pts, err := ptsNumber(c.path)
		if err != nil {
			return ports.Foreground{}, err
		}
		qs := []procQuery{{verb: "fg", args: []int{c.pid}}}
		if !c.devKnown {
			qs = append([]procQuery{{verb: "dev", args: []int{pts}}}, qs...)
		}
		out, err := t.proc.ask(ctx, qs...)
		if err != nil {
			return ports.Foreground{}, err
		}
		if !c.devKnown {
			if c.dev, err = procDevice(out[0]); err != nil {
				return ports.Foreground{}, err
			}
			c.devKnown = true
			t.rememberTTY(id, c)
			out = out[1:]
		}
		fg, err := procForeground(c.pid, c.dev, hello, out[0])
		if errors.Is(err, tty.ErrNoProc) && cached {
			continue
		}
		return fg, err
	}
}

// remoteLineEditing asks the remote reader for the pane's terminal's
// mode, as tty.LineEditing reads it locally, and whether the pane's first
// process, by which the terminal was remembered, still runs: if not, tmux
// is asked for the pane's terminal again.
func (t *shellSupport) remoteLineEditing(ctx context.Context, id ports.PaneID) (bool, error) {
	for fresh := false; ; fresh = true {
		c, cached, err := t.paneTTY(ctx, id, fresh)
		if err != nil {
			return false, err
		}
		pts, err := ptsNumber(c.path)
		if err != nil {
			return false, err
		}
		out, err := t.proc.ask(ctx, procQuery{verb: "mode", args: []int{c.pid, pts}})
		if err != nil {
			return false, err
		}
		alive, editing, err := procMode(out[0])
		if alive != 1 && cached {
			continue
		}
		return editing, err
	}
}

// ptsNumber returns N of a terminal /dev/pts/N, the one form of a
// terminal's path the remote reader is asked about (it sends numbers
// only). Other forms (macOS's /dev/ttys003) are unsupported.
func ptsNumber(path string) (int, error) {
	s, ok := strings.CutPrefix(path, "/dev/pts/")
	n, err := strconv.Atoi(s)
	if !ok || err != nil || n < 0 || n > procMaxArg || strconv.Itoa(n) != s {
		return 0, fmt.Errorf("the pane's terminal %q is not /dev/pts/N, which is all the remote reader reads: %w", path, ports.ErrUnsupported)
	}
	return n, nil
}

// localTTY is paneTTY for a pane on this host, with its terminal's device
// number, as /proc names a process's controlling terminal.
func (t *terminal) localTTY(ctx context.Context, id ports.PaneID) (ttyOf, uint64, error) {
	c, _, err := t.paneTTY(ctx, id, false)
	if err != nil {
		return ttyOf{}, 0, err
	}
	dev, err := tty.Device(c.path)
	return c, dev, err
}

// paneTTY returns the pane's tty and first process, asking tmux the first
// time, when fresh is set, and after the pane's process was replaced:
// locally the remembered pid is checked against /proc; over ssh the
// caller checks it with its question, and cached says that it must.
func (t *terminal) paneTTY(ctx context.Context, id ports.PaneID, fresh bool) (_ ttyOf, cached bool, _ error) {
	if err := checkPaneID(id); err != nil {
		return ttyOf{}, false, err
	}
	t.mu.Lock()
	c, ok := t.ttys[id]
	t.mu.Unlock()
	if ok && !fresh && (t.launch.remote() || tty.Exists(c.pid)) {
		return c, true, nil
	}
	out, err := t.exec(ctx, route{pane: id}, probeCmd(id).
		then("display-message", "-p", "-t", string(id), "T"+sep+"#{pane_pid}"+sep+clean("pane_tty")))
	if err != nil {
		return ttyOf{}, false, err
	}
	if dead(out) {
		return ttyOf{}, false, ports.ErrPaneDead
	}
	l := tagged(out, "T", 2)
	if len(l) != 1 {
		return ttyOf{}, false, fmt.Errorf("tmux printed %q, not the pane's tty", out)
	}
	c = ttyOf{pid: atoi(l[0][0]), path: l[0][1]}
	if c.pid <= 0 || !strings.HasPrefix(c.path, "/dev/") {
		return ttyOf{}, false, fmt.Errorf("tmux gave the pane no tty (%q): %w", out, ports.ErrUnsupported)
	}
	t.rememberTTY(id, c)
	return c, false, nil
}

// rememberTTY keeps what paneTTY learnt of the pane's terminal.
func (t *terminal) rememberTTY(id ports.PaneID, c ttyOf) {
	t.mu.Lock()
	t.ttys[id] = c
	t.mu.Unlock()
}

// ttyOf is what the Terminal remembers of a pane's terminal.
type ttyOf struct {
	pid  int // the pane's first process
	path string

	// Over ssh: the device number of the terminal, as /proc/PID/stat
	// writes one, once the remote reader has told it.
	dev      uint64
	devKnown bool
}

// ReadScript reads a script's file back.
func (t *shellSupport) ReadScript(ctx context.Context, id ports.PaneID, path string) ([]byte, bool, error) {
	return t.scripts.Read(ctx, id, path)
}

// ScriptExposed tells whether something besides the pane's shell read a
// script (internal/scripts' witness); over ssh it cannot tell.
func (t *shellSupport) ScriptExposed(ctx context.Context, id ports.PaneID, path string) (bool, error) {
	return t.scripts.Exposed(ctx, id, path)
}
