package ports

import (
	"context"
	"time"
)

// HostInfo describes one host of a backend that serves the panes of
// several hosts (several multiplexer servers, each on its own machine or
// socket), as that backend last found it.
type HostInfo struct {
	// Name is the host's name: what the ids of its panes, windows and
	// sessions carry before a ":" ("web1:%3").
	Name string

	// Destination tells how the host is reached, such as the ssh
	// destination; "" for this machine.
	Destination string

	// Reachable reports that the host answered the last time it was
	// asked. A host that has not been asked yet is not reachable, with
	// Since zero.
	Reachable bool

	// Error says why the host was last found unreachable; "" while it is
	// reachable.
	Error string

	// Since is when Reachable last changed, or when the host was first
	// asked; zero when it never was.
	Since time.Time

	// Sessions and Panes count what the host's multiplexer holds, as it
	// said when it was last asked; both 0 while it is not reachable.
	Sessions, Panes int
}

// A HostLister is a backend that serves the panes of several hosts and
// tells how each fares. A backend of one host offers no HostLister: its
// ids then carry no host.
//
// Implementations must be safe for concurrent use.
type HostLister interface {
	// Hosts asks every host, at once, what it holds and reports each, in
	// the order the hosts were configured. A host that does not answer
	// within ctx, or answers with an error, is reported unreachable with
	// that error, and the others are described all the same: Hosts has
	// no error of its own.
	Hosts(ctx context.Context) []HostInfo

	// HostStatus reports every host as the calls so far found it, in the
	// same order, asking none: what a listing's result says of the hosts
	// it could not reach, at no cost. Sessions and Panes are 0.
	HostStatus() []HostInfo
}
