package tmux

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/adapters/internal/tty"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// The remote reader's protocol and the parsing of its answers, without a
// process: questions are written as procScript reads them, answers are
// read as it prints them, and a session talks to a remote played here
// over pipes. procScript itself meets real shells in remoteproc_test.go.

func TestProcQueriesAreAVerbAndNumbersOnly(t *testing.T) {
	for _, tt := range []struct {
		q    procQuery
		want string
	}{
		{procQuery{"fg", []int{4242}}, "7 fg 4242\n"},
		{procQuery{"dev", []int{0}}, "7 dev 0\n"},
		{procQuery{"mode", []int{1, 12}}, "7 mode 1 12\n"},
		{procQuery{"fg", []int{procMaxArg}}, "7 fg 999999999\n"},
	} {
		if got, err := tt.q.line(7); err != nil || got != tt.want {
			t.Errorf("%+v.line(7) = %q, %v; want %q", tt.q, got, err, tt.want)
		}
	}
	for _, q := range []procQuery{
		{"fg", []int{0}},              // no process 0: kill -0 0 would signal a group
		{"mode", []int{0, 3}},         // likewise
		{"fg", []int{-1}},             // kill -0 -1 would signal every process
		{"dev", []int{-3}},            // not a number procScript takes
		{"fg", []int{procMaxArg + 1}}, // longer than procScript takes
		{"fg", nil},                   // too few
		{"fg", []int{1, 2}},           // too many
		{"rm", []int{1}},              // no such verb
		{"fg;id", []int{1}},           // nor anything shaped like more
		{"", nil},
	} {
		if line, err := q.line(1); err == nil {
			t.Errorf("%+v.line = %q, want it refused before anything is sent", q, line)
		}
	}
}

func TestProcHelloIsTheReadersFirstLine(t *testing.T) {
	for line, want := range map[string]procHello{
		"tmux-mcp-proc 1 1 0 1 812": {proc: true, nuls: true, pid: 812},
		"tmux-mcp-proc 1 0 0 0 9":   {pid: 9},
		"tmux-mcp-proc 1 1 1 0 77":  {proc: true, hides: true, pid: 77},
	} {
		if got, ok := parseHello(line); !ok || got != want {
			t.Errorf("parseHello(%q) = %+v, %v; want %+v", line, got, ok, want)
		}
	}
	for _, line := range []string{"", "tmux-mcp-proc 2 1 0 0 5", "tmux-mcp-proc 1 1 0 5", "tmux-mcp-proc 1 yes 0 0 5",
		"tmux-mcp-proc 1 1 0 0 0", "tmux-mcp-proc 1 1 0 0 x", "tmux-mcp-proc 1 1 0 2 5", "Welcome to the host!", "tmux-mcp-proc 1 1 0 0 5 6"} {
		if got, ok := parseHello(line); ok {
			t.Errorf("parseHello(%q) = %+v, want not the reader's line", line, got)
		}
	}
}

// statRest is what procScript prints of /proc/PID/stat after the
// command name: state ppid pgrp session tty_nr tpgid and more.
func statRest(pgrp, ttyNr, tpgid int) string {
	return fmt.Sprintf("s S 1 %d %d %d %d 4194560 0 0 0", pgrp, pgrp, ttyNr, tpgid)
}

// odLines prints b as od -An -v -tx1 does.
func odLines(b string) []string {
	var lines []string
	for len(b) > 0 {
		n := min(len(b), 16)
		var l strings.Builder
		for _, c := range []byte(b[:n]) {
			fmt.Fprintf(&l, " %02x", c)
		}
		lines = append(lines, l.String())
		b = b[n:]
	}
	return lines
}

func answer(parts ...any) []string {
	var lines []string
	for _, p := range parts {
		switch p := p.(type) {
		case string:
			lines = append(lines, p)
		case []string:
			lines = append(lines, p...)
		}
	}
	return lines
}

func TestProcForegroundReadsWhatTheReaderPrinted(t *testing.T) {
	const pid, dev = 100, 34823
	bashArgs := odLines("-bash\x00")
	long := odLines(strings.Repeat("x", procArgsMax) + "\x00")
	for _, tt := range []struct {
		name  string
		hello procHello
		lines []string
		want  ports.Foreground
	}{
		{"a shell at its prompt", procHello{proc: true},
			answer(statRest(100, dev, 100), "k 100 ", "a 100", bashArgs, "e 100 ok"),
			ports.Foreground{Group: 100, Children: []int{}, Args: []string{"-bash"}}},
		{"a command in front, its leader with children", procHello{proc: true},
			answer(statRest(100, dev, 230), "k 230 231 232", "a 230", odLines("make\x00-j\x00\x00"), "e 230 ok"),
			ports.Foreground{Group: 230, Children: []int{231, 232}, Args: []string{"make", "-j", ""}}},
		{"a command line with a line feed and bytes that are not UTF-8", procHello{proc: true},
			answer(statRest(100, dev, 230), "k 230", "a 230", odLines("sh\x00-c\x00a\nb\xff\x00"), "e 230 ok"),
			ports.Foreground{Group: 230, Children: []int{}, Args: []string{"sh", "-c", "a\nb\xff"}}},
		{"children that cannot be read", procHello{proc: true},
			answer(statRest(100, dev, 100), "k 100 ?", "a 100", bashArgs, "e 100 ok"),
			ports.Foreground{Group: 100, Args: []string{"-bash"}}},
		{"children that are not numbers", procHello{proc: true},
			answer(statRest(100, dev, 100), "k 100 12 x", "a 100", bashArgs, "e 100 ok"),
			ports.Foreground{Group: 100, Args: []string{"-bash"}}},
		{"a zombie leader: an empty command line", procHello{proc: true},
			answer(statRest(100, dev, 230), "k 230 ", "a 230", "e 230 ok"),
			ports.Foreground{Group: 230, Children: []int{}, Args: []string{}}},
		{"a leader that has exited", procHello{proc: true},
			answer(statRest(100, dev, 230), "k 230 ?", "a 230", "e 230 -"),
			ports.Foreground{Group: 230, Args: []string{}}},
		{"a leader gone between its children and its command line", procHello{proc: true},
			answer(statRest(100, dev, 230), "k 230 ", "a 230", "e 230 -"),
			ports.Foreground{Group: 230, Args: []string{}}},
		{"a leader not seen where /proc hides others", procHello{proc: true, hides: true},
			answer(statRest(100, dev, 230), "k 230 ?", "a 230", "e 230 -"),
			ports.Foreground{Group: 230}},
		{"a command line that cannot be read", procHello{proc: true},
			answer(statRest(100, dev, 230), "k 230 ", "a 230", "e 230 ?"),
			ports.Foreground{Group: 230, Children: []int{}}},
		{"a command line longer than is read", procHello{proc: true},
			answer(statRest(100, dev, 230), "k 230 ", "a 230", long, "e 230 ok"),
			ports.Foreground{Group: 230, Children: []int{}}},
		{"raw arguments, read with read -d", procHello{proc: true, nuls: true},
			answer(statRest(100, dev, 230), "k 230 ", "a 230", "=sh", "=-c", "=a\nb\xff", "=", "e 230 ok"),
			ports.Foreground{Group: 230, Children: []int{}, Args: []string{"sh", "-c", "a\nb\xff", ""}}},
		{"no raw arguments: a zombie", procHello{proc: true, nuls: true},
			answer(statRest(100, dev, 230), "k 230 ", "a 230", "e 230 ok"),
			ports.Foreground{Group: 230, Children: []int{}, Args: []string{}}},
		{"raw arguments longer than is read", procHello{proc: true, nuls: true},
			answer(statRest(100, dev, 230), "k 230 ", "a 230", "="+strings.Repeat("x", procArgsMax), "e 230 ok"),
			ports.Foreground{Group: 230, Children: []int{}}},
		{"raw arguments the reader cut", procHello{proc: true, nuls: true},
			answer(statRest(100, dev, 230), "k 230 ", "a 230", "=x", "e 230 +"),
			ports.Foreground{Group: 230, Children: []int{}}},
		{"raw arguments mixed with od's lines", procHello{proc: true, nuls: true},
			answer(statRest(100, dev, 230), "k 230 ", "a 230", "=sh", " 62 00", "e 230 ok"),
			ports.Foreground{Group: 230, Children: []int{}}},
		{"od's output in another shape", procHello{proc: true},
			answer(statRest(100, dev, 230), "k 230 ", "a 230", "0000000 062 141", "e 230 ok"),
			ports.Foreground{Group: 230, Children: []int{}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := procForeground(pid, dev, tt.hello, tt.lines)
			if err != nil || got.Group != tt.want.Group || !slices.Equal(got.Children, tt.want.Children) ||
				(got.Children == nil) != (tt.want.Children == nil) || !slices.Equal(got.Args, tt.want.Args) ||
				(got.Args == nil) != (tt.want.Args == nil) {
				t.Errorf("procForeground = %#v, %v; want %#v", got, err, tt.want)
			}
		})
	}
}

func TestProcForegroundTellsWhatItCannotSee(t *testing.T) {
	const pid, dev = 100, 34823
	hello := procHello{proc: true}
	for _, tt := range []struct {
		name  string
		lines []string
		want  []error // every one wrapped; none: a plain error (the reader misbehaved)
	}{
		{"a process without an entry", answer("s -"), []error{tty.ErrNoProc, ports.ErrUnsupported}},
		{"a stat that cannot be read", answer("s ?"), []error{ports.ErrUnsupported}},
		{"a process on another terminal", answer(statRest(100, dev+1, 100), "k 100 ", "a 100", "e 100 ok"), []error{ports.ErrUnsupported}},
		{"a process without a terminal", answer(statRest(100, 0, -1)), []error{ports.ErrUnsupported}},
		{"a stat of too few fields", answer("s S 1 2"), []error{ports.ErrUnsupported}},
		{"a stat that is not numbers", answer("s S 1 x 3 34823 5"), []error{ports.ErrUnsupported}},
		{"nothing", nil, nil},
		{"a refusal", answer("!"), nil},
		{"no group's lines after the stat", answer(statRest(100, dev, 100)), nil},
		{"another group's lines", answer(statRest(100, dev, 100), "k 101 ", "a 101", "e 101 ok"), nil},
		{"a group whose number goes on", answer(statRest(100, dev, 100), "k 1000 ", "a 100", "e 100 ok"), nil},
		{"no end of the command line", answer(statRest(100, dev, 100), "k 100 ", "a 100", " 62 61"), nil},
		{"an end that says nothing known", answer(statRest(100, dev, 100), "k 100 ", "a 100", "e 100 maybe"), nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fg, err := procForeground(pid, dev, hello, tt.lines)
			if err == nil {
				t.Fatalf("procForeground = %+v, want an error", fg)
			}
			for _, want := range tt.want {
				if !errors.Is(err, want) {
					t.Errorf("procForeground: %v; want it to wrap %v", err, want)
				}
			}
			if len(tt.want) == 0 && errors.Is(err, ports.ErrUnsupported) {
				// The domain would do without the foreground for good.
				t.Errorf("procForeground: %v; a reader that misbehaves is no host that cannot tell", err)
			}
		})
	}
}

func TestProcDeviceIsEncodedAsProcWritesATerminal(t *testing.T) {
	for line, want := range map[string]uint64{
		"d 88 7": 34823, // /dev/pts/7: 136, 7
		"d 88 0": 34816, // the stat in tty's tests
		"d 4 1":  1025,  // /dev/tty1
	} {
		if got, err := procDevice([]string{line}); err != nil || got != want {
			t.Errorf("procDevice(%q) = %d, %v; want %d", line, got, err, want)
		}
	}
	if got, _ := procDevice([]string{"d 88 12c"}); got != (300&0xff)|136<<8|(300&^0xff)<<12 {
		t.Errorf("procDevice of minor 300 = %#x", got)
	}
	if _, err := procDevice([]string{"d ?"}); !errors.Is(err, ports.ErrUnsupported) {
		t.Errorf("procDevice(d ?) = %v, want ErrUnsupported", err)
	}
	if _, err := procDevice([]string{"d 1000 0"}); !errors.Is(err, ports.ErrUnsupported) {
		t.Errorf("procDevice of a major /proc cannot write = %v, want ErrUnsupported", err)
	}
	for _, bad := range [][]string{nil, {"d 88"}, {"d 88 7", "d 88 8"}, {"x 88 7"}, {"d 88 zz"}, {"!"}} {
		if _, err := procDevice(bad); err == nil || errors.Is(err, ports.ErrUnsupported) {
			t.Errorf("procDevice(%q) = %v, want an error of the reader's, not ErrUnsupported", bad, err)
		}
	}
}

// GNU stty -a of a terminal a line editor has set, and of one in
// canonical mode; BSD's shape of the same.
var (
	gnuRaw = []string{
		"speed 38400 baud; rows 24; columns 80; line = 0;",
		"intr = ^C; quit = ^\\; erase = ^?; kill = ^U; eof = ^D; eol = <undef>;",
		"-parenb -parodd -cmspar cs8 -hupcl -cstopb cread -clocal -crtscts",
		"isig -icanon iexten -echo echoe echok -echonl -noflsh -xcase -tostop -echoprt",
		"echoctl echoke -flusho -extproc",
	}
	gnuCooked = []string{
		"speed 38400 baud; rows 24; columns 80; line = 0;",
		"isig icanon iexten echo echoe echok -echonl -noflsh -xcase -tostop -echoprt",
	}
	bsdRaw = []string{
		"speed 9600 baud; 24 rows; 80 columns;",
		"lflags: -icanon isig iexten -echo echoe -echok echoke -echonl echoctl",
		"\t-echoprt -altwerase -noflsh -tostop -flusho pendin -nokerninfo",
	}
)

func TestProcModeReadsIcanonAndEchoFromStty(t *testing.T) {
	for _, tt := range []struct {
		name    string
		lines   []string
		alive   int
		editing bool
	}{
		{"GNU, a line editor reading", answer("p 1", "t", gnuRaw, "x ok"), 1, true},
		{"GNU, canonical", answer("p 1", "t", gnuCooked, "x ok"), 1, false},
		{"BSD, a line editor reading", answer("p ?", "t", bsdRaw, "x ok"), -1, true},
		{"echo off alone is no line editor", answer("p 1", "t", "isig icanon -echo echoe", "x ok"), 1, false},
		{"canonical off alone is no line editor", answer("p 0", "t", "isig -icanon echo echoe", "x ok"), 0, false},
	} {
		alive, editing, err := procMode(tt.lines)
		if err != nil || alive != tt.alive || editing != tt.editing {
			t.Errorf("%s: procMode = %d, %v, %v; want %d, %v", tt.name, alive, editing, err, tt.alive, tt.editing)
		}
	}
	// echoe, echok and -echonl are other flags: neither says echo.
	if _, _, err := procMode(answer("p 1", "t", "isig -icanon echoe echok -echonl", "x ok")); !errors.Is(err, ports.ErrUnsupported) {
		t.Errorf("procMode without echo = %v, want ErrUnsupported", err)
	}
	if alive, _, err := procMode(answer("p 0", "t", "x ?")); !errors.Is(err, ports.ErrUnsupported) || alive != 0 {
		t.Errorf("procMode of a failed stty = %d, %v; want 0, ErrUnsupported", alive, err)
	}
	for _, bad := range [][]string{nil, answer("p 1", "t"), answer("p 2", "t", gnuRaw, "x ok"), answer("p 1", gnuRaw, "x ok"),
		answer("p 1", "t", gnuRaw), answer("!")} {
		if _, _, err := procMode(bad); err == nil || errors.Is(err, ports.ErrUnsupported) {
			t.Errorf("procMode(%q) = %v, want an error of the reader's, not ErrUnsupported", bad, err)
		}
	}
}

// fakeRemote plays procScript's side of a session: it answers each
// question line with what answer says, and can be told to misbehave.
type fakeRemote struct {
	answer func(id, question string) []string
	sess   *procSession
	in     *bufio.Reader  // the questions
	out    *io.PipeWriter // the answers
	killed atomic.Bool
	asked  chan string // every question line, as it comes
}

// newFakeRemote starts a session on a remote whose answers answer gives
// (nil: it reads the question and does not answer).
func newFakeRemote(t *testing.T, answer func(id, question string) []string) *fakeRemote {
	t.Helper()
	qr, qw := io.Pipe()
	ar, aw := io.Pipe()
	f := &fakeRemote{answer: answer, in: bufio.NewReader(qr), out: aw, asked: make(chan string, 1000)}
	f.sess = newProcSession(qw, func() {
		f.killed.Store(true)
		qr.Close()
		aw.Close()
	})
	go f.sess.read(bufio.NewReader(ar), func() error { return fmt.Errorf("remote reader: exited: %w", ports.ErrUnavailable) })
	go func() {
		for {
			line, err := f.in.ReadString('\n')
			if err != nil {
				aw.Close()
				return
			}
			line = strings.TrimSuffix(line, "\n")
			f.asked <- line
			id, question, _ := strings.Cut(line, " ")
			if answer == nil {
				continue
			}
			lines := answer(id, question)
			if lines == nil {
				continue
			}
			eof := lines[len(lines)-1] == "EOF"
			if eof {
				lines = lines[:len(lines)-1]
			}
			io.WriteString(aw, strings.Join(lines, "\n")+"\n")
			if eof {
				aw.Close()
			}
		}
	}()
	t.Cleanup(func() { f.sess.fail(errors.New("test over")) })
	return f
}

// echoing answers every question with the question itself, so that each
// asker can tell its own answer.
func echoing(id, question string) []string { return []string{"q " + question, ". " + id} }

func TestProcSessionAnswersEachAskerItsOwnQuestion(t *testing.T) {
	f := newFakeRemote(t, echoing)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 25 {
				pid := 1 + g*100 + i
				out, err := f.sess.ask(context.Background(), timeoutNever, []procQuery{{"fg", []int{pid}}, {"dev", []int{g}}})
				want := [][]string{{fmt.Sprintf("q fg %d", pid)}, {fmt.Sprintf("q dev %d", g)}}
				if err != nil || len(out) != 2 || !slices.Equal(out[0], want[0]) || !slices.Equal(out[1], want[1]) {
					t.Errorf("ask(fg %d, dev %d) = %q, %v; want %q", pid, g, out, err, want)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestProcSessionAskedSeveralQuestionsWritesThemAtOnce(t *testing.T) {
	f := newFakeRemote(t, echoing)
	// Both questions were written before the first answer was read.
	if _, err := f.sess.ask(context.Background(), timeoutNever, []procQuery{{"dev", []int{3}}, {"fg", []int{9}}}); err != nil {
		t.Fatal(err)
	}
	if a, b := <-f.asked, <-f.asked; a != "1 dev 3" || b != "2 fg 9" {
		t.Errorf("the remote was asked %q and %q; want them numbered in order", a, b)
	}
}

func TestProcSessionEndsAtAnAnswerToAnotherQuestion(t *testing.T) {
	f := newFakeRemote(t, func(id, question string) []string { return []string{"s -", ". 99"} })
	_, err := f.sess.ask(context.Background(), timeoutNever, []procQuery{{"fg", []int{5}}})
	if err == nil || !strings.Contains(err.Error(), "not the one asked") {
		t.Fatalf("ask = %v; want the session ended by an answer to no question asked", err)
	}
	if !f.sess.ended() || !f.killed.Load() {
		t.Error("the session goes on after its answers lost their order")
	}
	if _, err := f.sess.ask(context.Background(), timeoutNever, []procQuery{{"fg", []int{5}}}); !errors.Is(err, errProcNotSent) {
		t.Errorf("ask on the ended session = %v, want errProcNotSent", err)
	}
}

func TestProcSessionEndsWhenItsOutputEnds(t *testing.T) {
	f := newFakeRemote(t, func(id, question string) []string {
		return nil // read, never answered
	})
	done := make(chan error, 1)
	go func() {
		_, err := f.sess.ask(context.Background(), timeoutNever, []procQuery{{"fg", []int{5}}})
		done <- err
	}()
	<-f.asked
	f.out.Close() // the connection went away
	if err := <-done; !errors.Is(err, ports.ErrUnavailable) || errors.Is(err, ports.ErrUnsupported) {
		t.Errorf("ask across a lost connection = %v; want ErrUnavailable, never ErrUnsupported", err)
	}
}

func TestProcSessionBoundsAnAnswersLines(t *testing.T) {
	f := newFakeRemote(t, func(id, question string) []string {
		lines := make([]string, procAnswerMax+1)
		for i := range lines {
			lines[i] = " 00"
		}
		return append(lines, ". "+id)
	})
	if _, err := f.sess.ask(context.Background(), timeoutNever, []procQuery{{"fg", []int{5}}}); err == nil || !f.sess.ended() {
		t.Errorf("ask with an endless answer = %v, ended %v; want an error and the session ended", err, f.sess.ended())
	}
}

func TestProcSessionLeftByACancelledAskerServesTheNext(t *testing.T) {
	release := make(chan struct{})
	f := newFakeRemote(t, func(id, question string) []string {
		if question == "fg 1" {
			<-release // answered only once its asker has left
		}
		return echoing(id, question)
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := f.sess.ask(ctx, timeoutNever, []procQuery{{"fg", []int{1}}})
		done <- err
	}()
	<-f.asked
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled ask = %v, want context.Canceled", err)
	}
	close(release)
	out, err := f.sess.ask(context.Background(), timeoutNever, []procQuery{{"fg", []int{2}}})
	if err != nil || len(out) != 1 || !slices.Equal(out[0], []string{"q fg 2"}) {
		t.Errorf("the next ask = %q, %v; want its own answer, the late one going to no one", out, err)
	}
}

// timeoutNever is a timeout no unit test meets.
const timeoutNever = 1 << 62

func TestProcReaderStartsOneSessionAndReplacesAnEndedOne(t *testing.T) {
	var sessions []*fakeRemote
	var mu sync.Mutex
	fail := errors.New("cannot start")
	failing := false
	p := &procReader{timeout: timeoutNever, idle: timeoutNever, start: func(ctx context.Context) (*procSession, error) {
		mu.Lock()
		defer mu.Unlock()
		if failing {
			return nil, fail
		}
		f := newFakeRemote(t, echoing)
		f.sess.hello = procHello{proc: true, pid: 100 + len(sessions)}
		sessions = append(sessions, f)
		return f.sess, nil
	}}
	defer p.close()
	var wg sync.WaitGroup
	for i := range 10 {
		wg.Go(func() {
			if _, err := p.ask(context.Background(), procQuery{"fg", []int{i + 1}}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n := p.starts.Load(); n != 1 {
		t.Fatalf("ten questions at once started %d sessions, want 1", n)
	}
	// The session ends (the connection was lost): the next question is
	// asked on a new one, as nothing of it reached the old.
	sessions[0].sess.fail(errors.New("lost"))
	out, err := p.ask(context.Background(), procQuery{"dev", []int{4}})
	if err != nil || !slices.Equal(out[0], []string{"q dev 4"}) || p.starts.Load() != 2 {
		t.Fatalf("ask after the session ended = %q, %v with %d starts; want its answer from a second session", out, err, p.starts.Load())
	}
	if h, err := p.hello(context.Background()); err != nil || h.pid != 101 {
		t.Errorf("hello = %+v, %v; want the second session's", h, err)
	}
	// A start that fails is remembered for a while: questions fail at
	// once with its error rather than each starting ssh again.
	sessions[1].sess.fail(errors.New("lost"))
	mu.Lock()
	failing = true
	mu.Unlock()
	for range 3 {
		if _, err := p.ask(context.Background(), procQuery{"dev", []int{4}}); !errors.Is(err, fail) {
			t.Fatalf("ask when the reader cannot start = %v, want its error", err)
		}
	}
	if n := p.starts.Load(); n != 3 {
		t.Errorf("%d starts, want 3: a failed start is not tried again at once", n)
	}
	p.close()
	if _, err := p.ask(context.Background(), procQuery{"dev", []int{4}}); !errors.Is(err, ErrTerminalClosed) {
		t.Errorf("ask after close = %v, want ErrTerminalClosed", err)
	}
}

func TestPtsNumberIsTheOnlyTerminalAsked(t *testing.T) {
	for path, want := range map[string]int{"/dev/pts/0": 0, "/dev/pts/7": 7, "/dev/pts/4093": 4093} {
		if got, err := ptsNumber(path); err != nil || got != want {
			t.Errorf("ptsNumber(%q) = %d, %v; want %d", path, got, err, want)
		}
	}
	for _, path := range []string{"/dev/ttys003", "/dev/pts/07", "/dev/pts/", "/dev/pts/-1", "/dev/pts/1/../../x", "/dev/pts/1 2",
		"/dev/pts/99999999999", "/dev/tty1"} {
		if n, err := ptsNumber(path); !errors.Is(err, ports.ErrUnsupported) {
			t.Errorf("ptsNumber(%q) = %d, %v; want ErrUnsupported", path, n, err)
		}
	}
}

// The remote command of the reader is fixed text and procScript, in
// single quotes: no client text is in it, and the questions come on its
// standard input.
func TestProcReaderRunsItsFixedScriptOnly(t *testing.T) {
	quoted := shellQuote(procScript)
	if words, err := posixWords(quoted); err != nil || len(words) != 1 || words[0] != procScript {
		t.Fatalf("the quoted script reads back as %q (%v)", words, err)
	}
	line := procCommand()
	if got := strings.ReplaceAll(line, quoted, "S"); got != `unset BASH_ENV; if command -v bash >/dev/null 2>&1; then exec bash -c S; fi; exec /bin/sh -c S` {
		t.Errorf("the reader's command line, its script as S, is %s", got)
	}
}

// Raw bytes after a line "b" are items of "+", bytes and NUL, up to a
// line feed: any byte but NUL, line feeds and what looks like the end of
// an answer included, is an argument's.
func TestProcSessionReadsRawItems(t *testing.T) {
	f := newFakeRemote(t, func(id, question string) []string {
		switch question {
		case "fg 1":
			return []string{"a 1", "b\n+sh\x00+-c\x00+x\n. " + id + "\n\xff\x00+\x00", "e 1 ok", ". " + id}
		case "fg 2":
			return []string{"b\n+x", ". " + id, "EOF"} // no NUL ends the item
		default:
			return []string{"b\n-x\x00", ". " + id}
		}
	})
	out, err := f.sess.ask(context.Background(), timeoutNever, []procQuery{{"fg", []int{1}}})
	want := []string{"a 1", "=sh", "=-c", "=x\n. 1\n\xff", "=", "e 1 ok"}
	if err != nil || !slices.Equal(out[0], want) {
		t.Fatalf("ask = %q, %v; want %q", out, err, want)
	}
	for _, pid := range []int{2, 3} {
		g := newFakeRemote(t, f.answer)
		if _, err := g.sess.ask(context.Background(), timeoutNever, []procQuery{{"fg", []int{pid}}}); err == nil || !g.sess.ended() {
			t.Errorf("fg %d: ask = %v, want the session ended by raw bytes out of shape", pid, err)
		}
	}
}
