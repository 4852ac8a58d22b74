package tmux

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/internal/tty"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// procScript's "last", "ps", "rd" and "who" answer, in every POSIX shell
// here, what adapters/internal/tty reads of the same processes: what a
// shell started in the background since a mark (and not what it started
// before), and who of the job in front reads the terminal, with echo on
// and off, and that nothing does while a command sleeps.
func TestProcScriptTellsWhatWasLeftAndWhoReadsAsTheLocal(t *testing.T) {
	s := newTestServer(t)
	p := s.session("main", bashCmd)
	s.waitPrompt(p)
	pid, _ := strconv.Atoi(strings.TrimSpace(s.tmux("display-message", "-p", "-t", string(p), "#{pane_pid}")))
	path := strings.TrimSpace(s.tmux("display-message", "-p", "-t", string(p), "#{pane_tty}"))
	pts, err := ptsNumber(path)
	if err != nil {
		t.Skipf("the pane's terminal %s: %v", path, err)
	}
	dev, err := tty.Device(path)
	if err != nil {
		t.Fatal(err)
	}
	typed := func(line string) {
		s.tmux("send-keys", "-t", string(p), "-l", line)
		s.tmux("send-keys", "-t", string(p), "Enter")
	}
	typed("sleep 611 &")
	s.waitPrompt(p)
	mark, err := tty.LastPID()
	if err != nil {
		t.Skipf("no /proc/loadavg: %v", err)
	}
	typed("sleep 612 &")
	t.Cleanup(func() { typed("kill %1 %2") })
	s.waitPrompt(p)
	commands := func(ps []ports.Process) []string {
		var c []string
		for _, p := range ps {
			c = append(c, strconv.Itoa(p.PID)+" "+p.Command)
		}
		slices.Sort(c)
		return c
	}
	var local []ports.Process
	eventually(t, 10*time.Second, "the second sleep listed here, not young", func() bool {
		upto, _ := tty.LastPID()
		local, err = tty.Started(mark, upto, dev)
		return err == nil && len(local) == 1 && strings.Contains(local[0].Command, "sleep 612") && !local[0].Young
	})
	// readingHere is what tty.Reading tells, once it tells want.
	readingHere := func(what string, want func(ports.Reading) bool) ports.Reading {
		var r ports.Reading
		eventually(t, 10*time.Second, what, func() bool {
			r, err = tty.Reading(pid, dev, path)
			return err == nil && want(r)
		})
		return r
	}
	remoteReading := func(r *procSession) (ports.Reading, error) {
		ctx := testContext(t)
		ask := func(ctx context.Context, qs ...procQuery) ([][]string, error) { return r.ask(ctx, 10*time.Second, qs) }
		calls, sleepers, err := procSleepers(pid, dev, askOne(t, r, "rd", pid, pts))
		if err != nil {
			return ports.Reading{}, err
		}
		return readingOf(ctx, ask, pid, pts, calls, sleepers)
	}
	var readers []*procSession
	for _, argv := range readerShells {
		if _, err := exec.LookPath(argv[0]); err == nil {
			readers = append(readers, startLocalReader(t, argv))
		}
	}
	if len(readers) == 0 {
		t.Fatal("no POSIX shell to run procScript under")
	}
	for i, r := range readers {
		if n, err := procLastPID(askOne(t, r, "last")); err != nil || n < mark {
			t.Errorf("reader %d: last = %d, %v; want at least %d", i, n, err, mark)
		}
		alive, ps, err := procStarted(mark, dev, askOne(t, r, "ps", pid, mark, int(dev)))
		if err != nil || alive != 1 || !slices.Equal(commands(ps), commands(local)) {
			t.Errorf("reader %d: ps since %d = %d, %q, %v; want alive and what is read here: %q", i, mark, alive, commands(ps), err, commands(local))
		}
		if _, all, err := procStarted(0, dev, askOne(t, r, "ps", pid, 0, int(dev))); err != nil || len(all) < 3 {
			t.Errorf("reader %d: ps since 0 = %q, %v; want the shell and both sleeps", i, commands(all), err)
		}
	}

	// A process with more threads than "ps" lists processes is one
	// process: its threads, whose ids are given out as process ids are,
	// are not counted.
	if exe, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output(); err == nil {
		// The interpreter itself, not a wrapper (pyenv's) that would
		// start many processes first.
		python := strings.TrimSpace(string(exe))
		mark, _ := tty.LastPID()
		typed(python + ` -c 'import threading, time; [threading.Thread(target=time.sleep, args=(600,), daemon=True).start() for _ in range(80)]; time.sleep(600)' &`)
		t.Cleanup(func() { typed("kill %3") })
		var local []ports.Process
		eventually(t, 10*time.Second, "python and its 80 threads listed here as one process", func() bool {
			upto, _ := tty.LastPID()
			local, err = tty.Started(mark, upto, dev)
			return err == nil && upto-mark > 80 && len(local) == 1 && strings.Contains(local[0].Command, "-c import threading") && !local[0].Young
		})
		for i, r := range readers {
			if _, ps, err := procStarted(mark, dev, askOne(t, r, "ps", pid, mark, int(dev))); err != nil || !slices.Equal(commands(ps), commands(local)) {
				t.Errorf("reader %d: ps of a process with 80 threads = %q, %v; want %q", i, commands(ps), err, commands(local))
			}
		}
	}

	typed("sleep 613")
	here := readingHere("sleep in front, reading nothing", func(r ports.Reading) bool { fg, _ := tty.Foreground(pid, dev); return !r.Blocked && fg.Group != pid })
	for i, r := range readers {
		if got, err := remoteReading(r); err != nil || got.Blocked != here.Blocked {
			t.Errorf("reader %d: reading during sleep = %+v, %v; want %+v", i, got, err, here)
		}
	}
	s.tmux("send-keys", "-t", string(p), "C-c")
	s.waitPrompt(p)
	for _, c := range []struct {
		line string
		echo bool
	}{{"cat", true}, {"stty -echo; cat; stty echo", false}} {
		typed(c.line)
		here := readingHere(c.line+" reading", func(r ports.Reading) bool { return r.Blocked && r.Program == "cat" && r.Echo == c.echo })
		for i, r := range readers {
			got, err := remoteReading(r)
			if err != nil || got != here {
				t.Errorf("reader %d: reading of %q = %+v, %v; want what is read here: %+v", i, c.line, got, err, here)
			}
		}
		s.tmux("send-keys", "-t", string(p), "C-d")
		s.waitPrompt(p)
	}
	// less reads its keys from /dev/tty, waiting in poll with the
	// terminal in raw mode: the mode is what tells it.
	if _, err := exec.LookPath("less"); err == nil {
		typed("less -X /etc/passwd")
		here := readingHere("less polling its /dev/tty", func(r ports.Reading) bool { return r.Blocked && r.Program == "less" && !r.Canonical })
		for i, r := range readers {
			if got, err := remoteReading(r); err != nil || got != here {
				t.Errorf("reader %d: reading of less = %+v, %v; want what is read here: %+v", i, got, err, here)
			}
		}
		s.tmux("send-keys", "-t", string(p), "q")
		s.waitPrompt(p)
	}
}

// What no Go caller writes of the new verbs is refused in every shell,
// and nothing of it runs.
func TestProcScriptRefusesBadQuestionsOfTheNewVerbs(t *testing.T) {
	newTestServer(t) // for gate.Real: it starts processes
	canary := filepath.Join(t.TempDir(), "ran")
	bad := []string{
		"1 last 1", "1 ps 1 2", "1 ps 0 1 2", "1 ps 1 2 0", "1 ps 1 -1 2", "1 ps 1 2 3 4", "1 rd 1", "1 rd 0 1", "1 rd 1 2 3",
		"1 who", "1 who 0", "1 who 1 2", "1 ps 1 $(touch " + canary + ") 2", "1 rd 1 *", "1 who 1;touch " + canary,
	}
	for _, argv := range readerShells {
		if _, err := exec.LookPath(argv[0]); err != nil {
			continue
		}
		cmd := exec.Command(argv[0], append(argv[1:], "-c", procScript)...)
		cmd.Stdin = strings.NewReader(strings.Join(bad, "\n") + "\n")
		out, err := cmd.Output()
		if err != nil {
			t.Errorf("%s: the reader failed: %v", argv, err)
		}
		if got, want := string(out), strings.Repeat("!\n. 1\n", len(bad)); !strings.HasSuffix(got, want) || strings.Count(got, "\n") != 1+2*len(bad) {
			t.Errorf("%s: the reader answered the bad lines with\n%s\nwant \"!\" for each", argv, got)
		}
	}
	if _, err := os.Stat(canary); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a question's text ran as a command: %s exists", canary)
	}
}
