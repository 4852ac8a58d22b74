package screen

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/internal/outbuf"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// How output is listened to
//
// A window's output is read from its screen log: "log on" makes screen
// append every byte it reads from the window's pseudo-terminal to a file,
// escape sequences and all, exactly as the program wrote them (after the
// terminal's own output processing, such as LF to CR LF). The log file's
// name is a setting of the whole session ("logfile"), and changing it moves
// every open log of the session to the new name at once; so the adapter
// sets it once, to "<LogDir>/%n.log", and "logfile flush 0" so that screen
// writes each read out at once instead of every 10 seconds.
//
// Each window listened to has a tracker: the log's reader, a ring of the
// newest bytes and the absolute offset, which keeps counting for as long as
// the Terminal lives (also across a window number that screen gives to a
// new window: the tracker then starts a new generation, one byte further
// on). The reader polls the file every Options.PollInterval, which also
// checks that the window's program still runs; when it has exited, the
// rest of the log is read and the streams end with an error wrapping
// ports.ErrPaneDead.
//
// A log file that grows past Options.RotateSize is renamed; screen notices
// at its next write and starts a new file under the old name, and the
// reader finishes the old file before it goes on with the new one, so
// nothing is lost; the same holds when someone removes the file. A log
// file someone truncates loses what the reader had not read yet: the
// truncation is detected (the file is shorter than what was read, or no
// longer holds the last bytes read where they were) but the loss cannot be
// measured, and is counted as one missed byte, a lower bound. The same
// lower bound is counted when a log is turned back on after it was off.
//
// After Options.IdleTimeout without open streams a tracker turns its log
// off and removes its file; when no tracker runs any more, the session's
// logfile settings go back to screen's defaults ("screenlog.%n", flushed
// every 10 seconds), which screen cannot report, so a session's own
// settings are not restored. A window that logs already when the adapter
// sets the name (a person pressed C-a H) logs into LogDir from then on;
// the adapter reads that log without turning it off or removing it.

// ErrStreamClosed is what a closed stream's chunks carry in Ended. It is
// the error every adapter built on outbuf uses.
var ErrStreamClosed = outbuf.ErrClosed

// tracker reads one window's log.
type tracker struct {
	t    *Terminal
	n    int
	path string

	mu        sync.Mutex
	gen       string
	proc      procStat
	out       *outbuf.Buffer // the newest bytes and the open streams
	ended     error          // why no more bytes come, for the current generation
	running   bool
	foreign   bool // the log was on before the tracker started
	everRan   bool
	idleSince time.Time
	file      *os.File
	pos       int64    // reading position in file
	tail      []byte   // the bytes before pos, up to tailLen
	old       *os.File // a rotated log not read to its end yet
	modes     modeScanner
	stop      chan struct{}
	done      chan struct{}
}

// OpenOutput listens to window N's output (see "How output is listened
// to"). Every byte the window's program writes after OpenOutput returns is
// in the stream; a window whose program has exited yields a stream that
// has ended with an error wrapping ports.ErrPaneDead.
func (t *Terminal) OpenOutput(ctx context.Context, id ports.PaneID) (ports.OutputStream, error) {
	w, err := t.lookup(ctx, id)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	tr, ok := t.trackers[w.n]
	if !ok {
		tr = &tracker{t: t, n: w.n, path: filepath.Join(t.logDir, strconv.Itoa(w.n)+".log")}
		tr.out = outbuf.New(&tr.mu, t.opts.RingSize)
		tr.out.OnClose(func() {
			// The log stays on for Options.IdleTimeout after its last
			// stream closed.
			if tr.out.Streams() == 0 && tr.running {
				tr.idleSince = time.Now()
			}
		})
		t.trackers[w.n] = tr
	}
	t.mu.Unlock()

	if err := tr.listen(ctx, w); err != nil {
		return nil, fmt.Errorf("open output of pane %s: %w", id, err)
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.ended != nil {
		return tr.out.OpenEnded(tr.ended), nil
	}
	return tr.out.Open(), nil
}

// listen makes sure the tracker reads the log of the window as w found it.
func (tr *tracker) listen(ctx context.Context, w window) error {
	t := tr.t
	// One window's log is turned on by one caller at a time, and the
	// session's logfile setting is made before any log is on.
	t.logMu.Lock()
	defer t.logMu.Unlock()
	if err := t.checkOpen(); err != nil {
		return err
	}

	tr.mu.Lock()
	gen := "dead"
	if w.live {
		gen = w.generation()
	}
	if tr.gen != "" && tr.gen != gen && w.live {
		// screen gave the number to a new window: the old one's
		// streams end, and the new one's offsets start one byte on.
		if tr.running {
			stop, done := tr.stop, tr.done
			tr.mu.Unlock()
			close(stop)
			<-done
			tr.mu.Lock()
			tr.closeFiles()
			tr.running = false
		}
		tr.endStreams(fmt.Errorf("window %d was closed and its number given to a new window: %w", tr.n, ports.ErrPaneNotFound))
		tr.out.Skip(1)
		tr.ended = nil
		tr.modes = modeScanner{}
	}
	if !w.live {
		if tr.ended == nil {
			tr.ended = deadError(tr.n)
		}
		tr.mu.Unlock()
		return nil
	}
	tr.gen, tr.proc = gen, w.proc
	tr.idleSince = time.Time{}
	if tr.running {
		tr.mu.Unlock()
		return nil
	}
	tr.mu.Unlock()

	if err := t.setupLogs(ctx); err != nil {
		return err
	}
	foreign := serverHasOpen(t.serverPID, tr.path)
	if !foreign {
		// A file left by an earlier window of this number (or an earlier
		// Terminal) would be appended to.
		os.Remove(tr.path)
		os.Remove(tr.path + ".old")
		if err := t.command(ctx, tr.n, "log", "on"); err != nil {
			return fmt.Errorf("turn on the log of window %d: %w", tr.n, err)
		}
		if err := t.barrier(ctx); err != nil {
			return err
		}
	}
	f, err := openWhenThere(ctx, tr.path)
	if err != nil {
		if !foreign {
			t.command(context.Background(), tr.n, "log", "off")
		}
		return fmt.Errorf("window %d's log: %w (has the session's logfile setting changed?)", tr.n, err)
	}
	var pos int64
	if foreign {
		if pos, err = f.Seek(0, io.SeekEnd); err != nil {
			f.Close()
			return err
		}
	}

	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.everRan {
		// The window may have written while nobody listened.
		tr.out.Skip(1)
	}
	tr.everRan, tr.running, tr.foreign = true, true, foreign
	tr.file, tr.pos, tr.old, tr.tail = f, pos, nil, nil
	tr.stop, tr.done = make(chan struct{}), make(chan struct{})
	go tr.loop(tr.stop, tr.done)
	return nil
}

// deadError is the Ended of the streams of a window whose program exited.
func deadError(n int) error {
	return fmt.Errorf("pane %%%d: its program exited: %w", n, ports.ErrPaneDead)
}

// setupLogs points the session's logfile setting into LogDir, once.
func (t *Terminal) setupLogs(ctx context.Context) error {
	t.mu.Lock()
	done := t.logSetup
	t.mu.Unlock()
	if done {
		return nil
	}
	if err := t.command(ctx, -1, "logfile", "flush", "0"); err != nil {
		return fmt.Errorf("set logfile flush: %w", err)
	}
	if err := t.command(ctx, -1, "logfile", filepath.Join(t.logDir, "%n.log")); err != nil {
		return fmt.Errorf("set logfile: %w", err)
	}
	if err := t.barrier(ctx); err != nil {
		return err
	}
	t.mu.Lock()
	t.logSetup = true
	t.mu.Unlock()
	return nil
}

// restoreLogSettings sets the session's logfile settings back to screen's
// defaults.
func (t *Terminal) restoreLogSettings(ctx context.Context) error {
	err1 := t.command(ctx, -1, "logfile", "screenlog.%n")
	err2 := t.command(ctx, -1, "logfile", "flush", "10")
	if err := errors.Join(err1, err2); err != nil {
		return fmt.Errorf("restore the session's logfile settings: %w", err)
	}
	return nil
}

// serverHasOpen reports whether the screen server has path open.
func serverHasOpen(pid int, path string) bool {
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if p, err := os.Readlink(filepath.Join(dir, e.Name())); err == nil && p == path {
			return true
		}
	}
	return false
}

// openWhenThere opens a file that screen has been asked to create.
func openWhenThere(ctx context.Context, path string) (*os.File, error) {
	for wait := time.Millisecond; ; wait *= 2 {
		f, err := os.Open(path)
		if err == nil || !errors.Is(err, fs.ErrNotExist) || wait > 500*time.Millisecond {
			return f, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait):
		}
	}
}

// loop reads the log until stop is closed, the window's program exits or
// the tracker has been idle for Options.IdleTimeout.
func (tr *tracker) loop(stop, done chan struct{}) {
	defer close(done)
	tick := time.NewTicker(tr.t.opts.PollInterval)
	defer tick.Stop()
	tr.mu.Lock()
	proc := tr.proc
	tr.mu.Unlock()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		tr.mu.Lock()
		tr.poll()
		idle := !tr.idleSince.IsZero() && time.Since(tr.idleSince) >= tr.t.opts.IdleTimeout
		tr.mu.Unlock()
		switch {
		case !alive(proc.pid, proc.start):
			tr.finishDead(proc)
			return
		case idle && tr.t.retire(tr):
			return
		}
	}
}

// finishDead reads what the window's program proc wrote before it exited
// and ends the streams.
func (tr *tracker) finishDead(proc procStat) {
	// screen closes the log once it has read the last output.
	deadline := time.Now().Add(time.Second)
	for serverHasOpen(tr.t.serverPID, tr.path) && time.Now().Before(deadline) {
		time.Sleep(tr.t.opts.PollInterval)
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.proc != proc {
		return // a new generation took over
	}
	tr.poll()
	tr.closeFiles()
	if !tr.foreign {
		os.Remove(tr.path)
	}
	tr.running = false
	tr.endStreams(deadError(tr.n))
}

// retire turns off the log of a tracker that is still idle, and the
// session's logfile settings once no tracker runs. It reports whether it
// did.
func (t *Terminal) retire(tr *tracker) bool {
	if !t.logMu.TryLock() {
		// Someone is turning a log on, maybe this one's: not idle.
		return false
	}
	defer t.logMu.Unlock()
	tr.mu.Lock()
	idle := tr.running && tr.out.Streams() == 0 && !tr.idleSince.IsZero()
	tr.mu.Unlock()
	if !idle {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*t.opts.CommandTimeout)
	defer cancel()
	tr.turnOff(ctx)
	if !t.anyRunning() {
		t.mu.Lock()
		restore := t.logSetup && !t.closed
		t.logSetup = false
		t.mu.Unlock()
		if restore {
			t.restoreLogSettings(ctx)
		}
	}
	return true
}

// anyRunning reports whether any tracker reads a log.
func (t *Terminal) anyRunning() bool {
	t.mu.Lock()
	trs := make([]*tracker, 0, len(t.trackers))
	for _, tr := range t.trackers {
		trs = append(trs, tr)
	}
	t.mu.Unlock()
	for _, tr := range trs {
		tr.mu.Lock()
		r := tr.running
		tr.mu.Unlock()
		if r {
			return true
		}
	}
	return false
}

// turnOff turns the log off (unless it was on before the tracker), reads
// it to its end and removes it.
func (tr *tracker) turnOff(ctx context.Context) {
	tr.mu.Lock()
	foreign, running := tr.foreign, tr.running
	tr.mu.Unlock()
	if !running {
		return
	}
	if !foreign {
		tr.t.command(ctx, tr.n, "log", "off")
		tr.t.barrier(ctx)
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.poll()
	tr.closeFiles()
	if !foreign {
		os.Remove(tr.path)
	}
	tr.running = false
}

// shutdown stops the tracker for good, ending its streams with cause.
func (tr *tracker) shutdown(ctx context.Context, cause error) {
	tr.mu.Lock()
	stop, done := tr.stop, tr.done
	tr.mu.Unlock()
	if stop != nil {
		select {
		case <-stop:
		default:
			close(stop)
		}
		<-done
	}
	tr.turnOff(ctx)
	tr.mu.Lock()
	tr.endStreams(cause)
	tr.mu.Unlock()
}

// poll reads what the log holds beyond what was read. tr.mu is held.
func (tr *tracker) poll() {
	if tr.file != nil {
		// The file under the log's name is no longer the one being
		// read: rotated, or removed or replaced by someone, after which
		// screen writes a new file under the name at its next write.
		fi, err := os.Stat(tr.path)
		cur, err2 := tr.file.Stat()
		if err != nil && errors.Is(err, fs.ErrNotExist) || err == nil && err2 == nil && !os.SameFile(fi, cur) {
			tr.old, tr.file = tr.file, nil
		}
	}
	if tr.old != nil {
		tr.readAll(tr.old)
		f, err := os.Open(tr.path)
		if err != nil {
			return // screen has not written since
		}
		// screen writes no more to the old file once it made the new
		// one; what it wrote there before is read first.
		tr.readAll(tr.old)
		tr.old.Close()
		os.Remove(tr.path + ".old")
		tr.old, tr.file, tr.pos, tr.tail = nil, f, 0, nil
	}
	if tr.file == nil {
		return
	}
	if tr.truncated() {
		// Truncated under the reader: what it had not read is lost,
		// in an amount nobody can tell; screen appends, so what the
		// file holds now came after.
		tr.out.Skip(1)
		tr.pos, tr.tail = 0, nil
	}
	tr.readAll(tr.file)
	if !tr.foreign && tr.pos >= tr.t.opts.RotateSize {
		if err := os.Rename(tr.path, tr.path+".old"); err == nil {
			tr.old, tr.file = tr.file, nil
		}
	}
}

// truncated reports whether the log no longer holds, just before the
// reading position, the bytes last read there.
func (tr *tracker) truncated() bool {
	fi, err := tr.file.Stat()
	if err != nil || fi.Size() < tr.pos {
		return err == nil
	}
	if len(tr.tail) == 0 {
		return false
	}
	b := make([]byte, len(tr.tail))
	n, _ := tr.file.ReadAt(b, tr.pos-int64(len(b)))
	return n != len(b) || !bytes.Equal(b, tr.tail)
}

// readAll appends what f holds from the reading position on to the ring.
func (tr *tracker) readAll(f *os.File) {
	buf := make([]byte, 64<<10)
	for {
		n, err := f.ReadAt(buf, tr.pos)
		if n > 0 {
			tr.out.Write(buf[:n])
			tr.modes.scan(buf[:n])
			tr.pos += int64(n)
			tr.tail = append(tr.tail, buf[max(0, n-tailLen):n]...)
			tr.tail = tr.tail[max(0, len(tr.tail)-tailLen):]
		}
		if err != nil || n < len(buf) {
			return
		}
	}
}

// tailLen is how many of the last bytes read are kept to recognise a log
// that was truncated and written again past the reading position.
const tailLen = 32

func (tr *tracker) closeFiles() {
	if tr.file != nil {
		tr.file.Close()
		tr.file = nil
	}
	if tr.old != nil {
		tr.old.Close()
		tr.old = nil
		os.Remove(tr.path + ".old")
	}
}

// endStreams ends the current streams with cause. tr.mu is held.
func (tr *tracker) endStreams(cause error) {
	if tr.ended == nil {
		tr.ended = cause
	}
	tr.out.EndStreams(cause)
}

// appCursor reports whether the window's program has put the cursor keys
// in application mode, as far as its log, if read, tells.
func (t *Terminal) appCursor(w window) bool {
	m, ok := t.modes(w)
	return ok && m.appCursor
}

// bracketed reports whether the window's program has asked for bracketed
// paste, as far as its log, if read, tells.
func (t *Terminal) bracketed(w window) bool {
	m, ok := t.modes(w)
	return ok && m.bracketed
}

// modes returns the terminal modes the window's log showed, if the log of
// its current program is being read.
func (t *Terminal) modes(w window) (modeScanner, bool) {
	t.mu.Lock()
	tr := t.trackers[w.n]
	t.mu.Unlock()
	if tr == nil || !w.live {
		return modeScanner{}, false
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if !tr.running || tr.gen != w.generation() {
		return modeScanner{}, false
	}
	return modeScanner{appCursor: tr.modes.appCursor, bracketed: tr.modes.bracketed}, true
}

// modeScanner follows the terminal modes a program sets that change what
// the adapter sends: application cursor keys (DECCKM, mode 1) and
// bracketed paste (mode 2004), from "ESC [ ? ... h" and "... l", and a
// full reset (ESC c). A sequence split between two reads is carried over.
type modeScanner struct {
	appCursor, bracketed bool
	carry                []byte
}

func (m *modeScanner) scan(p []byte) {
	if len(m.carry) > 0 {
		p = append(m.carry, p...)
		m.carry = nil
	}
	for i := 0; i < len(p); i++ {
		if p[i] != 0x1b {
			continue
		}
		if i+1 >= len(p) {
			m.carry = append([]byte(nil), p[i:]...)
			return
		}
		switch p[i+1] {
		case 'c':
			m.appCursor, m.bracketed = false, false
		case '[':
			j := i + 2
			if j >= len(p) {
				m.carry = append([]byte(nil), p[i:]...)
				return
			}
			if p[j] != '?' {
				continue
			}
			j++
			for j < len(p) && (p[j] >= '0' && p[j] <= '9' || p[j] == ';') && j-i < 64 {
				j++
			}
			if j >= len(p) {
				if j-i < 64 {
					m.carry = append([]byte(nil), p[i:]...)
				}
				return
			}
			if p[j] != 'h' && p[j] != 'l' {
				continue
			}
			on := p[j] == 'h'
			for _, f := range splitParams(p[i+3 : j]) {
				switch f {
				case 1:
					m.appCursor = on
				case 2004:
					m.bracketed = on
				}
			}
			i = j
		}
	}
}

func splitParams(b []byte) []int {
	var out []int
	n, digits := 0, false
	for _, c := range append(b, ';') {
		if c == ';' {
			if digits {
				out = append(out, n)
			}
			n, digits = 0, false
			continue
		}
		n, digits = n*10+int(c-'0'), true
	}
	return out
}
