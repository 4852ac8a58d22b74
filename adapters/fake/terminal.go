package fake

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/internal/outbuf"
	"github.com/tmux-mcp/tmux-mcp/adapters/internal/screencap"
	"github.com/tmux-mcp/tmux-mcp/domain/frame"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// Terminal is an in-memory ports.Terminal. Its panes have a screen, an
// output stream at absolute offsets and, when their command is a shell, a
// scripted shell that echoes what is typed and runs what is entered,
// framed commands included, on the fake Clock; the package documentation
// describes each.
//
// Everything happens synchronously: when SendText, SendKeys or Paste
// returns, the echo and any output due at the current time are already on
// the screen and in the stream; output due later appears while a test
// advances the Clock.
//
// Test controls panic when the pane does not exist. Terminal is safe for
// concurrent use.
type Terminal struct {
	mu          sync.Mutex
	clock       *Clock
	window      int
	panes       map[ports.PaneID]*pane
	nextID      int
	nextGen     int
	nextGroup   int
	nextPID     int
	unavailable bool

	// scripts is the ScriptStore's files, by path.
	scripts    map[string]*script
	nextScript int
	noJobs     bool // JobControl reports ErrUnsupported
	noReadBack bool // with noJobs, so does ReadScript
	exposeAll  bool // every script put is read by another process (ExposeScripts)
}

// An Option changes a Terminal at construction.
type Option func(*Terminal)

// WithClock makes the Terminal schedule scripted output on c instead of a
// clock of its own.
func WithClock(c *Clock) Option { return func(t *Terminal) { t.clock = c } }

// WithOutputWindow sets how many of each pane's newest output bytes are
// retained for ReadFrom (default DefaultOutputWindow).
func WithOutputWindow(n int) Option { return func(t *Terminal) { t.window = n } }

// New returns a Terminal without panes. Unless WithClock says otherwise it
// has its own Clock, starting at 2025-01-01 00:00 UTC.
func New(opts ...Option) *Terminal {
	t := &Terminal{window: DefaultOutputWindow, panes: make(map[ports.PaneID]*pane), scripts: make(map[string]*script), nextPID: 1000}
	for _, o := range opts {
		o(t)
	}
	if t.clock == nil {
		t.clock = NewClock(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	}
	return t
}

// Clock returns the clock the Terminal schedules scripted output on.
func (t *Terminal) Clock() *Clock { return t.clock }

// PaneSpec describes a pane to add. Zero fields take the defaults given.
type PaneSpec struct {
	// Width and Height of the visible screen; default 80 by 24.
	Width, Height int

	// HistoryLimit is how many rows scrolled off the screen are kept;
	// 0 means DefaultHistoryLimit and a negative value keeps none.
	HistoryLimit int

	// Command is the pane's program; default "bash". A shell (any name
	// domain.ShellFor knows) gets the scripted shell; any other program
	// swallows what is typed, which is only recorded in Sent.
	Command string

	// Prompt is what the shell prints when it is ready for a command;
	// default "$ ".
	Prompt string

	// OutputWindow overrides the Terminal's output window for this pane.
	OutputWindow int
}

// pane is one pane's whole state, guarded by Terminal.mu.
type pane struct {
	t    *Terminal
	id   ports.PaneID
	spec PaneSpec
	gen  string
	pid  int // the process id of the pane's program, new with each generation
	dead bool

	blind      bool   // output is missed (Blind)
	starting   bool   // the shell is starting: no line editor yet (SetStarting)
	startAhead []byte // what was typed meanwhile

	mode       string
	override   string      // the command SetCommand set, if any
	exe        string      // the program SetProgram set, if any
	args       []string    // the command line SetForegroundArgs set, if any
	far        frame.Shell // the family of the far shell behind the pane's program (SetFar), if any
	farMarks   bool        // that far shell marks its prompt (OSC 133 A and B)
	watchers   []string
	attended   bool
	group      int // synchronization group; 0 for none
	self       bool
	unknown    []ports.Fact
	scr        *screen
	log        *outbuf.Buffer
	sent       []Input
	commands   []string
	frames     []frame.Options // of each framed command, as its frame ran it
	signals    []SentSignal    // what SignalGroup sent
	expect     []Run
	script     func(command string) Run
	ed         editor
	job        *job
	shellName  string // base name of the shell, for its messages
	noEcho     bool   // stty -echo: the tty echoes nothing while a command reads
	promptJob  int    // the group of a program the prompt runs, in front while no command is (PromptRuns)
	slowPrompt bool   // every framed command's end puts a program the prompt runs in front (SlowPrompt)
	asking     bool   // the shell reads a line itself, at its prompt (Ask)
	asked      []byte // what is typed into that line so far
	answers    []string
	bg         []bgProc // what commands started in the background (sleep N &)

	// A job whose leader has exited is in front until then
	// (SetLeaderlessFront).
	leaderless struct {
		group int
		until time.Time
	}
}

// AddPane adds a live pane and returns its id: "%0", "%1", ... in order.
// A shell pane starts by printing its prompt, so its output stream starts
// at offset len(Prompt).
func (t *Terminal) AddPane(spec PaneSpec) ports.PaneID {
	if spec.Width <= 0 {
		spec.Width = 80
	}
	if spec.Height <= 0 {
		spec.Height = 24
	}
	switch {
	case spec.HistoryLimit == 0:
		spec.HistoryLimit = DefaultHistoryLimit
	case spec.HistoryLimit < 0:
		spec.HistoryLimit = 0
	}
	if spec.Command == "" {
		spec.Command = "bash"
	}
	if spec.Prompt == "" {
		spec.Prompt = "$ "
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if spec.OutputWindow <= 0 {
		spec.OutputWindow = t.window
	}
	id := ports.PaneID("%" + strconv.Itoa(t.nextID))
	t.nextID++
	p := &pane{t: t, id: id, spec: spec, gen: t.generation(), pid: t.newPID()}
	p.scr = newScreen(spec.Width, spec.Height, spec.HistoryLimit)
	p.log = outbuf.New(&t.mu, spec.OutputWindow)
	p.shellName = spec.Command[strings.LastIndexByte(spec.Command, '/')+1:]
	t.panes[id] = p
	p.prompt()
	return id
}

func (t *Terminal) generation() string {
	t.nextGen++
	return strconv.Itoa(t.nextGen)
}

func (t *Terminal) newPID() int {
	t.nextPID++
	return t.nextPID
}

// lookup finds a pane for a port method; the error's text starts with
// what, which holds a %s for the id.
func (t *Terminal) lookup(ctx context.Context, id ports.PaneID, what string) (*pane, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf(what+": %w", id, err)
	}
	if t.unavailable {
		return nil, fmt.Errorf(what+": %w", id, ports.ErrUnavailable)
	}
	p, ok := t.panes[id]
	if !ok {
		return nil, fmt.Errorf(what+": %w", id, ports.ErrPaneNotFound)
	}
	return p, nil
}

// lookupLive is lookup for input: a dead pane is an error too.
func (t *Terminal) lookupLive(ctx context.Context, id ports.PaneID, what string) (*pane, error) {
	p, err := t.lookup(ctx, id, what)
	if err == nil && p.dead {
		err = fmt.Errorf(what+": %w", id, ports.ErrPaneDead)
	}
	return p, err
}

// Pane describes the pane. Facts set unknown with SetUnknown are reported
// in Unknown with their fields zeroed.
func (t *Terminal) Pane(ctx context.Context, id ports.PaneID) (ports.PaneInfo, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p, err := t.lookup(ctx, id, "describe pane %s")
	if err != nil {
		return ports.PaneInfo{}, err
	}
	info := ports.PaneInfo{
		ID:           p.id,
		Generation:   p.gen,
		Dead:         p.dead,
		Mode:         p.mode,
		Command:      p.command(),
		Program:      p.program(),
		Width:        p.spec.Width,
		Height:       p.spec.Height,
		HistorySize:  p.scr.historySize(),
		HistoryLimit: p.spec.HistoryLimit,
		AlsoReaches:  p.alsoReaches(),
		Watchers:     slices.Clone(p.watchers),
		Attended:     p.attended || len(p.watchers) > 0,
		Self:         p.self,
		Unknown:      slices.Clone(p.unknown),
	}
	for _, f := range p.unknown {
		switch f {
		case ports.FactWatched:
			info.Watchers = nil
		case ports.FactAlsoReaches:
			info.AlsoReaches = nil
		case ports.FactSelf:
			info.Self = false
		case ports.FactMode:
			info.Mode = ""
		case ports.FactCommand:
			info.Command, info.Program = "", ""
		}
	}
	return info, nil
}

// command returns the pane's foreground program.
func (p *pane) command() string {
	switch {
	case p.override != "":
		return p.override
	case p.job != nil && p.job.fg != "":
		return p.job.fg
	}
	return p.spec.Command
}

// program returns the executable the pane's foreground program runs:
// what SetProgram set, else its name without a path or a login shell's
// "-".
func (p *pane) program() string {
	if p.exe != "" {
		return p.exe
	}
	name := strings.TrimPrefix(p.command(), "-")
	return name[strings.LastIndexByte(name, '/')+1:]
}

// alsoReaches lists the other panes in p's synchronization group, in id
// order.
func (p *pane) alsoReaches() []ports.PaneID {
	if p.group == 0 {
		return nil
	}
	var ids []ports.PaneID
	for id, q := range p.t.panes {
		if q != p && q.group == p.group {
			ids = append(ids, id)
		}
	}
	slices.SortFunc(ids, comparePaneIDs)
	return ids
}

func comparePaneIDs(a, b ports.PaneID) int {
	x, _ := strconv.Atoi(strings.TrimPrefix(string(a), "%"))
	y, _ := strconv.Atoi(strings.TrimPrefix(string(b), "%"))
	return x - y
}

// SendText types text into the pane and into every pane synchronized with
// it, as tmux does for typed input.
func (t *Terminal) SendText(ctx context.Context, id ports.PaneID, text string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	p, err := t.lookupLive(ctx, id, "send text to pane %s")
	if err != nil {
		return err
	}
	p.deliver(Input{Kind: InputText, Text: text}, []byte(text), true)
	return nil
}

// SendKeys presses the named keys in the pane and in every pane
// synchronized with it. Names are the contract's: "Enter", "Escape",
// "Tab", "BTab", "BSpace", "Space", arrows, "Home", "End", "PageUp" and
// "PageDown" (also "PPage", "NPage", "PgUp", "PgDn"), "Insert"/"IC",
// "Delete"/"DC", "F1" to "F12", or a single character, each with the
// "C-", "M-" and "S-" modifiers it has a code with (see keyBytes); named
// keys match without regard to case. An unknown name fails the whole call
// with ErrUnknownKey before any key is pressed.
func (t *Terminal) SendKeys(ctx context.Context, id ports.PaneID, keys []string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	p, err := t.lookupLive(ctx, id, "send keys to pane %s")
	if err != nil {
		return err
	}
	var b []byte
	for _, k := range keys {
		kb, ok := keyBytes(k)
		if !ok {
			return fmt.Errorf("send keys to pane %s: %q: %w", id, k, ports.ErrUnknownKey)
		}
		b = append(b, kb...)
	}
	p.deliver(Input{Kind: InputKeys, Keys: slices.Clone(keys)}, b, true)
	return nil
}

// Paste delivers text to the pane alone (a paste, unlike typing, is not
// copied to synchronized panes in tmux), wrapped in the bracketed-paste
// markers when the pane's program asked for them.
func (t *Terminal) Paste(ctx context.Context, id ports.PaneID, text string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	p, err := t.lookupLive(ctx, id, "paste into pane %s")
	if err != nil {
		return err
	}
	b := []byte(text)
	if p.scr.bracketed {
		b = slices.Concat([]byte("\x1b[200~"), b, []byte("\x1b[201~"))
	}
	p.deliver(Input{Kind: InputPaste, Text: text}, b, false)
	return nil
}

// deliver records in and hands b to the pane's program, and to the
// programs of the live panes synchronized with it when synced.
func (p *pane) deliver(in Input, b []byte, synced bool) {
	var also []*pane
	if synced {
		for _, id := range p.alsoReaches() {
			if q := p.t.panes[id]; !q.dead {
				also = append(also, q)
			}
		}
	}
	p.sent = append(p.sent, in)
	p.receive(b)
	for _, q := range also {
		in.Via = p.id
		q.sent = append(q.sent, in)
		q.receive(b)
	}
}

// Capture returns the rows in r. Unlike tmux, which clamps, the fake
// rejects a range outside [-HistorySize, Height-1] or with Start > End:
// the port leaves keeping within it to the caller, and a test should
// learn that the caller did not.
func (t *Terminal) Capture(ctx context.Context, id ports.PaneID, r ports.CaptureRange) ([]string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p, err := t.lookup(ctx, id, "capture pane %s")
	if err != nil {
		return nil, err
	}
	hist := p.scr.historySize()
	if r.Start < -hist || r.End > p.spec.Height-1 || r.Start > r.End {
		return nil, fmt.Errorf("capture pane %s: rows %d..%d are not within %d..%d", id, r.Start, r.End, -hist, p.spec.Height-1)
	}
	return p.scr.capture(r.Start, r.End, r.JoinWrapped), nil
}

var _ ports.ScreenCapturer = (*Terminal)(nil)

// CaptureScreen is Pane, then Capture of the screen it describes: the
// fake has no round trips to save, but offering it puts the domain on the
// path it takes with a terminal that has them.
func (t *Terminal) CaptureScreen(ctx context.Context, id ports.PaneID, joinWrapped bool) (ports.PaneInfo, []string, error) {
	return screencap.InTwoCalls(ctx, t, id, joinWrapped)
}

// OpenOutput starts a stream of the pane's output from its present end.
// On a dead pane the stream is already ended (ErrPaneDead) but can still
// be asked for its end offset.
func (t *Terminal) OpenOutput(ctx context.Context, id ports.PaneID) (ports.OutputStream, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p, err := t.lookup(ctx, id, "open output of pane %s")
	if err != nil {
		return nil, err
	}
	if p.dead {
		return p.log.OpenEnded(p.deadErr()), nil
	}
	return p.log.Open(), nil
}

func (p *pane) deadErr() error { return fmt.Errorf("pane %s: %w", p.id, ports.ErrPaneDead) }

// emit records bytes the pane's program wrote: on the screen and in the
// output stream (or, while the pane is blind, as missed).
func (p *pane) emit(b []byte) {
	p.scr.write(b)
	if p.blind {
		p.log.Skip(int64(len(b)))
		return
	}
	p.log.Write(b)
}

// Blind makes the backend miss what the pane writes from now (on) until
// Blind(id, false): it reaches the screen, and readers get it in Missed,
// as with a backend whose connection to the multiplexer broke.
func (t *Terminal) Blind(id ports.PaneID, on bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.must(id).blind = on
}

// die ends the pane's process: the pane stays, dead, as with tmux's
// remain-on-exit.
func (p *pane) die() {
	if p.dead {
		return
	}
	p.dead = true
	p.stopJob()
	p.ed = editor{}
	p.log.EndStreams(p.deadErr())
}

// must returns the pane for a test control, panicking if there is none.
func (t *Terminal) must(id ports.PaneID) *pane {
	p, ok := t.panes[id]
	if !ok {
		panic(fmt.Sprintf("fake terminal: no pane %s", id))
	}
	return p
}

// mustLive is must for controls that need a live pane.
func (t *Terminal) mustLive(id ports.PaneID) *pane {
	p := t.must(id)
	if p.dead {
		panic(fmt.Sprintf("fake terminal: pane %s is dead", id))
	}
	return p
}

// KillPane ends the pane's process. The pane stays, reporting Dead, its
// screen kept; open streams end with ErrPaneDead; input fails with
// ErrPaneDead. A running scripted command is abandoned without an end
// marker, as a killed shell prints none. Killing a dead pane does nothing.
func (t *Terminal) KillPane(id ports.PaneID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.must(id).die()
}

// RemovePane removes the pane: open streams end with ErrPaneNotFound and
// every method then reports ErrPaneNotFound for its id.
func (t *Terminal) RemovePane(id ports.PaneID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.must(id)
	p.stopJob()
	p.log.EndStreams(fmt.Errorf("pane %s: %w", id, ports.ErrPaneNotFound))
	delete(t.panes, id)
}

// Respawn replaces the pane's process with a fresh one of its original
// command, as tmux's respawn-pane -k does: a live process is killed first
// (ending open streams), the pane gets a new Generation, leaves any mode,
// forgets SetCommand and, for a shell, prints a new prompt. The screen is
// kept and output offsets keep counting.
func (t *Terminal) Respawn(id ports.PaneID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.must(id)
	p.die()
	p.restart(false)
}

// Replace replaces the pane's process with a fresh one of its original
// command without ending open streams, as tmux's respawn-pane -k does on
// a real server: readers see the new process's output follow the old
// one's, and only Generation (and the shell's pid) tells them apart. A
// running scripted command is abandoned without an end marker.
func (t *Terminal) Replace(id ports.PaneID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.mustLive(id)
	p.restart(false)
}

// restart gives the pane a fresh process of its original command, alive,
// with a new Generation and pid, out of any mode and without SetCommand's
// name, SetProgram's program, SetForegroundArgs's command line or
// SetLeaderlessFront's job; what the old process ran is abandoned, and the new terminal
// has its line editing and echo as a new shell sets them. With blank, the
// visible screen is cleared and the cursor put at its top left first, as
// tmux does for a respawned pane (the history is kept). Open streams go
// on; a shell prints its prompt. t.mu is held.
func (p *pane) restart(blank bool) {
	p.stopJob()
	p.ed = editor{}
	p.dead, p.starting, p.startAhead, p.noEcho = false, false, nil, false
	p.gen, p.pid = p.t.generation(), p.t.newPID()
	p.mode, p.override, p.exe, p.args = "", "", "", nil
	p.asking, p.asked = false, nil
	p.leaderless.until = time.Time{}
	p.scr.bracketed = false
	if blank {
		p.scr.blankScreen()
	}
	p.prompt()
}

// SetStarting makes the pane's shell start up (on) or finish starting
// (off). While it starts it has no line editor: LineEditing reports false,
// no prompt is printed, and what is typed is echoed by the tty and kept;
// when it has started it prints its prompt and reads what was typed, as a
// shell reads its type-ahead.
func (t *Terminal) SetStarting(id ports.PaneID, on bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.mustLive(id)
	if p.starting == on {
		return
	}
	p.starting = on
	if !on {
		ahead := p.startAhead
		p.startAhead = nil
		p.prompt()
		p.receive(ahead)
	}
}

// Scripts returns the paths of the scripts the ScriptStore holds now, in
// no particular order.
func (t *Terminal) Scripts() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	paths := make([]string, 0, len(t.scripts))
	for path := range t.scripts {
		paths = append(paths, path)
	}
	return paths
}

// SetNoJobControl makes InForeground and LineEditing report
// ErrUnsupported, as a backend on another host does; with readBack false,
// so does ReadScript.
func (t *Terminal) SetNoJobControl(on, readBack bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.noJobs, t.noReadBack = on, on && !readBack
}

// SetMode puts the pane in a mode such as "copy-mode", or takes it out
// with "". While in a mode, input goes to the mode: it is recorded in Sent
// and reaches no program.
func (t *Terminal) SetMode(id ports.PaneID, mode string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.must(id).mode = mode
}

// SetFar puts a far shell of family far behind the pane's program, as
// `ssh host` in front of a shell's terminal puts one: the pane reports
// connector (such as "ssh") as its foreground program, name and
// executable, and what is typed reaches a scripted shell of family far,
// which answers frame.FarProbe and runs frame.FarLine (and, like any
// scripted shell, runs what else it is typed); with marks it marks its
// prompt with OSC 133 A before and B after the prompt. An empty far
// takes the far shell away: the pane's own program is back in front.
func (t *Terminal) SetFar(id ports.PaneID, connector string, far frame.Shell, marks bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.must(id)
	p.far, p.farMarks = far, marks && far != ""
	if far == "" {
		connector = ""
	}
	p.override, p.exe = connector, connector
}

// SetCommand makes the pane report name as its foreground program, and
// "" restores the pane's own account. While name is not a shell, input
// reaches no program (only Sent records it), as if that program swallowed
// it.
func (t *Terminal) SetCommand(id ports.PaneID, name string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.must(id).override = name
}

// PromptRuns makes a program that the shell's prompt runs (a git
// prompt, PROMPT_COMMAND) lead the foreground group of the pane's
// terminal while the shell runs no command, as between a command's end and
// the prompt being drawn; off puts the shell back in front.
func (t *Terminal) PromptRuns(id ports.PaneID, on bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.must(id)
	switch {
	case on && p.promptJob == 0:
		p.promptJob = t.newPID()
	case !on:
		p.promptJob = 0
	}
}

// SlowPrompt makes every framed command's end put a program that the
// prompt runs in front of the pane's terminal, as PromptRuns(id, true)
// does, until PromptRuns(id, false): a shell with PROMPT_COMMAND='sleep
// 1', or a git prompt on a large repository.
func (t *Terminal) SlowPrompt(id ports.PaneID, on bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.must(id).slowPrompt = on
}

// Ask has the pane's shell read a line itself, as a `read -p prompt x`
// typed at its prompt does: it prints prompt, and the terminal is in
// canonical mode while it reads (LineEditing is false), with no other
// process in front. What is typed is echoed as a tty echoes it, and the
// line, once ended, is the read's answer (Answers); the shell is then
// back at its prompt. C-c abandons the read.
func (t *Terminal) Ask(id ports.PaneID, prompt string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.mustLive(id)
	p.asking, p.asked = true, nil
	p.output(prompt)
}

// Answers returns the lines the pane's shell read itself (Ask), and the
// answers its commands read (Read, the interpreter's read), oldest
// first.
func (t *Terminal) Answers(id ports.PaneID) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.must(id).answers)
}

// SetProgram makes the pane's foreground program run the executable
// program under its name, as `exec -a bash python3` runs a Python REPL
// named bash: Pane and Foreground report it as Program, and what is typed
// reaches the scripted shell only while program is a shell (of its own
// family), whatever the name; "" restores the name's own program.
func (t *Terminal) SetProgram(id ports.PaneID, program string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.must(id).exe = program
}

// SetForegroundArgs makes Foreground report args as the command line of
// the pane's program while it runs no command of its own, as for a shell
// that runs a script ("bash", "./build.sh"); nil restores the default,
// the program's name alone. What is typed still reaches the scripted
// shell: the domain is to refuse to type.
func (t *Terminal) SetForegroundArgs(id ports.PaneID, args ...string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.must(id).args = slices.Clone(args)
}

// SetLeaderlessFront makes Foreground report, for d on the Terminal's
// clock, a job in front of the pane's terminal whose leader has exited
// (Args empty, not nil; Children nil): what a real terminal shows while
// the rest of a pipeline such as "curl … | sh" runs on (a long d), and,
// for a moment after every job ends, until the shell takes its terminal
// back (a short one). d 0 puts the shell back in front at once. What is
// typed still reaches the scripted shell: the domain is to wait, or
// refuse to type.
func (t *Terminal) SetLeaderlessFront(id ports.PaneID, d time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.must(id)
	p.leaderless.group, p.leaderless.until = t.newPID(), t.clock.Now().Add(d)
}

// Attach makes a person watch the pane through the named client (for
// example "/dev/pts/3"); it then appears in Watchers, and Attended is set.
func (t *Terminal) Attach(id ports.PaneID, watcher string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.must(id)
	if !slices.Contains(p.watchers, watcher) {
		p.watchers = append(p.watchers, watcher)
	}
}

// Detach undoes Attach for the named client.
func (t *Terminal) Detach(id ports.PaneID, watcher string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.must(id)
	p.watchers = slices.DeleteFunc(p.watchers, func(w string) bool { return w == watcher })
}

// SetAttended says whether a person is attached to the pane's session
// without the pane being on their screen. A pane with watchers is
// attended whatever this says.
func (t *Terminal) SetAttended(id ports.PaneID, attended bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.must(id).attended = attended
}

// Synchronize makes typed input to any of the panes reach all of them
// (they leave any group they were in). Each then lists the others in
// AlsoReaches.
func (t *Terminal) Synchronize(ids ...ports.PaneID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.nextGroup++
	for _, id := range ids {
		t.must(id).group = t.nextGroup
	}
}

// Desynchronize takes the panes out of their synchronization groups.
func (t *Terminal) Desynchronize(ids ...ports.PaneID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, id := range ids {
		t.must(id).group = 0
	}
}

// SetSelf marks the pane as the one the server runs in (and no other);
// "" marks none.
func (t *Terminal) SetSelf(id ports.PaneID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if id != "" {
		t.must(id)
	}
	for pid, p := range t.panes {
		p.self = pid == id
	}
}

// SetUnknown makes the pane report the facts as unknown, replacing any
// set before; with no facts, everything is known again.
func (t *Terminal) SetUnknown(id ports.PaneID, facts ...ports.Fact) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.must(id).unknown = slices.Clone(facts)
}

// SetBracketedPaste turns the pane's bracketed-paste mode on or off, as
// its program would by printing CSI ? 2004 h or l (which the fake also
// honours).
func (t *Terminal) SetBracketedPaste(id ports.PaneID, on bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.must(id).scr.bracketed = on
}

// SetUnavailable makes every port method fail with ErrUnavailable, as if
// the multiplexer had gone away, until it is called with false. Test
// controls keep working.
func (t *Terminal) SetUnavailable(unavailable bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.unavailable = unavailable
}

// Inject writes b into the pane's output as another writer would (a
// background job, another program sharing the tty): to the screen and the
// stream, byte for byte, with no newline translation. Panics if the pane
// is dead.
func (t *Terminal) Inject(id ports.PaneID, b []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.mustLive(id).emit(b)
}

// LoseOutput counts n bytes as written by the pane but never seen by the
// backend, as a backend that dropped output would: offsets move on by n
// with no data, and readers get them in Missed. Because a chunk holds one
// contiguous run of bytes, what was retained before the gap is dropped
// from the window too. The screen is not changed.
func (t *Terminal) LoseOutput(id ports.PaneID, n int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.must(id).log.Skip(n)
}

// Output returns the bytes of the pane's output still retained, from any
// offset a stream could read. It is for tests that inspect what the pane
// printed without opening a stream.
func (t *Terminal) Output(id ports.PaneID) []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.must(id).log.Retained()
}

// InputKind says how an Input was sent.
type InputKind string

// The kinds of input.
const (
	InputText  InputKind = "text"  // SendText
	InputKeys  InputKind = "keys"  // SendKeys
	InputPaste InputKind = "paste" // Paste
)

// Input is one call that sent something to a pane.
type Input struct {
	Kind InputKind
	Text string   // for text and paste
	Keys []string // for keys

	// Via is the pane the input was sent to when it reached this one only
	// because the two are synchronized; empty otherwise.
	Via ports.PaneID
}

// Sent returns every input the pane received, in order, including input
// that a mode or a non-shell program swallowed and input that reached it
// through synchronization. Calls that failed (dead pane, unknown key) are
// not recorded.
func (t *Terminal) Sent(id ports.PaneID) []Input {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.must(id).sent)
}

// FrameOptions returns the options of the framed commands the pane's
// shell has run (frame.Options, as the frame tells them: Persist, and
// AgentEnv for a command run in a child shell), in order.
func (t *Terminal) FrameOptions(id ports.PaneID) []frame.Options {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.must(id).frames)
}

// Commands returns the commands of the framed commands the pane's shell
// has run, unframed, in order.
func (t *Terminal) Commands(id ports.PaneID) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.must(id).commands)
}
