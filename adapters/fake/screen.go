package fake

import (
	"strings"
	"unicode/utf8"
)

// DefaultHistoryLimit is the history limit of a pane whose PaneSpec gives
// none; it is tmux's default.
const DefaultHistoryLimit = 2000

// screen is a pane's picture: history rows above a visible screen of
// height rows, written to by the emulation the package documentation
// describes (see "Screens" there).
type screen struct {
	width, height int
	limit         int

	rows   []row // history rows first, then the height visible rows
	cx, cy int   // cursor; cy counts from the top of the visible screen; cx == width means a wrap is pending

	parser    escParser
	partial   []byte // the start of a UTF-8 sequence split across writes
	bracketed bool   // the program asked for bracketed paste
}

type row struct {
	cells   []rune // written cells; cells past the end are blank
	wrapped bool   // the row's text continues on the next row
}

func newScreen(width, height, limit int) *screen {
	return &screen{width: width, height: height, limit: limit, rows: make([]row, height)}
}

// historySize returns the number of rows held above the visible screen.
func (s *screen) historySize() int { return len(s.rows) - s.height }

// blankScreen clears the visible rows, keeping the history, and puts the
// cursor at the top left.
func (s *screen) blankScreen() {
	h := s.historySize()
	for i := h; i < len(s.rows); i++ {
		s.rows[i] = row{}
	}
	s.cx, s.cy = 0, 0
	s.parser = escParser{}
	s.partial = nil
}

// write feeds bytes the pane's program wrote through the emulation.
func (s *screen) write(b []byte) {
	if len(s.partial) > 0 {
		b = append(s.partial, b...)
		s.partial = nil
	}
	for len(b) > 0 {
		c := b[0]
		if s.parser.active() || c == 0x1b {
			s.parser.feed(c, s)
			b = b[1:]
			continue
		}
		if c < 0x80 {
			s.control(c)
			b = b[1:]
			continue
		}
		if !utf8.FullRune(b) {
			s.partial = append([]byte(nil), b...)
			return
		}
		r, n := utf8.DecodeRune(b)
		s.put(r)
		b = b[n:]
	}
}

// control handles one ASCII byte: a printable character or a control.
func (s *screen) control(c byte) {
	switch {
	case c >= 0x20 && c < 0x7f:
		s.put(rune(c))
	case c == '\r':
		s.cx = 0
	case c == '\n' || c == '\v' || c == '\f':
		s.linefeed()
	case c == '\b':
		s.cx = min(s.cx, s.width-1)
		if s.cx > 0 {
			s.cx--
		}
	case c == '\t':
		s.cx = min((s.cx/8+1)*8, s.width-1)
	}
}

// put writes one rune at the cursor, wrapping first if a wrap is pending.
func (s *screen) put(r rune) {
	if s.cx >= s.width {
		s.rows[s.visible(s.cy)].wrapped = true
		s.linefeed()
		s.cx = 0
	}
	cur := &s.rows[s.visible(s.cy)]
	for len(cur.cells) <= s.cx {
		cur.cells = append(cur.cells, ' ')
	}
	cur.cells[s.cx] = r
	s.cx++
}

func (s *screen) visible(y int) int { return s.historySize() + y }

// linefeed moves the cursor down a row, scrolling the screen up at the
// bottom: the top row goes to history, trimmed as the type comment says.
func (s *screen) linefeed() {
	if s.cy < s.height-1 {
		s.cy++
		return
	}
	hist := s.historySize()
	switch {
	case s.limit <= 0:
		s.rows = s.rows[1:]
	case hist >= s.limit:
		s.rows = s.rows[max(1, s.limit/10):]
	}
	// Rows trimmed off the front are freed when append next reallocates.
	s.rows = append(s.rows, row{})
}

// capture returns the rows start..end (inclusive, 0 = top of the visible
// screen, negative = history) without trailing blanks, joining wrapped rows
// when join is set. The caller keeps the range within the grid.
func (s *screen) capture(start, end int, join bool) []string {
	var out []string
	var line strings.Builder
	for y := start; y <= end; y++ {
		r := s.rows[s.visible(y)]
		line.WriteString(string(r.cells))
		if join && r.wrapped && y < end {
			// A wrapped row is full unless a line feed left the cursor
			// past the last column of a blank row: pad it so that the
			// join keeps the columns.
			for n := len(r.cells); n < s.width; n++ {
				line.WriteByte(' ')
			}
			continue
		}
		out = append(out, strings.TrimRight(line.String(), " "))
		line.Reset()
	}
	return out
}

// escParser recognizes escape sequences so that they are not displayed.
type escParser struct {
	state  escState
	params []byte // CSI parameter and intermediate bytes
}

type escState int

const (
	escNone   escState = iota
	escStart           // after ESC
	escInter           // ESC followed by intermediate bytes, awaiting the final byte
	escCSI             // after ESC [
	escString          // OSC, DCS, SOS, PM or APC: until BEL or ESC \
	escStrEsc          // ESC seen inside a string
)

func (p *escParser) active() bool { return p.state != escNone }

func (p *escParser) feed(c byte, s *screen) {
	switch p.state {
	case escNone:
		p.state = escStart // c is ESC
	case escStart:
		switch {
		case c == '[':
			p.state, p.params = escCSI, p.params[:0]
		case c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_':
			p.state = escString
		case c >= 0x20 && c <= 0x2f:
			p.state = escInter
		case c == 0x1b:
			// ESC ESC: the first one is abandoned.
		default:
			p.state = escNone
		}
	case escInter:
		if c < 0x20 || c > 0x2f {
			p.state = escNone
		}
	case escCSI:
		switch {
		case c >= 0x40 && c <= 0x7e:
			p.state = escNone
			s.csi(string(p.params), c)
		case c >= 0x20 && c <= 0x3f:
			p.params = append(p.params, c)
		case c == 0x1b:
			p.state = escStart
		default:
			// Control characters inside a sequence are ignored.
		}
	case escString:
		switch c {
		case 0x07:
			p.state = escNone
		case 0x1b:
			p.state = escStrEsc
		}
	case escStrEsc:
		if c == '\\' {
			p.state = escNone
		} else {
			p.state = escString
		}
	}
}

// csi acts on the one control sequence the fake models.
func (s *screen) csi(params string, final byte) {
	if params == "?2004" && (final == 'h' || final == 'l') {
		s.bracketed = final == 'h'
	}
}
