package fake

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tmux-mcp/tmux-mcp/domain/frame"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// The scripted shell (see "The scripted shell" in the package
// documentation): a pane's line editor at the prompt, and the job that runs
// an entered command as a sequence of ops.

// Run is what a scripted command does when the fake shell runs it. It
// starts by printing Output, prints each Step at its time, and ends Delay
// after it started (or with its last step, if that is later) with Status.
type Run struct {
	// Output is printed as soon as the command starts.
	Output string

	// Steps are printed later, each At its time after the start.
	Steps []Step

	// Delay is how long after its start the command ends.
	Delay time.Duration

	// Status is the command's exit status.
	Status int

	// Hang keeps the command running after its steps until it is
	// interrupted (or the pane dies); Delay and Status are then unused.
	Hang bool

	// IgnoreInterrupt makes C-c echo "^C" and change nothing else, as for
	// a program that catches SIGINT.
	IgnoreInterrupt bool

	// Command is the pane's foreground program while the command waits
	// for its next step (as tmux would report "make" or "sleep"); default:
	// the shell.
	Command string

	// KeepsTerminal leaves the shell's group in the foreground while the
	// command runs, as zsh's subshell does until it starts a program: only
	// the shell's children tell that something runs.
	KeepsTerminal bool

	// Untrapped makes an interrupt end the command as a signal that the
	// frame's trap does not catch does (the command replaced itself with
	// exec, or zsh got a C-\): the shell drops the rest of the typed line,
	// so the script writes no status and prints no end marker, and the
	// shell is back at its prompt.
	Untrapped bool
}

// Step is output printed a while after a command started, and then,
// with Read, a read of the terminal: the command goes on once it is
// answered, and the times of later steps count from the answer.
type Step struct {
	At     time.Duration
	Output string
	Read   *Read
}

// Read is a command's read of its terminal, as `read -p PROMPT x` (and,
// with Secret, `read -s`) reads a line, or as a pager, an editor or a
// line editor reads keys (Raw). While it reads, the Terminal's
// InputWatcher says that the command is blocked reading the terminal
// (unless Pipe), and what is typed is its answer (Answers): a line, ended
// by Enter, or, Raw, the first key. C-c interrupts the command.
type Read struct {
	// Prompt is printed as the read starts.
	Prompt string
	// Secret turns the terminal's echo off while it reads a line.
	Secret bool
	// Raw reads keys, one at a time, with the terminal's canonical mode
	// and echo off.
	Raw bool
	// Program is the executable of the reading process (Reading.Program);
	// default the pane's shell.
	Program string
	// Pipe reads what the server typed for the command, not the terminal
	// (a heredoc, a pipe): it never ends by itself, and the terminal is
	// not read.
	Pipe bool
}

func (r Run) ops() []op {
	var ops []op
	if r.Output != "" {
		ops = append(ops, op{kind: opOutput, text: r.Output})
	}
	steps := slices.Clone(r.Steps)
	slices.SortStableFunc(steps, func(a, b Step) int { return cmp.Compare(a.At, b.At) })
	var at time.Duration
	for _, s := range steps {
		if s.At > at {
			ops = append(ops, op{kind: opSleep, d: s.At - at, command: r.Command})
			at = s.At
		}
		if s.Output != "" {
			ops = append(ops, op{kind: opOutput, text: s.Output})
		}
		if s.Read != nil {
			ops = append(ops, op{kind: opAsk, ask: s.Read})
		}
	}
	if r.Hang {
		return append(ops, op{kind: opHang, command: r.Command})
	}
	if r.Delay > at {
		ops = append(ops, op{kind: opSleep, d: r.Delay - at, command: r.Command})
	}
	return append(ops, op{kind: opStatus, n: r.Status})
}

// Expect queues runs for the pane's next framed commands, one each, in
// order, ahead of any Script.
func (t *Terminal) Expect(id ports.PaneID, runs ...Run) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.must(id)
	p.expect = append(p.expect, runs...)
}

// Script sets the function that decides what each framed command does,
// given its unframed text, once the Expect queue is empty; nil restores
// the interpreter. f is called with the Terminal locked: it must not call
// the Terminal or move its Clock.
func (t *Terminal) Script(id ports.PaneID, f func(command string) Run) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.must(id).script = f
}

// editor is the shell's line editor at its prompt.
type editor struct {
	buf       []byte // typed since the last run, continuation lines joined by "\n"
	lineStart int    // where the line being edited starts in buf
	esc       inputEsc
	pasting   bool // inside a bracketed paste
}

// inputEsc skips escape sequences in typed input (arrow keys, function
// keys, the bracketed-paste markers), noting the paste markers.
type inputEsc struct {
	state  int // 0 none, 1 after ESC, 2 in CSI, 3 after ESC O
	params []byte
}

// job is the command the shell is running.
type job struct {
	framed    bool
	persist   bool      // the frame runs the command in the shell itself (frame.Options.Persist)
	fish      bool      // the frame is fish's
	pid       int       // the command's process, the shell's child
	keepsTerm bool      // Run.KeepsTerminal
	ids       frame.IDs // the frame's ids
	script    string    // the frame's script, where its status goes
	ops       []op
	pc        int
	status    int
	ignoreInt bool
	untrapped bool   // Run.Untrapped
	fg        string // the foreground program while blocked, if not the shell
	timer     *timer
	reading   bool  // an opRead is reading the terminal
	ask       *Read // an opAsk is reading the terminal (or a pipe)
	sink      bool  // what it reads is discarded
	line      []byte
	typeahead []byte
}

func (p *pane) isShell() bool {
	if p.far != "" {
		return true
	}
	prog := p.spec.Command
	if p.override != "" {
		prog = p.override
	}
	if p.exe != "" {
		prog = p.exe
	}
	_, ok := frame.ShellFor(prog)
	return ok
}

func (p *pane) prompt() {
	if !p.dead && p.isShell() && !p.starting {
		if p.farMarks {
			p.emit([]byte("\x1b]133;A\a" + p.spec.Prompt + "\x1b]133;B\a"))
			return
		}
		p.emit([]byte(p.spec.Prompt))
	}
}

// output prints program output, with the tty's "\n" to "\r\n".
func (p *pane) output(s string) {
	p.emit(bytes.ReplaceAll([]byte(s), []byte("\n"), []byte("\r\n")))
}

// receive hands typed bytes to whatever reads the pane's terminal.
func (p *pane) receive(b []byte) {
	for _, c := range b {
		switch {
		case p.dead || p.mode != "" || !p.isShell():
			return
		case p.starting:
			// The tty is in canonical mode until the shell's line
			// editor starts: it echoes, and keeps the line for later
			// (C-u erases the line being typed).
			switch c {
			case 0x15:
				p.startAhead = killLine(p.startAhead)
				continue
			case 0x03:
				// ISIG: the tty throws its input away.
				p.startAhead = nil
				p.emit([]byte("^C"))
				continue
			}
			p.startAhead = append(p.startAhead, c)
			p.emit(cookedByte(c))
		case p.job == nil && p.asking:
			p.askByte(c)
		case p.job == nil:
			p.editByte(c)
		case p.job.ask != nil && !p.job.ask.Pipe:
			p.answerByte(c)
		case p.job.reading:
			p.readByte(c)
		default:
			p.typeAhead(c)
		}
	}
}

func (p *pane) editByte(c byte) {
	e := &p.ed
	if e.esc.state != 0 {
		p.escByte(c)
		return
	}
	switch {
	case c == 0x1b:
		e.esc.state = 1
	case e.pasting:
		if c == '\r' {
			c = '\n'
		}
		e.buf = append(e.buf, c)
		if c == '\n' {
			e.lineStart = len(e.buf)
			p.emit([]byte("\r\n"))
		} else {
			p.emit([]byte{c})
		}
	case c == '\r' || c == '\n':
		p.enter()
	case c == 0x03:
		p.emit([]byte("^C\r\n"))
		p.ed = editor{}
		p.prompt()
	case c == 0x15:
		// C-u: the line so far is discarded.
		e.buf = e.buf[:e.lineStart]
	case c == 0x04:
		if len(e.buf) == 0 {
			p.die()
		}
	case c == 0x7f || c == 0x08:
		if n := eraseRune(e.buf[e.lineStart:]); n > 0 {
			e.buf = e.buf[:len(e.buf)-n]
			p.emit([]byte("\b \b"))
		}
	case c < 0x20:
		// Tab (completion) and other controls: nothing the fake models.
	default:
		e.buf = append(e.buf, c)
		p.emit([]byte{c})
	}
}

// escByte consumes a byte of an escape sequence typed at the prompt.
func (p *pane) escByte(c byte) {
	e := &p.ed.esc
	switch e.state {
	case 1:
		switch c {
		case '[':
			e.state, e.params = 2, e.params[:0]
		case 'O':
			e.state = 3
		default:
			e.state = 0 // Meta with a key: ignored
		}
	case 2:
		if c >= 0x40 && c <= 0x7e {
			e.state = 0
			switch string(e.params) + string(c) {
			case "200~":
				p.ed.pasting = true
			case "201~":
				p.ed.pasting = false
			}
			return
		}
		e.params = append(e.params, c)
	case 3:
		e.state = 0
	}
}

// eraseRune returns how many bytes the last rune of b takes.
func eraseRune(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	_, n := utf8.DecodeLastRune(b)
	return n
}

// enter ends the line being edited: a continuation, or a command to run.
// A line ending in a backslash, or inside a single-quoted string, goes on
// on the next line.
func (p *pane) enter() {
	e := &p.ed
	p.emit([]byte("\r\n"))
	line := e.buf[e.lineStart:]
	if n := len(line) - len(bytes.TrimRight(line, `\`)); n%2 == 1 || openQuote(e.buf, p.fish()) {
		e.buf = append(e.buf, '\n')
		e.lineStart = len(e.buf)
		p.emit([]byte("> "))
		return
	}
	text := string(e.buf)
	p.ed = editor{}
	p.run(text)
}

// openQuote reports whether text ends inside a single-quoted string, as
// the shell reads quotes: a ' outside double quotes and not after a
// backslash opens or closes one; in fish, \' and \\ inside one stand for
// themselves.
func openQuote(text []byte, fish bool) bool {
	single, double := false, false
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case single && fish && c == '\\' && i+1 < len(text) && (text[i+1] == '\'' || text[i+1] == '\\'):
			i++
		case single:
			single = c != '\''
		case c == '\\':
			i++
		case c == '"':
			double = !double
		case c == '\'' && !double:
			single = true
		}
	}
	return single
}

// run runs an entered command line.
func (p *pane) run(text string) {
	if p.far != "" && p.runFar(text) {
		return
	}
	fam, _ := frame.ShellFor(p.program())
	if _, files, unread, ok := frame.ParseLine(fam, text); ok {
		opts, _ := frame.LineOptions(fam, text)
		p.runFrame(fam, files, unread, opts)
		return
	}
	for _, other := range []frame.Shell{frame.ShellBash, frame.ShellZsh, frame.ShellSh, frame.ShellKsh, frame.ShellFish} {
		if _, _, _, ok := frame.ParseLine(other, text); ok {
			p.output(fmt.Sprintf("%s: the fake shell cannot run a line framed for %s\n", p.shellName, other))
			p.prompt()
			return
		}
	}
	if len(bytes.TrimSpace([]byte(text))) == 0 {
		p.prompt()
		return
	}
	p.job = &job{ops: compile(p.shellName, p.pid, text), pid: p.t.newPID()}
	p.step()
}

// runFar runs what a far shell is typed of a far frame: it answers a
// probe of its own family, and runs a frame line as a script would. It
// reports false for any other line, which the scripted shell runs as
// ever.
func (p *pane) runFar(text string) bool {
	if id, ok := frame.ParseFarProbe(p.far, text); ok {
		p.emit(frame.StartMarker(id, p.pid))
		p.prompt()
		return true
	}
	for _, other := range []frame.Shell{frame.ShellBash, frame.ShellZsh, frame.ShellSh, frame.ShellKsh, frame.ShellFish} {
		if _, ok := frame.ParseFarProbe(other, text); ok && other != p.far {
			// A probe of another family fails its test there, quietly.
			p.prompt()
			return true
		}
	}
	cmd, ok := frame.ParseFarLine(p.far, text)
	if !ok {
		return false
	}
	p.commands = append(p.commands, cmd.Text)
	p.frames = append(p.frames, cmd.Options)
	j := &job{framed: true, ids: cmd.IDs}
	switch {
	case len(p.expect) > 0:
		r := p.expect[0]
		p.expect = p.expect[1:]
		j.ops, j.ignoreInt, j.keepsTerm, j.untrapped = r.ops(), r.IgnoreInterrupt, r.KeepsTerminal, r.Untrapped
	case p.script != nil:
		r := p.script(cmd.Text)
		j.ops, j.ignoreInt, j.keepsTerm, j.untrapped = r.ops(), r.IgnoreInterrupt, r.KeepsTerminal, r.Untrapped
	default:
		j.ops = compile(p.shellName, p.pid, cmd.Text)
	}
	j.pid = p.t.newPID()
	p.job = j
	p.emit(frame.StartMarker(cmd.ID, p.pid))
	p.step()
	return true
}

// runFrame runs the typed line of a framed command: it reads the script
// as the real shell would, and empties it, or prints the unread marker
// when there is no such script. For fish it reads the text file and the
// end script too, which must be what the frame wrote.
func (p *pane) runFrame(fam frame.Shell, files frame.Files, unread string, lineOpts frame.Options) {
	path := files.Script
	sc, ok := p.t.scripts[path]
	if !ok {
		p.output(fmt.Sprintf("%s: %s: No such file or directory\n", p.shellName, path))
		p.emit(frame.UnreadMarker(unread))
		p.prompt()
		return
	}
	cmd, _, ok := frame.ParseScript(fam, sc.data)
	text, end := p.t.scripts[files.Text], p.t.scripts[files.End]
	if ok && cmd.NeedsTextFile() {
		ok = text != nil && end != nil && bytes.Equal(end.data, cmd.EndScript(files))
	}
	if !ok {
		p.output(fmt.Sprintf("%s: the fake shell cannot run the script %s\n", p.shellName, path))
		p.prompt()
		return
	}
	sc.data, sc.written = nil, true // the script empties itself first
	command := cmd.Text
	if cmd.NeedsTextFile() {
		command = strings.TrimSuffix(string(text.data), "\n")
	}
	{
		p.commands = append(p.commands, command)
		opts := cmd.Options
		if cmd.NeedsTextFile() {
			opts = lineOpts
		}
		p.frames = append(p.frames, opts)
		j := &job{framed: true, ids: cmd.IDs, script: path, persist: opts.Persist, fish: cmd.NeedsTextFile()}
		switch {
		case len(p.expect) > 0:
			r := p.expect[0]
			p.expect = p.expect[1:]
			j.ops, j.ignoreInt, j.keepsTerm, j.untrapped = r.ops(), r.IgnoreInterrupt, r.KeepsTerminal, r.Untrapped
		case p.script != nil:
			r := p.script(command)
			j.ops, j.ignoreInt, j.keepsTerm, j.untrapped = r.ops(), r.IgnoreInterrupt, r.KeepsTerminal, r.Untrapped
		default:
			j.ops = compile(p.shellName, p.pid, command)
		}
		j.pid = p.t.newPID()
		p.job = j
		p.emit(frame.StartMarker(cmd.ID, p.pid))
		p.step()
	}
}

// step runs the job's ops until one blocks or the job ends.
func (p *pane) step() {
	j := p.job
	j.fg = ""
	for j.pc < len(j.ops) {
		o := j.ops[j.pc]
		j.pc++
		switch o.kind {
		case opOutput:
			p.output(o.text)
		case opStatus:
			j.status = o.n
		case opExit:
			status := o.n
			if status < 0 {
				status = j.status
			}
			if !j.framed || j.persist && !j.fish {
				// exit typed at the prompt, or in a command run in the
				// shell itself, ends the shell; fish's persisting frame
				// sources the command, whose exit ends only the file.
				p.die()
				return
			}
			p.finish(status)
			return
		case opSleep:
			if o.d <= 0 {
				continue
			}
			j.fg = o.command
			j.timer = p.t.clock.afterFunc(o.d, func() {
				p.t.mu.Lock()
				defer p.t.mu.Unlock()
				if p.job == j {
					j.timer = nil
					p.step()
				}
			})
			return
		case opRead:
			j.fg, j.reading, j.sink = o.command, true, o.sink
			return
		case opHang:
			j.fg = o.command
			return
		case opBackground:
			p.bg = append(p.bg, bgProc{pid: p.t.newPID(), command: o.text, until: p.t.clock.Now().Add(o.d)})
		case opAsk:
			if o.ask.Prompt != "" {
				p.output(o.ask.Prompt)
			}
			j.ask, j.line = o.ask, nil
			return
		case opEcho:
			p.noEcho = o.n == 0
		case opOrElse:
			if j.status == 0 {
				j.pc += o.n
			}
		case opSource:
			script, ok := p.t.scripts[o.text]
			if !ok {
				p.output(fmt.Sprintf("%s: .: cannot open %s: No such file\n", p.shellName, o.text))
				j.status = 1
				continue
			}
			j.ops = slices.Insert(j.ops, j.pc, compile(p.shellName, p.pid, string(script.data))...)
			j.status = 0
		}
	}
	p.finish(j.status)
}

// finish ends the running job with status and lets the shell read its
// type-ahead.
func (p *pane) finish(status int) {
	j := p.job
	p.stopJob()
	if j.framed {
		p.frameEnded(j, status)
	}
	p.prompt()
	p.receive(j.typeahead)
}

// interrupt ends the running job as SIGINT would.
func (p *pane) interrupt() {
	j := p.job
	p.stopJob()
	if j.framed && !j.untrapped {
		// The frame traps SIGINT to exit 130 and print its end marker.
		p.frameEnded(j, 130)
	} else {
		p.emit([]byte("\r\n"))
	}
	p.prompt()
}

// frameEnded does what a frame's script does after its command: it writes
// the status into the script's file and prints the end marker.
func (p *pane) frameEnded(j *job, status int) {
	if sc, ok := p.t.scripts[j.script]; ok {
		sc.data = fmt.Appendf(nil, "%d\n", status)
	}
	p.emit(frame.EndMarker(j.ids, status))
	if p.slowPrompt && p.promptJob == 0 {
		p.promptJob = p.t.newPID()
	}
}

func (p *pane) stopJob() {
	if j := p.job; j != nil && j.timer != nil {
		j.timer.Stop()
	}
	p.job = nil
}

// cookedByte is what a tty in canonical mode with ECHO and ECHOCTL echoes
// for a typed byte, with no line to erase from.
func cookedByte(c byte) []byte {
	switch {
	case c == '\r' || c == '\n':
		return []byte("\r\n")
	case c < 0x20 && c != '\t' || c == 0x7f:
		return []byte{'^', (c + '@') & 0x7f}
	}
	return []byte{c}
}

// typeAhead handles a byte typed while a command runs without reading
// the terminal.
func (p *pane) typeAhead(c byte) {
	j := p.job
	if c == 0x03 {
		p.emit([]byte("^C"))
		j.typeahead, j.line = nil, nil
		if !j.ignoreInt {
			p.interrupt()
		}
		return
	}
	if c == 0x15 {
		// VKILL: the tty erases the line being typed.
		j.typeahead, j.line = killLine(j.typeahead), nil
		return
	}
	p.cookedEcho(c)
	j.typeahead = append(j.typeahead, c)
}

// askByte handles a byte typed while the shell reads a line itself (Ask),
// the terminal in canonical mode.
func (p *pane) askByte(c byte) {
	switch c {
	case 0x03:
		p.emit([]byte("^C\r\n"))
		p.asking, p.asked = false, nil
		p.prompt()
	case 0x15:
		p.asked = nil
	case '\r', '\n':
		p.emit([]byte("\r\n"))
		p.answers = append(p.answers, string(p.asked))
		p.asking, p.asked = false, nil
		p.prompt()
	default:
		p.asked = append(p.asked, c)
		if !p.noEcho {
			p.emit(cookedByte(c))
		}
	}
}

// killLine drops what follows the last line end in b.
func killLine(b []byte) []byte {
	return b[:bytes.LastIndexAny(b, "\r\n")+1]
}

// readByte handles a byte typed while cat reads the terminal, which is in
// canonical mode: lines go to cat when ended, C-d on an empty line is the
// end of its input.
func (p *pane) readByte(c byte) {
	j := p.job
	switch c {
	case 0x03:
		p.emit([]byte("^C"))
		p.interrupt()
	case 0x04:
		if len(j.line) == 0 {
			j.reading, j.sink = false, false
			p.step()
			return
		}
		if !j.sink {
			p.output(string(j.line))
		}
		j.line = nil
	case '\r', '\n':
		p.cookedEcho(c)
		if !j.sink {
			p.output(string(j.line) + "\n")
		}
		j.line = nil
	default:
		p.cookedEcho(c)
	}
}

// cookedEcho echoes a byte as a tty in canonical mode with ECHO, ECHOE and
// ECHOCTL does, keeping job.line as the tty's line buffer.
func (p *pane) cookedEcho(c byte) {
	j := p.job
	emit := p.emit
	if p.noEcho {
		emit = func([]byte) {}
	}
	switch {
	case c == '\r' || c == '\n':
		emit([]byte("\r\n"))
		if !j.reading {
			j.line = nil
		}
	case c == 0x7f || c == 0x08:
		if n := eraseRune(j.line); n > 0 {
			j.line = j.line[:len(j.line)-n]
			emit([]byte("\b \b"))
		}
	case c < 0x20 && c != '\t':
		j.line = append(j.line, c)
		emit([]byte{'^', c + '@'})
	default:
		j.line = append(j.line, c)
		emit([]byte{c})
	}
}

// fish reports whether the pane's shell is a fish, which quotes otherwise.
func (p *pane) fish() bool {
	if p.far != "" {
		return p.far == frame.ShellFish
	}
	fam, _ := frame.ShellFor(p.program())
	return fam == frame.ShellFish
}

// answerByte handles a byte typed while a command reads the terminal
// (Read): the tty's line editing and echo for a line, the key itself for
// a raw read.
func (p *pane) answerByte(c byte) {
	j := p.job
	r := j.ask
	switch {
	case c == 0x03:
		p.emit([]byte("^C"))
		p.interrupt()
	case r.Raw:
		p.answers = append(p.answers, string(c))
		j.ask = nil
		p.step()
	case c == '\r' || c == '\n':
		// Echoed or not, the line ends (read -s prints the line end).
		p.emit([]byte("\r\n"))
		p.answers = append(p.answers, string(j.line))
		j.ask, j.line = nil, nil
		p.step()
	case c == 0x15:
		j.line = nil
	case c == 0x7f || c == 0x08:
		if n := eraseRune(j.line); n > 0 {
			j.line = j.line[:len(j.line)-n]
			if !r.Secret && !p.noEcho {
				p.emit([]byte("\b \b"))
			}
		}
	default:
		j.line = append(j.line, c)
		if !r.Secret && !p.noEcho {
			p.emit(cookedByte(c))
		}
	}
}
