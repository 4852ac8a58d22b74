package screen

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/internal/scripts"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// Defaults for the zero values of Options.
const (
	DefaultRingSize       = 1 << 20
	DefaultPollInterval   = 50 * time.Millisecond
	DefaultIdleTimeout    = 30 * time.Second
	DefaultCommandTimeout = 5 * time.Second
	DefaultInputTimeout   = 10 * time.Second
	DefaultRotateSize     = 8 << 20
)

// The oldest screen this adapter accepts. 4.06 is the first release whose
// -Q queries behave as used here; the adapter is tested on 4.09.
const minMajor, minMinor = 4, 6

// Options configure a Terminal. Only Session is usually needed.
type Options struct {
	// Bin is the screen binary, a name looked up on PATH or a path.
	// Default "screen".
	Bin string

	// Session names the session: its name ("work") or its full socket
	// name ("12345.work"), matched exactly. Empty means the session this
	// process runs in, from the STY environment variable.
	Session string

	// Dir is the directory of screen's sockets (SCREENDIR). Empty means
	// the SCREENDIR of this process, or else screen's default.
	Dir string

	// Env looks up this process's environment variables STY and WINDOW,
	// which tell the window this server runs in (PaneInfo.Self). Nil
	// means os.Getenv; tests inject their own.
	Env func(key string) string

	// LogDir is the directory the windows' output logs are written to.
	// Empty means a private directory that New creates and Close removes.
	LogDir string

	// RingSize is how many of each window's newest output bytes are
	// retained for its streams. Default DefaultRingSize (1 MiB).
	RingSize int

	// PollInterval is how often the log of a window with open streams is
	// read and its process checked. Default DefaultPollInterval.
	PollInterval time.Duration

	// IdleTimeout is how long a window's log stays on after its last
	// stream closed. Default DefaultIdleTimeout.
	IdleTimeout time.Duration

	// RotateSize is the size at which a window's log file is replaced by
	// a fresh one, so that disk use stays bounded. Default
	// DefaultRotateSize.
	RotateSize int64

	// CommandTimeout bounds each run of the screen client. Default
	// DefaultCommandTimeout.
	CommandTimeout time.Duration

	// InputTimeout bounds how long a write waits for the window's program
	// to read input already sent before it sends more (see Paste). Default
	// DefaultInputTimeout.
	InputTimeout time.Duration

	// HistoryLimit is the scrollback size reported in
	// PaneInfo.HistoryLimit: screen cannot report a window's scrollback
	// setting without risking a crash (see the package documentation), so
	// the caller says what the session uses. Zero means 1024, Debian's
	// defscrollback; StartPrivate sessions use PrivateHistoryLimit.
	HistoryLimit int

	// Shell is the program, with its arguments, that StartPrivate runs in
	// the first window of its session. Default "sh". New ignores it.
	Shell []string

	// AssumeNoCopyMode vouches that no window of the session is in copy
	// mode, which screen cannot tell. With it, Pane reports Mode as known
	// and empty; without it (the default), PaneInfo.Unknown holds
	// ports.FactMode and the domain refuses every write. Set it only for
	// a session no person attaches to, such as one StartPrivate made.
	AssumeNoCopyMode bool
}

// Terminal is the GNU screen implementation of ports.Terminal for one
// session. Panes are the session's windows: pane "%N" is window number N.
// See the package documentation for how each method maps onto screen.
//
// A Terminal is safe for concurrent use. Close it to stop its log readers
// and remove its private files.
type Terminal struct {
	bin       string
	version   string
	opts      Options
	env       []string // environment of the screen processes
	session   string   // the full socket name, "pid.name"
	serverPID int
	sockPath  string
	self      selfEnv
	workDir   string // private: hardcopies, paste files, and logs by default
	logDir    string
	scripts   *scripts.Dir // in workDir

	// clientMu serializes the screen clients the Terminal runs: screen
	// answers every query through one socket name, and a query that
	// meets another client's command may get an empty answer.
	clientMu sync.Mutex
	logMu    sync.Mutex // turning logs on and off, and the logfile setting

	mu       sync.Mutex
	closed   bool
	trackers map[int]*tracker // by window number
	gens     map[int]windowMemo
	writers  map[int]*sync.Mutex
	pending  map[int]*inputMeter // pastes screen may still be writing
	logSetup bool                // the session's logfile settings point into logDir
	seq      int                 // names private files
}

// windowMemo is what the Terminal remembers of a window it saw alive, for
// when its process is gone.
type windowMemo struct {
	gen           string
	width, height int
}

var _ ports.Terminal = (*Terminal)(nil)

// ErrTerminalClosed is returned by the methods of a closed Terminal, wrapped
// together with ports.ErrUnavailable.
var ErrTerminalClosed = errors.New("screen terminal closed")

// New checks that the screen binary exists and is 4.06 or newer, finds the
// session opts name and checks that it answers, and returns a Terminal for
// it. Errors wrap ports.ErrUnavailable when screen is missing or too old or
// the session cannot be found or does not answer.
func New(opts Options) (*Terminal, error) {
	if opts.Bin == "" {
		opts.Bin = "screen"
	}
	if opts.Env == nil {
		opts.Env = os.Getenv
	}
	if opts.RingSize <= 0 {
		opts.RingSize = DefaultRingSize
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = DefaultPollInterval
	}
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = DefaultIdleTimeout
	}
	if opts.RotateSize <= 0 {
		opts.RotateSize = DefaultRotateSize
	}
	if opts.CommandTimeout <= 0 {
		opts.CommandTimeout = DefaultCommandTimeout
	}
	if opts.InputTimeout <= 0 {
		opts.InputTimeout = DefaultInputTimeout
	}
	if opts.HistoryLimit <= 0 {
		opts.HistoryLimit = 1024
	}
	bin, err := exec.LookPath(opts.Bin)
	if err != nil {
		return nil, fmt.Errorf("screen binary %q: %w: %w", opts.Bin, err, ports.ErrUnavailable)
	}
	version, err := checkVersion(bin)
	if err != nil {
		return nil, err
	}
	env := childEnv(os.Environ(), opts.Dir)
	want := opts.Session
	if want == "" {
		want = opts.Env("STY")
		if want == "" {
			return nil, fmt.Errorf("screen: no session named, and this process runs in none (STY is not set): %w", ports.ErrUnavailable)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), opts.CommandTimeout)
	defer cancel()
	sess, err := findSession(ctx, bin, env, want)
	if err != nil {
		return nil, err
	}
	work, err := os.MkdirTemp("", "screen-mcp-")
	if err != nil {
		return nil, fmt.Errorf("screen: private directory: %w", err)
	}
	if !plainPath(work) || opts.LogDir != "" && !plainPath(opts.LogDir) {
		os.RemoveAll(work)
		// screen reads '%', '$', '^', '\', quotes and blanks in a file
		// name of a command as escapes or separators.
		return nil, fmt.Errorf("screen: the private directory %q or LogDir %q holds characters other than letters, digits and /._-", work, opts.LogDir)
	}
	t := &Terminal{
		bin:       bin,
		version:   version,
		opts:      opts,
		env:       env,
		session:   sess.name,
		serverPID: sess.pid,
		sockPath:  filepath.Join(sess.dir, sess.name),
		self:      selfEnv{sty: opts.Env("STY"), window: opts.Env("WINDOW")},
		workDir:   work,
		logDir:    opts.LogDir,
		trackers:  make(map[int]*tracker),
		gens:      make(map[int]windowMemo),
		writers:   make(map[int]*sync.Mutex),
		pending:   make(map[int]*inputMeter),
	}
	if t.scripts, err = scripts.Open(work); err != nil {
		os.RemoveAll(work)
		return nil, fmt.Errorf("screen: %w", err)
	}
	if t.logDir == "" {
		t.logDir = filepath.Join(work, "logs")
		if err := os.Mkdir(t.logDir, 0o700); err != nil {
			os.RemoveAll(work)
			return nil, fmt.Errorf("screen: log directory: %w", err)
		}
	}
	if err := t.barrier(ctx); err != nil {
		os.RemoveAll(work)
		return nil, fmt.Errorf("screen session %s does not answer: %w", sess.name, err)
	}
	return t, nil
}

// Version returns the version screen reported, such as "4.09.00".
func (t *Terminal) Version() string { return t.version }

// Session returns the session's full socket name, "pid.name".
func (t *Terminal) Session() string { return t.session }

// Close turns off the logs the Terminal turned on, ends the open streams
// with an error wrapping ErrTerminalClosed and removes the Terminal's
// private files. Later calls fail with that error. It does not stop the
// session. Closing twice is harmless.
func (t *Terminal) Close() error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil
	}
	t.closed = true
	trs := make([]*tracker, 0, len(t.trackers))
	for _, tr := range t.trackers {
		trs = append(trs, tr)
	}
	t.mu.Unlock()

	ctx, cancel := context.WithTimeout(context.Background(), 2*t.opts.CommandTimeout)
	defer cancel()
	for _, tr := range trs {
		tr.shutdown(ctx, ErrTerminalClosed)
	}
	t.mu.Lock()
	restore := t.logSetup
	t.logSetup = false
	t.mu.Unlock()
	var errs []error
	if restore {
		errs = append(errs, t.restoreLogSettings(ctx))
	}
	errs = append(errs, t.scripts.Close())
	if err := os.RemoveAll(t.workDir); err != nil {
		errs = append(errs, fmt.Errorf("screen: remove private directory: %w", err))
	}
	return errors.Join(errs...)
}

// plainPath reports whether path is absolute and made of letters, digits
// and "/._-" only, which screen takes literally in a command's argument.
func plainPath(path string) bool {
	if !filepath.IsAbs(path) {
		return false
	}
	for _, c := range path {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("/._-", c)) {
			return false
		}
	}
	return true
}

// checkVersion runs "screen -v" and returns the version if it is supported.
func checkVersion(bin string) (string, error) {
	// screen -v exits 1 after printing its version.
	out, _ := exec.Command(bin, "-v").CombinedOutput()
	v, major, minor, ok := parseVersion(string(out))
	if !ok {
		return "", fmt.Errorf("screen at %s prints %q for -v, which this adapter cannot read: %w", bin, strings.TrimSpace(string(out)), ports.ErrUnavailable)
	}
	if major != minMajor || minor < minMinor {
		return "", fmt.Errorf("screen at %s is version %s; 4.06 to 4.x is required: %w", bin, v, ports.ErrUnavailable)
	}
	return v, nil
}

var versionRE = regexp.MustCompile(`Screen version (\d+)\.(\d+)(\.\d+)?`)

// parseVersion reads "Screen version 4.09.00 (GNU) 30-Jan-22".
func parseVersion(out string) (v string, major, minor int, ok bool) {
	m := versionRE.FindStringSubmatch(out)
	if m == nil {
		return "", 0, 0, false
	}
	major, _ = strconv.Atoi(m[1])
	minor, _ = strconv.Atoi(m[2])
	return strings.TrimPrefix(m[0], "Screen version "), major, minor, true
}

// childEnv is env without STY and WINDOW, which would make a screen child
// think it runs nested, and with SCREENDIR set to dir when dir is given.
func childEnv(env []string, dir string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if strings.HasPrefix(kv, "STY=") || strings.HasPrefix(kv, "WINDOW=") ||
			dir != "" && strings.HasPrefix(kv, "SCREENDIR=") {
			continue
		}
		out = append(out, kv)
	}
	if dir != "" {
		out = append(out, "SCREENDIR="+dir)
	}
	return out
}

// sessionRef is a session found by screen -ls.
type sessionRef struct {
	name string // "pid.name"
	pid  int
	dir  string // the socket directory
}

var (
	lsLineRE = regexp.MustCompile(`^\t(\d+)\.(\S+)\t`)
	lsDirRE  = regexp.MustCompile(`(?m)Sockets? in (.+?)\.?\s*$`)
)

// findSession runs screen -ls and picks the live session named want,
// either "pid.name" or "name", matched exactly.
func findSession(ctx context.Context, bin string, env []string, want string) (sessionRef, error) {
	cmd := exec.CommandContext(ctx, bin, "-ls")
	cmd.Env = env
	// screen -ls exits 1 even when it lists sessions.
	out, _ := cmd.Output()
	refs, dir := parseList(string(out))
	var found []sessionRef
	for _, r := range refs {
		if r.name == want || strings.SplitN(r.name, ".", 2)[1] == want {
			r.dir = dir
			found = append(found, r)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return sessionRef{}, fmt.Errorf("screen session %q not found: %w", want, ports.ErrUnavailable)
	default:
		return sessionRef{}, fmt.Errorf("screen session name %q is ambiguous (%d sessions); name one as pid.name: %w", want, len(found), ports.ErrUnavailable)
	}
}

// parseList reads the output of screen -ls: the live sessions, and the
// socket directory. Dead sessions and the sockets of queries in flight
// ("name-queryA") are left out.
func parseList(out string) (refs []sessionRef, dir string) {
	for _, line := range strings.Split(out, "\n") {
		m := lsLineRE.FindStringSubmatch(line)
		if m == nil || strings.Contains(line, "(Dead") || strings.HasSuffix(m[2], "-queryA") {
			continue
		}
		pid, _ := strconv.Atoi(m[1])
		refs = append(refs, sessionRef{name: m[1] + "." + m[2], pid: pid})
	}
	if m := lsDirRE.FindStringSubmatch(out); m != nil {
		dir = m[1]
	}
	return refs, dir
}

// A CommandError is a screen command that failed. It wraps
// ports.ErrPaneNotFound when screen could not find the window and
// ports.ErrUnavailable when the session did not answer.
type CommandError struct {
	Command string // the screen command, e.g. "stuff"
	Message string // what screen printed
	kind    error
}

func (e *CommandError) Error() string {
	if e.Message == "" {
		return "screen " + e.Command + ": failed"
	}
	return fmt.Sprintf("screen %s: %s", e.Command, e.Message)
}

func (e *CommandError) Unwrap() error { return e.kind }

// classify picks the sentinel that screen's message stands for.
func classify(msg string) error {
	switch {
	case strings.Contains(msg, "No screen session found"),
		strings.Contains(msg, "There is no screen to be"):
		return ports.ErrUnavailable
	case strings.Contains(msg, "Could not find pre-select window"):
		return ports.ErrPaneNotFound
	}
	return nil
}

// queryBusy tells that another -Q query of the session is in flight:
// screen answers every query through one socket, "<session>-queryA".
func queryBusy(msg string) bool {
	return strings.Contains(msg, "-queryA") && strings.Contains(msg, "already")
}

// run runs "screen -S session [-p window] <flag> args..." and returns
// its standard output. window < 0 names no window. Each run is bounded by
// Options.CommandTimeout: a query whose session died waits for ever.
func (t *Terminal) run(ctx context.Context, window int, flag string, args ...string) (string, error) {
	t.clientMu.Lock()
	defer t.clientMu.Unlock()
	cctx, cancel := context.WithTimeout(ctx, t.opts.CommandTimeout)
	defer cancel()
	argv := []string{"-S", t.session}
	if window >= 0 {
		argv = append(argv, "-p", strconv.Itoa(window))
	}
	argv = append(argv, flag)
	argv = append(argv, args...)
	cmd := exec.CommandContext(cctx, t.bin, argv...)
	cmd.Env = t.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err == nil {
		return stdout.String(), nil
	}
	if ctx.Err() != nil {
		return "", fmt.Errorf("screen %s: %w", args[0], ctx.Err())
	}
	msg := strings.TrimSpace(stderr.String() + " " + stdout.String())
	if cctx.Err() != nil {
		if flag == "-Q" {
			// The killed client leaves its answer socket behind, and
			// screen would refuse every later query while it is there.
			// It was this client's: had another query held the name,
			// this one would have failed at once instead of waiting.
			os.Remove(t.sockPath + "-queryA")
		}
		return "", &CommandError{Command: args[0], Message: strings.TrimSpace("no answer within " + t.opts.CommandTimeout.String() + " " + msg), kind: ports.ErrUnavailable}
	}
	return "", &CommandError{Command: args[0], Message: msg, kind: classify(msg)}
}

// command runs a screen command with -X, in window n (or none when n < 0).
// screen runs it later and reports nothing back: not even an unknown
// window is an error here, so callers check the window first.
func (t *Terminal) command(ctx context.Context, n int, args ...string) error {
	_, err := t.run(ctx, n, "-X", args...)
	return err
}

// query runs a screen command with -Q and returns its answer, which must
// not be empty. It retries for a while when another process's query holds
// screen's answer socket, or when the answer came back empty, which
// happens when a command of another process meets the query.
func (t *Terminal) query(ctx context.Context, args ...string) (string, error) {
	for attempt := 0; ; attempt++ {
		out, err := t.run(ctx, -1, "-Q", args...)
		var ce *CommandError
		switch {
		case err == nil && out != "":
			return out, nil
		case err != nil && (!errors.As(err, &ce) || !queryBusy(ce.Message)):
			return "", err
		case attempt >= 20:
			if err == nil {
				err = &CommandError{Command: args[0], Message: "empty answer", kind: ports.ErrUnavailable}
			}
			return "", err
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("screen %s: %w", args[0], ctx.Err())
		case <-time.After(time.Duration(attempt+1) * 5 * time.Millisecond):
		}
	}
}

// barrier returns once screen has carried out every -X command sent to
// it before: screen takes its clients in the order they connected.
func (t *Terminal) barrier(ctx context.Context) error {
	_, err := t.query(ctx, "echo", "-n", ".")
	return err
}

// privateFile returns a fresh path in the Terminal's private directory.
func (t *Terminal) privateFile(kind string) string {
	t.mu.Lock()
	t.seq++
	n := t.seq
	t.mu.Unlock()
	return filepath.Join(t.workDir, fmt.Sprintf("%s-%d", kind, n))
}

// checkOpen returns an error when the Terminal is closed.
func (t *Terminal) checkOpen() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return fmt.Errorf("%w: %w", ErrTerminalClosed, ports.ErrUnavailable)
	}
	return nil
}
