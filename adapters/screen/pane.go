package screen

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// window is a window of the session as one lookup found it.
type window struct {
	n    int
	live bool     // its program runs
	proc procStat // the program screen started in it, when live
}

// generation names the window's process: its pid and start time, which no
// later process shares even when screen gives a later window the same
// number.
func (w window) generation() string {
	return fmt.Sprintf("%d.%d", w.proc.pid, w.proc.start)
}

// parsePaneID reads "%N", the id of window N.
func parsePaneID(id ports.PaneID) (int, error) {
	s, ok := strings.CutPrefix(string(id), "%")
	n, err := strconv.Atoi(s)
	if !ok || err != nil || n < 0 || strconv.Itoa(n) != s {
		return 0, fmt.Errorf("pane %q: not a pane id of the form %%N: %w", id, ports.ErrPaneNotFound)
	}
	return n, nil
}

// listWindows returns the numbers of the session's windows.
func (t *Terminal) listWindows(ctx context.Context) (map[int]bool, error) {
	// Only %n: some escapes of screen 4.9 (%e at least) read the display
	// of the query, and a query from outside has none, which crashes the
	// server.
	out, err := t.query(ctx, "windows", "%n;")
	if err != nil {
		return nil, err
	}
	nums := map[int]bool{}
	for _, f := range strings.Split(out, ";") {
		if n, err := strconv.Atoi(strings.TrimSpace(f)); err == nil {
			nums[n] = true
		}
	}
	return nums, nil
}

// lookup finds the window of id and its program. It returns an error
// wrapping ports.ErrPaneNotFound when the session has no such window.
func (t *Terminal) lookup(ctx context.Context, id ports.PaneID) (window, error) {
	if err := t.checkOpen(); err != nil {
		return window{}, err
	}
	n, err := parsePaneID(id)
	if err != nil {
		return window{}, err
	}
	nums, err := t.listWindows(ctx)
	if err != nil {
		return window{}, fmt.Errorf("list windows: %w", err)
	}
	if !nums[n] {
		return window{}, fmt.Errorf("pane %s: session %s has no window %d: %w", id, t.session, n, ports.ErrPaneNotFound)
	}
	w := window{n: n}
	st, found, err := t.windowProcess(ctx, n)
	if err != nil {
		return window{}, fmt.Errorf("pane %s: %w", id, err)
	}
	if found {
		w.live, w.proc = true, st
	}
	return w, nil
}

// windowBirthTimeout bounds how long a lookup waits for a window's program
// that screen has forked but not yet started.
const windowBirthTimeout = 2 * time.Second

// windowProcess finds the live process screen started in window n. A
// window whose program cannot be found has exited, unless screen is still
// starting it: screen forks the window's process and only then executes
// the program with WINDOW and STY in its environment, so until then
// nothing tells which window the process is for, and a fresh window looks
// exactly like one whose program exited. While the server has such a
// child, windowProcess waits for it (up to windowBirthTimeout) and looks
// again. The error is ctx's, when it ends first.
func (t *Terminal) windowProcess(ctx context.Context, n int) (procStat, bool, error) {
	deadline := time.Now().Add(windowBirthTimeout)
	for {
		st, found, born := findWindowProcess(t.serverPID, t.session, n)
		if found || !born || time.Now().After(deadline) {
			return st, found, nil
		}
		select {
		case <-ctx.Done():
			return procStat{}, false, ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// stillLive reports whether the window's program still runs.
func (w window) stillLive() bool { return w.live && alive(w.proc.pid, w.proc.start) }

// Pane describes window N of the session for pane id "%N".
//
// What screen cannot tell is listed in PaneInfo.Unknown, and the domain
// refuses to write then:
//   - ports.FactMode, always (unless Options.AssumeNoCopyMode): screen 4.9
//     has no way to ask whether a window is in copy mode, and input sent
//     to a window in copy mode is read by copy mode.
//   - ports.FactWatched, while a display is attached (Attended is true
//     then): screen can say that a person is attached but not which
//     windows their display shows.
//   - ports.FactCommand and ports.FactSelf, when /proc cannot be read.
//
// AlsoReaches is always empty: screen has no synchronized input.
// Generation is the pid and start time of the window's program; Dead
// reports that the program has exited (a zombie window, or one about to
// be removed). Width and Height come from the window's pseudo-terminal,
// HistorySize from a hardcopy of the window's scrollback, and
// HistoryLimit from Options.HistoryLimit (at least HistorySize), because
// screen's only report of it crashes a session whose window has
// monitoring on.
func (t *Terminal) Pane(ctx context.Context, id ports.PaneID) (ports.PaneInfo, error) {
	w, err := t.lookup(ctx, id)
	if err != nil {
		return ports.PaneInfo{}, err
	}
	info := ports.PaneInfo{ID: id}
	var unknown []ports.Fact

	width, height, gen := t.geometry(w)
	info.Generation = gen
	info.Dead = !w.live
	if w.live {
		if cmd, program, err := foreground(w.proc); err == nil {
			info.Command, info.Program = cmd, program
		} else {
			unknown = append(unknown, ports.FactCommand)
		}
	}
	rows, err := t.hardcopy(ctx, w, true)
	if err != nil {
		return ports.PaneInfo{}, fmt.Errorf("describe pane %s: %w", id, err)
	}
	if height == 0 {
		if height, err = t.screenHeight(ctx, w); err != nil {
			return ports.PaneInfo{}, fmt.Errorf("describe pane %s: %w", id, err)
		}
	}
	info.Width, info.Height = width, height
	info.HistorySize = max(0, len(rows)-height)
	info.HistoryLimit = max(t.opts.HistoryLimit, info.HistorySize)

	if !t.opts.AssumeNoCopyMode {
		unknown = append(unknown, ports.FactMode)
	}
	if att, err := attached(t.sockPath); err != nil || att {
		info.Attended = att
		unknown = append(unknown, ports.FactWatched)
	}
	if self, known := t.isSelf(w); known {
		info.Self = self
	} else {
		unknown = append(unknown, ports.FactSelf)
	}
	info.Unknown = unknown
	return info, nil
}

// geometry returns the window's size and generation: from its
// pseudo-terminal while its program runs, else as last seen (zeros and
// "dead" when never seen alive).
func (t *Terminal) geometry(w window) (width, height int, gen string) {
	if w.live {
		gen = w.generation()
		if p, err := ttyPath(w.proc); err == nil {
			if f, err := openTTY(p); err == nil {
				width, height, _ = ttySize(f)
				f.Close()
			}
		}
		if height > 0 && w.stillLive() {
			t.mu.Lock()
			t.gens[w.n] = windowMemo{gen: gen, width: width, height: height}
			t.mu.Unlock()
		}
		return width, height, gen
	}
	t.mu.Lock()
	m, ok := t.gens[w.n]
	t.mu.Unlock()
	if !ok {
		return 0, 0, "dead"
	}
	return m.width, m.height, m.gen
}

// screenHeight counts the rows of a hardcopy of the window's screen.
func (t *Terminal) screenHeight(ctx context.Context, w window) (int, error) {
	rows, err := t.hardcopy(ctx, w, false)
	if err != nil {
		return 0, err
	}
	return len(rows), nil
}

// selfEnv is what this process's environment says about the window it
// runs in.
type selfEnv struct {
	sty, window string
}

// isSelf reports whether this process runs in the window: its environment
// names the session and window (as STY and WINDOW, which screen sets), or
// the window's program is one of its ancestors. known is false when
// neither can be told.
func (t *Terminal) isSelf(w window) (self, known bool) {
	if t.self.sty == t.session && t.self.window == strconv.Itoa(w.n) {
		return true, true
	}
	anc := ancestors(os.Getpid())
	if len(anc) == 0 {
		return false, false
	}
	if w.live {
		if start, ok := anc[w.proc.pid]; ok && start == w.proc.start {
			return true, true
		}
	}
	return false, true
}
