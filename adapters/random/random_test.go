package random_test

import (
	"testing"

	"github.com/tmux-mcp/tmux-mcp/adapters/random"
)

func TestIDsAreSixteenHexDigitsAndFresh(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id := random.New().NewID()
		if len(id) != 16 || seen[id] {
			t.Fatalf("id %q (seen before: %v)", id, seen[id])
		}
		for _, c := range id {
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
				t.Fatalf("id %q holds %q", id, c)
			}
		}
		seen[id] = true
	}
}
