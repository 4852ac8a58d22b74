package tmux

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// The GuardedWriter half of the adapter: a light write checked and sent in
// one command list, which tmux runs to its end before it serves any other
// client (see lease.go), so that nothing can change the pane between the
// check and the keys:
//
//	list-panes -t %N -f ... -F #{pane_dead}   (the probe: the pane must exist)
//	; set-option -p -t %N @tmux-mcp-lease-clock %s
//	; list-panes ... ; list-clients ... ; list-windows ...   (Pane's description)
//	; display-message -p -t %N "G<sep>GUARD<sep>LEASE-OK<sep>owner<sep>expiry"
//	; set-buffer ...                          (a paste's text, harmless if unused)
//	; if-shell -F -t %N "#{&&:#{==:GUARD,EXPECTED},LEASE-OK}" "ACTION ; display-message -p K" [delete-buffer]
//
// GUARD (guardFormat) is a format of the facts the write policy reads: the
// pane's liveness, mode, process and server (its Generation), the
// synchronized input of its window's panes, the window's zoom and the
// clients that view the window. A Guard is that format as tmux expanded it
// with a description; the write happens only when it expands alike now.
// Any change counts, even one the policy would let pass (another control
// client viewing the window): the domain then judges the description the
// list printed, and writes again if it passes. LEASE-OK is the lease's
// condition of acquireCommands: nobody, the writer, or nobody unexpired
// holds it. The description and the guard are printed before the check,
// in the same list, so they are exactly what the check saw.

var _ ports.GuardedWriter = (*Terminal)(nil)

// guardFormat expands to a pane's Guard. The client names are reduced to
// characters that a format's literal text can hold (guardPattern), since
// a Guard is written back into a format; the count of clients keeps two
// names that reduce alike apart from one.
var guardFormat = "#{pane_dead}:#{pane_in_mode}:#{pane_pid}@#{pid}.#{start_time}:#{P:#{pane_synchronized}}:" +
	"#{window_id}#{window_zoomed_flag}#{pane_active}:#{window_active_clients}:" +
	"#{s/[^A-Za-z0-9._-]/_/:window_active_clients_list}"

// guardPattern is what a Guard made by guardFormat looks like.
var guardPattern = regexp.MustCompile(`^[A-Za-z0-9._@:_-]+$`)

// The largest actions a guarded write makes: the text of an action goes
// into if-shell's command text, where a byte may take four (quoteArg), and
// a tmux process's command must stay within one message (see maxArgBytes).
const (
	maxGuardedText  = 2 << 10
	maxGuardedPaste = pasteChunk
)

// DescribeGuarded is Pane with the Guard of its description, in one
// round trip.
func (t *Terminal) DescribeGuarded(ctx context.Context, id ports.PaneID) (ports.PaneInfo, ports.Guard, error) {
	if err := checkPaneID(id); err != nil {
		return ports.PaneInfo{}, "", err
	}
	l := paneCmds(id).then("display-message", "-p", "-t", string(id), "G"+sep+guardFormat)
	out, err := t.exec(ctx, route{pane: id}, l)
	if err != nil {
		return ports.PaneInfo{}, "", fmt.Errorf("describe pane %s: %w", id, err)
	}
	info, err := t.paneInfo(id, out)
	if err != nil {
		return ports.PaneInfo{}, "", fmt.Errorf("describe pane %s: %w", id, err)
	}
	g := tagged(out, "G", 1)
	if len(g) != 1 {
		return ports.PaneInfo{}, "", fmt.Errorf("describe pane %s: tmux printed no guard in %q", id, out)
	}
	return info, ports.Guard(g[0][0]), nil
}

// GuardedWrite sends w.Action when the pane matches w.Guard and its lease
// allows it, in one command list (see above). Errors wrap
// ports.ErrUnknownKey (nothing sent), ports.ErrPaneNotFound,
// ports.ErrPaneDead, ports.ErrUnavailable, and ports.ErrUnsupported for a
// guard this adapter did not make, an owner it cannot write into a
// format, or an action over the sizes above.
func (t *Terminal) GuardedWrite(ctx context.Context, w ports.GuardedWrite) (ports.GuardedResult, error) {
	id := w.Pane
	if err := checkPaneID(id); err != nil {
		return ports.GuardedResult{}, err
	}
	for _, k := range w.Action.Keys {
		if !validKey(k) {
			return ports.GuardedResult{}, fmt.Errorf("press %q in pane %s: %w", k, id, ports.ErrUnknownKey)
		}
	}
	if w.Owner != "" {
		if err := checkOwner(w.Owner); err != nil {
			return ports.GuardedResult{}, fmt.Errorf("%w: %w", err, ports.ErrUnsupported)
		}
	}
	if !guardPattern.MatchString(string(w.Guard)) {
		return ports.GuardedResult{}, fmt.Errorf("write to pane %s: guard %q: %w", id, w.Guard, ports.ErrUnsupported)
	}
	name := fmt.Sprintf("tmux-mcp-%d-%s-%d", os.Getpid(), bufferTag, bufferSeq.Add(1))
	l, err := guardedCmds(id, w, name)
	if err != nil {
		return ports.GuardedResult{}, err
	}
	out, err := t.exec(ctx, route{pane: id, typing: true}, l)
	if err != nil {
		if w.Action.Paste != "" {
			// The buffer may be left over; deleting one that does not
			// exist fails harmlessly.
			t.exec(context.WithoutCancel(ctx), route{}, tmuxCmd("delete-buffer", "-b", name))
		}
		return ports.GuardedResult{}, fmt.Errorf("write to pane %s: %w", id, err)
	}
	if dead(out) {
		return ports.GuardedResult{}, fmt.Errorf("write to pane %s: %w", id, ports.ErrPaneDead)
	}
	info, err := t.paneInfo(id, out)
	if err != nil {
		return ports.GuardedResult{}, fmt.Errorf("write to pane %s: %w", id, err)
	}
	g := tagged(out, "G", 4)
	if len(g) != 1 {
		return ports.GuardedResult{}, fmt.Errorf("write to pane %s: tmux printed no guard in %q", id, out)
	}
	res := ports.GuardedResult{Info: info, Guard: ports.Guard(g[0][0])}
	res.Written = len(tagged(out, "K", 1)) == 1
	if !res.Written && w.Owner != "" && g[0][1] != "1" {
		res.Holder = g[0][2]
	}
	return res, nil
}

// guardedCmds is the command list of the guarded write w to pane id, whose
// paste, if any, goes through the buffer name.
func guardedCmds(id ports.PaneID, w ports.GuardedWrite, name string) (cmdList, error) {
	a := w.Action
	size := len(a.Text)
	for _, k := range a.Keys {
		size += len(k) + 1
	}
	if size > maxGuardedText || len(a.Paste) > maxGuardedPaste || strings.IndexByte(a.Paste, 0) >= 0 || strings.IndexByte(a.Text, 0) >= 0 {
		return nil, fmt.Errorf("write to pane %s: %d bytes of keys and a paste of %d: %w", id, size, len(a.Paste), ports.ErrUnsupported)
	}
	leaseOK := "1"
	if w.Owner != "" {
		leaseOK, _ = acquireCommands(id, w.Owner, 0)
	}
	l := probeCmd(id)
	if w.Owner != "" {
		l = l.then("set-option", "-p", "-t", string(id), LeaseClockOption, "%s")
	}
	l = l.and(paneCmds(id)).
		then("display-message", "-p", "-t", string(id),
			strings.Join([]string{"G", guardFormat, "#{?" + leaseOK + ",1,0}", clean(LeaseOwnerOption), clean(LeaseExpiryOption)}, sep))
	var act cmdList
	if a.Text != "" {
		act = act.then("send-keys", "-t", string(id), "-l", "--", a.Text)
	}
	if len(a.Keys) > 0 {
		act = act.then(append([]string{"send-keys", "-t", string(id), "--"}, a.Keys...)...)
	}
	var otherwise []string
	if a.Paste != "" {
		l = l.then("set-buffer", "-b", name, "--", a.Paste)
		act = act.then("paste-buffer", "-d", "-p", "-b", name, "-t", string(id))
		otherwise = []string{tmuxCmd("delete-buffer", "-b", name).text()}
	}
	if a.Enter {
		act = act.then("send-keys", "-t", string(id), "Enter")
	}
	act = act.then("display-message", "-p", "K"+sep+"written")
	// The pane must be alive whatever the guard says: paste-buffer into a
	// dead pane crashes tmux 3.3a (see pasteCmds).
	cond := "#{&&:#{&&:#{==:#{pane_dead},0},#{==:" + guardFormat + "," + string(w.Guard) + "}}," + leaseOK + "}"
	return l.then(append([]string{"if-shell", "-F", "-t", string(id), cond, act.text()}, otherwise...)...), nil
}
