package domain_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/domain/writers"
)

// heard records the events a Service tells.
type heard struct {
	mu     sync.Mutex
	events []domain.Event
}

func (h *heard) hear(e domain.Event) {
	h.mu.Lock()
	h.events = append(h.events, e)
	h.mu.Unlock()
}

func (h *heard) of(kind string) []domain.Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []domain.Event
	for _, e := range h.events {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

// The operator hears of output the terminal lost, naming the pane and
// how much.
func TestLostOutputIsAnEvent(t *testing.T) {
	var h heard
	r := newRig(t, domain.DefaultConfig(), domain.WithEvents(h.hear))
	c := *since(t, r, "", 0).Cursor
	r.term.LoseOutput(r.pane, 300)
	r.term.Inject(r.pane, []byte("tail\r\n"))
	since(t, r, c, 0)
	got := h.of(domain.EventOutputLost)
	if len(got) != 1 || got[0].Pane != r.pane || !strings.Contains(got[0].Message, "300 bytes") {
		t.Errorf("events %+v, want one output-lost event for %s naming 300 bytes", got, r.pane)
	}
	if len(h.of(domain.EventLeaseRefused)) != 0 {
		t.Errorf("events %+v, want no lease refused", h.events)
	}
}

// The operator hears of a write refused because another server process
// holds the pane's lease; a call of this process holding it is no event.
func TestALeaseHeldByAnotherProcessIsAnEvent(t *testing.T) {
	var h heard
	clock := fake.NewClock(time.Unix(0, 0))
	term := fake.New(fake.WithClock(clock))
	pane := term.AddPane(fake.PaneSpec{})
	leaser := fake.NewLeaser(clock)
	pool := writers.NewPool(writers.NewLeases(leaser, clock, "me", time.Minute))
	svc := domain.NewService(term, clock, fake.NewIDs(), domain.DefaultConfig(), domain.WithWriters(pool), domain.WithEvents(h.hear))
	t.Cleanup(func() { svc.Close(); pool.Close() })
	if ok, _, _ := leaser.TryAcquire(context.Background(), pane, "other-process", time.Minute); !ok {
		t.Fatal("could not lease the pane for the other process")
	}
	if _, err := svc.PasteText(context.Background(), domain.PasteRequest{PaneID: pane, Text: "x"}); !errors.Is(err, fault.ErrBusy) {
		t.Fatalf("paste: %v, want busy", err)
	}
	got := h.of(domain.EventLeaseRefused)
	if len(got) != 1 || got[0].Pane != pane || !strings.Contains(got[0].Message, "other-process") || !strings.Contains(got[0].Message, "paste_text") {
		t.Errorf("events %+v, want one lease-refused event naming the owner and the call", got)
	}

	// Busy within the process: no event.
	if err := leaser.Release(context.Background(), pane, "other-process"); err != nil {
		t.Fatal(err)
	}
	other := term.AddPane(fake.PaneSpec{})
	hold, err := pool.Hold(context.Background(), other, "run_shell_command \"make\"")
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Release()
	if _, err := svc.PasteText(context.Background(), domain.PasteRequest{PaneID: other, Text: "x"}); !errors.Is(err, fault.ErrBusy) {
		t.Fatalf("paste to a pane this process holds: %v, want busy", err)
	}
	if got := h.of(domain.EventLeaseRefused); len(got) != 1 {
		t.Errorf("events %+v, want still one", got)
	}
}
