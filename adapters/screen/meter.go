package screen

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"
)

// inputMeter tells how much of the input sent to a window its programs
// have taken: what the processes on the window's terminal have read since
// the meter started, plus what waits in the terminal for them to read,
// plus, in canonical mode, the unfinished line that the terminal holds
// back until its end comes (up to the 4095 bytes a line may have).
//
// A process's read count covers all its reads, so one that reads files at
// the same time makes the meter run ahead; that is the error the meter
// can make, and it is bounded by what such reads add.
type inputMeter struct {
	tty     *os.File
	ttyNr   uint64
	base    map[int]uint64 // read count of each process when first seen
	gone    uint64         // what processes that exited had read
	lastRd  map[int]uint64 // read count at the last look
	listed  time.Time      // when the processes were last listed
	unread0 int            // what waited unread when the meter started

	sent   int64 // bytes sent
	tailLF int64 // bytes sent since the last LF
	tailCR int64 // bytes sent since the last LF or CR
}

// canonLine is the longest line a terminal in canonical mode holds.
const canonLine = 4095

// newMeter starts a meter on the terminal of the window's process st.
func newMeter(st procStat) (*inputMeter, error) {
	path, err := ttyPath(st)
	if err != nil {
		return nil, err
	}
	f, err := openTTY(path)
	if err != nil {
		return nil, err
	}
	m := &inputMeter{tty: f, ttyNr: st.ttyNr, base: map[int]uint64{}, lastRd: map[int]uint64{}}
	m.listReaders()
	if m.unread0, err = ttyPending(f); err != nil {
		f.Close()
		return nil, err
	}
	return m, nil
}

func (m *inputMeter) close() {
	if m != nil {
		m.tty.Close()
	}
}

// add counts b as sent.
func (m *inputMeter) add(b []byte) {
	m.sent += int64(len(b))
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		m.tailLF = int64(len(b) - i - 1)
	} else {
		m.tailLF += int64(len(b))
	}
	if i := bytes.LastIndexAny(b, "\r\n"); i >= 0 {
		m.tailCR = int64(len(b) - i - 1)
	} else {
		m.tailCR += int64(len(b))
	}
}

// taken returns how many of the bytes sent the window's programs have
// taken.
func (m *inputMeter) taken() (int64, error) {
	if time.Since(m.listed) > 100*time.Millisecond {
		m.listReaders()
	}
	var read uint64
	for pid, base := range m.base {
		rc, ok := readCount(pid)
		if !ok {
			m.gone += m.lastRd[pid] - base
			delete(m.base, pid)
			delete(m.lastRd, pid)
			continue
		}
		m.lastRd[pid] = rc
		read += rc - base
	}
	read += m.gone
	unread, err := ttyPending(m.tty)
	if err != nil {
		return 0, err
	}
	got := int64(read) + int64(unread) - int64(m.unread0)
	if lflag, iflag, err := termios(m.tty); err == nil && lflag&syscall.ICANON != 0 {
		tail := m.tailLF
		if iflag&syscall.ICRNL != 0 && iflag&syscall.IGNCR == 0 {
			tail = m.tailCR
		}
		got += min(tail, canonLine)
	}
	return got, nil
}

// listReaders adds the processes on the meter's terminal it does not know
// yet, from their read count now: what they read before is not the
// meter's.
func (m *inputMeter) listReaders() {
	m.listed = time.Now()
	pids, err := allPIDs()
	if err != nil {
		return
	}
	for _, pid := range pids {
		if _, ok := m.base[pid]; ok {
			continue
		}
		st, err := readStat(pid)
		if err != nil || st.ttyNr != m.ttyNr {
			continue
		}
		if rc, ok := readCount(pid); ok {
			m.base[pid], m.lastRd[pid] = rc, rc
		}
	}
}

// readCount returns the bytes the process has read ("rchar").
func readCount(pid int) (uint64, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid))
	if err != nil {
		return 0, false
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte("rchar: ")); ok {
			n, err := strconv.ParseUint(string(v), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}
