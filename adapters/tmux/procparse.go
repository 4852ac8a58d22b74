package tmux

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/adapters/internal/tty"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// What the answers say. Each parser takes the lines of one answer, as
// procScript prints them for its verb.

// procArgsMax is the longest command line read back whole: procScript
// reads one byte more, so that a longer one is known to be cut, and is
// then not reported (Args nil: not read).
const procArgsMax = 65536

// procForeground reads the answer to "fg pid": the foreground process
// group of the terminal that pid is on, which must be the pane's (dev,
// its device number, as /proc/PID/stat writes one). As tty.Foreground
// does locally, a process without an entry is an error wrapping
// tty.ErrNoProc, and one on another terminal, or whose stat cannot be
// read, an error wrapping ports.ErrUnsupported.
func procForeground(pid int, dev uint64, hello procHello, lines []string) (ports.Foreground, error) {
	bad := func() (ports.Foreground, error) {
		return ports.Foreground{}, fmt.Errorf("remote reader: the answer about process %d is %q, not one it gives", pid, lines)
	}
	if len(lines) == 0 {
		return bad()
	}
	switch lines[0] {
	case "s -":
		return ports.Foreground{}, fmt.Errorf("process %d on the remote host: %w: %w", pid, tty.ErrNoProc, ports.ErrUnsupported)
	case "s ?":
		return ports.Foreground{}, fmt.Errorf("/proc/%d/stat on the remote host cannot be read: %w", pid, ports.ErrUnsupported)
	}
	rest, ok := strings.CutPrefix(lines[0], "s ")
	if !ok {
		return bad()
	}
	st, err := tty.ParseStat(pid, ")"+" "+rest)
	if err != nil {
		return ports.Foreground{}, err
	}
	if st.TTYNr != dev || st.Tpgid <= 0 {
		return ports.Foreground{}, fmt.Errorf("process %d is not on the pane's terminal: %w", pid, ports.ErrUnsupported)
	}
	// Then "k T ...", "a T", od's lines, "e T how".
	group := strconv.Itoa(st.Tpgid)
	if len(lines) < 4 || lines[2] != "a "+group {
		return bad()
	}
	kids, ok := strings.CutPrefix(lines[1], "k "+group)
	last := strings.Fields(lines[len(lines)-1])
	if !ok || (kids != "" && kids[0] != ' ') || len(last) != 3 || last[0] != "e" || last[1] != group {
		return bad()
	}
	fg := ports.Foreground{Group: st.Tpgid, Children: parseChildren(kids)}
	switch last[2] {
	case "ok":
		fg.Args = procArgs(lines[3 : len(lines)-1])
	case "+":
		// Longer than is read: not told.
	case "-":
		// The leader has exited (unless /proc hides it): the group lives
		// on without it.
		fg.Children = nil
		if !hello.hides {
			fg.Args = []string{}
		}
	case "?":
	default:
		return bad()
	}
	return fg, nil
}

// procArgs reads a command line as the reader printed it: raw items
// ("=" and an argument) or od's hex of the whole. Empty, not nil, when
// it holds nothing (a zombie's); nil when it is longer than is read or
// in neither shape.
func procArgs(lines []string) []string {
	if len(lines) > 0 && strings.HasPrefix(lines[0], "=") {
		args, n := make([]string, 0, len(lines)), 0
		for _, l := range lines {
			a, ok := strings.CutPrefix(l, "=")
			if n += len(l); !ok || n > procArgsMax {
				return nil
			}
			args = append(args, a)
		}
		return args
	}
	b, ok := decodeOD(lines)
	switch {
	case !ok || len(b) > procArgsMax:
		return nil
	case len(b) == 0:
		return []string{}
	}
	return tty.ParseArgs(b)
}

// parseChildren reads the children of a group's leader: numbers
// separated by spaces, [] for none, nil when they were not read ("?") or
// are not all numbers.
func parseChildren(s string) []int {
	f := strings.Fields(s)
	if len(f) == 1 && f[0] == "?" {
		return nil
	}
	kids := make([]int, 0, len(f))
	for _, w := range f {
		n, err := strconv.Atoi(w)
		if err != nil || n <= 0 {
			return nil
		}
		kids = append(kids, n)
	}
	return kids
}

// decodeOD reads what "od -An -v -tx1" printed: bytes in hex, two digits
// each, separated by blanks.
func decodeOD(lines []string) ([]byte, bool) {
	var b []byte
	for _, line := range lines {
		for _, w := range strings.Fields(line) {
			if len(w) != 2 {
				return nil, false
			}
			n, err := strconv.ParseUint(w, 16, 8)
			if err != nil {
				return nil, false
			}
			b = append(b, byte(n))
		}
	}
	return b, true
}

// procDevice reads the answer to "dev N": the device number of
// /dev/pts/N, encoded as /proc/PID/stat encodes a terminal (proc(5): the
// major number in bits 8 to 19, the minor in bits 0 to 7 and 20 to 31).
func procDevice(lines []string) (uint64, error) {
	if len(lines) == 1 && lines[0] == "d ?" {
		return 0, fmt.Errorf("the device of the pane's terminal on the remote host cannot be read (stat -L -c): %w", ports.ErrUnsupported)
	}
	var f []string
	if len(lines) == 1 {
		f = strings.Fields(lines[0])
	}
	var major, minor uint64
	var err1, err2 error
	if len(f) == 3 {
		major, err1 = strconv.ParseUint(f[1], 16, 32)
		minor, err2 = strconv.ParseUint(f[2], 16, 32)
	}
	if len(f) != 3 || f[0] != "d" || err1 != nil || err2 != nil {
		return 0, fmt.Errorf("remote reader: the answer about a terminal's device is %q, not one it gives", lines)
	}
	if major > 0xfff || minor > 0xfffff {
		return 0, fmt.Errorf("the device of the pane's terminal on the remote host is %q, which /proc cannot name: %w", lines[0], ports.ErrUnsupported)
	}
	return minor&0xff | major<<8 | (minor&^0xff)<<12, nil
}

// procMode reads the answer to "mode pid N": whether pid has an entry
// (alive 1, 0, or -1 when that cannot be told), and whether /dev/pts/N is
// set as a line editor sets it, canonical input and echo both off, from
// what stty -a printed.
func procMode(lines []string) (alive int, editing bool, err error) {
	bad := func() (int, bool, error) {
		return -1, false, fmt.Errorf("remote reader: the answer about a terminal's mode is %q, not one it gives", lines)
	}
	if len(lines) < 3 || lines[1] != "t" {
		return bad()
	}
	alive, ok := procAlive(lines[0])
	if !ok {
		return bad()
	}
	switch lines[len(lines)-1] {
	case "x ok":
	case "x ?":
		return alive, false, fmt.Errorf("stty cannot read the pane's terminal on the remote host: %w", ports.ErrUnsupported)
	default:
		return bad()
	}
	icanon, echo := sttyFlag(lines[2:len(lines)-1], "icanon"), sttyFlag(lines[2:len(lines)-1], "echo")
	if icanon < 0 || echo < 0 {
		return alive, false, fmt.Errorf("stty -a on the remote host does not say icanon and echo: %w", ports.ErrUnsupported)
	}
	return alive, icanon == 0 && echo == 0, nil
}

// sttyFlag finds a flag in what stty -a printed: 1 when it is set
// ("echo"), 0 when it is not ("-echo"), -1 when it is not there. Settings
// are separated by blanks or ";".
func sttyFlag(lines []string, name string) int {
	for _, line := range lines {
		for _, w := range strings.FieldsFunc(line, func(r rune) bool { return r == ' ' || r == '\t' || r == ';' }) {
			switch w {
			case name:
				return 1
			case "-" + name:
				return 0
			}
		}
	}
	return -1
}

// procAlive reads the remote reader's line about whether the pane's first
// process still exists: 1 it does, 0 it does not, -1 it cannot tell. ok
// is false for any other line.
func procAlive(line string) (alive int, ok bool) {
	switch line {
	case "p 1":
		return 1, true
	case "p 0":
		return 0, true
	case "p ?":
		return -1, true
	}
	return 0, false
}
