package domain

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/domain/runlog"
	"github.com/tmux-mcp/tmux-mcp/domain/writers"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// Service carries out the pane tools' calls against a Terminal: running
// commands, pasting, pressing keys, capturing and following output. It is
// safe for concurrent use; one Service must serve every call of a process,
// with the writers.Pool that the lifecycle tools share. Close it to stop
// what it does in the background.
type Service struct {
	term    ports.Terminal
	clock   ports.Clock
	ids     ports.IDSource
	cfg     Config
	writers *writers.Pool

	// instance tells this Service's cursors from those of another run.
	instance  string
	followers followers

	// events hears what the Service tells its operator (WithEvents).
	events func(Event)

	// starting holds the panes whose shells may still be starting (see
	// ready.go).
	starting startingShells
	prompts  drawnPrompts
	// shells is what the Service saw of the shells in front of each
	// pane (shells.go).
	shells shellsSeen
	// guards are the last guarded description of each pane (guarded.go).
	guards guardCache
	far    farPanes     // the panes watched for a far shell's prompt marks (run_far.go)
	lister ports.Lister // where a pane's cursor is, for a far shell's named prompt; nil if not known

	// runs are the commands followed after their calls returned, for
	// wait_for_command (waitcommand.go).
	runs runs
	// left is what those commands left running, by pane (left.go).
	left leftRecords

	// outputs keeps every run's whole output, in store (output.go).
	store   ports.OutputStore
	outputs *runlog.Log
	// started are the commands typed that run, for signal_command
	// (signal.go).
	started startedCommands

	// The commands followed after their calls returned (run.go):
	// closing is closed by Close, which then waits for bg.
	bg        sync.WaitGroup
	closing   chan struct{}
	closeOnce sync.Once

	// life is the context of what the Service asks of its ports on its
	// own behalf; Close ends it once nothing runs in the background.
	life    context.Context
	endLife context.CancelFunc
}

// Option changes a Service at construction.
type Option func(*Service)

// WithWriters makes the Service hold panes in pool, which the lifecycle
// tools of the same process must share; without it the Service holds
// them in a pool of its own, taking no leases.
func WithWriters(pool *writers.Pool) Option { return func(s *Service) { s.writers = pool } }

// WithLister gives the Service the backend's Lister, which tells where a
// pane's cursor is: what a far shell's named prompt is matched at
// (RunRequest.FarPrompt). Without one, FarPrompt is refused as
// unsupported.
func WithLister(l ports.Lister) Option { return func(s *Service) { s.lister = l } }

// An Event is something the Service tells its operator about: a pane's
// output lost, a lease another process holds, a command abandoned. Kind
// is a short fixed word; Message says it for a person.
type Event struct {
	Kind    string
	Pane    ports.PaneID
	Message string
}

// Event kinds.
const (
	EventAbandoned    = "command-abandoned" // a command's call returned and the Service closed before it ended
	EventOutputLost   = "output-lost"       // the terminal lost output of a pane before the Service read it
	EventLeaseRefused = "lease-refused"     // another server process holds a pane's lease
)

// hold takes the pane for holder (writers.Pool.Hold), telling the
// operator when another server process holds it: two servers on one
// multiplexer are worth knowing about.
func (s *Service) hold(ctx context.Context, pane ports.PaneID, holder string) (*writers.Hold, error) {
	h, err := s.writers.Hold(ctx, pane, holder)
	var busy *fault.BusyError
	if errors.As(err, &busy) && busy.Owner != "" {
		s.event(EventLeaseRefused, pane, fmt.Sprintf("pane %s is leased by another tmux-mcp process (owner %s); %s was refused",
			pane, busy.Owner, holder))
	}
	return h, err
}

// describeHeld describes the pane held by hold: as the lease found it,
// when it was described as it was leased (one round trip saved), else
// afresh.
func (s *Service) describeHeld(ctx context.Context, hold *writers.Hold, pane ports.PaneID) (ports.PaneInfo, error) {
	if info, ok := hold.Described(); ok {
		return info, nil
	}
	return s.describe(ctx, pane)
}

// describe describes the pane.
func (s *Service) describe(ctx context.Context, pane ports.PaneID) (ports.PaneInfo, error) {
	info, err := s.term.Pane(ctx, pane)
	if err != nil {
		return info, err
	}
	return info, nil
}

// lost tells the operator that n bytes of the pane's output were lost.
func (s *Service) lost(pane ports.PaneID, n int64, while string) {
	if n > 0 {
		s.event(EventOutputLost, pane, fmt.Sprintf("pane %s: %d bytes of output were lost before the server could read them, while %s",
			pane, n, while))
	}
}

// WithEvents makes the Service tell f about events. f must not block or
// call the Service.
func WithEvents(f func(Event)) Option { return func(s *Service) { s.events = f } }

// NewService returns a Service on the given terminal, clock and id source.
func NewService(term ports.Terminal, clock ports.Clock, ids ports.IDSource, cfg Config, opts ...Option) *Service {
	s := &Service{term: term, clock: clock, ids: ids, cfg: cfg.withDefaults(), closing: make(chan struct{})}
	s.life, s.endLife = context.WithCancel(context.Background())
	for _, o := range opts {
		o(s)
	}
	if s.writers == nil {
		s.writers = writers.NewPool(nil)
	}
	s.outputs = runlog.New(s.store, s.cfg.OutputBudget)
	s.instance = s.ids.NewID()
	return s
}

// Config returns the settings in force.
func (s *Service) Config() Config { return s.cfg }

// Released returns a channel that is closed once no writer of this Service
// holds the pane: at once if none does now, else when the command holding
// it ends or its pane dies.
func (s *Service) Released(pane ports.PaneID) <-chan struct{} { return s.writers.Released(pane) }

// event tells the operator, if anyone listens.
func (s *Service) event(kind string, pane ports.PaneID, msg string) {
	if s.events != nil {
		s.events(Event{Kind: kind, Pane: pane, Message: msg})
	}
}

// Close stops following the commands whose calls have returned — each
// one's pane is released, its lease given back, its script removed; the
// command itself runs on — and closes the streams kept for cursors. It
// returns once the Service does nothing in the background. Calling it
// again is harmless. The writers.Pool is the caller's to close.
func (s *Service) Close() error {
	s.closeOnce.Do(func() { close(s.closing) })
	s.bg.Wait()
	s.far.close()
	// The leases of what was just released are given back before Close
	// returns, so that another process may write at once.
	s.writers.Settle()
	s.endLife()
	return s.followers.close()
}

// bounded returns a context for a port call the Service makes on its own
// behalf, when the call that asked for it may be gone: it ends d from now
// on the Service's clock, or when the Service is closed.
// closed reports whether Close has begun.
func (s *Service) closed() bool {
	select {
	case <-s.closing:
		return true
	default:
		return false
	}
}

func (s *Service) bounded(d time.Duration) (context.Context, context.CancelFunc) {
	return s.clock.WithTimeout(s.life, d)
}
