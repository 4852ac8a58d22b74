package tmux

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

func TestCaptureUsesThePortsRowNumbers(t *testing.T) {
	t.Parallel()
	term, p := rowsPane(t)
	ctx := testContext(t)

	cases := []struct {
		name string
		r    ports.CaptureRange
		want []string
	}{
		{"visible screen, empty last row kept", ports.CaptureRange{Start: 0, End: 4},
			[]string{"line7", "line8", "12345678901234567890", "12345", ""}},
		{"newest history row", ports.CaptureRange{Start: -1, End: -1}, []string{"line6"}},
		{"all history", ports.CaptureRange{Start: -6, End: -1},
			[]string{"line1", "line2", "line3", "line4", "line5", "line6"}},
		{"history into the screen", ports.CaptureRange{Start: -2, End: 1},
			[]string{"line5", "line6", "line7", "line8"}},
		{"bottom rows", ports.CaptureRange{Start: 3, End: 4}, []string{"12345", ""}},
		{"joined", ports.CaptureRange{Start: -1, End: 4, JoinWrapped: true},
			[]string{"line6", "line7", "line8", "1234567890123456789012345", ""}},
	}
	for _, c := range cases {
		rows, err := term.Capture(ctx, p, c.r)
		if err != nil {
			t.Fatalf("%s: Capture: %v", c.name, err)
		}
		if !slices.Equal(rows, c.want) {
			t.Errorf("%s: Capture(%+v) = %q, want %q", c.name, c.r, rows, c.want)
		}
	}
}

// CaptureScreen describes the pane and captures its screen in one command
// line over a control client, and starts no process: capture_pane's
// default in one round trip.
func TestCaptureScreenIsOneRoundTrip(t *testing.T) {
	t.Parallel()
	term, p := rowsPane(t)
	ctx := testContext(t)
	stream, err := term.OpenOutput(ctx, p) // a control client to talk to
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()

	lines, processes := term.controlLines.Load(), term.processes.Load()
	info, rows, err := term.CaptureScreen(ctx, p, false)
	if err != nil {
		t.Fatal(err)
	}
	if n, m := term.controlLines.Load()-lines, term.processes.Load()-processes; n != 1 || m != 0 {
		t.Errorf("CaptureScreen took %d command lines and %d processes, want 1 and none", n, m)
	}
	if want := []string{"line7", "line8", "12345678901234567890", "12345", ""}; info.ID != p || info.Height != 5 || info.Width != 20 ||
		info.HistorySize != 6 || !slices.Equal(rows, want) {
		t.Errorf("CaptureScreen = %+v, %q; want pane %s, 20x5 with 6 history rows, and %q", info, rows, p, want)
	}
	if _, rows, err := term.CaptureScreen(ctx, p, true); err != nil || !slices.Equal(rows, []string{"line7", "line8", "1234567890123456789012345", ""}) {
		t.Errorf("CaptureScreen joining wrapped rows = %q, %v; want the long line whole", rows, err)
	}
}

func TestCaptureHasNoEscapesOrTrailingBlanks(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	p := s.session("main", []string{"sh", "-c", `printf '\033[1;31mred\033[0m   \n  indented  \n'; exec sleep 600`})
	term := s.terminal(Options{})
	ctx := testContext(t)
	var rows []string
	eventually(t, 5*time.Second, "the printed rows", func() bool {
		var err error
		rows, err = term.Capture(ctx, p, ports.CaptureRange{Start: 0, End: 2, JoinWrapped: true})
		return err == nil && len(rows) == 3 && rows[0] != ""
	})
	if want := []string{"red", "  indented", ""}; !slices.Equal(rows, want) {
		t.Errorf("Capture = %q, want %q", rows, want)
	}
}

// rowsPane starts a 20x5 pane that prints eight lines, one of 25
// characters that wraps onto two rows, and leaves the cursor on an empty
// row: rows 0..4 show line7, line8, the wrapped line's two rows and the
// empty row, and history holds line1 to line6. It returns once the pane
// shows all that.
func rowsPane(t *testing.T) (*Terminal, ports.PaneID) {
	t.Helper()
	// Its Terminal polls the panes it records hourly, so that no poll
	// falls into a count of command lines.
	s := newTestServer(t)
	script := "i=1; while [ $i -le 8 ]; do echo line$i; i=$((i+1)); done; echo 1234567890123456789012345; exec sleep 600"
	p := ports.PaneID(strings.TrimSpace(s.tmux("new-session", "-d", "-s", "main", "-x", "20", "-y", "5",
		"-P", "-F", "#{pane_id}", "sh", "-c", script)))
	term := s.terminal(Options{PollInterval: time.Hour})
	ctx := testContext(t)
	eventually(t, 5*time.Second, "the script's output", func() bool {
		info, err := term.Pane(ctx, p)
		return err == nil && info.HistorySize == 6
	})
	return term, p
}

// A client that attaches holds attachGate, for as long as tmux takes to
// answer it (over ssh, a round trip on a slow link). A capture waits for
// none: over a client already attached, or as a process while the only
// client is still attaching.
func TestCaptureNeverWaitsForAClientThatAttaches(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	p := s.session("main", []string{"sh", "-c", "echo ready; exec sleep 600"})
	s.waitScreen(p, "ready", func(screen string) bool { return strings.Contains(screen, "ready") })
	// capture captures the pane's first row while term's attachGate is
	// held, as an attaching client holds it, and lets go of the gate
	// when it returns or after five seconds.
	capture := func(term *Terminal) error {
		term.attachGate.Lock()
		done := make(chan error, 1)
		go func() {
			rows, err := term.Capture(testContext(t), p, ports.CaptureRange{Start: 0, End: 0})
			if err == nil && (len(rows) != 1 || rows[0] != "ready") {
				err = fmt.Errorf("rows %q, want ready", rows)
			}
			done <- err
		}()
		select {
		case err := <-done:
			term.attachGate.Unlock()
			return err
		case <-time.After(5 * time.Second):
			term.attachGate.Unlock()
			<-done
			return errors.New("still waiting after 5s")
		}
	}

	attached := s.terminal(Options{})
	stream, err := attached.OpenOutput(testContext(t), p)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	noProcess(t, attached, "Capture over the attached client", func() { err = capture(attached) })
	if err != nil {
		t.Errorf("Capture while another client attaches: %v", err)
	}

	alone := s.terminal(Options{})
	alone.mu.Lock()
	alone.attaching++ // its first client, still attaching
	alone.mu.Unlock()
	err = capture(alone)
	alone.mu.Lock()
	alone.attaching--
	alone.mu.Unlock()
	if err != nil {
		t.Errorf("Capture while the only client attaches: %v", err)
	}
}
