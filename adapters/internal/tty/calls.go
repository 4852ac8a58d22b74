package tty

// Calls names the system calls ReadsTerminal tells apart by their numbers
// in one machine's table, as /proc/PID/syscall gives them: Read is read(2)
// (-1 where none is known), Many the calls that wait on several files
// (poll, select, epoll). The local table is the one this program was built
// for; a reader of another host's /proc (over ssh) takes that host's, by
// the machine name uname -m prints there (CallsOf).
type Calls struct {
	Read int
	Many map[int]bool
}

var (
	// x86_64: poll, select, pselect6, ppoll, epoll_wait, epoll_pwait and
	// epoll_pwait2.
	amd64Calls = Calls{Read: 0, Many: map[int]bool{7: true, 23: true, 270: true, 271: true, 232: true, 281: true, 441: true}}

	// The generic table (arm64, riscv64, loong64), which has no poll,
	// select or epoll_wait of its own: pselect6, ppoll, epoll_pwait and
	// epoll_pwait2.
	genericCalls = Calls{Read: 63, Many: map[int]bool{72: true, 73: true, 22: true, 441: true}}

	// i386 and 32-bit arm, which share read, poll and _newselect; the
	// others differ: pselect6, ppoll, epoll_wait, epoll_pwait (i386
	// numbers, then arm's), and epoll_pwait2.
	x86arm32Calls = Calls{Read: 3, Many: map[int]bool{168: true, 142: true, 308: true, 309: true, 256: true, 319: true,
		335: true, 336: true, 252: true, 346: true, 441: true}}

	// noCalls matches no number: a process is then found blocked only
	// through its wait channel (see WaitsOnTerminal).
	noCalls = Calls{Read: -1, Many: map[int]bool{}}
)

// CallsOf returns the table of the machine uname -m names ("x86_64",
// "aarch64", "armv7l", "i686"); false, and a table that matches nothing,
// for a machine whose table is not known here.
func CallsOf(machine string) (Calls, bool) {
	switch machine {
	case "x86_64", "amd64":
		return amd64Calls, true
	case "aarch64", "arm64", "riscv64", "loongarch64":
		return genericCalls, true
	case "i386", "i486", "i586", "i686":
		return x86arm32Calls, true
	}
	if len(machine) > 3 && machine[:3] == "arm" {
		return x86arm32Calls, true
	}
	return noCalls, false
}

// ReadsTerminal reports whether a process sleeping in sc reads the
// terminal: a read of a descriptor that is the terminal (isTTY), or, the
// terminal in raw mode, a wait on several descriptors by a process that
// holds the terminal open (holds), which the call's arguments, pointers
// into the process's memory, do not tell more of. The numbers are c's.
func (c Calls) ReadsTerminal(sc Syscall, mode Mode, isTTY func(fd int) bool, holds func() bool) bool {
	switch {
	case c.Read >= 0 && sc.Nr == c.Read && len(sc.Args) > 0:
		return sc.Args[0] <= 1<<20 && isTTY(int(sc.Args[0]))
	case c.Many[sc.Nr]:
		return !mode.Canonical && holds()
	}
	return false
}
