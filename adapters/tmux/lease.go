package tmux

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// The Leaser half of the adapter. A pane's lease lives in tmux itself, so
// that every server process on the socket sees it: the pane user option
// LeaseOption holds "OWNER EXPIRY", EXPIRY being Unix milliseconds on the
// system clock (the processes share a machine, hence a clock).
//
// A lease is read, judged and written under a lock on the tmux wait-for
// channel "tmux-mcp-lease-%N" (wait-for -L ... wait-for -U), so that of two
// processes asking at once exactly one gets the pane:
//
//  1. wait-for -L CHANNEL ; list-panes (the pane must exist) ;
//     show-options -p -q -v -t %N LeaseOption
//  2. the decision, here
//  3. set-option (or set-option -u) ; wait-for -U CHANNEL
//
// A tmux lock belongs to no client: one left locked by a process that died
// between steps 1 and 3 stays locked. A waiter therefore takes a lock it
// has waited lockPatience for as abandoned and unlocks it once, which
// hands it to the longest waiter. Nor may a waiting client be killed (tmux
// would later hand the lock to the dead client and nobody would unlock
// it): a call whose context ends while it waits returns at once and
// leaves the client to take the lock and give it straight back.

// LeaseOption is the pane user option that holds a pane's lease.
const LeaseOption = "@tmux-mcp-lease"

// lockPatience is how long a waiter waits for a lease lock before taking
// it as abandoned. A holder needs two tmux invocations, milliseconds.
// A variable so that a test can wait less.
var lockPatience = 5 * time.Second

var _ ports.Leaser = (*Terminal)(nil)

func leaseChannel(pane ports.PaneID) string { return "tmux-mcp-lease-" + string(pane) }

// lease is a parsed LeaseOption value.
type lease struct {
	owner   string
	expires time.Time
}

// parseLease reads a LeaseOption value; ok is false for an empty or
// malformed one, which counts as no lease.
func parseLease(v string) (l lease, ok bool) {
	v = strings.TrimRight(v, "\n")
	i := strings.LastIndexByte(v, ' ')
	if i <= 0 {
		return lease{}, false
	}
	ms, err := strconv.ParseInt(v[i+1:], 10, 64)
	if err != nil {
		return lease{}, false
	}
	return lease{owner: v[:i], expires: time.UnixMilli(ms)}, true
}

func (l lease) String() string { return l.owner + " " + strconv.FormatInt(l.expires.UnixMilli(), 10) }

func checkOwner(owner string) error {
	if owner == "" || strings.TrimSpace(owner) != owner || strings.IndexFunc(owner, unicode.IsControl) >= 0 {
		return fmt.Errorf("lease owner %q: must be non-empty, without control characters or surrounding spaces", owner)
	}
	return nil
}

// TryAcquire leases the pane to owner for ttl unless another owner's lease
// has not expired. Errors wrap ports.ErrPaneNotFound for an unknown pane.
func (t *Terminal) TryAcquire(ctx context.Context, pane ports.PaneID, owner string, ttl time.Duration) (ok bool, holder string, err error) {
	if err := checkOwner(owner); err != nil {
		return false, "", err
	}
	err = t.leaseTxn(ctx, pane, func(cur lease, held bool, now time.Time) *lease {
		if held && cur.owner != owner && now.Before(cur.expires) {
			holder = cur.owner
			return nil
		}
		ok = true
		return &lease{owner: owner, expires: now.Add(ttl)}
	})
	if err != nil {
		return false, "", fmt.Errorf("lease pane %s: %w", pane, err)
	}
	return ok, holder, nil
}

// Renew extends owner's lease, or leases a pane nobody holds again;
// another owner's unexpired lease is ports.ErrLeaseLost.
func (t *Terminal) Renew(ctx context.Context, pane ports.PaneID, owner string, ttl time.Duration) error {
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
func (t *Terminal) Release(ctx context.Context, pane ports.PaneID, owner string) error {
	if err := checkOwner(owner); err != nil {
		return err
	}
	err := t.leaseTxn(ctx, pane, func(cur lease, held bool, _ time.Time) *lease {
		if held && cur.owner == owner {
			return &lease{} // remove
		}
		return nil
	})
	if errors.Is(err, ports.ErrPaneNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("release the lease on pane %s: %w", pane, err)
	}
	return nil
}

// leaseTxn reads the pane's lease under its lock and writes what decide
// returns: nil leaves the lease as it is, a zero lease removes it.
func (t *Terminal) leaseTxn(ctx context.Context, pane ports.PaneID, decide func(cur lease, held bool, now time.Time) *lease) error {
	if err := checkPaneID(pane); err != nil {
		return err
	}
	ch := leaseChannel(pane)
	if err := t.lockLease(ctx, ch); err != nil {
		return err
	}
	locked := true
	defer func() {
		if locked {
			t.unlockLease(ch)
		}
	}()
	args := append(probeArgs(pane), ";", "show-options", "-p", "-q", "-v", "-t", string(pane), LeaseOption)
	out, err := t.run(ctx, nil, args...)
	if err != nil {
		return err
	}
	// The probe prints one line; the option's value, if set, follows.
	_, value, _ := strings.Cut(out, "\n")
	cur, held := parseLease(value)
	next := decide(cur, held, time.Now())
	if next == nil {
		return nil
	}
	set := []string{"set-option", "-p", "-t", string(pane), LeaseOption, next.String()}
	if next.owner == "" {
		set = []string{"set-option", "-p", "-u", "-t", string(pane), LeaseOption}
	}
	// Not cancellable: once tmux has run the unlock, a second one from the
	// deferred function would release a lock another process holds.
	if _, err := t.run(context.WithoutCancel(ctx), nil, append(set, ";", "wait-for", "-U", ch)...); err != nil {
		return err // the unlock did not run: the deferred one does it
	}
	locked = false
	return nil
}

// lockLease takes the lock on channel ch, as the package comment above
// describes.
func (t *Terminal) lockLease(ctx context.Context, ch string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() {
		_, err := t.run(context.Background(), nil, "wait-for", "-L", ch)
		done <- err
	}()
	patience := time.NewTimer(lockPatience)
	defer patience.Stop()
	for {
		select {
		case err := <-done:
			return err
		case <-patience.C:
			t.debug("tmux lease lock abandoned; unlocking it", "channel", ch, "waited", lockPatience)
			t.unlockLease(ch)
		case <-ctx.Done():
			go func() {
				if err := <-done; err == nil {
					t.unlockLease(ch)
				}
			}()
			return ctx.Err()
		}
	}
}

// unlockLease unlocks channel ch. tmux answers an unlock at once, so it
// needs no deadline; failing to reach tmux leaves nothing to unlock.
func (t *Terminal) unlockLease(ch string) {
	_, _ = t.run(context.Background(), nil, "wait-for", "-U", ch)
}
