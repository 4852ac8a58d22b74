package frame

import (
	"bytes"
	"io"
)

// A Scanner reads a pane's raw output stream from the moment a framed
// command was typed and follows that command's frame: it passes on what
// the command printed and reports how the frame went.
//
// Output is the bytes after the frame's start marker and before its end
// marker, as the program wrote them, less every marker: this frame's, the
// markers of other frames (a command that prints a recording of the pane,
// say) and the end markers of servers that wrote no secret. Nothing else is
// ever removed, so a marker inside the data cuts nothing out of it; a
// foreign marker only sets ForeignSeen. Bytes before the start marker (the
// echo of the typed line, the prompt) and after the end marker are dropped.
//
// The end is the first end marker with this frame's id and secret. One
// with the id but another secret, or none, was printed by something else
// than the frame (the command itself, forging it): it ends nothing, and
// sets ForeignSeen. A second end marker with the secret never displaces
// the first: once the frame's end has been printed, its secret is in the
// pane's output for every process that can read the pane to learn, so a
// later marker that carries it says nothing about the frame — but it does
// say that something else knows the secret, which SecretKnown reports.
// The scanner reads on after the end marker, holding back what follows
// it, so that a caller that finds the end false (see the domain's
// confirmation) can give it up with Demote; the next end marker with the
// secret is then the end, and SecretKnown is true.
//
// Markers are recognised in full only: the exact intro, a kind, ids of 1
// to 64 letters, digits, '_' or '-', for an end marker a status written
// exactly as strconv.Itoa writes it, and BEL. Anything else, such as a
// malformed marker or one split by other bytes, is ordinary output. A
// possible marker prefix at the end of a Write (under 200 bytes) is held
// back until later bytes show what it is, and passed on then if it is not
// a marker. Should the stream stop there, the bytes held back are an
// unfinished OSC sequence, which a terminal does not show and a text
// normalizer drops, so the text of the output loses nothing.
//
// A Scanner is not safe for concurrent use.
type Scanner struct {
	ids IDs
	out io.Writer

	pend    []byte // a possible marker prefix, starting with ESC
	started bool   // our start marker was seen
	pid     int    // the shell's process id, from our start marker
	resumed bool   // output is passed on without it (see Resume)
	ended   bool   // our end marker was seen
	status  int    // exit status from our end marker
	after   []byte // output after our end marker, should it not be the end
	unread  bool   // our unread marker was seen before the start
	foreign bool   // a marker not of our frame was seen while it ran
	known   bool   // an end marker with our secret was given up, or followed by another
}

// NewScanner returns a scanner for the frame of ids that writes the
// command's output to output. Errors that output returns are ignored: the
// scanner's callers give it writers that do not fail.
func NewScanner(ids IDs, output io.Writer) *Scanner {
	return &Scanner{ids: ids, out: output, pend: make([]byte, 0, maxMarkerLen)}
}

// maxAfter bounds what is held after an end marker; past it the end is
// demoted (see Demote): a shell prints no more than a prompt between its
// end marker and the caller's check of it.
const maxAfter = 64 << 10

// Write scans stream bytes, which may be split anywhere, even inside a
// marker. It always returns len(p), nil.
func (s *Scanner) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if len(s.pend) == 0 {
			i := bytes.IndexByte(p, 0x1b)
			if i < 0 {
				s.emit(p)
				break
			}
			s.emit(p[:i])
			p = p[i:]
		}
		s.pend = append(s.pend, p[0])
		p = p[1:]
		m, st := parseMarker(s.pend)
		switch st {
		case markerPartial:
			continue
		case markerComplete:
			s.pend = s.pend[:0]
			s.handle(m)
		case markerInvalid:
			// pend was a valid prefix until its last byte, and a valid
			// prefix holds ESC only at its start: so the last byte is the
			// only other place a marker may begin.
			last := len(s.pend) - 1
			if s.pend[last] == 0x1b && last > 0 {
				s.emit(s.pend[:last])
				s.pend = append(s.pend[:0], 0x1b)
			} else {
				s.emit(s.pend)
				s.pend = s.pend[:0]
			}
		}
	}
	return n, nil
}

// Resume makes the scanner pass on output as if the start marker had been
// seen, without reporting Started: for a reader that lost stream bytes,
// among which the start marker may have been.
func (s *Scanner) Resume() { s.resumed = true }

// Started reports whether the start marker was seen.
func (s *Scanner) Started() bool { return s.started }

// ShellPID returns the process id of the shell that ran the frame, as its
// start marker told it; 0 before the start marker.
func (s *Scanner) ShellPID() int { return s.pid }

// Ended reports whether the end marker was seen, and the exit status it
// carried: of the first one, if several were. It may be seen without the
// start marker, after bytes were lost.
func (s *Scanner) Ended() (status int, ok bool) { return s.status, s.ended }

// Demote gives up the end marker held, which the caller found was not the
// frame's end: it counts as a foreign marker, what followed it is output,
// and the next end marker with the secret is the end.
func (s *Scanner) Demote() {
	if !s.ended {
		return
	}
	s.ended, s.foreign, s.known = false, true, true
	after := s.after
	s.after = nil
	s.emit(after)
}

// SecretKnown reports that something besides the frame's shell printed an
// end marker with the frame's secret: one was given up (Demote), or a
// second followed the end. Whatever the end marker says, another process
// could have said it.
func (s *Scanner) SecretKnown() bool { return s.known }

// Unread reports whether the unread marker was seen before the start
// marker: the shell could not read the script, and the command did not
// run.
func (s *Scanner) Unread() bool { return s.unread }

// ForeignSeen reports whether, while the command ran, a marker was seen
// that the frame did not print: another frame's, one of a server without
// secrets, or one with this frame's id and not its secret.
func (s *Scanner) ForeignSeen() bool { return s.foreign }

// emit passes p on if it lies inside the frame, and holds it back if it
// follows the end marker.
func (s *Scanner) emit(p []byte) {
	switch {
	case len(p) == 0 || !(s.started || s.resumed):
	case s.ended:
		if len(s.after)+len(p) > maxAfter {
			s.Demote()
			s.emit(p)
			return
		}
		s.after = append(s.after, p...)
	default:
		_, _ = s.out.Write(p)
	}
}

func (s *Scanner) handle(m marker) {
	running := s.started || s.resumed
	switch {
	case m.kind == 'E' && m.id == s.ids.ID && m.secret == s.ids.Secret:
		if s.ended || !running {
			// The first end stands; or the frame has not started (and
			// no bytes were lost that could have held its start): the
			// secret is out.
			s.foreign, s.known = true, true
			return
		}
		s.ended, s.status = true, m.status
	case s.ended:
		// After the end; should the end be given up, Demote flags it.
	case !s.started && m.kind == 'S' && m.id == s.ids.ID && m.pid > 0:
		s.started, s.pid = true, m.pid
	case !running && m.kind == 'X' && m.id == s.ids.Unread:
		s.unread = true
	case running:
		s.foreign = true
	}
}
