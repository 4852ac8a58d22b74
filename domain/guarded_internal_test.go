package domain

import (
	"fmt"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// The guard cache keeps at most maxGuards panes, starting again past it,
// and a pane it holds is updated in place whatever its size.
func TestGuardCacheIsBounded(t *testing.T) {
	var c guardCache
	for i := range maxGuards {
		c.put(ports.PaneID(fmt.Sprintf("%%%d", i)), guarded{guard: "g"})
	}
	c.put("%0", guarded{guard: "again"})
	if g, ok := c.get("%0"); !ok || g.guard != "again" || len(c.by) != maxGuards {
		t.Fatalf("a full cache updating a pane it holds: %v %v, %d entries", g, ok, len(c.by))
	}
	c.put("%new", guarded{guard: "n"})
	if _, ok := c.get("%1"); ok || len(c.by) != 1 {
		t.Fatalf("a full cache taking a new pane kept %d entries (old one kept: %v)", len(c.by), ok)
	}
	if g, ok := c.get("%new"); !ok || g.guard != "n" {
		t.Fatalf("the new pane = %v %v", g, ok)
	}
}
