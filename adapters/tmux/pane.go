package tmux

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/adapters/internal/tty"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// sep separates the fields of the formats below. tmux prints a format's
// literal text as is, and the free-text values in it go through clean, so
// sep can only come from tmux itself. A value that tmux makes itself from
// a fixed set of words or numbers (pane_mode: the name of one of tmux's
// modes; pane_tty: the name the kernel gave the pty tmux opened;
// client_flags: tmux's own flag words) is asked for as it is: clean costs
// tmux a regular expression compiled at every evaluation (≈ 10 µs of its
// CPU each, BENCHMARKS.md), and these can hold no control character. A
// value that a process can choose (a command name, a socket path, an
// option's value, a client's tty name, which the client itself reports)
// always goes through clean.
const sep = "\x1f"

// clean is a format that prints the named variable with every control
// character replaced by "?": a program name can hold tabs, newlines or
// sep itself (a process may rename itself to anything).
func clean(name string) string {
	return "#{s/[\x01-\x1f\x7f]/?/:" + name + "}"
}

// Fields of a pane line, in order; the line starts with "P".
const (
	pID = iota
	pPID
	pDead
	pInMode
	pMode
	pWidth
	pHeight
	pHistorySize
	pHistoryLimit
	pSynchronized
	pWindow
	pZoomed
	pSocket
	pServerPID
	pServerStart
	pCommand
	pTTY
	paneFieldCount
)

var paneFormat = strings.Join([]string{
	"P",
	"#{pane_id}", "#{pane_pid}", "#{pane_dead}", "#{pane_in_mode}", "#{pane_mode}",
	"#{pane_width}", "#{pane_height}", "#{history_size}", "#{history_limit}",
	"#{pane_synchronized}", "#{window_id}", "#{window_zoomed_flag}",
	clean("socket_path"), "#{pid}", "#{start_time}",
	clean("pane_current_command"), "#{pane_tty}",
}, sep)

// Fields of a client line, in order; the line starts with "C". In
// list-clients, window_id and pane_id are the current window of the
// client's session and that window's active pane: what the client shows.
const (
	cName = iota
	cTTY
	cControl
	cWindow
	cPane
	cFlags
	cSession
	clientFieldCount
)

var clientFormat = strings.Join([]string{
	"C",
	clean("client_name"), clean("client_tty"), "#{client_control_mode}",
	"#{window_id}", "#{pane_id}", "#{client_flags}", "#{session_id}",
}, sep)

// A window line ("W", session id, window id) says that the window is
// linked into the session.
var windowFormat = strings.Join([]string{"W", "#{session_id}", "#{window_id}"}, sep)

// Pane describes the pane with one tmux invocation: the panes of its window
// (for synchronized input), the attached clients and the sessions each
// window is linked into (for watchers).
//
// Attended is true when a client that is not a control-mode client is
// attached to a session the pane's window is linked into. Watchers are the attached clients that are not control-mode clients and
// show the pane: their session's current window is the pane's window and,
// when that window is zoomed, the pane is the zoomed one. A read-only
// client counts: a person still sees the pane. AlsoReaches lists the other
// panes of the window with synchronize-panes on, when the pane has it on
// too. Generation is made of the pane's process id and the server's pid and
// start time, so it changes when the pane is respawned or the server
// restarted. Self is true when TMUX names this server's socket and pid and
// TMUX_PANE names the pane. tmux can tell every fact, so Unknown is empty.
//
// Errors wrap ports.ErrPaneNotFound for an unknown pane and
// ports.ErrUnavailable when no server answers.
func (t *Terminal) Pane(ctx context.Context, id ports.PaneID) (ports.PaneInfo, error) {
	if err := checkPaneID(id); err != nil {
		return ports.PaneInfo{}, err
	}
	out, err := t.exec(ctx, route{pane: id}, paneCmds(id))
	if err != nil {
		return ports.PaneInfo{}, fmt.Errorf("describe pane %s: %w", id, err)
	}
	info, err := t.paneInfo(id, out)
	if err != nil {
		return ports.PaneInfo{}, fmt.Errorf("describe pane %s: %w", id, err)
	}
	return info, nil
}

// paneInfo builds the PaneInfo of pane id from the output of Pane's
// commands, and adds what the kernel says of its foreground program.
func (t *terminal) paneInfo(id ports.PaneID, out string) (ports.PaneInfo, error) {
	d := parseDescriptions(out)
	info, err := d.info(id, t.self)
	if err == nil {
		info.Program = t.program(d.byID[string(id)])
	}
	return info, err
}

// program names the executable that the leader of the pane's foreground
// process group runs, read from /proc through the pane's first process
// (internal/tty), whose controlling terminal is the pane's: tmux names
// only what that leader was started as. "" over ssh, where the processes
// are on another host, and wherever /proc cannot tell.
func (t *terminal) program(pane []string) string {
	if t.launch.remote() || pane[pDead] == "1" {
		return ""
	}
	pid := atoi(pane[pPID])
	dev, err := tty.Device(pane[pTTY])
	if pid <= 0 || err != nil || !strings.HasPrefix(pane[pTTY], "/dev/") {
		return ""
	}
	return tty.FrontProgram(pid, dev)
}

// paneCmds are the commands of Pane.
func paneCmds(id ports.PaneID) cmdList {
	return tmuxCmd("list-panes", "-t", string(id), "-F", paneFormat).
		then("list-clients", "-F", clientFormat).
		then("list-windows", "-a", "-F", windowFormat)
}

// descriptions are the pane, client and window lines of an invocation
// that lists them with paneFormat, clientFormat and windowFormat, parsed
// once however many panes are then described from them.
type descriptions struct {
	panes   [][]string          // the pane lines' fields, in order
	byID    map[string][]string // the same, by pane id
	clients [][]string
	linked  map[string]map[string]bool // the sessions each window is linked into
}

func parseDescriptions(out string) descriptions {
	d := descriptions{byID: map[string][]string{}, linked: map[string]map[string]bool{}}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Split(line, sep)
		switch {
		case f[0] == "P" && len(f) == paneFieldCount+1:
			d.panes = append(d.panes, f[1:])
			d.byID[f[1+pID]] = f[1:]
		case f[0] == "C" && len(f) == clientFieldCount+1:
			d.clients = append(d.clients, f[1:])
		case f[0] == "W" && len(f) == 3:
			if d.linked[f[2]] == nil {
				d.linked[f[2]] = map[string]bool{}
			}
			d.linked[f[2]][f[1]] = true
		}
	}
	return d
}

// info builds the PaneInfo of pane id.
func (d descriptions) info(id ports.PaneID, self selfPane) (ports.PaneInfo, error) {
	me := d.byID[string(id)]
	if me == nil {
		return ports.PaneInfo{}, fmt.Errorf("tmux listed the window without the pane: %w", ports.ErrPaneNotFound)
	}
	info := ports.PaneInfo{
		ID:           id,
		Generation:   me[pPID] + "@" + me[pServerPID] + "." + me[pServerStart],
		Dead:         me[pDead] == "1",
		Command:      me[pCommand],
		Width:        atoi(me[pWidth]),
		Height:       atoi(me[pHeight]),
		HistorySize:  atoi(me[pHistorySize]),
		HistoryLimit: atoi(me[pHistoryLimit]),
	}
	if me[pInMode] == "1" {
		info.Mode = me[pMode]
		if info.Mode == "" {
			info.Mode = "mode"
		}
	}
	// tmux copies a key to every other pane of the window that has
	// synchronize-panes on, when the pane it is sent to has it on. It
	// skips panes that are in a mode, dead or hidden by zoom at that
	// moment, but any of that can change before the next key, so every
	// synchronized pane counts.
	if me[pSynchronized] == "1" {
		for _, p := range d.panes {
			if p[pID] != string(id) && p[pWindow] == me[pWindow] && p[pSynchronized] == "1" {
				info.AlsoReaches = append(info.AlsoReaches, ports.PaneID(p[pID]))
			}
		}
	}
	linked := d.linked[me[pWindow]] // the sessions holding the pane's window
	zoomed := me[pZoomed] == "1"
	for _, c := range d.clients {
		if c[cControl] == "1" {
			continue
		}
		if linked[c[cSession]] || c[cWindow] == me[pWindow] {
			info.Attended = true
		}
		if c[cWindow] != me[pWindow] {
			continue
		}
		// In a zoomed window a client shows only the zoomed pane, which
		// is the window's active pane; a client with its own active pane
		// (flag active-pane) might show another, so it counts for all.
		if zoomed && c[cPane] != string(id) && !hasFlag(c[cFlags], "active-pane") {
			continue
		}
		who := c[cTTY]
		if who == "" {
			who = c[cName]
		}
		info.Watchers = append(info.Watchers, who)
	}
	info.Self = self.is(id, me[pSocket], me[pServerPID])
	return info, nil
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

func hasFlag(flags, flag string) bool {
	for _, f := range strings.Split(flags, ",") {
		if f == flag {
			return true
		}
	}
	return false
}

// selfPane is where this process runs, from TMUX ("socket,pid,session")
// and TMUX_PANE ("%N"). Zero when it does not run in tmux.
type selfPane struct {
	socket string
	pid    string
	pane   string
}

func parseSelf(tmuxVar, paneVar string) selfPane {
	// The socket path may itself hold commas; pid and session index are
	// the last two fields.
	i := strings.LastIndexByte(tmuxVar, ',')
	if i < 0 {
		return selfPane{}
	}
	j := strings.LastIndexByte(tmuxVar[:i], ',')
	if j <= 0 {
		return selfPane{}
	}
	return selfPane{socket: tmuxVar[:j], pid: tmuxVar[j+1 : i], pane: paneVar}
}

// is reports whether this process runs in pane id of the server with the
// given socket path and pid.
func (s selfPane) is(id ports.PaneID, socket, pid string) bool {
	if s.socket == "" || s.pane != string(id) || s.pid != pid {
		return false
	}
	return sameFile(s.socket, socket)
}

func sameFile(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ai, err := os.Stat(a)
	if err != nil {
		return false
	}
	bi, err := os.Stat(b)
	if err != nil {
		return false
	}
	return os.SameFile(ai, bi)
}
