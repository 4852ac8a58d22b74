// Package lifecycle is the logic of the inspect and lifecycle tools:
// listing, creating, selecting, resizing, renaming, clearing, killing and
// respawning sessions, windows and panes, through the backend's lifecycle
// ports (ports.Lister, Creator, Arranger, Renamer, Remover, Respawner).
//
// The rules that matter here are the writer rules: killing, clearing and
// respawning are writes, so every pane they would end or clear is held
// (reserved and leased, in the same writers.Pool as the pane tools') and
// checked against the write policy first (policy.End), and nothing
// happens if one of them is refused. Names and ids are the backend's to
// check: each adapter refuses what its multiplexer would read as anything
// but text.
package lifecycle

import (
	"context"
	"fmt"

	"github.com/tmux-mcp/tmux-mcp/domain/writers"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// Backend is the lifecycle half of a terminal backend, by capability; a
// nil field is a capability the backend lacks, whose tools then fail with
// an error wrapping ports.ErrUnsupported.
type Backend struct {
	Lister    ports.Lister
	Creator   ports.Creator
	Arranger  ports.Arranger
	Renamer   ports.Renamer
	Remover   ports.Remover
	Respawner ports.Respawner
}

// FromManager is the Backend of a backend that offers every capability.
func FromManager(m ports.Manager) Backend {
	return Backend{Lister: m, Creator: m, Arranger: m, Renamer: m, Remover: m, Respawner: m}
}

// Describer describes a pane with the facts a write is checked against,
// and reads its rows: the Terminal's Pane and Capture.
type Describer interface {
	Pane(ctx context.Context, id ports.PaneID) (ports.PaneInfo, error)
	Capture(ctx context.Context, id ports.PaneID, r ports.CaptureRange) ([]string, error)
}

// Service carries out the inspect and lifecycle tools' calls. It is safe
// for concurrent use.
type Service struct {
	b       Backend
	panes   Describer
	writers *writers.Pool
	created func(ports.PaneID)
}

// New returns a Service on the backend b, describing panes through panes
// and holding them in pool (the pane tools' own). created, if not nil,
// hears of every pane the Service creates or respawns (the pane tools
// wait for such a pane's new shell before they first type into it).
func New(b Backend, panes Describer, pool *writers.Pool, created func(ports.PaneID)) *Service {
	if created == nil {
		created = func(ports.PaneID) {}
	}
	return &Service{b: b, panes: panes, writers: pool, created: created}
}

// require returns the capability c, or an error saying that the backend
// lacks what tool needs when c is nil.
func require[T comparable](tool string, c T) (T, error) {
	var none T
	if c == none {
		return none, fmt.Errorf("%s: %w", tool, ports.ErrUnsupported)
	}
	return c, nil
}

// nonNil makes an empty list a list, so that it reaches JSON as [] and
// not null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
