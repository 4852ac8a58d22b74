package domain

import "github.com/tmux-mcp/tmux-mcp/ports"

// Service carries out the tools' calls against a Terminal. It is safe for
// concurrent use; one Service must serve every call of a process, since it
// holds the pane reservations.
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
}

// Option changes a Service at construction.
type Option func(*Service)

// WithIDs makes the Service take call ids from f instead of NewID; tests use
// it for reproducible frames.
func WithIDs(f func() string) Option { return func(s *Service) { s.newID = f } }

// NewService returns a Service on the given terminal and clock.
func NewService(term ports.Terminal, clock ports.Clock, cfg Config, opts ...Option) *Service {
	s := &Service{term: term, clock: clock, cfg: cfg.withDefaults(), newID: NewID, res: NewReservations()}
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
