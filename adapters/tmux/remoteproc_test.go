package tmux

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/clock"
	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/adapters/internal/tty"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/ports"
	"github.com/tmux-mcp/tmux-mcp/test/sshtest"
)

// The remote reader for real: procScript under the POSIX shells a host's
// /bin/sh may be, and the Terminal's JobControl over the private sshd on
// loopback, whose "remote" host is this one, so that what it reads there
// can be held to what adapters/internal/tty reads here.

// readerShells are the shells /bin/sh may be on a remote host, each as
// it runs a script given with -c.
var readerShells = [][]string{
	{"dash"}, {"bash", "--posix"}, {"bash"}, {"mksh"}, {"zsh", "--emulate", "sh"}, {"ksh"}, {"busybox", "sh"}, {"yash"}, {"posh"},
}

// startLocalReader runs procScript under argv here, as ssh runs it
// there, and returns its session once it has said hello.
func startLocalReader(t *testing.T, argv []string) *procSession {
	t.Helper()
	return startReaderCmd(t, exec.Command(argv[0], append(argv[1:], "-c", procScript)...))
}

// startReaderCmd starts cmd, a reader, and returns its session once it
// has said hello; it is closed when the test ends.
func startReaderCmd(t *testing.T, cmd *exec.Cmd) *procSession {
	t.Helper()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := newProcSession(stdin, func() { cmd.Process.Kill() })
	br := bufio.NewReader(stdout)
	h, err := greet(br)
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("%q said no hello: %v", cmd.Args, err)
	}
	s.hello = h
	go s.read(br, func() error { return cmd.Wait() })
	t.Cleanup(func() { s.close() })
	return s
}

// ask asks one question of a session and fails the test if it cannot.
func askOne(t *testing.T, s *procSession, verb string, args ...int) []string {
	t.Helper()
	out, err := s.ask(testContext(t), 10*time.Second, []procQuery{{verb, args}})
	if err != nil {
		t.Fatalf("ask %s %v: %v", verb, args, err)
	}
	return out[0]
}

// sameForeground reports whether two Foregrounds say the same.
func sameForeground(a, b ports.Foreground) bool {
	return a.Group == b.Group && slices.Equal(a.Children, b.Children) && (a.Children == nil) == (b.Children == nil) &&
		slices.Equal(a.Args, b.Args) && (a.Args == nil) == (b.Args == nil)
}

// procScript answers in every POSIX shell here what adapters/internal/tty
// reads of the same processes and terminal: the foreground of a pane's
// shell at its prompt and while a pipeline it started runs (children,
// command lines with a line feed, a quote and bytes that are not UTF-8),
// the terminal's device and mode. A process whose name holds ")" and a
// line feed does not confuse it. What is not a question of its own is
// answered "!", and no byte of it reaches a shell as a command.
func TestProcScriptAnswersAsTheLocalReadsInEveryShell(t *testing.T) {
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
	canary := filepath.Join(t.TempDir(), "ran")
	type state struct {
		fg      ports.Foreground
		editing bool
	}
	local := func() state {
		fg, err := tty.Foreground(pid, dev)
		if err != nil {
			t.Fatal(err)
		}
		editing, err := tty.LineEditing(path)
		if err != nil {
			t.Fatal(err)
		}
		return state{fg, editing}
	}
	atPrompt := local()
	// A pipeline in front, its leader's command line awkward, with a
	// child of its own; its last command renames itself (where python3
	// can).
	last := "sleep 602"
	_, err = exec.LookPath("python3")
	python := err == nil
	if python {
		last = `python3 -c 'import ctypes,time; ctypes.CDLL(None).prctl(15, b"x)\ny) S 9", 0, 0, 0); time.sleep(600)'`
	}
	s.tmux("send-keys", "-t", string(p), "-l", `sh -c 'sleep 600; : "it'"'"'s"' "$(printf 'a\nb\377')" | (sleep 601; true) | `+last)
	s.tmux("send-keys", "-t", string(p), "Enter")
	var running state
	eventually(t, 10*time.Second, "the pipeline in front, its leader running sleep", func() bool {
		running = local()
		return running.fg.Group != pid && len(running.fg.Children) == 1 && len(running.fg.Args) == 4
	})
	t.Cleanup(func() { s.tmux("send-keys", "-t", string(p), "C-c") })
	renamed := 0
	eventually(t, 10*time.Second, "python to rename itself", func() bool {
		if !python {
			return true
		}
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			n, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			if b, _ := os.ReadFile("/proc/" + e.Name() + "/comm"); string(b) == "x)\ny) S 9\n" {
				if st, err := tty.ReadStat(n); err == nil && st.Pgrp == running.fg.Group {
					renamed = n
					return true
				}
			}
		}
		return false
	})

	ran := 0
	for _, argv := range readerShells {
		if _, err := exec.LookPath(argv[0]); err != nil {
			continue
		}
		ran++
		t.Run(strings.Join(argv, " "), func(t *testing.T) {
			r := startLocalReader(t, argv)
			if !r.hello.proc || r.hello.pid <= 0 {
				t.Fatalf("hello = %+v; want /proc told, and the reader's pid", r.hello)
			}
			// The shells whose read splits at NULs read command lines
			// themselves; dash has od do it.
			if nuls := !slices.Contains([]string{"dash", "posh", "busybox"}, argv[0]); r.hello.nuls != nuls {
				t.Errorf("hello = %+v; want nuls %v for %s", r.hello, nuls, argv[0])
			}
			gotDev, err := procDevice(askOne(t, r, "dev", pts))
			if err != nil || gotDev != dev {
				t.Errorf("dev %d = %d, %v; want %d", pts, gotDev, err, dev)
			}
			fg, err := procForeground(pid, dev, r.hello, askOne(t, r, "fg", pid))
			if err != nil || !sameForeground(fg, running.fg) {
				t.Errorf("fg %d = %#v, %v; want what is read here: %#v", pid, fg, err, running.fg)
			}
			alive, editing, err := procMode(askOne(t, r, "mode", pid, pts))
			if err != nil || alive != 1 || editing != running.editing {
				t.Errorf("mode = %d, %v, %v; want alive, editing %v", alive, editing, err, running.editing)
			}
			// The renamed process is its own group's member, not its
			// leader: asked about itself, its stat is read all the same.
			if renamed > 0 {
				if fg, err := procForeground(renamed, dev, r.hello, askOne(t, r, "fg", renamed)); err != nil || !sameForeground(fg, running.fg) {
					t.Errorf("fg of a process named %q = %+v, %v; want its group's, %+v", "x)\ny) S 9", fg, err, running.fg)
				}
			}
			if _, err := procForeground(procMaxArg, dev, r.hello, askOne(t, r, "fg", procMaxArg)); !errors.Is(err, tty.ErrNoProc) {
				t.Errorf("fg of no process = %v, want ErrNoProc", err)
			}
			// Lines no Go caller writes: each is refused, nothing runs,
			// and a line without a number first ends the reader.
			bad := []string{
				"1 fg 0", "1 fg -1", "1 fg 01", "1 fg 12345678901", "1 fg 1234567890", "1 fg 1 2", "1 mode 1", "1 dev", "1 rm 1",
				"1 fg $(touch " + canary + ")", "1 fg `touch " + canary + "`", "1 fg 1;touch " + canary, "1 dev *",
				"1 mode 1 1;touch " + canary, "1 fg 1\ttouch " + canary, "1 dev ../../etc/passwd",
			}
			cmd := exec.Command(argv[0], append(argv[1:], "-c", procScript)...)
			cmd.Stdin = strings.NewReader(strings.Join(bad, "\n") + "\nx fg 1\n1 dev 0\n")
			out, err := cmd.Output()
			if err == nil {
				t.Errorf("the reader exited 0 after a line that is no question; want it to end with a failure")
			}
			want := "!\n. 1\n"
			if got := string(out); !strings.HasSuffix(got, strings.Repeat(want, len(bad))) || strings.Count(got, "\n") != 1+2*len(bad) {
				t.Errorf("the reader answered the bad lines with\n%s\nwant \"!\" for each, and nothing after the line without a number", got)
			}
			if _, err := os.Stat(canary); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("a question's text ran as a command: %s exists", canary)
			}
		})
	}
	if ran == 0 {
		t.Fatal("no POSIX shell to run procScript under")
	}
	s.tmux("send-keys", "-t", string(p), "C-c")
	eventually(t, 10*time.Second, "the shell back at its prompt, its children gone", func() bool { return sameForeground(local().fg, atPrompt.fg) })
	r := startLocalReader(t, []string{"sh"})
	if fg, err := procForeground(pid, dev, r.hello, askOne(t, r, "fg", pid)); err != nil || !sameForeground(fg, local().fg) || !sameForeground(fg, atPrompt.fg) {
		t.Errorf("fg at the prompt = %#v, %v; want %#v", fg, err, local().fg)
	}
	if _, editing, err := procMode(askOne(t, r, "mode", pid, pts)); err != nil || editing != local().editing {
		t.Errorf("mode at the prompt = %v, %v; want %v", editing, err, local().editing)
	}
}

// The reader's remote command line, run as sshd runs it (by the login
// shell, with -c), starts the reader under bash where it is, so that no
// question about the foreground starts a process, and under /bin/sh where
// no such shell is found.
func TestProcCommandPicksAShellThatReadsNULs(t *testing.T) {
	newTestServer(t) // for gate.Real: it starts processes
	// run starts the reader with PATH set to path and returns its hello
	// and the name of the program it runs under.
	run := func(path string) (procHello, string) {
		t.Helper()
		cmd := exec.Command("/bin/sh", "-c", procCommand())
		cmd.Env = append(os.Environ(), "PATH="+path, "BASH_ENV=/nonexistent/bash_env")
		h := startReaderCmd(t, cmd).hello
		args := tty.ReadArgs(h.pid)
		if len(args) == 0 {
			t.Fatalf("PATH=%s: the reader %d has no command line", path, h.pid)
		}
		return h, filepath.Base(args[0])
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash here")
	}
	if h, prog := run(filepath.Dir(bash) + ":/usr/bin:/bin"); !h.nuls || prog != "bash" {
		t.Errorf("with bash on PATH the reader = %+v under %s; want it under bash, whose read splits at NULs", h, prog)
	}
	// A PATH with od and stty, and no bash.
	dir := t.TempDir()
	for _, tool := range []string{"od", "stat", "stty", "cat"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(p, filepath.Join(dir, tool)); err != nil {
			t.Fatal(err)
		}
	}
	if h, prog := run(dir); h.nuls || !h.proc || prog != "sh" {
		t.Errorf("without bash the reader = %+v under %s; want it under /bin/sh, reading with od", h, prog)
	}
}

// Over ssh, Foreground and LineEditing tell what they tell locally, of
// the same panes: a shell at its prompt, a command in front, a pane whose
// process was replaced. They are asked of one reader session, which runs
// no process per question and no tmux process at all.
func TestSSHJobControlTellsWhatIsToldLocally(t *testing.T) {
	inEachShellOverSSH(t, func(t *testing.T, d *sshtest.Server, s *testServer, p ports.PaneID, shell []string) {
		local, remote := s.terminal(Options{}), s.sshTerminal(d, Options{})
		ctx := testContext(t)
		same := func(what string) {
			t.Helper()
			var l, r ports.Foreground
			var le, re bool
			var lerr, rerr, leErr, reErr error
			// Between two reads the pane may change; what is told of
			// a pane that stands still is the same.
			eventually(t, 10*time.Second, what+": the same foreground and mode over ssh as here", func() bool {
				l, lerr = local.Foreground(ctx, p)
				r, rerr = remote.Foreground(ctx, p)
				le, leErr = local.LineEditing(ctx, p)
				re, reErr = remote.LineEditing(ctx, p)
				return lerr == nil && rerr == nil && leErr == nil && reErr == nil && sameForeground(l, r) && le == re
			})
		}
		same("at the prompt")
		before := remote.processes.Load()
		for range 20 {
			if _, err := remote.Foreground(ctx, p); err != nil {
				t.Fatal(err)
			}
		}
		if n := remote.processes.Load() - before; n != 0 {
			t.Errorf("20 questions ran %d tmux processes, want none", n)
		}
		if n := remote.proc.starts.Load(); n != 1 {
			t.Errorf("%d reader sessions started, want one for every question", n)
		}

		s.tmux("send-keys", "-t", string(p), "sleep 600", "Enter")
		eventually(t, 10*time.Second, "sleep in front", func() bool {
			fg, err := local.Foreground(ctx, p)
			return err == nil && slices.Equal(fg.Args, []string{"sleep", "600"})
		})
		same("sleep in front")
		if editing, err := remote.LineEditing(ctx, p); err != nil || editing {
			t.Errorf("LineEditing while sleep runs = %v, %v; want false", editing, err)
		}
		fg, err := remote.Foreground(ctx, p)
		if err != nil || !slices.Equal(fg.Args, []string{"sleep", "600"}) {
			t.Errorf("Foreground over ssh while sleep runs = %+v, %v", fg, err)
		}

		// A new process in the pane: the remembered one has no entry
		// any more, and tmux is asked for the new one.
		s.tmux(append([]string{"respawn-pane", "-k", "-t", string(p)}, shell...)...)
		s.waitPrompt(p)
		same("after respawn-pane")
		if _, err := remote.Foreground(ctx, "%999"); !errors.Is(err, ports.ErrPaneNotFound) {
			t.Errorf("Foreground of no pane = %v, want ErrPaneNotFound", err)
		}
		if _, err := remote.LineEditing(ctx, "%999"); !errors.Is(err, ports.ErrPaneNotFound) {
			t.Errorf("LineEditing of no pane = %v, want ErrPaneNotFound", err)
		}
	})
}

// inEachShellOverSSH runs test with a private sshd and, for bash and
// then dash, a server whose one pane runs that shell, at its prompt.
func inEachShellOverSSH(t *testing.T, test func(t *testing.T, d *sshtest.Server, s *testServer, p ports.PaneID, shell []string)) {
	d := newSSHD(t, sshtest.Options{})
	for _, sh := range []struct {
		name string
		argv []string
	}{{"bash", bashCmd}, {"dash", dashCmd}} {
		t.Run(sh.name, func(t *testing.T) {
			s := newTestServer(t)
			p := s.session("main", sh.argv)
			s.waitPrompt(p)
			test(t, d, s, p, sh.argv)
		})
	}
}

// A command that replaced itself with exec and then got C-c (or a SIGINT
// from elsewhere) dies of a signal that the frame's trap, gone with the
// exec, does not catch: the shell drops the rest of its line, end marker
// and all. The run sees the shell back at its prompt with no status
// written and frees the pane, over ssh as locally, and the next command
// runs. A SIGKILL the shell survives, and the frame ends with 137.
func TestSSHAFrameTheShellGaveUpFreesThePaneAsLocally(t *testing.T) {
	d := newSSHD(t, sshtest.Options{})
	type way struct {
		name   string
		signal func(s *testServer, p ports.PaneID, sleep int)
		status *int // nil: given up
	}
	killed := 137
	ways := []way{
		{"C-c", func(s *testServer, p ports.PaneID, _ int) { s.tmux("send-keys", "-t", string(p), "C-c") }, nil},
		{"SIGINT from another process", func(_ *testServer, _ ports.PaneID, sleep int) { syscall.Kill(sleep, syscall.SIGINT) }, nil},
		{"SIGKILL from another process", func(_ *testServer, _ ports.PaneID, sleep int) { syscall.Kill(sleep, syscall.SIGKILL) }, &killed},
	}
	for _, where := range []string{"local", "ssh"} {
		for name, shell := range map[string][]string{"bash": bashCmd, "dash": dashCmd} {
			for _, w := range ways {
				t.Run(where+"/"+name+"/"+w.name, func(t *testing.T) {
					t.Parallel()
					s := newTestServer(t)
					p := s.session("main", shell)
					s.waitPrompt(p)
					here := s.terminal(Options{})
					term := here
					if where == "ssh" {
						term = s.sshTerminal(d, Options{})
					}
					svc, _ := leasingService(t, term, "server-a")
					done := make(chan domain.RunResult, 1)
					go func() {
						res, err := svc.RunShellCommand(context.Background(), domain.RunRequest{PaneID: p, Command: "echo started; exec sleep 30", TimeoutMs: 15_000})
						if err != nil {
							t.Errorf("RunShellCommand: %v", err)
						}
						done <- res
					}()
					var sleep int
					eventually(t, 10*time.Second, "sleep in front", func() bool {
						fg, err := here.Foreground(context.Background(), p)
						sleep = fg.Group
						return err == nil && slices.Equal(fg.Args, []string{"sleep", "30"})
					})
					w.signal(s, p, sleep)
					var res domain.RunResult
					select {
					case res = <-done:
					case <-time.After(14 * time.Second):
						t.Fatal("the run did not end after its command died")
					}
					if w.status == nil {
						if res.Outcome != domain.OutcomeCompleted || res.ExitStatus != nil || !res.Abandoned || res.StillRunning || res.OutputComplete {
							t.Fatalf("the run whose frame the shell gave up = %+v; want completed, status unknown, abandoned, the pane free", res)
						}
					} else if res.Outcome != domain.OutcomeCompleted || res.ExitStatus == nil || *res.ExitStatus != *w.status || res.Abandoned {
						t.Fatalf("the run whose command was killed = %+v; want completed with %d", res, *w.status)
					}
					if !strings.HasPrefix(res.Output, "started") {
						t.Errorf("output %q, want the command's", res.Output)
					}
					select {
					case <-svc.Released(p):
					case <-time.After(5 * time.Second):
						t.Fatal("the pane is still held")
					}
					s.waitPrompt(p)
					next, err := svc.RunShellCommand(testContext(t), domain.RunRequest{PaneID: p, Command: "echo next", TimeoutMs: 15_000})
					if err != nil || next.Outcome != domain.OutcomeCompleted || next.Output != "next" {
						t.Errorf("the next run = %+v, %v; want completed with its output", next, err)
					}
				})
			}
		}
	}
}

// A command that prints its own end marker, secret and all, and goes on
// running, does not end its call over ssh either: an end marker that
// comes while the command still runs is false, which the remote reader
// tells, and the call waits for the real end; the secret being out, it
// does not take that end's status on a marker's word. (The ids come from a counter, so
// the command knows them; see test/realpanes_test.go for the same
// locally.)
func TestSSHAForgedEndIsIgnored(t *testing.T) {
	inEachShellOverSSH(t, func(t *testing.T, d *sshtest.Server, s *testServer, p ports.PaneID, _ []string) {
		svc := domain.NewService(s.sshTerminal(d, Options{}), clock.New(), fake.NewIDs(), domain.DefaultConfig())
		t.Cleanup(func() { svc.Close() })
		// Ids: instance fakeid00000001; frame fakeid00000002, secret
		// fakeid00000003fakeid00000004.
		forged := `printf '\033]7717;tmcp;E;fakeid00000002;fakeid00000003fakeid00000004;0\007'; echo still running; sleep 1; exit 7`
		res, err := svc.RunShellCommand(testContext(t), domain.RunRequest{PaneID: p, Command: forged, TimeoutMs: 20_000})
		if err != nil {
			t.Fatal(err)
		}
		if res.Outcome != domain.OutcomeCompleted || res.ExitStatus != nil || !res.Unverified || !res.ForeignOutputSuspected {
			t.Fatalf("a command that printed its own end marker = %+v; want completed at the real end, its status not taken, flagged", res)
		}
		if res.Output != "still running" {
			t.Errorf("output %q, want \"still running\"", res.Output)
		}
	})
}

// No question waits longer than Options.CommandTimeout: a reader that
// stops answering (here, stopped) fails the question in time, with an
// error that is not ErrUnsupported (the domain would do without the
// foreground for good), and the next question starts a reader anew. A
// master that died is connected again for the next question.
func TestSSHReaderThatStopsAnsweringFailsInTimeAndIsReplaced(t *testing.T) {
	d := newSSHD(t, sshtest.Options{})
	s := newTestServer(t)
	p := s.session("main", bashCmd)
	s.waitPrompt(p)
	const timeout = 2 * time.Second
	term := s.sshTerminal(d, Options{CommandTimeout: timeout})
	ctx := testContext(t)
	want, err := term.Foreground(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	h, err := term.proc.hello(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The "remote" reader is a process here.
	if err := syscall.Kill(h.pid, syscall.SIGSTOP); err != nil {
		t.Fatalf("stop the reader %d: %v", h.pid, err)
	}
	t.Cleanup(func() { syscall.Kill(h.pid, syscall.SIGKILL) })
	asked := time.Now()
	_, err = term.Foreground(ctx, p)
	took := time.Since(asked)
	if err == nil || errors.Is(err, ports.ErrUnsupported) || !errors.Is(err, ports.ErrNoAnswer) {
		t.Errorf("Foreground of a stopped reader = %v; want ErrNoAnswer, not ErrUnsupported", err)
	}
	if took > timeout+3*time.Second {
		t.Errorf("Foreground of a stopped reader returned after %v; want it within the command timeout, %v", took, timeout)
	}
	var got ports.Foreground
	eventually(t, 15*time.Second, "Foreground from a new reader", func() bool {
		got, err = term.Foreground(ctx, p)
		return err == nil
	})
	if !sameForeground(got, want) || term.proc.starts.Load() < 2 {
		t.Errorf("the next Foreground = %+v (%d readers started); want the shell's, from a second reader", got, term.proc.starts.Load())
	}

	link := term.launch.ssh
	if err := syscall.Kill(link.pid, syscall.SIGKILL); err != nil {
		t.Fatalf("kill the ssh master: %v", err)
	}
	eventually(t, 5*time.Second, "the master to die", func() bool { return !running(link.pid) })
	eventually(t, 10*time.Second, "Foreground after the master died", func() bool {
		got, err = term.Foreground(ctx, p)
		if errors.Is(err, ports.ErrUnsupported) {
			t.Fatalf("Foreground after the master died = %v; a lost connection is no host that cannot tell", err)
		}
		return err == nil
	})
	if !sameForeground(got, want) || link.connects.Load() < 2 {
		t.Errorf("Foreground after the master died = %+v (%d connections); want the shell's, over a new master", got, link.connects.Load())
	}
}

// A reader that nobody asked anything for Options.IdleTimeout ends,
// giving its ssh session back; the next question starts another.
func TestSSHIdleReaderEnds(t *testing.T) {
	d := newSSHD(t, sshtest.Options{})
	s := newTestServer(t)
	p := s.session("main", bashCmd)
	s.waitPrompt(p)
	term := s.sshTerminal(d, Options{IdleTimeout: 200 * time.Millisecond})
	ctx := testContext(t)
	if _, err := term.Foreground(ctx, p); err != nil {
		t.Fatal(err)
	}
	// The session the question used, without asking (which would keep
	// it, or start another).
	term.proc.mu.Lock()
	s1 := term.proc.sess
	term.proc.mu.Unlock()
	if s1 == nil {
		t.Fatal("no reader session after a question")
	}
	eventually(t, 10*time.Second, "the idle reader to exit", func() bool { return s1.ended() && !running(s1.hello.pid) })
	before := term.proc.starts.Load()
	if _, err := term.Foreground(ctx, p); err != nil || term.proc.starts.Load() != before+1 {
		t.Errorf("Foreground after the reader went idle = %v with %d readers started, %d before; want one more", err, term.proc.starts.Load(), before)
	}
}
