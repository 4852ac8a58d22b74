package termtext

import (
	"bytes"
	"io"
	"unicode/utf8"
)

// A Normalizer turns the raw bytes a program wrote to a terminal into
// the plain text a person would read there, line by line, streaming: state
// is kept across Writes, so an escape sequence or a UTF-8 character may be
// split between them.
//
// What it does:
//   - Escape sequences are removed: CSI (ESC [ ... final), OSC (ESC ] ...
//     ended by BEL or ST), DCS, SOS, PM and APC strings and screen's title
//     string ESC k (each ended by ST, ESC \), two-byte ESC sequences and
//     charset designations (ESC ( B). As in tmux, CAN and SUB cancel a
//     sequence, any ESC ends a string (ESC \ is ST), and the other C0
//     controls inside a string are part of it, line feeds included: a
//     string sequence that never ends hides the rest of the output, as it
//     does on the pane's screen. Its bytes are not lost silently, though:
//     see Loss.
//   - "\r\n" ends a line; a lone "\r" returns to the start of the line, so
//     later text overwrites it ("10%\r50%\r100%\n" gives "100%\n").
//   - Backspace moves back one character without erasing it.
//   - Erase in line (CSI K, CSI 1 K, CSI 2 K) blanks what a terminal
//     blanks, so "\r" followed by CSI K redraws a line from scratch.
//   - "\t" is kept; other C0 controls, DEL and C1 controls (U+0080 to
//     U+009F) are dropped.
//   - Invalid UTF-8 becomes U+FFFD, one per byte that does not start a
//     valid character.
//   - Loss counts what of the bytes the text does not carry: bytes
//     replaced or dropped although they were neither text nor a control
//     with an effect, and an escape sequence or character left unfinished
//     at the end.
//
// Each line goes to the sink, with its "\n", as soon as the "\n" arrives;
// Flush passes on a last line that has none. Other cursor movements are
// not interpreted (their sequences are just removed): the result is the
// text in the order it was written, not a screen. Memory is the current
// line, however long, and at most 64 KB of complete lines.
//
// A Normalizer is not safe for concurrent use.
type Normalizer struct {
	sink io.Writer
	err  error // the first error the sink returned

	carry []byte // the start of a UTF-8 character split by a Write

	state  escState
	params []byte // CSI parameter and intermediate bytes, bounded

	line []byte // the current line, valid UTF-8
	cur  int    // cursor: byte offset in line, at a character boundary
	pad  int    // erased cells between the end of line and the cursor
	out  []byte // complete lines not yet written to the sink

	// The account of Loss: bytes taken so far (pos), where the rune being
	// handled begins (at), where the unfinished escape sequence begins
	// (seqStart, while state is not escGround) and where the ESC that
	// may end a string is (escAt, in escStringST).
	pos, at, seqStart, escAt int64
	replaced                 int64
}

// Loss says how much of the bytes written the text does not carry as
// they were. A text is exact when both counts are 0.
type Loss struct {
	// Replaced counts the bytes that are neither text nor a control with
	// an effect on a terminal: each byte that is not UTF-8 (shown as
	// U+FFFD), and NUL, the C0 controls that do nothing (all but BEL, BS,
	// HT, LF, VT, FF, CR, SO, SI, CAN, SUB and ESC), DEL and the C1
	// controls (dropped), wherever they are not part of an escape
	// sequence. A terminal shows none of them either; counted all the
	// same, since they were output that the text cannot hold.
	Replaced int64
	// Unterminated counts the last bytes written when they begin an
	// escape sequence or a UTF-8 character that has not ended: an OSC
	// without its BEL or ST, say, with all that followed it. They are not
	// in the text (a terminal would not show them yet either), and later
	// bytes may still end them; until then they may as well have been
	// text.
	Unterminated int64
}

// Exact reports whether the text carries every byte written.
func (l Loss) Exact() bool { return l.Replaced == 0 && l.Unterminated == 0 }

// invalidByte stands, in the parser, for a byte that is not UTF-8: beyond
// every rune, so that no range of the parser takes it for a control.
const invalidByte rune = utf8.MaxRune + 1

type escState uint8

const (
	escGround   escState = iota
	escStart             // after ESC
	escInter             // after ESC and intermediate bytes (ESC ( B)
	escCSI               // inside ESC [
	escOSC               // inside ESC ], until BEL or ST
	escString            // inside DCS, SOS, PM, APC or ESC k, until ST
	escStringST          // after ESC inside an OSC or other string
)

// maxCSIParams bounds the CSI bytes kept for interpretation; longer
// sequences are removed without being interpreted.
const maxCSIParams = 16

// outFlushSize bounds the complete lines gathered within one Write before
// they are written to the sink; the rest go at the end of the Write.
const outFlushSize = 64 << 10

// NewNormalizer returns a normalizer that writes plain text to sink.
func NewNormalizer(sink io.Writer) *Normalizer {
	return &Normalizer{sink: sink}
}

// Write normalizes p. It returns len(p) and the first error the sink has
// returned, if any; the normalizer keeps its state after an error.
func (n *Normalizer) Write(p []byte) (int, error) {
	total := len(p)
	if nc := len(n.carry); nc > 0 {
		// Decode the characters that start in the carried bytes as if
		// they had arrived with p: at most UTFMax bytes of p can belong
		// to them.
		buf := append(n.carry, p[:min(len(p), utf8.UTFMax)]...)
		i := 0
		for i < nc {
			if !utf8.FullRune(buf[i:]) {
				// Still incomplete, so all of p is in buf.
				n.carry = append(n.carry[:0], buf[i:]...)
				return total, n.err
			}
			i += n.decoded(buf[i:])
		}
		n.carry = n.carry[:0]
		p = p[i-nc:]
	}
	n.write(p)
	n.flushOut(true)
	return total, n.err
}

// write normalizes p, carrying a split character at its end.
func (n *Normalizer) write(p []byte) {
	for len(p) > 0 {
		c := p[0]
		if n.state == escGround && c >= 0x20 && c < 0x7f {
			// Fast path: a run of printable ASCII.
			i := 1
			for i < len(p) && p[i] >= 0x20 && p[i] < 0x7f {
				i++
			}
			n.text(p[:i])
			n.pos += int64(i)
			p = p[i:]
			continue
		}
		if c >= utf8.RuneSelf && !utf8.FullRune(p) {
			n.carry = append(n.carry, p...)
			return
		}
		p = p[n.decoded(p):]
	}
}

// decoded feeds the character at the start of p, which holds a whole one
// or a byte that is not UTF-8, and returns its length.
func (n *Normalizer) decoded(p []byte) int {
	r, size := rune(p[0]), 1
	if r >= utf8.RuneSelf {
		if r, size = utf8.DecodeRune(p); r == utf8.RuneError && size == 1 {
			r = invalidByte
		}
	}
	n.at = n.pos
	n.rune(r)
	n.pos += int64(size)
	return size
}

// Flush passes on the current line if it holds anything, without a "\n",
// and starts a new line. An escape sequence or a character left unfinished
// at the end stays so (Loss counts its bytes as Unterminated): should
// more bytes come, they go on with it, as on a terminal, so that a Flush
// in the middle of the output (a result taken while a command runs on)
// does not turn the rest of a sequence into text. It returns the first
// error the sink has returned.
func (n *Normalizer) Flush() error {
	if len(n.line) > 0 {
		n.out = append(n.out, n.line...)
	}
	n.line, n.cur, n.pad = n.line[:0], 0, 0
	n.flushOut(true)
	return n.err
}

// Loss returns the account of what the text written so far does not
// carry (see Loss). Replaced counts from the first Write; Unterminated is
// that of the end of what was written so far.
func (n *Normalizer) Loss() Loss {
	l := Loss{Replaced: n.replaced, Unterminated: int64(len(n.carry))}
	if n.state != escGround {
		l.Unterminated += n.pos - n.seqStart
	}
	return l
}

// Pending returns the current line, which has no "\n" yet, as a terminal
// would show it now; later bytes may still change it (a "\r" rewrites
// it). The slice is valid until the next Write or Flush.
func (n *Normalizer) Pending() []byte { return n.line }

func (n *Normalizer) flushOut(all bool) {
	if len(n.out) == 0 || !all && len(n.out) < outFlushSize {
		return
	}
	if _, err := n.sink.Write(n.out); err != nil && n.err == nil {
		n.err = err
	}
	n.out = n.out[:0]
}

// rune feeds one decoded character through the escape-sequence parser.
func (n *Normalizer) rune(r rune) {
	// CAN and SUB cancel any sequence; ESC starts a new one, except
	// inside a string, where it may be the start of ST.
	switch {
	case r == 0x18 || r == 0x1a:
		n.state = escGround
		return
	case r == 0x1b:
		switch n.state {
		case escOSC, escString:
			n.state, n.escAt = escStringST, n.at
		default:
			n.state, n.seqStart = escStart, n.at
		}
		return
	}

	switch n.state {
	case escGround:
		n.ground(r)

	case escStart:
		switch {
		case r == '[':
			n.state, n.params = escCSI, n.params[:0]
		case r == ']':
			n.state = escOSC
		case r == 'P' || r == 'X' || r == '^' || r == '_' || r == 'k':
			n.state = escString
		case r >= 0x20 && r <= 0x2f:
			n.state = escInter
		case r >= 0x30 && r <= 0x7e:
			n.state = escGround
		default:
			n.inSequence(r)
		}

	case escInter:
		switch {
		case r >= 0x20 && r <= 0x2f:
		case r >= 0x30 && r <= 0x7e:
			n.state = escGround
		default:
			n.inSequence(r)
		}

	case escCSI:
		switch {
		case r >= 0x20 && r <= 0x3f:
			if len(n.params) < maxCSIParams {
				n.params = append(n.params, byte(r))
			} else {
				n.params[0] = 0xff // too long to be one we interpret
			}
		case r >= 0x40 && r <= 0x7e:
			n.state = escGround
			n.csi(byte(r))
		default:
			n.inSequence(r)
		}

	case escOSC:
		if r == 0x07 {
			n.state = escGround
		}

	case escString:
		// Everything up to ST is the string's content.

	case escStringST:
		if r == '\\' {
			n.state = escGround
			return
		}
		// Not ST: the string ends and the ESC starts a new sequence.
		n.state, n.seqStart = escStart, n.escAt
		n.rune(r)
	}
}

// inSequence handles a character that is not part of the escape sequence
// being read: a C0 control is carried out without ending the sequence, as
// terminals do (one that does nothing is the sequence's, not output
// lost); anything else ends it and is text.
func (n *Normalizer) inSequence(r rune) {
	switch {
	case r < 0x20:
		if r == '\b' || r == '\t' || r == '\n' || r == '\r' {
			n.ground(r)
		}
	case r == 0x7f:
	default:
		n.state = escGround
		n.ground(r)
	}
}

// csi carries out the one CSI sequence that changes the text of a line:
// erase in line.
func (n *Normalizer) csi(final byte) {
	if final != 'K' {
		return
	}
	switch string(n.params) {
	case "", "0":
		n.line = n.line[:n.cur]
	case "1":
		n.eraseToCursor()
	case "2":
		col := utf8.RuneCount(n.line[:n.cur]) + n.pad
		n.line, n.cur, n.pad = n.line[:0], 0, col
	}
}

// eraseToCursor blanks the line from its start through the cursor.
func (n *Normalizer) eraseToCursor() {
	col := utf8.RuneCount(n.line[:n.cur])
	if n.cur >= len(n.line) {
		// Everything written is erased; only blank cells remain.
		n.line, n.cur, n.pad = n.line[:0], 0, col+n.pad
		return
	}
	_, size := utf8.DecodeRune(n.line[n.cur:])
	rest := n.line[n.cur+size:]
	blank := bytes.Repeat([]byte{' '}, col+1)
	n.line = append(blank, rest...)
	n.cur = col
}

// ground handles a character outside any escape sequence.
func (n *Normalizer) ground(r rune) {
	switch {
	case r == '\n':
		n.out = append(n.out, n.line...)
		n.out = append(n.out, '\n')
		n.line, n.cur, n.pad = n.line[:0], 0, 0
		n.flushOut(false)
	case r == '\r':
		n.cur, n.pad = 0, 0
	case r == '\b':
		if n.pad > 0 {
			n.pad--
		} else if n.cur > 0 {
			_, size := utf8.DecodeLastRune(n.line[:n.cur])
			n.cur -= size
		}
	case r == '\t':
		n.text([]byte{'\t'})
	case r == invalidByte:
		n.replaced++
		n.text([]byte(string(utf8.RuneError)))
	case r < 0x20 || r >= 0x7f && r <= 0x9f:
		// Other C0 controls, DEL and C1 controls show nothing; those
		// that do nothing on a terminal either are output lost.
		if !acts(r) {
			n.replaced += int64(utf8.RuneLen(r))
		}
	default:
		var buf [utf8.UTFMax]byte
		n.text(utf8.AppendRune(buf[:0], r))
	}
}

// acts reports whether the control r (C0, DEL or C1) has an effect on a
// terminal that the text leaves out as it does an escape sequence's: a
// bell, a cursor movement, a change of character set, the end of a
// sequence.
func acts(r rune) bool {
	switch r {
	case 0x07, 0x0b, 0x0c, 0x0e, 0x0f, 0x18, 0x1a, 0x1b:
		return true
	}
	return false
}

// text writes valid UTF-8 at the cursor, overwriting what is there.
func (n *Normalizer) text(s []byte) {
	if n.pad > 0 {
		for ; n.pad > 0; n.pad-- {
			n.line = append(n.line, ' ')
		}
		n.cur = len(n.line)
	}
	if n.cur == len(n.line) {
		n.line = append(n.line, s...)
		n.cur = len(n.line)
		return
	}
	for len(s) > 0 {
		_, size := utf8.DecodeRune(s)
		n.overwrite(s[:size])
		s = s[size:]
	}
}

// overwrite replaces the character at the cursor with c (or appends it at
// the end of the line) and moves the cursor past it.
func (n *Normalizer) overwrite(c []byte) {
	if n.cur == len(n.line) {
		n.line = append(n.line, c...)
		n.cur = len(n.line)
		return
	}
	_, old := utf8.DecodeRune(n.line[n.cur:])
	if grow := len(c) - old; grow > 0 {
		n.line = append(n.line, c[:grow]...) // make room; overwritten below
	}
	// copy moves overlapping bytes correctly in both directions.
	end := len(n.line)
	if len(c) < old {
		end = len(n.line) - (old - len(c))
	}
	copy(n.line[n.cur+len(c):], n.line[n.cur+old:])
	copy(n.line[n.cur:], c)
	n.line = n.line[:end]
	n.cur += len(c)
}
