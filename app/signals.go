package app

import (
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// stopSignals are the signals that stop the server.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM}

// earlySignals catches the stop signals that come while the application
// is being built, before fx listens for them (it does from App.Wait on).
// Without it such a signal would end the process on the spot, and a
// private tmux server started by then would be left running. The first
// signal is kept, and the server is stopped in order once it is up; a
// second one, for a start that hangs, ends the process at once, as the
// signal would have.
type earlySignals struct {
	ch       chan os.Signal
	quit     chan struct{}
	finished chan struct{}

	mu     sync.Mutex
	caught os.Signal
}

func catchEarlySignals() *earlySignals {
	s := &earlySignals{ch: make(chan os.Signal, 1), quit: make(chan struct{}), finished: make(chan struct{})}
	signal.Notify(s.ch, stopSignals...)
	go s.watch()
	return s
}

func (s *earlySignals) watch() {
	defer close(s.finished)
	for {
		select {
		case sig := <-s.ch:
			s.mu.Lock()
			first := s.caught == nil
			if first {
				s.caught = sig
			}
			s.mu.Unlock()
			if !first {
				// Asked twice: let the signal do what it does by default.
				signal.Reset(sig)
				if ss, ok := sig.(syscall.Signal); ok {
					_ = syscall.Kill(os.Getpid(), ss)
				}
				return
			}
		case <-s.quit:
			return
		}
	}
}

// stop stops catching signals, once something else listens for them, and
// returns the one caught, if any.
func (s *earlySignals) stop() os.Signal {
	signal.Stop(s.ch)
	close(s.quit)
	<-s.finished
	select {
	case sig := <-s.ch:
		if s.caught == nil {
			s.caught = sig
		}
	default:
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.caught
}
