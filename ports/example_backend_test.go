package ports_test

import (
	"context"
	"fmt"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// board is a backend at its smallest, as ARCHITECTURE.md's "Adding a
// backend" walks through it: a multiplexer of one pane, %0, that shows a
// fixed screen and takes no input. It says what it observed and puts what
// it cannot tell in Unknown; what it cannot do is ErrUnsupported; a pane
// it does not have is ErrPaneNotFound. A real backend also runs
// test/contract's suite (contract.Run), which no Example can.
type board struct{ rows []string }

var _ ports.Terminal = board{}

func (b board) Pane(_ context.Context, id ports.PaneID) (ports.PaneInfo, error) {
	if id != "%0" {
		return ports.PaneInfo{}, fmt.Errorf("describe pane %s: %w", id, ports.ErrPaneNotFound)
	}
	return ports.PaneInfo{ID: id, Generation: "1", Command: "board", Width: 40, Height: len(b.rows),
		// A board cannot tell who looks at it, nor what runs behind it:
		// never a safe zero value it did not observe.
		Unknown: []ports.Fact{ports.FactWatched, ports.FactAlsoReaches, ports.FactSelf, ports.FactMode, ports.FactCommand, ports.FactPID, ports.FactCursor}}, nil
}

func (b board) Capture(ctx context.Context, id ports.PaneID, r ports.CaptureRange) ([]string, error) {
	if _, err := b.Pane(ctx, id); err != nil {
		return nil, err
	}
	if r.JoinWrapped {
		return nil, fmt.Errorf("capture pane %s: join wrapped rows: %w", id, ports.ErrUnsupported)
	}
	if r.Start < 0 || r.End >= len(b.rows) || r.Start > r.End {
		return nil, fmt.Errorf("capture pane %s: rows %d to %d: out of range", id, r.Start, r.End)
	}
	return b.rows[r.Start : r.End+1], nil
}

// unsupported is the error of everything a board cannot do.
func unsupported(what string, id ports.PaneID) error {
	return fmt.Errorf("%s pane %s: %w", what, id, ports.ErrUnsupported)
}

func (board) SendText(_ context.Context, id ports.PaneID, _ string) error {
	return unsupported("type into", id)
}
func (board) SendKeys(_ context.Context, id ports.PaneID, _ []string) error {
	return unsupported("press keys in", id)
}
func (board) Paste(_ context.Context, id ports.PaneID, _ string) error {
	return unsupported("paste into", id)
}
func (board) OpenOutput(_ context.Context, id ports.PaneID) (ports.OutputStream, error) {
	return nil, unsupported("listen to", id)
}
func (board) PutScript(_ context.Context, id ports.PaneID, _ func(string) []byte) (string, error) {
	return "", unsupported("store a script for", id)
}
func (board) ReadScript(_ context.Context, id ports.PaneID, _ string) ([]byte, bool, error) {
	return nil, false, unsupported("read a script of", id)
}
func (board) RemoveScript(_ context.Context, id ports.PaneID, _ string) (ports.ScriptState, error) {
	return ports.ScriptUnknown, nil // it never stored one
}
func (board) Foreground(_ context.Context, id ports.PaneID) (ports.Foreground, error) {
	return ports.Foreground{}, unsupported("read the foreground of", id)
}
func (board) LineEditing(_ context.Context, id ports.PaneID) (bool, error) {
	return false, unsupported("read the terminal mode of", id)
}

// Adding a backend: implement ports.Terminal, and the domain's use cases
// run on it unchanged. Reading works; a write, which needs facts the
// backend cannot tell, is refused before a byte is sent.
func Example_addABackend() {
	term := board{rows: []string{"deploy: green", "queue: 3 jobs"}}
	clock := fake.NewClock(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
	svc := domain.NewService(term, clock, fake.NewIDs(), domain.DefaultConfig())
	defer svc.Close()
	ctx := context.Background()

	screen, err := svc.CapturePane(ctx, domain.CaptureRequest{PaneID: "%0"})
	fmt.Printf("%q %v\n", screen.Text, err)

	_, err = svc.RunShellCommand(ctx, domain.RunRequest{PaneID: "%0", Command: "true"})
	fmt.Println(err)
	// Output:
	// "deploy: green\nqueue: 3 jobs\n" <nil>
	// refused to write to pane %0: the terminal backend cannot tell whether a person is watching the pane, so it might not be safe
}
