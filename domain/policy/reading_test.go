package policy

import (
	"errors"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/domain/fault"
)

func TestCheckReadingRefusesOnlyAShellSeenWithItsLineEditorOn(t *testing.T) {
	for _, tt := range []struct {
		editing, seen, refused bool
	}{
		{editing: true, seen: true},                 // at its prompt
		{editing: true, seen: false},                // at its prompt, met for the first time
		{editing: false, seen: false},               // dash, bash --noediting: it tells nothing
		{editing: false, seen: true, refused: true}, // its own read
	} {
		err := CheckReading("%2", tt.editing, tt.seen)
		var refusal *fault.RefusalError
		if got := errors.As(err, &refusal) && refusal.Why == fault.RefusedReading && refusal.Pane == "%2"; got != tt.refused || (err != nil) != tt.refused {
			t.Errorf("CheckReading(editing %v, seen %v) = %v, want refused %v", tt.editing, tt.seen, err, tt.refused)
		}
	}
}
