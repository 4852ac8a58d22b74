// Package multihost serves the panes of several hosts as one backend: a
// ports.Terminal, a ports.Manager and a ports.Leaser that route each call
// to the backend of the host its id names, and a ports.HostLister that
// tells how each host fares.
//
// # Ids
//
// Every pane, window and session id the router hands out is its host's
// own id with the host's name and a colon in front: pane %3 of host web1
// is "web1:%3", window @2 is "web1:@2", session $1 is "web1:$1". A session
// named by its name is "web1:work". A host name is 1 to 64 of the
// characters A-Z a-z 0-9 . _ - (so never a colon): what follows the first
// colon is the host's own id, checked by the host's backend as it checks
// any. An id that names no configured host, or names none at all, is an
// id of no pane (ports.ErrPaneNotFound) or of no session or window
// (ports.ErrNotFound). A new session is made on the host its name names
// ("web1:work", or "web1:" for a name of the backend's choosing), and on
// the first host configured when its name names none.
//
// With one host there is nothing to route, and wiring does not use the
// router: the ids are the backend's own.
//
// # Capabilities
//
// The domain finds a backend's optional capabilities (ports.Signaler,
// ports.ProcessWatcher, ports.GuardedWriter, ...) by asking whether the
// Terminal implements them. The router implements every one, and offers
// each per host: for a pane whose host's backend lacks it, the call
// returns an error wrapping ports.ErrUnsupported, which is what the
// capability's contract says a backend that cannot tell returns, and what
// the domain treats as the capability missing. Two capabilities promise
// no such error, being only a shorter way to what the domain does
// otherwise: ports.ScreenCapturer and ports.DescribingLeaser. For a host
// without them the router does what the domain would have done in their
// place, Pane then Capture, TryAcquire then Pane, in two exchanges rather
// than one. The lifecycle capabilities (ports.Lister, ports.Creator, ...)
// are likewise each a host's own: ErrUnsupported where it lacks one.
//
// The router has a Leaser only when every host's backend has one (see
// Terminal.Leaser): a pane whose host kept no lease would be written to
// without the cross-process single writer that the leaser promises.
//
// # Hosts that fail
//
// A listing of every session, window or pane asks every host at once and
// merges what they answer, in the order the hosts were configured. A host
// that fails is left out of it and reported unreachable (Hosts), and the
// listing fails only when every host does. A host that fails is never
// dropped: the next call for it asks it again, and a host that answers
// again is reachable again. A host that could not be reached when the
// server started has no backend yet: it is given as a Host.Dial, which
// the router calls when a call needs the host (no sooner than
// Options.DialRetry after a dial failed), and the host serves from the
// dial that succeeds.
package multihost
