package screen

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/ports"
	"github.com/tmux-mcp/tmux-mcp/test/gate"
)

// A window screen has just made has a process that is still a copy of the
// screen server: screen forks it and only then starts the window's program
// with WINDOW and STY in its environment. These tests stand in for both
// moments deterministically.

// birthHelperEnv makes the test binary, run again, act out a window's
// process being born: it stays a copy of its parent's program for a while,
// then executes the window's program (sleep) with WINDOW and STY set, as
// screen's fork does.
const birthHelperEnv = "SCREEN_TEST_BIRTH"

// The helper executes its program from the main thread, as screen's
// single-threaded fork does: executed from another thread of a Go
// process, the old thread-group leader shows as a zombie for a moment.
func init() {
	if os.Getenv(birthHelperEnv) != "" {
		runtime.LockOSThread()
	}
}

// actBirth is called by TestMain in the helper process.
func actBirth(spec string) {
	// spec is "DELAY_MS WINDOW STY".
	var ms, n int
	var sty string
	if _, err := fmt.Sscan(spec, &ms, &n, &sty); err != nil {
		os.Exit(2)
	}
	time.Sleep(time.Duration(ms) * time.Millisecond)
	env := []string{"WINDOW=" + strconv.Itoa(n), "STY=" + sty}
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		os.Exit(2)
	}
	syscall.Exec(sleep, []string{"sleep", "30"}, env)
	os.Exit(2)
}

// startBirth starts the helper as a child of this process, which plays the
// screen server, and returns its pid; it is killed when the test ends.
func startBirth(t *testing.T, delay time.Duration, window int, sty string) int {
	t.Helper()
	gate.Real(t, "a child that pretends to be a screen window")
	cmd := exec.Command("/proc/self/exe", "-test.run=^$")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"),
		birthHelperEnv + "=" + strconv.Itoa(int(delay/time.Millisecond)) + " " + strconv.Itoa(window) + " " + sty}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	return cmd.Process.Pid
}

func TestFindWindowProcessTellsAForkNotYetStarted(t *testing.T) {
	const sty = "4242.birth-test"
	pid := startBirth(t, 30*time.Second, 5, sty)
	if _, found, born := findWindowProcess(os.Getpid(), sty, 5); found || !born {
		t.Errorf("findWindowProcess = found %v, born %v; want the child %d seen as not yet started", found, born, pid)
	}
	if _, found, born := findWindowProcess(os.Getpid(), "4242.other", 5); found || !born {
		t.Errorf("for another session: found %v, born %v; want not found, born", found, born)
	}
}

func TestLookupWaitsForAWindowsProgramToStart(t *testing.T) {
	const sty = "4243.birth-test"
	pid := startBirth(t, 300*time.Millisecond, 7, sty)
	// This process plays the screen server whose child is window 7.
	term := &Terminal{serverPID: os.Getpid(), session: sty}
	st, found, err := term.windowProcess(t.Context(), 7)
	if err != nil || !found || st.pid != pid {
		t.Fatalf("windowProcess(7) = pid %d, found %v, %v; want the helper %d once it started its program", st.pid, found, err, pid)
	}
	if _, found, _ := findWindowProcess(os.Getpid(), sty, 8); found {
		t.Error("window 8 found; there is none")
	}
}

func TestWaitForWindowReturnsOnceTheProgramRuns(t *testing.T) {
	const sty = "4244.birth-test"
	pid := startBirth(t, 300*time.Millisecond, 0, sty)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	// This process plays the screen server of the session.
	if err := waitForWindow(ctx, sessionRef{name: sty, pid: os.Getpid()}, 0); err != nil {
		t.Fatalf("waitForWindow: %v", err)
	}
	if st, found, _ := findWindowProcess(os.Getpid(), sty, 0); !found || st.pid != pid {
		t.Errorf("after waitForWindow: found %v (pid %d); want window 0's program, the helper %d", found, st.pid, pid)
	}
}

func TestWaitForWindowGivesUpWhenNoProgramComes(t *testing.T) {
	gate.Real(t, "/proc and the wall clock")
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	err := waitForWindow(ctx, sessionRef{name: "4245.nobody", pid: os.Getpid()}, 3)
	if !errors.Is(err, ports.ErrUnavailable) {
		t.Errorf("waitForWindow for a window nobody starts = %v, want ErrUnavailable", err)
	}
}
