//go:build linux

package tmux

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// tmux (3.3a to 3.6a at least) crashes, with every session, when a pane is
// respawned while a control client is behind on its output and the new
// process then writes (tmux/tmux#5499). Here another program's control
// client never reads what tmux sends it, so it is behind for good: the
// respawn must leave the server running all the same.
func TestManagerRespawnSurvivesAControlClientThatIsBehind(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	p := s.session("main", []string{"sh", "-c", `while :; do printf '%04095d\n' 0; sleep 0.001; done`})
	term := s.terminal(Options{})
	ctx := testContext(t)
	stream, err := term.OpenOutput(ctx, p) // this Terminal's own client, reading
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()

	// The other program: its input held open, its output never read.
	slow := exec.Command(s.bin, "-L", s.sock, "-f", os.DevNull, "-C", "attach-session", "-t", "main")
	slow.Env = childEnv(os.Environ())
	stdin, err := slow.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	slow.Stdout = w
	if err := slow.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	t.Cleanup(func() {
		stdin.Close()
		r.Close()
		slow.Process.Kill()
		slow.Wait()
	})
	// Once its pipe is full and the pane has written far more than the
	// pipe and the socket behind it hold, tmux has output queued for it.
	const fGetPipeSize = 1032
	var capacity uintptr
	rc, _ := r.SyscallConn()
	rc.Control(func(fd uintptr) { capacity, _, _ = syscall.Syscall(syscall.SYS_FCNTL, fd, fGetPipeSize, 0) })
	eventually(t, 10*time.Second, "the slow client's pipe to fill", func() bool {
		var n int32
		rc.Control(func(fd uintptr) {
			syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCINQ, uintptr(unsafe.Pointer(&n)))
		})
		return uintptr(n) >= capacity/2
	})
	from := stream.End()
	eventually(t, 20*time.Second, "4 MiB more output", func() bool { return stream.End()-from >= 4<<20 })

	before := strings.TrimSpace(s.tmux("display-message", "-p", "-t", string(p), "#{pane_pid}"))
	if err := term.RespawnPane(ctx, p); err != nil {
		t.Fatal(err)
	}
	// The new process writes at once; tmux would crash reading it.
	eventually(t, 5*time.Second, "the respawned program's output on the screen", func() bool {
		out, err := s.tmuxErr("capture-pane", "-p", "-t", string(p))
		if err != nil {
			t.Fatalf("the tmux server is gone after the respawn: %v", err)
		}
		return strings.Contains(out, "0000000000")
	})
	after := strings.TrimSpace(s.tmux("display-message", "-p", "-t", string(p), "#{pane_pid}"))
	if after == before {
		t.Errorf("pane_pid is %s still; want a new process", after)
	}
	for range 5 {
		if _, err := s.tmuxErr("list-sessions"); err != nil {
			t.Fatalf("the tmux server is gone after the respawn: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
