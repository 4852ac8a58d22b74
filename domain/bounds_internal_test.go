package domain

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// closingDeadPanes are panes that are all gone, whose streams count how
// often they are closed.
type closingDeadPanes struct {
	ports.Terminal
	closes *atomic.Int32
}

type closingDeadStream struct {
	deadStream
	closes *atomic.Int32
}

func (s closingDeadStream) Close() error { s.closes.Add(1); return nil }

func (p closingDeadPanes) OpenOutput(context.Context, ports.PaneID) (ports.OutputStream, error) {
	return closingDeadStream{closes: p.closes}, nil
}

func followPanes(t *testing.T, svc *Service, from, to int) {
	t.Helper()
	for i := from; i < to; i++ {
		id := ports.PaneID(fmt.Sprintf("%%%d", i))
		if _, err := svc.follow(context.Background(), ports.PaneInfo{ID: id, Generation: "g"}); err != nil {
			t.Fatal(err)
		}
	}
}

// The follower of a gone pane is kept, for cursors into its last words,
// as long as no more than maxFollowers panes are followed.
func TestFollowersOfGonePanesAreKeptUpToTheBound(t *testing.T) {
	var closes atomic.Int32
	svc := NewService(closingDeadPanes{closes: &closes}, nil, testIDs{}, Config{})
	followPanes(t, svc, 0, maxFollowers)
	if n := len(svc.followers.streams); n != maxFollowers || closes.Load() != 0 {
		t.Errorf("after following %d gone panes, %d followers held and %d streams closed; want all held, none closed",
			maxFollowers, n, closes.Load())
	}
}

// Past the bound the followers of gone panes are dropped and their
// streams closed; Close closes the streams of those still held.
func TestFollowersDroppedOrLeftAtCloseHaveTheirStreamsClosed(t *testing.T) {
	var closes atomic.Int32
	svc := NewService(closingDeadPanes{closes: &closes}, nil, testIDs{}, Config{})
	followPanes(t, svc, 0, maxFollowers+1)
	held := len(svc.followers.streams)
	if dropped := maxFollowers + 1 - held; dropped == 0 || int(closes.Load()) != dropped {
		t.Errorf("past the bound %d followers were dropped and %d streams closed; want some dropped, each closed", dropped, closes.Load())
	}
	if err := svc.Close(); err != nil {
		t.Fatal(err)
	}
	if n := closes.Load(); n != maxFollowers+1 || len(svc.followers.streams) != 0 {
		t.Errorf("after Close %d of %d streams closed, %d followers held", n, maxFollowers+1, len(svc.followers.streams))
	}
}

// The ends of commands kept for wait_for_command are the newest maxEnded:
// the oldest goes first, and an end collected or forgotten leaves the
// count, so that it makes room and is not counted again.
func TestTheEndsKeptForAskingAreTheNewestMaxEnded(t *testing.T) {
	var rs runs
	ended := func(i int) *commandRun {
		r := &commandRun{pane: ports.PaneID(fmt.Sprintf("%%%d", i)), ended: make(chan struct{})}
		rs.follow(r)
		rs.end(r, RunResult{PaneID: r.pane}, true)
		return r
	}
	kept := func(i int) bool {
		_, ok := rs.lookup(ports.PaneID(fmt.Sprintf("%%%d", i)))
		return ok
	}
	ended(0)
	for i := 1; i <= maxEnded; i++ {
		ended(i)
	}
	if kept(0) || !kept(1) || !kept(maxEnded) {
		t.Fatalf("after %d ends: the oldest kept %v, the next %v, the newest %v; want only the newest %d",
			maxEnded+1, kept(0), kept(1), kept(maxEnded), maxEnded)
	}

	for _, how := range []string{"collected", "forgotten"} {
		t.Run(how, func(t *testing.T) {
			rs = runs{}
			r := ended(0)
			for i := 1; i < maxEnded; i++ {
				ended(i)
			}
			if how == "collected" {
				rs.collect(r)
			} else {
				rs.forget(r.pane)
			}
			// maxEnded-1 ends are kept: one more fits, and the next
			// makes the oldest go.
			ended(maxEnded)
			if !kept(1) {
				t.Fatalf("with %d ends kept after one was %s, the oldest went", maxEnded, how)
			}
			for i := maxEnded + 1; i < 3*maxEnded; i++ {
				ended(i)
			}
			var old []string
			for i := 0; i < 2*maxEnded; i++ {
				if kept(i) {
					old = append(old, fmt.Sprintf("%%%d", i))
				}
			}
			if len(old) > 0 {
				t.Errorf("after %d newer ends, older ones are still kept: %s", maxEnded, strings.Join(old, " "))
			}
		})
	}
}
