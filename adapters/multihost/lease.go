package multihost

import (
	"context"
	"errors"
	"time"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// leaser leases each pane through its host's Leaser: the lease lives
// where the host's backend keeps it (for tmux, in the host's tmux
// server), shared with every process that drives that host, through this
// router or not.
type leaser struct{ t *Terminal }

// TryAcquire leases the pane through its host's Leaser.
func (l *leaser) TryAcquire(ctx context.Context, pane ports.PaneID, owner string, ttl time.Duration) (bool, string, error) {
	h, own, err := l.t.pane(ctx, "lease pane", pane)
	if err != nil {
		return false, "", err
	}
	ok, holder, err := h.Leaser.TryAcquire(ctx, own, owner, ttl)
	return ok, holder, h.saw(ctx, err, false, l.t.now)
}

// AcquireAndDescribe is the host's, where its Leaser is a
// ports.DescribingLeaser; else TryAcquire, then, granted, Pane.
func (l *leaser) AcquireAndDescribe(ctx context.Context, pane ports.PaneID, owner string, ttl time.Duration) (bool, string, ports.PaneInfo, error) {
	h, own, err := l.t.pane(ctx, "lease pane", pane)
	if err != nil {
		return false, "", ports.PaneInfo{}, err
	}
	if dl, can := h.Leaser.(ports.DescribingLeaser); can {
		ok, holder, info, err := dl.AcquireAndDescribe(ctx, own, owner, ttl)
		return ok, holder, h.paneInfo(info), h.saw(ctx, err, false, l.t.now)
	}
	ok, holder, err := h.Leaser.TryAcquire(ctx, own, owner, ttl)
	if err != nil || !ok {
		return ok, holder, ports.PaneInfo{}, h.saw(ctx, err, false, l.t.now)
	}
	info, err := h.Terminal.Pane(ctx, own)
	if err != nil {
		// The caller, given an error, holds no lease to release.
		_ = h.Leaser.Release(ctx, own, owner)
		return false, "", ports.PaneInfo{}, h.saw(ctx, err, false, l.t.now)
	}
	return true, "", h.paneInfo(info), h.saw(ctx, nil, false, l.t.now)
}

// Renew renews the lease through the pane's host's Leaser.
func (l *leaser) Renew(ctx context.Context, pane ports.PaneID, owner string, ttl time.Duration) error {
	h, own, err := l.t.pane(ctx, "renew the lease of pane", pane)
	if err != nil {
		return err
	}
	return h.saw(ctx, h.Leaser.Renew(ctx, own, owner, ttl), false, l.t.now)
}

// Release releases the lease through the pane's host's Leaser. An id
// that names no host is a pane that is gone: not an error.
func (l *leaser) Release(ctx context.Context, pane ports.PaneID, owner string) error {
	h, own, err := l.t.pane(ctx, "release the lease of pane", pane)
	if errors.Is(err, ports.ErrPaneNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	return h.saw(ctx, h.Leaser.Release(ctx, own, owner), false, l.t.now)
}
