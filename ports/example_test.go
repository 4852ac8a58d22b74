package ports_test

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// An output stream counts bytes from the first the backend saw of the
// pane, across streams: a reader notes End before it acts, and what it
// then reads from there is what came after, however much came before.
// What the stream no longer holds, or never saw, is counted as Missed,
// never skipped in silence.
func ExampleOutputStream() {
	ctx := context.Background()
	term := fake.New(fake.WithOutputWindow(16)) // retain the newest 16 bytes
	pane := term.AddPane(fake.PaneSpec{Command: "top"})

	s, err := term.OpenOutput(ctx, pane)
	if err != nil {
		fmt.Println(err)
		return
	}
	term.Inject(pane, []byte("before\r\n"))
	mark := s.End() // everything from here on is ours to read
	term.Inject(pane, []byte("after\r\n"))
	c := s.ReadFrom(mark)
	fmt.Printf("from %d: %q, missed %d\n", c.Offset, c.Data, c.Missed)
	s.Close()

	// A stream opened again counts on where the last one stopped.
	s, _ = term.OpenOutput(ctx, pane)
	defer s.Close()
	fmt.Println("end", s.End())
	term.Inject(pane, []byte("a line longer than the window\r\n"))
	c = s.ReadFrom(mark)
	fmt.Printf("from %d: %q, missed %d\n", c.Offset, c.Data, c.Missed)
	// Output:
	// from 8: "after\r\n", missed 0
	// end 15
	// from 30: "han the window\r\n", missed 22
}

// A description holds only facts the backend observed: what it could not
// tell is in Unknown, and a zero value there means nothing. The domain
// refuses a write when a fact it needs is unknown.
func ExampleTerminal_pane() {
	ctx := context.Background()
	term := fake.New()
	pane := term.AddPane(fake.PaneSpec{}) // bash, 80x24
	term.SetUnknown(pane, ports.FactWatched)

	info, err := term.Pane(ctx, pane)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(info.ID, info.Command, info.Width, info.Height)
	if slices.Contains(info.Unknown, ports.FactWatched) {
		fmt.Println("nobody known to watch, which is not the same as nobody watching")
	}

	// Errors wrap the port's sentinels and name the pane once.
	_, err = term.Pane(ctx, "%9")
	fmt.Println(errors.Is(err, ports.ErrPaneNotFound))
	// Output:
	// %0 bash 80 24
	// nobody known to watch, which is not the same as nobody watching
	// true
}
