package tmux

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// The Manager half of the adapter: listings and the lifecycle of sessions,
// windows and panes, one tmux invocation per call (two where a session is
// named by its name, which is first looked up by listing).
//
// Nothing a caller passes reaches tmux as something it would expand or
// run: ids are checked to be a sigil and digits, sessions named by name are
// looked up and targeted by id (tmux would match a target name as a
// prefix or pattern), names that tmux would read as more than text or
// store changed are refused (storable), and the rest get every "#"
// doubled, because tmux expands formats in the names given to
// new-session, new-window, rename-session and rename-window ("#(...)"
// would run a command).

var _ ports.Manager = (*Terminal)(nil)

// Fields of a session line, after its "ses" tag.
const (
	sesID = iota
	sesName
	sesWindows
	sesCreated
	sesFieldCount
)

var sessionFormat = strings.Join([]string{"ses",
	"#{session_id}", clean("session_name"), "#{session_windows}", "#{session_created}",
}, sep)

// Fields of a window line, after its "win" tag.
const (
	winSessionID = iota
	winSessionName
	winID
	winIndex
	winName
	winActive
	winPanes
	winWidth
	winHeight
	winZoomed
	winFieldCount
)

var windowInfoFormat = strings.Join([]string{"win",
	"#{session_id}", clean("session_name"), "#{window_id}", "#{window_index}", clean("window_name"),
	"#{window_active}", "#{window_panes}", "#{window_width}", "#{window_height}", "#{window_zoomed_flag}",
}, sep)

// Fields of a pane line, after its "pan" tag.
const (
	panID = iota
	panSessionID
	panSessionName
	panWindowID
	panWindowIndex
	panWindowName
	panIndex
	panActive
	panDead
	panCommand
	panPath
	panWidth
	panHeight
	panTitle
	panPID
	panCursorX
	panCursorY
	panFieldCount
)

var paneSummaryFormat = strings.Join([]string{"pan",
	"#{pane_id}", "#{session_id}", clean("session_name"), "#{window_id}", "#{window_index}", clean("window_name"),
	"#{pane_index}", "#{pane_active}", "#{pane_dead}", clean("pane_current_command"), clean("pane_current_path"),
	"#{pane_width}", "#{pane_height}", clean("pane_title"),
	"#{pane_pid}", "#{cursor_x}", "#{cursor_y}",
}, sep)

// tagged returns the fields of the lines of out that start with tag and
// have n fields after it.
func tagged(out, tag string, n int) [][]string {
	var rows [][]string
	for _, line := range strings.Split(out, "\n") {
		f := strings.Split(line, sep)
		if f[0] == tag && len(f) == n+1 {
			rows = append(rows, f[1:])
		}
	}
	return rows
}

// manageError adds the Manager's sentinels to what tmux said: ErrNotFound
// for a session or window it cannot find, ErrNameInUse for a duplicate
// session name.
func manageError(err error) error {
	var ce *CommandError
	if !errors.As(err, &ce) {
		return err
	}
	switch msg := ce.Message; {
	case strings.Contains(msg, "can't find session"), strings.Contains(msg, "can't find window"),
		strings.Contains(msg, "session not found"), strings.Contains(msg, "window not found"):
		return fmt.Errorf("%w: %w", err, ports.ErrNotFound)
	case strings.Contains(msg, "duplicate session"):
		return fmt.Errorf("%w: %w", err, ports.ErrNameInUse)
	}
	return err
}

// storable returns an error wrapping ports.ErrInvalidName when tmux
// would take name other than as given, so that a listing and a lookup by
// the name asked for could disagree, or read part of it as more than
// text:
//   - tmux keeps session and window names vis(3)-encoded, so that a
//     backslash is stored as two (a\b reads back as a\\b) and so is any
//     byte that is not printable UTF-8;
//   - "#(", "#{" and "#[" start formats and styles. literalName escapes
//     them all the same; refusing them too means that no name's safety
//     rests on the escaping alone ("#(" runs a command).
//   - a leading "-" reads as an option wherever a name is an argument.
func storable(name string) error {
	refuse := func(why string) error { return fmt.Errorf("invalid name %q: %s: %w", name, why, ports.ErrInvalidName) }
	if strings.HasPrefix(name, "-") {
		return refuse(`it starts with "-", which tmux would read as an option`)
	}
	if strings.IndexByte(name, '\\') >= 0 {
		return refuse("it holds a backslash, which tmux stores doubled, so that the name would not read back as given")
	}
	if !utf8.ValidString(name) {
		return refuse("it is not valid UTF-8, which tmux stores escaped")
	}
	for _, r := range name {
		if !unicode.IsPrint(r) && r != ' ' {
			return refuse(fmt.Sprintf("it holds %U, which tmux stores escaped", r))
		}
	}
	if i := shellVariable(name); i >= 0 {
		return refuse(fmt.Sprintf(`it holds %q, "$" before a letter, "_" or "{", which tmux stores as "\$" in a session's name and a renamed window's`, name[i:i+2]))
	}
	for _, f := range []string{"#(", "#{", "#["} {
		if strings.Contains(name, f) {
			return refuse(fmt.Sprintf(`it holds %q, which tmux would expand as a format ("#(" even runs a command)`, f))
		}
	}
	return nil
}

// shellVariable returns where name holds "$" followed by a letter, "_" or
// "{" (what looks like a shell variable), which tmux escapes with a
// backslash when it stores a session's name or a window's new name; -1
// when it holds none.
func shellVariable(name string) int {
	for i := 0; i+1 < len(name); i++ {
		if c := name[i+1]; name[i] == '$' && ('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c == '{') {
			return i
		}
	}
	return -1
}

// storableSession is storable for a session's name, which is also a
// target: tmux stores ":" and "." (which separate a target's parts) as
// "_", and a name like "$3" would be read as a session id.
func storableSession(name string) error {
	if err := storable(name); err != nil {
		return err
	}
	switch {
	case strings.ContainsAny(name, ":."):
		return fmt.Errorf(`invalid name %q: it holds ":" or ".", which tmux stores as "_" (use "_" or "-" instead): %w`, name, ports.ErrInvalidName)
	case isID(name, '$'):
		return fmt.Errorf("invalid name %q: it would be read as a session id: %w", name, ports.ErrInvalidName)
	}
	return nil
}

// literalName makes name reach tmux as itself through the format
// expansion tmux applies to names: there "##" stands for "#", except that
// a run of "#" before "[" (a style, left for the status line to draw) is
// copied as it is. escapeArg keeps a trailing ";" from ending the command.
func literalName(name string) string {
	var b strings.Builder
	for i := 0; i < len(name); {
		j := i
		for j < len(name) && name[j] == '#' {
			j++
		}
		if j == i {
			b.WriteByte(name[i])
			i++
			continue
		}
		run := name[i:j]
		if j == len(name) || name[j] != '[' {
			run += run
		}
		b.WriteString(run)
		i = j
	}
	return escapeArg(b.String())
}

func isID(s string, sigil byte) bool {
	if len(s) < 2 || s[0] != sigil {
		return false
	}
	for i := 1; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func checkWindowID(id string) error {
	if !isID(id, '@') {
		return fmt.Errorf("window %q: not a window id: %w", id, ports.ErrNotFound)
	}
	return nil
}

// sessionTarget returns the id of the session ref names: ref itself when
// it is an id, else the id of the session with exactly that name.
func (t *manager) sessionTarget(ctx context.Context, ref string) (string, error) {
	if isID(ref, '$') {
		return ref, nil
	}
	out, err := t.exec(ctx, route{}, tmuxCmd("list-sessions", "-F", sessionFormat))
	if err != nil {
		return "", fmt.Errorf("find session %q: %w", ref, err)
	}
	for _, s := range tagged(out, "ses", sesFieldCount) {
		if s[sesName] == ref {
			return s[sesID], nil
		}
	}
	return "", fmt.Errorf("find session %q: %w", ref, ports.ErrNotFound)
}

// ListSessions describes every session, in tmux's order (by name).
// Clients counts the attached clients that are not control-mode clients.
func (t *manager) ListSessions(ctx context.Context) ([]ports.SessionInfo, error) {
	out, err := t.exec(ctx, route{}, tmuxCmd("list-sessions", "-F", sessionFormat).then("list-clients", "-F", clientFormat))
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	clients := people(out)
	var sessions []ports.SessionInfo
	for _, s := range tagged(out, "ses", sesFieldCount) {
		info := ports.SessionInfo{
			SessionRef: ports.SessionRef{ID: s[sesID], Name: s[sesName]},
			Windows:    atoi(s[sesWindows]),
			Clients:    clients[s[sesID]],
		}
		if sec := atoi(s[sesCreated]); sec > 0 {
			info.Created = time.Unix(int64(sec), 0)
		}
		sessions = append(sessions, info)
	}
	return sessions, nil
}

// people counts, by session id, the attached clients that are not
// control-mode clients, from the "C" lines of clientFormat.
func people(out string) map[string]int {
	n := map[string]int{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Split(line, sep)
		if f[0] == "C" && len(f) == clientFieldCount+1 && f[1+cControl] != "1" {
			n[f[1+cSession]]++
		}
	}
	return n
}

// ListWindows describes the windows of the session, or of every session.
func (t *manager) ListWindows(ctx context.Context, session string) ([]ports.WindowInfo, error) {
	scope := []string{"-a"}
	if session != "" {
		id, err := t.sessionTarget(ctx, session)
		if err != nil {
			return nil, fmt.Errorf("list windows: %w", err)
		}
		scope = []string{"-t", id}
	}
	out, err := t.exec(ctx, route{}, tmuxCmd(append(append([]string{"list-windows"}, scope...), "-F", windowInfoFormat)...))
	if err != nil {
		return nil, fmt.Errorf("list windows: %w", manageError(err))
	}
	var windows []ports.WindowInfo
	for _, w := range tagged(out, "win", winFieldCount) {
		windows = append(windows, ports.WindowInfo{
			WindowRef: ports.WindowRef{ID: w[winID], Index: atoi(w[winIndex]), Name: w[winName]},
			Session:   ports.SessionRef{ID: w[winSessionID], Name: w[winSessionName]},
			Active:    w[winActive] == "1",
			Panes:     atoi(w[winPanes]),
			Width:     atoi(w[winWidth]),
			Height:    atoi(w[winHeight]),
			Zoomed:    w[winZoomed] == "1",
		})
	}
	return windows, nil
}

// ListPanes describes the panes f selects, with one invocation that also
// lists what Pane reads to tell watchers and the server's own pane, so
// that a listing and Pane never disagree about them.
func (t *manager) ListPanes(ctx context.Context, f ports.PaneFilter) ([]ports.PaneSummary, error) {
	var scope []string
	switch {
	case f.Pane != "":
		if err := checkPaneID(f.Pane); err != nil {
			return nil, fmt.Errorf("list panes: %w", err)
		}
		scope = []string{"-t", string(f.Pane), "-f", "#{==:#{pane_id}," + string(f.Pane) + "}"}
	case f.Window != "":
		if err := checkWindowID(f.Window); err != nil {
			return nil, fmt.Errorf("list panes: %w", err)
		}
		scope = []string{"-t", f.Window}
	case f.Session != "":
		id, err := t.sessionTarget(ctx, f.Session)
		if err != nil {
			return nil, fmt.Errorf("list panes: %w", err)
		}
		scope = []string{"-s", "-t", id}
	default:
		scope = []string{"-a"}
	}
	list := func(format string) []string {
		return append(append([]string{"list-panes"}, scope...), "-F", format)
	}
	l := tmuxCmd(list(paneSummaryFormat)...).
		then(list(paneFormat)...).
		then("list-clients", "-F", clientFormat).
		then("list-windows", "-a", "-F", windowFormat)
	out, err := t.exec(ctx, route{}, l)
	if err != nil {
		return nil, fmt.Errorf("list panes: %w", manageError(err))
	}
	described := parseDescriptions(out)
	seen := map[string]bool{}
	var panes []ports.PaneSummary
	for _, p := range tagged(out, "pan", panFieldCount) {
		if seen[p[panID]] {
			continue // its window is linked into another session too
		}
		seen[p[panID]] = true
		id := ports.PaneID(p[panID])
		sum := ports.PaneSummary{
			ID:      id,
			Session: ports.SessionRef{ID: p[panSessionID], Name: p[panSessionName]},
			Window:  ports.WindowRef{ID: p[panWindowID], Index: atoi(p[panWindowIndex]), Name: p[panWindowName]},
			Index:   atoi(p[panIndex]),
			Active:  p[panActive] == "1",
			Dead:    p[panDead] == "1",
			Command: p[panCommand],
			Path:    p[panPath],
			Width:   atoi(p[panWidth]),
			Height:  atoi(p[panHeight]),
			Title:   p[panTitle],
		}
		if info, err := described.info(id, t.self); err == nil {
			sum.Watchers, sum.Self = info.Watchers, info.Self
			sum.Program = t.program(described.byID[p[panID]])
		} else {
			sum.Unknown = []ports.Fact{ports.FactWatched, ports.FactSelf}
		}
		// A pane that runs no process at all (one made empty, with
		// split-window '') has pid 0: not a fact.
		if pid, err := strconv.Atoi(p[panPID]); err == nil && pid > 0 {
			sum.PID = pid
		} else {
			sum.Unknown = append(sum.Unknown, ports.FactPID)
		}
		x, errX := strconv.Atoi(p[panCursorX])
		y, errY := strconv.Atoi(p[panCursorY])
		if errX == nil && errY == nil && x >= 0 && y >= 0 {
			sum.CursorX, sum.CursorY = x, y
		} else {
			sum.Unknown = append(sum.Unknown, ports.FactCursor)
		}
		panes = append(panes, sum)
	}
	if f.Pane != "" && len(panes) == 0 {
		return nil, fmt.Errorf("list panes: pane %s: %w", f.Pane, ports.ErrPaneNotFound)
	}
	return panes, nil
}

// ServerInfo describes the server: its socket path, version, pid, start
// time and what it holds, from one invocation.
func (t *manager) ServerInfo(ctx context.Context) (ports.ServerInfo, error) {
	format := strings.Join([]string{"srv", clean("socket_path"), "#{pid}", clean("version"), "#{start_time}"}, sep)
	out, err := t.exec(ctx, route{}, tmuxCmd("display-message", "-p", format).
		then("list-sessions", "-F", "s").
		then("list-windows", "-a", "-F", "w"+sep+"#{window_id}").
		then("list-panes", "-a", "-F", "p"+sep+"#{pane_id}").
		then("list-clients", "-F", clientFormat))
	if err != nil {
		return ports.ServerInfo{}, fmt.Errorf("describe the server: %w", err)
	}
	var info ports.ServerInfo
	if srv := tagged(out, "srv", 4); len(srv) > 0 {
		info.Address, info.PID, info.Version = srv[0][0], atoi(srv[0][1]), srv[0][2]
		if sec := atoi(srv[0][3]); sec > 0 {
			info.Started = time.Unix(int64(sec), 0)
		}
	}
	if info.Version == "" {
		info.Version = t.version
	}
	windows, panes := map[string]bool{}, map[string]bool{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Split(line, sep)
		switch {
		case line == "s":
			info.Sessions++
		case f[0] == "w" && len(f) == 2:
			windows[f[1]] = true
		case f[0] == "p" && len(f) == 2:
			panes[f[1]] = true
		}
	}
	info.Windows, info.Panes = len(windows), len(panes)
	for _, n := range people(out) {
		info.Clients += n
	}
	return info, nil
}
