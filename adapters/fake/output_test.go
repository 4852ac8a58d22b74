package fake_test

import (
	"testing"

	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/ports"
	"github.com/tmux-mcp/tmux-mcp/test/contract"
)

// The in-memory store passes the suite every OutputStore passes.
func TestOutputStoreContract(t *testing.T) {
	contract.RunOutputStore(t, func(*testing.T) ports.OutputStore { return fake.NewOutputStore() })
}
