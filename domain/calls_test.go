package domain_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
)

// Tests move the fake clock only once the code under test waits on it, so
// they wait for its timers while calls run in the background. A call that
// returns instead of waiting would leave such a test waiting for timers
// that never come; calls makes it fail at once, with what the call
// returned, rather than after a deadline.

// fataler is the part of testing.TB that calls needs.
type fataler interface {
	Helper()
	Fatalf(format string, args ...any)
}

// calls are the Service calls a test runs in the background.
type calls struct {
	mu      sync.Mutex
	running []*call
	// watching, if set, is called once a wait watches the running calls.
	watching func()
}

// A call is one of them.
type call struct {
	what     string
	returned chan struct{} // closed when it returns
	result   string        // what it returned, once it has
}

// start runs f in the background as the call what; f's result is
// reported if the call returns while a test waits for timers.
func (cs *calls) start(what string, f func() (any, error)) {
	c := &call{what: what, returned: make(chan struct{})}
	cs.mu.Lock()
	cs.running = append(cs.running, c)
	cs.mu.Unlock()
	go func() {
		res, err := f()
		c.result = fmt.Sprintf("%+v, %v", res, err)
		close(c.returned)
	}()
}

// waitTimers returns once clock has n timers pending. It fails the test at
// once when a call that was running as the wait began returns first.
func (cs *calls) waitTimers(t fataler, clock *fake.Clock, n int) {
	t.Helper()
	cs.wait(t, fmt.Sprintf("%d timers pending", n), func(ctx context.Context) error { return clock.WaitForTimers(ctx, n) })
}

// waitTimer is waitTimers for a timer due d from now.
func (cs *calls) waitTimer(t fataler, clock *fake.Clock, d time.Duration) {
	t.Helper()
	cs.wait(t, fmt.Sprintf("a timer due in %v", d), func(ctx context.Context) error { return clock.WaitForTimer(ctx, d) })
}

func (cs *calls) wait(t fataler, what string, wait func(context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	early := make(chan *call, 1)
	cs.mu.Lock()
	for _, c := range cs.running {
		select {
		case <-c.returned: // returned before: the test has seen to it
			continue
		default:
		}
		go func() {
			select {
			case <-c.returned:
				select {
				case early <- c:
				default:
				}
			case <-ctx.Done():
			}
		}()
	}
	watching := cs.watching
	cs.mu.Unlock()
	if watching != nil {
		watching()
	}
	waited := make(chan error, 1)
	go func() { waited <- wait(ctx) }()
	select {
	case err := <-waited:
		if err != nil {
			t.Fatalf("never %s: %v", what, err)
		}
	case c := <-early:
		// The call may have returned just as what was awaited came
		// about: that counts.
		cancel()
		if err := <-waited; err == nil {
			return
		}
		t.Fatalf("%s returned while the test waited for %s: %s", c.what, what, c.result)
	}
}

// fatalRecorder is a fataler that records the failure and stops the
// goroutine, as testing.T's Fatalf does.
type fatalRecorder struct{ msg chan string }

func (fatalRecorder) Helper() {}
func (f fatalRecorder) Fatalf(format string, args ...any) {
	f.msg <- fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func TestACallThatReturnsInsteadOfWaitingFailsTheWaitAtOnce(t *testing.T) {
	clock := fake.NewClock(time.Unix(0, 0))
	release := make(chan struct{})
	cs := calls{watching: func() { close(release) }} // the call returns once the wait watches it
	cs.start("a call that never waits", func() (any, error) { <-release; return "its result", nil })
	rec := fatalRecorder{msg: make(chan string, 1)}
	go cs.waitTimers(rec, clock, 1)
	select {
	case msg := <-rec.msg:
		if !strings.Contains(msg, "a call that never waits returned") || !strings.Contains(msg, "its result") {
			t.Errorf("failure %q, want the call and its result named", msg)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the wait did not fail when the call returned")
	}
}
