// Package random is the ports.IDSource of the real world: ids read from
// crypto/rand. Tests use adapters/fake's IDs instead.
package random

import (
	"crypto/rand"
	"encoding/hex"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// IDs makes ids of 16 lowercase hex digits (64 bits) from crypto/rand, so
// that no two calls, of one server or of two on one pane, share an id and
// nobody can guess the next. The zero value is ready to use and safe for
// concurrent use.
type IDs struct{}

var _ ports.IDSource = IDs{}

// New returns the crypto/rand id source.
func New() IDs { return IDs{} }

// NewID returns a fresh id.
func (IDs) NewID() string {
	var b [8]byte
	// crypto/rand.Read never returns an error (it crashes the program
	// irrecoverably instead), so there is nothing to handle.
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
