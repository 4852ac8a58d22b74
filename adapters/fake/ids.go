package fake

import (
	"fmt"
	"sync/atomic"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// IDs is a ports.IDSource for tests: it counts, so that ids are
// reproducible ("fakeid00000001", "fakeid00000002", ...). Every id of the
// port's form, none ever repeated; but anyone can guess them, so it is for
// tests and demos only. The zero value is ready to use.
type IDs struct{ n atomic.Uint64 }

var _ ports.IDSource = (*IDs)(nil)

// NewIDs returns a counting id source.
func NewIDs() *IDs { return &IDs{} }

// NewID returns the next id.
func (s *IDs) NewID() string { return fmt.Sprintf("fakeid%08d", s.n.Add(1)) }
