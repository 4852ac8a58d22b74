package fake_test

import (
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/ports"
	"github.com/tmux-mcp/tmux-mcp/test/contract"
)

// The fake passes the same contract suite as the real backends.
func TestContract(t *testing.T) {
	contract.Run(t, &harness{term: fake.New()})
}

type harness struct{ term *fake.Terminal }

func (h *harness) Terminal() ports.Terminal { return h.term }

func (h *harness) NewShellPane(t *testing.T) ports.PaneID {
	id := h.term.AddPane(fake.PaneSpec{Command: "bash"})
	t.Cleanup(func() { h.term.RemovePane(id) })
	return id
}

func (h *harness) KillPane(t *testing.T, id ports.PaneID) { h.term.KillPane(id) }

func (h *harness) Attach(t *testing.T, id ports.PaneID) func() {
	const client = "/dev/pts/contract"
	h.term.Attach(id, client)
	return func() { h.term.Detach(id, client) }
}

func (h *harness) Synchronize(t *testing.T, ids ...ports.PaneID) { h.term.Synchronize(ids...) }

func (h *harness) EnterMode(t *testing.T, id ports.PaneID) { h.term.SetMode(id, "copy-mode") }

// Eventually re-checks a few times, moving the fake's clock on a second
// between checks as time would pass for a real backend: the fake does
// everything due before its methods return, so a condition that is false
// now changes only as time passes.
func (h *harness) Eventually(t *testing.T, cond func() bool, what string) {
	t.Helper()
	for range 5 {
		if cond() {
			return
		}
		h.term.Clock().Advance(time.Second)
	}
	t.Fatalf("never happened: %s", what)
}
