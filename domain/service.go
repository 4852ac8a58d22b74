package domain

import (
	"crypto/rand"
	"encoding/hex"
	"sync"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// Service carries out the tools' calls against a Terminal. It is safe for
// concurrent use; one Service must serve every call of a process, since it
// holds the pane reservations. Close it to stop what it does in the
// background.
type Service struct {
	term  ports.Terminal
	clock ports.Clock
	cfg   Config
	newID func() string
	res   *Reservations

	// instance tells this Service's cursors from those of another run.
	instance  string
	followers followers

	// Set by options of their own files: WithLeaser (lease.go) and
	// WithManager (manage.go).
	lease   leaseConfig
	manager ports.Manager

	// events hears what the Service tells its operator (WithEvents).
	events func(Event)

	// starting holds the panes whose shells may still be starting (see
	// ready.go).
	starting startingShells

	// The commands followed after their calls returned (run.go):
	// closing is closed by Close, which then waits for bg.
	bg        sync.WaitGroup
	closing   chan struct{}
	closeOnce sync.Once
}

// Option changes a Service at construction.
type Option func(*Service)

// WithIDs makes the Service take ids (of frames, cursors and its instance)
// from f instead of NewID; tests use it for reproducible frames. f must
// return ids of 1 to 32 ASCII letters, digits, '_' or '-', never the same
// twice.
func WithIDs(f func() string) Option { return func(s *Service) { s.newID = f } }

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
	EventAbandoned = "command-abandoned" // a command's call returned and the Service closed before it ended
)

// WithEvents makes the Service tell f about events. f must not block or
// call the Service.
func WithEvents(f func(Event)) Option { return func(s *Service) { s.events = f } }

// NewService returns a Service on the given terminal and clock.
func NewService(term ports.Terminal, clock ports.Clock, cfg Config, opts ...Option) *Service {
	s := &Service{term: term, clock: clock, cfg: cfg.withDefaults(), newID: NewID, res: NewReservations(),
		closing: make(chan struct{})}
	for _, o := range opts {
		o(s)
	}
	s.instance = s.newID()
	return s
}

// Config returns the settings in force.
func (s *Service) Config() Config { return s.cfg }

// Released returns a channel that is closed once no writer of this Service
// holds the pane: at once if none does now, else when the command holding
// it ends or its pane dies.
func (s *Service) Released(pane ports.PaneID) <-chan struct{} { return s.res.Released(pane) }

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
// again is harmless.
func (s *Service) Close() error {
	s.closeOnce.Do(func() { close(s.closing) })
	s.bg.Wait()
	return s.followers.close()
}

// idLen is the length of the ids NewID returns, in hex digits (64 bits).
const idLen = 16

// NewID returns a fresh random id: 16 lowercase hex digits from
// crypto/rand, so that two calls, even of two servers on one pane, never
// share an id.
func NewID() string {
	var b [idLen / 2]byte
	// crypto/rand.Read never returns an error (it crashes the program
	// irrecoverably instead), so there is nothing to handle.
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// ValidID reports whether s has the form NewID returns: exactly 16
// lowercase hex digits.
func ValidID(s string) bool {
	if len(s) != idLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
