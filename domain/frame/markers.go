package frame

import "strconv"

// intro starts every marker.
const intro = "\x1b]7717;tmcp;"

// bel ends every marker.
const bel = '\x07'

// IDs are the three values that tie a framed command to its markers (see
// the package documentation): ID names the frame, Secret authenticates its
// end, Unread names the failure to read its script. Each is 1 to 64 ASCII
// letters, digits, '_' or '-', and the three differ.
type IDs struct {
	ID     string
	Secret string
	Unread string
}

// Valid reports whether every value has the form Frame accepts and no two
// are equal.
func (ids IDs) Valid() bool {
	return validID(ids.ID) && validID(ids.Secret) && validID(ids.Unread) &&
		ids.ID != ids.Secret && ids.ID != ids.Unread && ids.Secret != ids.Unread
}

// StartMarker returns the bytes the shell with process id pid prints just
// before the command with this id runs.
func StartMarker(id string, pid int) []byte {
	return []byte(intro + "S;" + id + ";" + strconv.Itoa(pid) + string(bel))
}

// EndMarker returns the bytes the shell prints just after the command of
// these ids ended with the given exit status.
func EndMarker(ids IDs, status int) []byte {
	return []byte(intro + "E;" + ids.ID + ";" + ids.Secret + ";" + strconv.Itoa(status) + string(bel))
}

// UnreadMarker returns the bytes the typed line prints when the shell
// could not read the script.
func UnreadMarker(unread string) []byte {
	return []byte(intro + "X;" + unread + string(bel))
}

// MaxIDLen bounds every id, so that the scanner holds back only a short
// possible marker prefix.
const MaxIDLen = 64

// maxStatusLen bounds the status field of an end marker ("-" and up to 10
// digits), so that it always fits an int.
const maxStatusLen = 11

// isIDByte reports whether c may appear in an id. None of these bytes is
// special inside single quotes, in a printf format or a case pattern, in
// any supported shell.
func isIDByte(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c == '-'
}

// validID reports whether s is 1 to MaxIDLen id bytes.
func validID(s string) bool {
	if s == "" || len(s) > MaxIDLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isIDByte(s[i]) {
			return false
		}
	}
	return true
}

// A marker is a parsed marker.
type marker struct {
	kind   byte   // 'S', 'E' or 'X'
	id     string // S, E: the frame's id; X: the unread id
	pid    int    // S only: the shell's process id; 0 for the start markers of servers before it
	secret string // E only; "" for the end markers of servers before the secret
	status int    // E only
}

type markerState int

const (
	markerPartial  markerState = iota // b is a proper prefix of some marker
	markerComplete                    // b is exactly one marker
	markerInvalid                     // b is not a prefix of any marker
)

// maxMarkerLen is the longest marker: an end marker with the longest id,
// secret and status.
const maxMarkerLen = len(intro) + 2 + MaxIDLen + 1 + MaxIDLen + 1 + maxStatusLen + 1

// parseMarker reports whether b, which starts with ESC, is a marker, a
// proper prefix of one, or neither. Besides the markers of this package it
// recognises those that servers wrote before the pid and the secret
// ("S;<id>", "E;<id>;<status>"), so that output replaying them is told
// apart too.
func parseMarker(b []byte) (marker, markerState) {
	var m marker
	n := min(len(b), len(intro))
	if string(b[:n]) != intro[:n] {
		return m, markerInvalid
	}
	b = b[n:]
	if n < len(intro) || len(b) == 0 {
		return m, markerPartial
	}
	switch b[0] {
	case 'S', 'E', 'X':
		m.kind = b[0]
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

	// Up to three fields separated by ';' and ended by BEL: ids are id
	// bytes, the last field of an end marker is a canonical status.
	var fields [3][]byte
	nf := 0
	for {
		i := 0
		for i < len(b) && isIDByte(b[i]) {
			i++
		}
		if i > MaxIDLen {
			return m, markerInvalid
		}
		if i == len(b) {
			return m, markerPartial
		}
		if i == 0 {
			return m, markerInvalid
		}
		fields[nf], nf = b[:i], nf+1
		term := b[i]
		b = b[i+1:]
		switch {
		case term == bel:
			if len(b) > 0 {
				return m, markerInvalid
			}
			return finishMarker(m, fields[:nf])
		case term != ';' || nf == len(fields) || m.kind == 'X' || m.kind == 'S' && nf == 2:
			return m, markerInvalid
		}
	}
}

// finishMarker checks the fields of a complete marker.
func finishMarker(m marker, f [][]byte) (marker, markerState) {
	switch m.kind {
	case 'X':
		m.id = string(f[0])
		return m, markerComplete
	case 'S':
		m.id = string(f[0])
		if len(f) == 2 {
			pid, ok := parseStatus(f[1])
			if !ok || pid <= 0 {
				return m, markerInvalid
			}
			m.pid = pid
		}
		return m, markerComplete
	}
	if len(f) < 2 {
		return m, markerInvalid
	}
	status, ok := parseStatus(f[len(f)-1])
	if !ok {
		return m, markerInvalid
	}
	m.id, m.status = string(f[0]), status
	if len(f) == 3 {
		m.secret = string(f[1])
	}
	return m, markerComplete
}

// parseStatus reads a status written exactly as strconv.Itoa writes it:
// "0", or digits without a leading zero, possibly after "-". Only then is
// each end marker the output of EndMarker for exactly one status.
func parseStatus(b []byte) (int, bool) {
	digits := b
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > maxStatusLen-1 {
		return 0, false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	if digits[0] == '0' && (len(digits) > 1 || len(b) > 1) {
		return 0, false // a leading zero, or "-0"
	}
	n, err := strconv.Atoi(string(b))
	return n, err == nil
}
