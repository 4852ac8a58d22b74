package tty

import (
	"testing"
)

func TestParseSyscallReadsTheCallAndItsArguments(t *testing.T) {
	// As /proc/PID/syscall shows a read(0, buf, 1) and a pselect6.
	sc, ok := ParseSyscall("0 0x0 0x7ffd5a3c1b17 0x1 0x0 0x0 0x0 0x7ffd5a3c1ae8 0x7f3c2b1147e2\n")
	if !ok || sc.Nr != 0 || len(sc.Args) != 6 || sc.Args[0] != 0 || sc.Args[2] != 1 {
		t.Errorf("ParseSyscall(read) = %+v, %v", sc, ok)
	}
	sc, ok = ParseSyscall("270 0x1 0x7ffc 0x0 0x0 0x0 0x0 0x7ffc 0x7f00")
	if !ok || sc.Nr != 270 || sc.Args[0] != 1 {
		t.Errorf("ParseSyscall(pselect6) = %+v, %v", sc, ok)
	}
	for _, bad := range []string{"", "running", "-1 0x7ffc 0x7f00", "0 zz"} {
		if sc, ok := ParseSyscall(bad); ok {
			t.Errorf("ParseSyscall(%q) = %+v, true; want not read", bad, sc)
		}
	}
}

func TestWhatCountsAsReadingTheTerminal(t *testing.T) {
	cooked := Mode{Echo: true, Canonical: true}
	raw := Mode{}
	tty := func(fds ...int) func(int) bool {
		return func(fd int) bool {
			for _, f := range fds {
				if f == fd {
					return true
				}
			}
			return false
		}
	}
	holds := func() bool { return true }
	none := func() bool { return false }
	wait := -1
	for nr := range waitsOnMany {
		wait = nr
		break
	}
	for _, c := range []struct {
		name  string
		sc    Syscall
		mode  Mode
		isTTY func(int) bool
		holds func() bool
		want  bool
	}{
		{"read -s: a read of standard input, the terminal", Syscall{Nr: sysRead, Args: []uint64{0, 0, 1}}, Mode{Canonical: true}, tty(0), holds, true},
		{"less: a read of /dev/tty, its fd 3", Syscall{Nr: sysRead, Args: []uint64{3, 0, 1}}, raw, tty(0, 3), holds, true},
		{"cat of a pipe or a heredoc: fd 0 is not the terminal", Syscall{Nr: sysRead, Args: []uint64{0, 0, 1}}, cooked, tty(1, 2), holds, false},
		{"vi: a wait on several files, raw", Syscall{Nr: wait, Args: []uint64{1}}, raw, tty(0), holds, true},
		{"a wait on several files, the terminal canonical: a sleep by select", Syscall{Nr: wait, Args: []uint64{0}}, cooked, tty(0), holds, false},
		{"a wait by a process that does not hold the terminal", Syscall{Nr: wait, Args: []uint64{1}}, raw, tty(), none, false},
		{"sleep: another call", Syscall{Nr: 230, Args: []uint64{0}}, cooked, tty(0), holds, false},
	} {
		if sysRead < 0 || wait < 0 {
			t.Skip("no system call numbers for this system")
		}
		if got := ReadsTerminal(c.sc, c.mode, c.isTTY, c.holds); got != c.want {
			t.Errorf("%s: ReadsTerminal = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestTheWaitChannelStandsInForTheSystemCall(t *testing.T) {
	holds := func() bool { return true }
	for _, c := range []struct {
		wchan    string
		mode     Mode
		stdinTTY bool
		want     bool
	}{
		{"wait_woken", Mode{Canonical: true}, true, true},
		{"n_tty_read\n", Mode{Canonical: true, Echo: true}, true, true},
		{"wait_woken", Mode{Canonical: true}, false, false},       // a socket's wait, stdin elsewhere
		{"poll_schedule_timeout.constprop.0", Mode{}, true, true}, // vi, readline
		{"poll_schedule_timeout.constprop.0", Mode{Canonical: true}, true, false},
		{"anon_pipe_read", Mode{Canonical: true}, false, false},   // sleep 30 | cat
		{"hrtimer_nanosleep", Mode{Canonical: true}, true, false}, // sleep
		{"do_wait", Mode{}, true, false},                          // a shell waiting for its child
	} {
		if got := WaitsOnTerminal(c.wchan, c.mode, c.stdinTTY, holds); got != c.want {
			t.Errorf("WaitsOnTerminal(%q, %+v, stdin tty %v) = %v, want %v", c.wchan, c.mode, c.stdinTTY, got, c.want)
		}
	}
}

func TestSleepingReadsTheStateAfterTheName(t *testing.T) {
	if !Sleeping("42 (a) R (b) S 1 42 42 34816 42") {
		t.Error("a sleeping process whose name holds parentheses")
	}
	if Sleeping("42 (cat) R 1 42") || Sleeping("42 (cat") || Sleeping("") {
		t.Error("a running process, or no stat, is not sleeping")
	}
}
