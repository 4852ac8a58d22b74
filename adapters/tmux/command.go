package tmux

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// How commands reach tmux
//
// A tmux subprocess costs a process start, dynamic linking and a connection
// to the server: about 2 ms. A command written to a control-mode client that
// is already attached costs a pipe write and a reply: about 0.05 ms. So the
// commands whose replies cannot be forged (see doc.go) go through a control
// client when one can be had, and every other command, and every command
// when no control client can be had, runs as a subprocess, as before.
//
// A command list is built as a cmdList, each command its own argv, and
// exec picks its route. Both routes give tmux the same arguments: the
// subprocess route renders the list as argv (commands separated by ";"
// arguments, an argument ending in ";" written with "\;"); the control
// route writes each argument as a quoted string of tmux's command syntax
// in which every byte other than a letter, a digit and a few plain
// punctuation marks is an octal escape (quoteArg), so that newlines,
// quotes, "#", ";", "$", "~", backslashes and bytes that are not UTF-8
// all arrive as themselves on one line. (command and run take a flat
// argv, as tmux reads it: splitCommands.)

// controlSafe reports whether cmd may travel over a control client: what
// it prints is tmux's own text or formats whose free-text fields go
// through clean, every line of it starting with a character other than
// "%", or nothing (see doc.go). The caller decides that its formats
// qualify; this check keeps every other command off the control path, and
// with it every way of printing a pane's text or a buffer's.
func controlSafe(cmd []string) bool {
	switch cmd[0] {
	case "list-panes", "list-clients", "list-windows", "list-sessions",
		"display-message", "send-keys", "set-option", "delete-buffer", "set-buffer":
		return true
	case "list-buffers":
		// With a format of the caller's; buffer names may be anything,
		// so the caller filters and tags.
		return slices.Contains(cmd, "-F")
	case "load-buffer":
		// From a file, not standard input ("-").
		return len(cmd) > 1 && strings.HasPrefix(cmd[len(cmd)-1], "/")
	case "if-shell":
		// A format as the condition, not a shell command, whose output
		// tmux would print when it ends.
		return slices.Contains(cmd, "-F")
	case "capture-pane":
		// Into a buffer, not printed (-p).
		return !printsCapture(cmd)
	case "save-buffer":
		// Into a file, not printed ("-" or no path).
		return len(cmd) > 1 && strings.HasPrefix(cmd[len(cmd)-1], "/")
	}
	return false
}

// notifiesControlClients are the commands the Terminal runs that make tmux
// notify every control client: run and command hold attachGate shared
// while they run (see control.go). Killing a pane or a window may close its
// session; respawning a pane takes it out of any mode; tmux 3.4 and newer
// tell control clients of changes to paste buffers.
var notifiesControlClients = map[string]bool{
	"new-session": true, "rename-session": true, "kill-session": true,
	"kill-window": true, "kill-pane": true, "respawn-pane": true,
	"load-buffer": true, "set-buffer": true, "paste-buffer": true, "delete-buffer": true, "capture-pane": true,
}

// notifies reports whether any of cmds is in notifiesControlClients. A
// capture-pane that prints (-p) makes no buffer and notifies nobody, so a
// capture never waits for a client that attaches.
func notifies(cmds [][]string) bool {
	for _, cmd := range cmds {
		if notifiesControlClients[cmd[0]] && !(cmd[0] == "capture-pane" && printsCapture(cmd)) {
			return true
		}
	}
	return false
}

// printsCapture reports whether the capture-pane cmd prints (-p, alone or
// among other flags) rather than filling a buffer.
func printsCapture(cmd []string) bool {
	for _, arg := range cmd[1:] {
		if arg == "--" {
			break
		}
		if strings.HasPrefix(arg, "-") && strings.IndexByte(arg, 'p') >= 0 {
			return true
		}
	}
	return false
}

// controlCommand runs cmds over a control client, as command does, and
// reports false when they are for the caller to run as a process instead:
// they cannot travel over a control client (see commandLine), no client
// can be had, or the client went away before the line could have reached
// tmux (or, for commands that do not type, before tmux answered). Typing
// commands whose client went away after they were written fail with an
// error saying that tmux may or may not have run them.
func (t *terminal) controlCommand(ctx context.Context, r route, cmds cmdList) (out string, ok bool, err error) {
	line, ok := commandLine(cmds)
	if !ok {
		return "", false, nil
	}
	c, release, err := t.commandClient(ctx, r.pane)
	if err != nil {
		return "", true, err
	}
	if c == nil {
		return "", false, nil
	}
	gated := notifies(cmds)
	if gated {
		t.attachGate.RLock()
	}
	lines, err := c.command(ctx, cmds[0][0], line)
	if gated {
		t.attachGate.RUnlock()
	}
	release()
	var gone *clientGoneError
	switch {
	case errors.As(err, &gone) && (!gone.sent || !r.typing):
		t.debug("tmux control client gone, running the command as a process", "command", cmds[0][0], "reason", gone.err)
		return "", false, nil
	case gone != nil:
		return "", true, fmt.Errorf("tmux %s: the control client went away before tmux answered, so it may or may not have run: %w", cmds[0][0], err)
	case err != nil:
		return "", true, err
	}
	if len(lines) == 0 {
		return "", true, nil
	}
	return strings.Join(lines, "\n") + "\n", true, nil
}

// commandClient returns a running control client, taken for the call
// (see acquire), or nil when none can be had: the client that records
// pane's output, else any attached client, else a new one attached to the
// session holding pane. The error is tmux's not answering (errNoAnswer) as
// the client was sought, which a process would meet too.
func (t *terminal) commandClient(ctx context.Context, pane ports.PaneID) (*controlClient, func(), error) {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil, nil, nil
	}
	var c *controlClient
	if rec := t.panes[pane]; rec != nil && rec.owner != nil && !rec.claiming && rec.owner.running() {
		c = rec.owner
	}
	if c == nil {
		for _, cl := range t.clients {
			if cl.running() {
				c = cl
				break
			}
		}
	}
	if c != nil {
		release := t.acquire(c)
		c.lastUsed = time.Now()
		t.mu.Unlock()
		return c, release, nil
	}
	// A client that attaches holds attachGate, maybe for long (a slow
	// link): a command does not wait behind it, it runs as a process.
	attaching := t.attaching > 0
	t.mu.Unlock()
	if pane == "" || attaching {
		return nil, nil, nil
	}
	// locate has no pane to start a client for, so it runs as a process
	// here.
	loc, err := t.locate(ctx, pane)
	if errors.Is(err, errNoAnswer) {
		return nil, nil, err
	}
	if err != nil {
		return nil, nil, nil
	}
	c, release, err := t.clientFor(ctx, loc.session)
	if errors.Is(err, errNoAnswer) {
		return nil, nil, err
	}
	if err != nil {
		t.debug("tmux control client for commands not started", "session", loc.session, "reason", err)
		return nil, nil, nil
	}
	t.mu.Lock()
	c.lastUsed = time.Now()
	t.mu.Unlock()
	return c, release, nil
}

// acquire takes c for a call (attaching a pane, or a command): a client
// taken is not stopped as idle. It returns the release that gives c back,
// which takes t.mu itself and does nothing when called again. t.mu is
// held.
func (t *terminal) acquire(c *controlClient) (release func()) {
	c.inflight++
	var once sync.Once
	return func() {
		once.Do(func() {
			t.mu.Lock()
			c.inflight--
			t.armIdle(c)
			t.mu.Unlock()
		})
	}
}

// splitCommands reads args as tmux reads the arguments of a client's
// command line: an argument ending in ";" ends a command and loses the
// ";", unless a backslash precedes it, which then becomes the ";". Empty
// commands are dropped.
func splitCommands(args []string) [][]string {
	var cmds [][]string
	var cur []string
	for _, a := range args {
		end := false
		if s, ok := strings.CutSuffix(a, ";"); ok {
			if rest, escaped := strings.CutSuffix(s, `\`); escaped {
				s = rest + ";"
			} else {
				end = true
			}
			a = s
			if !end || a != "" {
				cur = append(cur, a)
			}
		} else {
			cur = append(cur, a)
		}
		if end && len(cur) > 0 {
			cmds = append(cmds, cur)
			cur = nil
		}
	}
	if len(cur) > 0 {
		cmds = append(cmds, cur)
	}
	return cmds
}

// commandLine writes cmds as one line of tmux's command syntax, each
// argument quoted by quoteArg and the commands separated by " ; ". It
// reports false when cmds cannot go over a control client: a command that
// controlSafe refuses, or an argument holding a NUL byte, which no tmux
// argument can hold (the subprocess path reports it).
func commandLine(cmds [][]string) (string, bool) {
	if len(cmds) == 0 {
		return "", false
	}
	var b strings.Builder
	for i, cmd := range cmds {
		if !controlSafe(cmd) {
			return "", false
		}
		if i > 0 {
			b.WriteString(" ; ")
		}
		if !writeCommand(&b, cmd) {
			return "", false
		}
	}
	return b.String(), true
}

// writeCommand writes cmd's arguments, each quoted, and reports false
// when one holds a NUL byte.
func writeCommand(b *strings.Builder, cmd []string) bool {
	for j, arg := range cmd {
		if strings.IndexByte(arg, 0) >= 0 {
			return false
		}
		if j > 0 {
			b.WriteByte(' ')
		}
		quoteArg(b, arg)
	}
	return true
}

// printingLine is the command line of one capture-pane -p, the one
// command whose output, a pane's text, is let over a control client: only
// as a printing part of a send (see controlParser), whose reply no line
// of that text can end. ok is false for any other command.
func printingLine(cmd []string) (line string, ok bool) {
	if len(cmd) == 0 || cmd[0] != "capture-pane" || !slices.Contains(cmd, "-p") {
		return "", false
	}
	var b strings.Builder
	if !writeCommand(&b, cmd) {
		return "", false
	}
	return b.String(), true
}

// quoteArg writes s as a double-quoted string of tmux's command syntax
// that tmux reads back as exactly s. Letters, digits and " -_./:,=+@%" are
// written as they are; every other byte as a backslash and three octal
// digits, which tmux turns back into that byte without reading it any
// further (no "$" or "~" expansion, no end of line, no end of quote).
func quoteArg(b *strings.Builder, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		if plainByte(c) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('\\')
		b.WriteByte('0' + c>>6)
		b.WriteByte('0' + c>>3&7)
		b.WriteByte('0' + c&7)
	}
	b.WriteByte('"')
}

func plainByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte(" -_./:,=+@%", c) >= 0
}
