package tty

import "testing"

// A remote host's system calls are told by its own table: a read of the
// terminal on an arm64 host is call 63, which on x86_64 is uname.
func TestCallsOfAMachineAreThatMachinesNumbers(t *testing.T) {
	onTTY := func(fd int) bool { return fd == 0 }
	holds := func() bool { return true }
	readFd0 := func(nr int) Syscall { return Syscall{Nr: nr, Args: []uint64{0, 0, 1}} }
	cooked := Mode{Canonical: true, Echo: true}
	for _, c := range []struct {
		machine string
		read    int
		poll    int
	}{{"x86_64", 0, 7}, {"aarch64", 63, 73}, {"riscv64", 63, 73}, {"armv7l", 3, 168}, {"i686", 3, 168}} {
		calls, ok := CallsOf(c.machine)
		if !ok {
			t.Fatalf("CallsOf(%q): not known", c.machine)
		}
		if !calls.ReadsTerminal(readFd0(c.read), cooked, onTTY, holds) {
			t.Errorf("%s: a read (%d) of the terminal is not one", c.machine, c.read)
		}
		if !calls.ReadsTerminal(Syscall{Nr: c.poll, Args: []uint64{1}}, Mode{}, onTTY, holds) {
			t.Errorf("%s: a wait (%d) on the terminal in raw mode is not one", c.machine, c.poll)
		}
		if calls.ReadsTerminal(Syscall{Nr: c.poll, Args: []uint64{1}}, cooked, onTTY, holds) {
			t.Errorf("%s: a wait (%d) with the terminal canonical is taken for a read", c.machine, c.poll)
		}
	}
	if a, _ := CallsOf("aarch64"); a.ReadsTerminal(readFd0(0), cooked, onTTY, holds) {
		t.Error("on aarch64, call 0 (io_setup) is taken for a read")
	}
	if calls, ok := CallsOf("s390x"); ok || calls.ReadsTerminal(readFd0(3), cooked, onTTY, holds) || calls.ReadsTerminal(readFd0(0), cooked, onTTY, holds) {
		t.Errorf("an unknown machine's table is known (%v) or matches a call", ok)
	}
}

func TestParseUptimeIsInTicks(t *testing.T) {
	for s, want := range map[string]uint64{"12345.67 23456.78\n": 1234567, "0.00 0.00": 0} {
		if got, ok := ParseUptime(s); !ok || got != want {
			t.Errorf("ParseUptime(%q) = %d, %v; want %d", s, got, ok, want)
		}
	}
	for _, s := range []string{"", "x 1", "-1 2"} {
		if _, ok := ParseUptime(s); ok {
			t.Errorf("ParseUptime(%q) is read", s)
		}
	}
}

// A process started 40 ms ago is young; its command line, else its name,
// is its command.
func TestStartedProcessFromWhatWasRead(t *testing.T) {
	st := Stat{Comm: "sle)ep", State: 'S', PPID: 1, Pgrp: 7, Tpgid: 9, TTYNr: 34816, Start: 1000}
	p := StartedProcess(8, st, []string{"sleep", "300"}, 1004, true)
	if p.PID != 8 || p.Parent != 1 || p.Group != 7 || p.Foreground || !p.Young || p.Command != "sleep 300" {
		t.Errorf("StartedProcess = %+v", p)
	}
	if p := StartedProcess(8, st, nil, 1005, true); p.Young || p.Command != "sle)ep" {
		t.Errorf("StartedProcess without a command line, 50 ms on = %+v", p)
	}
	if p := StartedProcess(8, st, []string{}, 0, false); p.Young || p.Command != "sle)ep" {
		t.Errorf("StartedProcess without the time = %+v", p)
	}
	if !Runs(st, 34816) || Runs(st, 34817) || Runs(Stat{State: 'Z', TTYNr: 34816}, 34816) {
		t.Error("Runs tells a process on another terminal, or a zombie, from one that runs on it")
	}
}
