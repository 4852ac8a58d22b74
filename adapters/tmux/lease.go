package tmux

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// The Leaser half of the adapter. A pane's lease lives in tmux itself, so
// that every server process on the socket sees it: the pane user options
// LeaseOwnerOption and LeaseExpiryOption hold the owner and the expiry in
// Unix milliseconds on the tmux server's clock. The processes sharing a
// tmux server may run on other machines (Options.SSH), whose clocks may be
// off by more than a lease lasts; the tmux server's clock is the one they
// all read alike. tmux has no format for the time, but its T: modifier
// expands an option's value with strftime, so LeaseClockOption holds "%s"
// and #{T:@tmux-mcp-lease-clock} is the server's time in whole seconds: a
// lease lasts its ttl less up to a second, and is judged expired up to a
// second late.
//
// Each lease operation is one tmux command list that reads, judges and
// writes the lease inside tmux:
//
//	list-panes -t %N -F x                     (the pane must exist)
//	; set-option -p -t %N @tmux-mcp-lease-clock %s
//	; if-shell -F -t %N CONDITION "set-option ... ; set-option ..."
//	; display-message -p -t %N "L<sep>#{owner}<sep>#{expiry}"
//
// CONDITION is a tmux format ("nobody holds it, or I do, or the lease has
// expired": #{||:...}, #{==:...}, #{e|<|:...}) and -F makes tmux evaluate
// it itself, without a shell. tmux runs one client's command list to the
// end before it serves another client, whether the list came as a
// subprocess's arguments or as one line to a control client, so the read
// and the write are atomic: of two processes asking at once exactly one
// gets the pane, with no lock to leave behind if a process dies. The last
// line tells who holds the lease afterwards. One command list per
// operation matters: a lease is taken for every write. It goes through a
// control client when one can be had (see command.go): the owner and
// expiry are printed cleaned and after a tag, so that whatever another
// process sets the options to cannot end the reply early.

// LeaseOwnerOption and LeaseExpiryOption are the pane user options that
// hold a pane's lease; LeaseClockOption holds the strftime format that
// reads the tmux server's clock.
const (
	LeaseOwnerOption  = "@tmux-mcp-lease-owner"
	LeaseExpiryOption = "@tmux-mcp-lease-expiry"
	LeaseClockOption  = "@tmux-mcp-lease-clock"
)

// leaseNow is the tmux server's time in Unix milliseconds (whole seconds),
// as a format; it needs LeaseClockOption set on the pane.
const leaseNow = "#{e|*:#{T:" + LeaseClockOption + "},1000}"

var _ ports.Leaser = (*Terminal)(nil)

// ownerPattern is what an owner may look like: it is written into tmux
// formats and command lists, so it holds none of the characters they
// give a meaning to.
var ownerPattern = regexp.MustCompile(`^[A-Za-z0-9._@+-]{1,128}$`)

func checkOwner(owner string) error {
	if !ownerPattern.MatchString(owner) {
		return fmt.Errorf("lease owner %q: must be 1 to 128 letters, digits or . _ @ + -", owner)
	}
	return nil
}

// TryAcquire leases the pane to owner for ttl unless another owner's lease
// has not expired. Errors wrap ports.ErrPaneNotFound for an unknown pane.
func (t *leaser) TryAcquire(ctx context.Context, pane ports.PaneID, owner string, ttl time.Duration) (ok bool, holder string, err error) {
	if err := checkOwner(owner); err != nil {
		return false, "", err
	}
	cond, set := acquireCommands(pane, owner, ttl)
	curOwner, _, _, err := t.leaseTxn(ctx, pane, cond, set, nil)
	if err != nil {
		return false, "", fmt.Errorf("lease pane %s: %w", pane, err)
	}
	// The condition holds whenever the pane is free, expired or owner's,
	// and then the commands make it owner's: owner holds it afterwards
	// exactly when it was granted now.
	if curOwner == owner {
		return true, "", nil
	}
	return false, curOwner, nil
}

var _ ports.DescribingLeaser = (*Terminal)(nil)

// AcquireAndDescribe is TryAcquire and Pane in one command list: the
// lease is judged and taken, and the pane then described, before tmux
// serves any other client, at the cost of one round trip.
func (t *leaser) AcquireAndDescribe(ctx context.Context, pane ports.PaneID, owner string, ttl time.Duration) (bool, string, ports.PaneInfo, error) {
	if err := checkOwner(owner); err != nil {
		return false, "", ports.PaneInfo{}, err
	}
	cond, set := acquireCommands(pane, owner, ttl)
	after := paneCmds(pane)
	// A write opens the pane's output next; when a client already records
	// it, that client's hold on the pane is confirmed here, in the same
	// list, instead of in a round trip of OpenOutput's own.
	listener := t.listener(pane)
	if listener != nil {
		after = after.and(ownerCheckCmd(pane, listener.session))
	}
	asked := time.Now()
	curOwner, _, out, err := t.leaseTxn(ctx, pane, cond, set, after)
	if err != nil {
		return false, "", ports.PaneInfo{}, fmt.Errorf("lease pane %s: %w", pane, err)
	}
	if curOwner != owner {
		return false, curOwner, ports.PaneInfo{}, nil
	}
	if listener != nil {
		t.confirmOwner(pane, listener, out, asked)
	}
	info, err := t.paneInfo(pane, out)
	if err != nil {
		return false, "", ports.PaneInfo{}, fmt.Errorf("describe pane %s: %w", pane, err)
	}
	return true, "", info, nil
}

// acquireCommands are the condition and the commands of a lease taken by
// owner for ttl (see leaseTxn): the pane is free, expired or owner's,
// and then becomes owner's until ttl from tmux's now.
func acquireCommands(pane ports.PaneID, owner string, ttl time.Duration) (cond string, set cmdList) {
	cond = fmt.Sprintf("#{||:#{==:#{%[1]s},},#{||:#{==:#{%[1]s},%[2]s},#{e|<|:#{%[3]s},%[4]s}}}",
		LeaseOwnerOption, owner, LeaseExpiryOption, leaseNow)
	// The expiry is computed by tmux (-F).
	set = tmuxCmd("set-option", "-p", "-t", string(pane), LeaseOwnerOption, owner).
		then("set-option", "-p", "-F", "-t", string(pane), LeaseExpiryOption,
			fmt.Sprintf("#{e|+:%s,%d}", leaseNow, ttl.Milliseconds()))
	return cond, set
}

// Renew extends owner's lease, or leases a pane nobody holds again;
// another owner's unexpired lease is ports.ErrLeaseLost.
func (t *leaser) Renew(ctx context.Context, pane ports.PaneID, owner string, ttl time.Duration) error {
	ok, holder, err := t.TryAcquire(ctx, pane, owner, ttl)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("renew the lease on pane %s: held by %s: %w", pane, holder, ports.ErrLeaseLost)
	}
	return nil
}

// Release removes owner's lease from the pane; another owner's lease, no
// lease and a pane that is gone are left alone without error.
func (t *leaser) Release(ctx context.Context, pane ports.PaneID, owner string) error {
	if err := checkOwner(owner); err != nil {
		return err
	}
	cond := fmt.Sprintf("#{==:#{%s},%s}", LeaseOwnerOption, owner)
	unset := tmuxCmd("set-option", "-p", "-u", "-t", string(pane), LeaseOwnerOption).
		then("set-option", "-p", "-u", "-t", string(pane), LeaseExpiryOption).
		then("set-option", "-p", "-u", "-t", string(pane), LeaseClockOption)
	_, _, _, err := t.leaseTxn(ctx, pane, cond, unset, nil)
	if errors.Is(err, ports.ErrPaneNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("release the lease on pane %s: %w", pane, err)
	}
	return nil
}

// leaseTxn runs commands when the format cond is true for the pane, all in
// one tmux invocation, and returns the lease's owner and expiry after it;
// the commands after, if any, run in the same invocation, and out is
// everything it printed. if-shell takes commands as text, which tmux
// parses back into exactly their arguments (cmdList.text).
func (t *leaser) leaseTxn(ctx context.Context, pane ports.PaneID, cond string, commands, after cmdList) (owner, expiry, out string, err error) {
	if err := checkPaneID(pane); err != nil {
		return "", "", "", err
	}
	l := probeCmd(pane).
		then("set-option", "-p", "-t", string(pane), LeaseClockOption, "%s").
		then("if-shell", "-F", "-t", string(pane), cond, commands.text()).
		then("display-message", "-p", "-t", string(pane), leaseFormat).
		and(after)
	out, err = t.exec(ctx, route{pane: pane}, l)
	if err != nil {
		return "", "", "", err
	}
	// The probe prints one line; the lease follows.
	if l := tagged(out, "L", 2); len(l) == 1 {
		return l[0][0], l[0][1], out, nil
	}
	return "", "", "", fmt.Errorf("tmux printed %q, not the lease", out)
}

// leaseFormat prints a pane's lease after a tag. Any process on the socket
// can set the options to anything, so they go through clean, like every
// free-text field the adapter reads (see doc.go).
var leaseFormat = strings.Join([]string{"L", clean(LeaseOwnerOption), clean(LeaseExpiryOption)}, sep)
