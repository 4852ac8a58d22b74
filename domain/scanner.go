package domain

import (
	"bytes"
	"io"
	"strconv"
)

// maxStatusLen bounds the status field of an end marker ("-" and up to 10
// digits), so that it always fits an int.
const maxStatusLen = 11

// A FrameScanner reads a pane's raw output stream from the moment a framed
// command was typed and finds that command's frame (see StartMarker): it
// passes on what the command printed and reports the exit status.
//
// Output is the bytes strictly between this id's start and end markers,
// as the program wrote them, less the frames of other ids: from another
// id's start marker through its end marker, or through our end marker when
// its own end does not come first. Bytes before our start marker (the
// echo of the typed command, the prompt) and after our end marker are
// dropped.
//
// Markers are recognised in full only: the exact intro, a kind, an id of
// 1 to 64 letters, digits, '_' or '-', for an end marker a status written
// exactly as strconv.Itoa writes it, and BEL. Anything else, such as a
// malformed marker or one split by other bytes, is ordinary output. A
// marker with any other id, even one of which ours is a prefix, is another
// caller's and never ends our frame. A possible marker prefix at
// the end of a Write (under 100 bytes) is held back until later bytes
// show what it is, and passed on then if it is not a marker. Should the
// stream stop there, the bytes held back are an unfinished OSC sequence,
// which a terminal does not show and a TextNormalizer drops at Flush, so
// the text of the output loses nothing.
//
// A FrameScanner is not safe for concurrent use.
type FrameScanner struct {
	id  string
	out io.Writer

	pend    []byte          // a possible marker prefix, starting with ESC
	started bool            // our start marker was seen
	ended   bool            // our end marker was seen
	status  int             // exit status from our end marker
	foreign bool            // another id's marker was seen while ours ran
	open    map[string]bool // other ids whose frames are open inside ours
}

// NewFrameScanner returns a scanner for the frame of id that writes the
// command's output to output. Errors that output returns are ignored:
// the scanner's callers give it writers that do not fail (a
// TextNormalizer over a Tail, a bytes.Buffer).
func NewFrameScanner(id string, output io.Writer) *FrameScanner {
	return &FrameScanner{id: id, out: output, pend: make([]byte, 0, len(markerIntro)+2+maxFrameIDLen+1+maxStatusLen+1)}
}

// Write scans stream bytes, which may be split anywhere, even inside a
// marker. It always returns len(p), nil. Bytes after our end marker are
// ignored.
func (s *FrameScanner) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 && !s.ended {
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

// Started reports whether our start marker was seen.
func (s *FrameScanner) Started() bool { return s.started }

// Ended reports whether our end marker was seen after our start marker,
// and the exit status it carried.
func (s *FrameScanner) Ended() (status int, ok bool) { return s.status, s.ended }

// ForeignSeen reports whether a marker of another id was seen after our
// start marker: another caller framed a command in the same pane while
// ours ran. What its frame enclosed has been removed from the output;
// what it printed outside any frame cannot be told apart.
func (s *FrameScanner) ForeignSeen() bool { return s.foreign }

// emit passes p on if it lies inside our frame and outside others'.
func (s *FrameScanner) emit(p []byte) {
	if len(p) == 0 || !s.started || s.ended || len(s.open) > 0 {
		return
	}
	_, _ = s.out.Write(p)
}

func (s *FrameScanner) handle(m marker) {
	switch {
	case !s.started:
		s.started = m.start && m.id == s.id
	case m.id == s.id:
		// A second start marker of ours can only be a replay; it is
		// dropped like any marker.
		if !m.start {
			s.ended, s.status = true, m.status
		}
	default:
		s.foreign = true
		if m.start {
			if s.open == nil {
				s.open = make(map[string]bool)
			}
			s.open[m.id] = true
		} else {
			// An end whose start came before ours closes nothing;
			// deleting an absent key is a no-op.
			delete(s.open, m.id)
		}
	}
}

// marker is a parsed start or end marker.
type marker struct {
	start  bool // start marker; otherwise end marker
	id     string
	status int // end markers only
}

type markerState int

const (
	markerPartial  markerState = iota // b is a proper prefix of some marker
	markerComplete                    // b is exactly one marker
	markerInvalid                     // b is not a prefix of any marker
)

// parseMarker reports whether b, which starts with ESC, is a marker, a
// proper prefix of one, or neither.
func parseMarker(b []byte) (marker, markerState) {
	var m marker
	n := min(len(b), len(markerIntro))
	if string(b[:n]) != markerIntro[:n] {
		return m, markerInvalid
	}
	b = b[n:]
	if n < len(markerIntro) || len(b) == 0 {
		return m, markerPartial
	}
	switch b[0] {
	case 'S':
		m.start = true
	case 'E':
	default:
		return m, markerInvalid
	}
	b = b[1:]
	if len(b) == 0 {
		return m, markerPartial
	}
	if b[0] != ';' {
		return m, markerInvalid
	}
	b = b[1:]

	// The id runs to BEL (start) or ';' (end).
	i := 0
	for i < len(b) && isIDByte(b[i]) {
		i++
	}
	if i > maxFrameIDLen {
		return m, markerInvalid
	}
	if i == len(b) {
		return m, markerPartial
	}
	if i == 0 {
		return m, markerInvalid
	}
	id, term := b[:i], b[i]
	b = b[i+1:]
	if m.start {
		if term != markerEnd || len(b) > 0 {
			return m, markerInvalid
		}
		m.id = string(id)
		return m, markerComplete
	}
	if term != ';' {
		return m, markerInvalid
	}

	// The status is canonical decimal: "0", or digits without a leading
	// zero, possibly after "-". Only then is each end marker the output of
	// EndMarker for exactly one status.
	j := 0
	if j < len(b) && b[j] == '-' {
		j++
	}
	digits := j
	for j < len(b) && '0' <= b[j] && b[j] <= '9' {
		j++
	}
	switch {
	case j > digits && b[digits] == '0' && (j-digits > 1 || digits == 1):
		return m, markerInvalid // a leading zero, or "-0"
	case j > maxStatusLen:
		return m, markerInvalid
	case j == len(b):
		return m, markerPartial
	case j == digits || b[j] != markerEnd || j+1 != len(b):
		return m, markerInvalid
	}
	status, err := strconv.Atoi(string(b[:j]))
	if err != nil {
		return m, markerInvalid
	}
	m.id, m.status = string(id), status
	return m, markerComplete
}
