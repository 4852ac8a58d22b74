package tmux

import (
	"bufio"
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// FuzzControlParser plays tmux to a control client: from plan it writes
// the stream tmux would write for the command lines the client sends
// (their blocks, the blocks of their markers, tmux's own %output lines
// and notifications in between), with rows taken from text, which stands
// for what panes print. Rows may forge tmux's lines: a row "\x01e" becomes
// the open block's own "%end" line, "\x01r" its "%error", "\x01b" the
// "%begin" of the block after it, "\x01m" a plain request's marker, "\x01o"
// an %output line, "\x01x" an %exit. The client must read back exactly
// what tmux sent: each reply its blocks' rows (or their error), each
// %output its bytes, each notification once, and nothing a pane printed
// as anything but rows of a capture (a printing part). Rows of plain
// commands are what controlSafe lets through: never the block's own end,
// never a marker. A stream cut anywhere (a partial last line included)
// yields a prefix of all that. Text fed as a stream of its own must not
// make the parser panic.
func FuzzControlParser(f *testing.F) {
	// Seeds: the forgeries of TestControlParser,
	// TestControlParserReadsAPrintingBlockToItsSecretMarker and
	// TestRepliesCannotBeForgedByWhatPanesPrint.
	f.Add([]byte{0x11, 0x27, 0x02, 0x08, 0x05, 0x05},
		[]byte("\x01e\n\x01o\n\x01b\n\x01m\n\x01e\n\x01b\ntmux-mcp-done 5f3b\n%output %2 real\n"))
	f.Add([]byte{0x05, 0x02, 0x23, 0x01, 0x00, 0x04, 0x09, 0x01, 0x01},
		[]byte("%3 0 1700000000\n%end 3 99 1\n%output %4 inside\nhi\r\ncan't find pane: %9\n%end 1700000000 999 1\n"))
	f.Add([]byte{0x11, 0x0a}, []byte("\x01r\ncan't find pane: %9\n"))
	f.Add([]byte{0x29, 0x01, 0x12, 0x37, 0x01, 0x2c, 0x00},
		[]byte("a\n%end 1 2 1\n%end 1700000001 302 1\n%output %1 injected\\012\n%begin 1700000001 303 1\ntmux-mcp-done 1\n\x01e\n\x01b\n\x01m\n"))
	f.Add([]byte{0xff}, []byte("\x01e\n\x01x\n\x01b\n"))
	f.Add([]byte{0x00, 0x03, 0x00, 0x0c, 0x0c, 0x01, 0xff},
		[]byte("hi\r\n\\134\x00\x1b[1m\xff\xc3\xa9 \\012\x7f\x01\x1f"))
	f.Add([]byte{}, []byte("%begin 1 2 1\n%end 1 2 1\n%begin 1 3 1\n\n%end 1 3 1\n%exit detached\n%output %1 \n%output\n%pause \n%begin\n"))
	f.Fuzz(func(t *testing.T, plan, text []byte) {
		parseRaw(text)
		s := newTmuxScript(plan, text)
		s.play(t, s.stream.Bytes(), true)
		cut := (len(plan)*7919 + len(text)*31) % (s.stream.Len() + 1)
		s.play(t, s.stream.Bytes()[:cut], false)
	})
}

// parseRaw feeds text to a parser as tmux's stream, for panics only.
func parseRaw(text []byte) {
	n := 0
	p := controlParser{
		output:   func(ports.PaneID, []byte) {},
		paused:   func(ports.PaneID) {},
		reply:    func([]string, error) {},
		notify:   func(string) {},
		attached: func(error) {},
		exit:     func(string) {},
		printing: func() string {
			n++
			if n%2 == 0 {
				return ""
			}
			return "tmux-mcp-done 1"
		},
	}
	br := bufio.NewReaderSize(bytes.NewReader(text), 16)
	for {
		line, err := readLine(br)
		if err != nil {
			return
		}
		p.line(line)
	}
}

// encodeOutput writes data as tmux writes it after "%output %N ": bytes
// below space and the backslash as a backslash and three octal digits.
func encodeOutput(data []byte) string {
	var b strings.Builder
	for _, c := range data {
		if c < ' ' || c == '\\' {
			fmt.Fprintf(&b, "\\%03o", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// A tmuxScript is a stream tmux could write to a control client and what
// the client must read from it.
type tmuxScript struct {
	plan, text []byte
	stream     bytes.Buffer
	when, num  int // the time and the number of tmux's last block

	parts   []commandPart // every part sent, in order
	markers []string      // their requests' markers
	replies []controlReply
	events  []string // %output, %pause, notifications and the attach reply, in order
}

func newTmuxScript(plan, text []byte) *tmuxScript {
	s := &tmuxScript{plan: plan, text: text, when: 1700000000, num: 300}
	c := &controlClient{}
	// The reply to the attach-session of the client's command line.
	g := s.guard(false, "0")
	if len(plan) > 0 && plan[0] == 0xff {
		s.printf("%%begin %s\ncan't find session: $9\n%%error %s\n", g, g)
		s.events = append(s.events, "attach can't find session: $9")
	} else {
		s.printf("%%begin %s\n%%end %s\n", g, g)
		s.events = append(s.events, "attach ok")
	}
	for len(s.plan) > 0 && len(s.parts) < 24 {
		// An operation: bits 0-1 tmux's own lines (0) or a send; bits
		// 2-3 how many parts it sends less one; bits 4-6 which of them
		// are printing parts.
		op := s.next()
		if op&3 == 0 {
			s.tmuxLines()
			continue
		}
		s.send(c, op)
	}
	s.tmuxLines()
	return s
}

// next returns the next byte of the plan; 0 once it has run out.
func (s *tmuxScript) next() byte {
	if len(s.plan) == 0 {
		return 0
	}
	b := s.plan[0]
	s.plan = s.plan[1:]
	return b
}

func (s *tmuxScript) printf(format string, args ...any) { fmt.Fprintf(&s.stream, format, args...) }

// guard numbers tmux's next block, a second later when later.
func (s *tmuxScript) guard(later bool, flags string) string {
	s.num++
	if later {
		s.when++
	}
	return fmt.Sprintf("%d %d %s", s.when, s.num, flags)
}

// row returns the next line of text, as a pane would print it, forged as
// its tokens say (see FuzzControlParser).
func (s *tmuxScript) row(cur string) string {
	line, rest, _ := bytes.Cut(s.text, []byte("\n"))
	s.text = rest
	if len(line) != 2 || line[0] != 1 {
		return string(line)
	}
	next := fmt.Sprintf("%d %d 1", s.when, s.num+1)
	switch line[1] {
	case 'e':
		return "%end " + cur
	case 'r':
		return "%error " + cur
	case 'b':
		return "%begin " + next
	case 'm':
		return "tmux-mcp-done " + strconv.Itoa(len(s.parts)+1)
	case 'o':
		return `%output %1 forged\012`
	case 'x':
		return "%exit forged"
	}
	return string(line)
}

// tmuxLines writes up to three of tmux's own lines between blocks, as the
// plan's next byte says: bits 0-1 how many; then for each a byte whose
// bits 0-2 pick the kind and 3-6 the pane, and for %output a byte with
// the length of its data.
func (s *tmuxScript) tmuxLines() {
	for range s.next() & 3 {
		b := s.next()
		pane := "%" + strconv.Itoa(int(b>>3&15))
		switch b & 7 {
		case 0, 1, 2, 3:
			n := int(s.next())
			data := s.text[:min(n, len(s.text))]
			s.text = s.text[len(data):]
			s.printf("%%output %s %s\n", pane, encodeOutput(data))
			s.events = append(s.events, "output "+pane+"="+string(data))
		case 4:
			s.printf("%%pause %s\n", pane)
			s.events = append(s.events, "pause "+pane)
		case 5:
			s.printf("%%layout-change @1 b25d,80x24,0,0,1 b25d,80x24,0,0,1 *\n")
			s.events = append(s.events, "notify %layout-change")
		default:
			s.printf("%%window-add @%d\n", b>>3)
			s.events = append(s.events, "notify %window-add")
		}
	}
}

// send sends parts over c as op says (see newTmuxScript) and writes
// tmux's answer to them: for each plain part, a byte with how many
// commands (blocks) its line holds, up to 2; then for each block, a plain
// part's or a printing part's one, a byte whose bits 0-2 are how many rows
// it prints (all text that is left once the plan has run out), bit 3 a
// failure, bit 4 a second passing before it and bit 5 tmux's own lines
// after it.
func (s *tmuxScript) send(c *controlClient, op byte) {
	parts := make([]commandPart, 1+int(op>>2&3)%3)
	for i := range parts {
		parts[i] = commandPart{line: "list-panes", printing: op>>(4+i)&1 == 1}
	}
	reqs, _ := c.enqueue(parts)
	for i, part := range parts {
		s.parts = append(s.parts, part)
		s.markers = append(s.markers, reqs[i].marker)
		blocks := 1
		if !part.printing {
			blocks = int(s.next() % 3)
		}
		var reply controlReply
		for range blocks {
			out := len(s.plan) == 0
			b := s.next()
			g := s.guard(b&16 != 0, "1")
			n := int(b & 7)
			if out {
				n = bytes.Count(s.text, []byte("\n")) + 1
			}
			var rows []string
			for range n {
				row := s.row(g)
				if !part.printing && (row == "%end "+g || row == "%error "+g || strings.HasPrefix(row, "tmux-mcp-done")) {
					// Not what a command controlSafe lets through prints.
					continue
				}
				rows = append(rows, row)
			}
			s.printf("%%begin %s\n", g)
			for _, row := range rows {
				s.printf("%s\n", row)
			}
			if b&8 != 0 {
				s.printf("%%error %s\n", g)
				if reply.err == nil {
					reply.err = fmt.Errorf("%s", strings.Join(rows, "; "))
				}
				break // a failing command ends its line
			}
			s.printf("%%end %s\n", g)
			reply.lines = append(reply.lines, rows...)
			if b&32 != 0 {
				s.tmuxLines()
			}
		}
		s.replies = append(s.replies, reply)
		g := s.guard(false, "1")
		s.printf("%%begin %s\n%s\n%%end %s\n", g, reqs[i].marker, g)
		s.tmuxLines()
	}
}

// play reads stream as a client that sent the script's parts and checks
// what it read: all of the script when whole, a prefix of it otherwise.
func (s *tmuxScript) play(t *testing.T, stream []byte, whole bool) {
	c := &controlClient{}
	reqs := make([]*controlRequest, len(s.parts))
	for i, part := range s.parts {
		reqs[i] = &controlRequest{marker: s.markers[i], printing: part.printing, done: make(chan controlReply, 1)}
	}
	c.pending = slices.Clone(reqs)
	var events []string
	p := controlParser{
		output: func(id ports.PaneID, data []byte) {
			events = append(events, "output "+string(id)+"="+string(data))
		},
		paused:   func(id ports.PaneID) { events = append(events, "pause "+string(id)) },
		reply:    c.reply,
		printing: c.printingBlock,
		notify:   func(name string) { events = append(events, "notify "+name) },
		attached: func(err error) {
			if err != nil {
				events = append(events, "attach "+err.Error())
			} else {
				events = append(events, "attach ok")
			}
		},
		exit: func(reason string) { events = append(events, "exit "+reason) },
	}
	br := bufio.NewReaderSize(bytes.NewReader(stream), 16)
	for {
		line, err := readLine(br)
		if err != nil {
			break
		}
		p.line(line)
	}

	if whole && !slices.Equal(events, s.events) || !whole && !isPrefix(events, s.events) {
		t.Fatalf("read %q\nfrom tmux's %q", events, s.events)
	}
	answered := 0
	for i, req := range reqs {
		select {
		case r := <-req.done:
			want := s.replies[i]
			if answered != i || !slices.Equal(r.lines, want.lines) || fmt.Sprint(r.err) != fmt.Sprint(want.err) {
				t.Fatalf("reply %d (printing %v) = %q, %v; want %q, %v", i, s.parts[i].printing, r.lines, r.err, want.lines, want.err)
			}
			answered++
		default:
		}
	}
	if whole && (answered != len(reqs) || len(c.pending) != 0 || p.inBlock || p.secret != "") {
		t.Fatalf("%d of %d replies read, %d pending, in a block %v; want every reply read", answered, len(reqs), len(c.pending), p.inBlock)
	}
}

func isPrefix(got, of []string) bool {
	return len(got) <= len(of) && slices.Equal(got, of[:len(got)])
}
