package fake_test

import (
	"context"
	"fmt"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/domain"
)

// A run_shell_command call, tested without tmux: the fake's scripted bash
// reads the framed command from the fake's script store, runs it in its
// small interpreter and prints the frame's markers, as a real shell would.
// The call returns what the tool would report.
func Example_runShellCommand() {
	clock := fake.NewClock(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
	term := fake.New(fake.WithClock(clock))
	pane := term.AddPane(fake.PaneSpec{}) // %0: bash, 80x24
	svc := domain.NewService(term, clock, fake.NewIDs(), domain.DefaultConfig())
	defer svc.Close()

	res, err := svc.RunShellCommand(context.Background(), domain.RunRequest{
		PaneID:  pane,
		Command: `printf 'hello\nworld\n'; exit 3`,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Outcome, *res.ExitStatus, res.OutputComplete)
	fmt.Println(res.Output)
	fmt.Printf("the shell ran %q\n", term.Commands(pane))
	// Output:
	// completed 3 true
	// hello
	// world
	// the shell ran ["printf 'hello\\nworld\\n'; exit 3"]
}

// A command that takes time, on a clock that moves only when the test
// moves it: Expect scripts what the next command does, WaitForTimers
// returns once the call waits on the clock, and Advance ends the command.
// Nothing sleeps; the test is as fast and as repeatable as the one above.
func Example_commandThatTakesTime() {
	clock := fake.NewClock(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
	term := fake.New(fake.WithClock(clock))
	pane := term.AddPane(fake.PaneSpec{})
	svc := domain.NewService(term, clock, fake.NewIDs(), domain.DefaultConfig())
	defer svc.Close()

	term.Expect(pane, fake.Run{Output: "building\n", Delay: 2 * time.Second, Status: 1})
	done := make(chan domain.RunResult, 1)
	go func() {
		res, err := svc.RunShellCommand(context.Background(), domain.RunRequest{PaneID: pane, Command: "make"})
		if err != nil {
			fmt.Println(err)
		}
		done <- res
	}()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := clock.WaitForTimers(ctx, 2); err != nil { // the call's deadline and its liveness check
		fmt.Println(err)
		return
	}
	clock.Advance(2 * time.Second)
	res := <-done
	fmt.Println(res.Outcome, *res.ExitStatus, res.Output)
	// Output:
	// completed 1 building
}
