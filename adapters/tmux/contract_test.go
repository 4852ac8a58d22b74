package tmux

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/ports"
	"github.com/tmux-mcp/tmux-mcp/test/contract"
)

// The tmux adapter passes the suite every Terminal passes, once with bash
// and once with dash in the panes.
func TestContract(t *testing.T) {
	for name, shell := range map[string][]string{"bash": bashCmd, "dash": dashCmd} {
		t.Run(name, func(t *testing.T) {
			s := newTestServer(t)
			// A session of its own keeps the server up between the
			// suite's panes.
			s.session("keep", []string{"sleep", "3600"})
			contract.Run(t, &harness{server: s, term: s.terminal(Options{}), shell: shell})
		})
	}
}

// harness runs each pane in a session of its own on one private server.
type harness struct {
	server *testServer
	term   *Terminal
	shell  []string
	panes  int
}

func (h *harness) Terminal() ports.Terminal { return h.term }

// on returns the server with t as the test to fail.
func (h *harness) on(t *testing.T) *testServer {
	return &testServer{t: t, bin: h.server.bin, sock: h.server.sock}
}

func (h *harness) NewShellPane(t *testing.T) ports.PaneID {
	s := h.on(t)
	h.panes++
	p := s.session(fmt.Sprintf("contract-%d", h.panes), h.shell)
	t.Cleanup(func() { s.tmuxErr("kill-pane", "-t", string(p)) })
	s.waitPrompt(p)
	return p
}

func (h *harness) KillPane(t *testing.T, id ports.PaneID) {
	h.on(t).tmux("kill-pane", "-t", string(id))
}

func (h *harness) Attach(t *testing.T, id ports.PaneID) func() {
	s := h.on(t)
	s.tmux("select-window", "-t", string(id))
	s.tmux("select-pane", "-t", string(id))
	session := strings.TrimSpace(s.tmux("display-message", "-p", "-t", string(id), "#{session_id}"))
	_, detach := s.attachClient(session)
	t.Cleanup(detach)
	return detach
}

func (h *harness) Synchronize(t *testing.T, ids ...ports.PaneID) {
	s := h.on(t)
	for _, id := range ids[1:] {
		s.tmux("join-pane", "-d", "-s", string(id), "-t", string(ids[0]))
	}
	s.tmux("set-option", "-w", "-t", string(ids[0]), "synchronize-panes", "on")
}

func (h *harness) EnterMode(t *testing.T, id ports.PaneID) {
	h.on(t).tmux("copy-mode", "-t", string(id))
}

func (h *harness) Eventually(t *testing.T, cond func() bool, what string) {
	t.Helper()
	eventually(t, 10*time.Second, what, cond)
}
