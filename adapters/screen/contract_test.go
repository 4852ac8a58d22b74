package screen

import (
	"strconv"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/ports"
	"github.com/tmux-mcp/tmux-mcp/test/contract"
)

// The screen adapter passes the suite every Terminal passes, with sh in
// the windows of one private session.
func TestContract(t *testing.T) {
	s := newSession(t, Options{})
	contract.Run(t, &harness{s: s})
}

// harness gives each pane a window of its own in one private session.
type harness struct{ s *testSession }

func (h *harness) Terminal() ports.Terminal { return h.s.term }

func (h *harness) NewShellPane(t *testing.T) ports.PaneID { return h.s.on(t).window() }

func (h *harness) KillPane(t *testing.T, id ports.PaneID) {
	n, _ := parsePaneID(id)
	h.s.on(t).screen("-p", strconv.Itoa(n), "-X", "kill")
}

func (h *harness) Attach(t *testing.T, id ports.PaneID) func() {
	n, _ := parsePaneID(id)
	return h.s.on(t).attachDisplay(n)
}

func (h *harness) Synchronize(t *testing.T, ids ...ports.PaneID) {
	t.Skip("screen has no synchronized input: what is typed into a window reaches no other window")
}

// EnterMode puts the window in copy mode, which screen enters only on a
// display: one is attached to show the window, enters copy mode there and
// detaches, leaving the window in copy mode.
func (h *harness) EnterMode(t *testing.T, id ports.PaneID) {
	n, _ := parsePaneID(id)
	s := h.s.on(t)
	detach := s.attachDisplay(n)
	s.screen("-X", "copy")
	detach()
}

func (h *harness) Eventually(t *testing.T, cond func() bool, what string) {
	t.Helper()
	eventually(t, 10*time.Second, what, cond)
}
