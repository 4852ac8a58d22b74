package tmux

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/adapters/internal/tty"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// The answers to "last", "ps", "rd", "mode" and "who" as procScript
// prints them, read without a process (remoteleft_test.go holds them to
// what internal/tty reads of real processes).

const pts5 = 34821 // /dev/pts/5, as /proc/PID/stat numbers it

// statOf is a stat line of a process on tty, in state, started at start.
func statOf(id, pgrp, tty, tpgid string, state string, start string) string {
	return id + " (sl) ep) " + state + " 100 " + pgrp + " 100 " + tty + " " + tpgid + " 0 0 0 0 0 0 0 0 0 0 0 0 1 " + start + " 0 0"
}

func TestProcStartedListsWhatTheLocalWouldOfTheSameFiles(t *testing.T) {
	lines := []string{"p 1", "l 0.1 0.2 0.3 1/200 1010", "u 100.00 50.00",
		// A background sleep, its command line raw.
		"i 1002", "=" + statOf("1002", "1002", "34821", "1000", "S", "9990"), "g Tgid:\t1002", "a 1002", "=sleep", "=300", "e 1002 ok",
		// A thread of it: not a process.
		"i 1003", "=" + statOf("1003", "1002", "34821", "1000", "S", "9990"), "g Tgid:\t1002", "a 1003", "=sleep", "e 1003 ok",
		// A zombie, one on another terminal, one that has gone since.
		"i 1004", "=" + statOf("1004", "1004", "34821", "1000", "Z", "9990"), "a 1004", "e 1004 ok",
		"i 1005", "=" + statOf("1005", "1005", "34822", "1000", "S", "9990"), "a 1005", "=x", "e 1005 ok",
		"i 1006", "=" + statOf("1006", "1006", "34821", "1000", "S", "9990"), "a 1006", "e 1006 -",
		// Just started, in front, its command line as od prints it
		// (dash), unread status.
		"i 1007", "=" + statOf("1007", "1000", "34821", "1000", "R", "9998"), "a 1007", " 76 69 00 2d 75", " 00", "e 1007 ok",
		// An id given out before the mark.
		"i 900", "=" + statOf("900", "900", "34821", "1000", "S", "1"), "a 900", "=old", "e 900 ok",
		// Its command line not read: its name stands in.
		"i 1008", "=" + statOf("1008", "1008", "34821", "1000", "S", "1"), "a 1008", "e 1008 ?",
	}
	alive, ps, err := procStarted(1000, pts5, lines)
	if err != nil || alive != 1 {
		t.Fatalf("procStarted = %d, %v, %v", alive, ps, err)
	}
	want := []ports.Process{
		{PID: 1002, Parent: 100, Group: 1002, Command: "sleep 300"},
		{PID: 1007, Parent: 100, Group: 1000, Command: "vi -u", Foreground: true, Young: true},
		{PID: 1008, Parent: 100, Group: 1008, Command: "sl) ep"},
	}
	if !slices.Equal(ps, want) {
		t.Errorf("procStarted =\n%+v\nwant\n%+v", ps, want)
	}
	// Ids that wrapped: 5 was given out after 1000, up to 10.
	wrapped := []string{"p 0", "l 0 0 0 1/1 10", "u ?", "i 5", "=" + statOf("5", "5", "34821", "1000", "S", "1"), "a 5", "=w", "e 5 ok"}
	if alive, ps, err := procStarted(1000, pts5, wrapped); err != nil || alive != 0 || len(ps) != 1 || ps[0].PID != 5 || ps[0].Young {
		t.Errorf("procStarted after a wrap = %d, %+v, %v; want process 5 (its age unknown: not young)", alive, ps, err)
	}
	if _, ps, err := procStarted(1000, pts5, []string{"p 1", "l 0 0 0 1/1 1010", "u 1"}); err != nil || ps == nil || len(ps) != 0 {
		t.Errorf("procStarted of nothing = %#v, %v; want an empty list", ps, err)
	}
}

func TestProcStartedSaysWhatItCannotTell(t *testing.T) {
	if _, _, err := procStarted(0, pts5, []string{"p 1", "l ?"}); !errors.Is(err, ports.ErrUnsupported) {
		t.Errorf("no /proc/loadavg: %v, want ErrUnsupported", err)
	}
	over := []string{"p 1", "l 0 0 0 1/1 2000", "u 1", "o"}
	if _, ps, err := procStarted(0, pts5, over); err == nil || errors.Is(err, ports.ErrUnsupported) || ps != nil {
		t.Errorf("more than are listed: %v, %v; want an error (not ErrUnsupported: the next call may tell)", ps, err)
	}
	for _, bad := range [][]string{
		nil, {"p 1"}, {"x", "l 0 0 0 1/1 5", "u 1"}, {"p 1", "l 0 0 0 1/1 5"},
		{"p 1", "l 0 0 0 1/1 5", "u 1", "i x"},
		{"p 1", "l 0 0 0 1/1 5", "u 1", "i 3", "=" + statOf("3", "3", "34821", "1", "S", "1"), "a 4", "e 3 ok"},
		{"p 1", "l 0 0 0 1/1 5", "u 1", "i 3", "=" + statOf("3", "3", "34821", "1", "S", "1"), "a 3", "=x"},
		{"p 1", "l 0 0 0 1/1 5", "u 1", "i 3", "a 3", "e 3 ok"},
	} {
		if _, _, err := procStarted(0, pts5, bad); err == nil {
			t.Errorf("procStarted(%q) took it", bad)
		}
	}
	if n, err := procLastPID([]string{"l 0.00 0.01 0.05 1/99 4242"}); err != nil || n != 4242 {
		t.Errorf("procLastPID = %d, %v", n, err)
	}
	if _, err := procLastPID([]string{"l ?"}); !errors.Is(err, ports.ErrUnsupported) {
		t.Errorf("procLastPID(l ?) = %v, want ErrUnsupported", err)
	}
	if _, err := procLastPID([]string{"x"}); err == nil || errors.Is(err, ports.ErrUnsupported) {
		t.Errorf("procLastPID(x) = %v, want a protocol error", err)
	}
}

// A long command line is cut, as the reader read it.
func TestProcCmdlineIsCutWhereItWasRead(t *testing.T) {
	if args, gone := procCmdline([]string{"=a", "=b"}, "+"); gone || !slices.Equal(args, []string{"a", "b"}) {
		t.Errorf("raw items cut = %q, %v", args, gone)
	}
	hex := strings.Repeat(" 61", procCmdlineMax+1)
	if args, _ := procCmdline([]string{hex}, "ok"); len(args) != 1 || len(args[0]) != procCmdlineMax {
		t.Errorf("od's %d bytes = %d arguments of %d bytes; want one of %d", procCmdlineMax+1, len(args), len(args[0]), procCmdlineMax)
	}
	if _, gone := procCmdline(nil, "-"); !gone {
		t.Error("a command line whose process has gone is not told gone")
	}
	if args, gone := procCmdline([]string{"=x"}, "?"); gone || args != nil {
		t.Errorf("an unread command line = %q, %v; want nil", args, gone)
	}
}

// rdAnswer is the answer to "rd 100 5" on machine m, the pane's shell
// 100 and its foreground group 200, with the given sleepers.
func rdAnswer(m string, sleepers ...string) []string {
	lines := []string{"m " + m, "s S 1 100 100 34821 200 0"}
	for _, s := range sleepers {
		lines = append(lines, strings.Split(s, "|")...)
	}
	return lines
}

func TestProcSleepersAreJudgedByTheRemoteMachinesTable(t *testing.T) {
	// read(0, ...) on arm64 is call 63; on x86_64, 63 is uname.
	const reader = "r 200|s S 100 200 100 34821 200 0|y 63 0x0 0x7ffe 0x1 0 0 0 0x7ffe 0x7f|w wait_woken|f 0 1 2|c"
	for _, c := range []struct {
		machine     string
		blocked     bool
		weak, known bool
	}{{"aarch64", true, false, true}, {"x86_64", false, false, true}, {"s390x", true, true, false}} {
		calls, sl, err := procSleepers(100, pts5, rdAnswer(c.machine, reader))
		if err != nil || len(sl) != 1 || calls.known != c.known {
			t.Fatalf("%s: procSleepers = %v, %+v, %v", c.machine, calls.known, sl, err)
		}
		blocked, weak := sl[0].blocked(calls, tty.Mode{Canonical: true, Echo: true})
		if blocked != c.blocked || blocked && weak != c.weak {
			t.Errorf("%s: blocked = %v, weak %v; want %v, %v", c.machine, blocked, weak, c.blocked, c.weak)
		}
	}
	// less: a poll, the terminal open as /dev/tty (fd 3), in raw mode.
	less := "r 201|s S 200 200 100 34821 200 0|y 7 0x7ffe 0x2 0xffffffff 0 0 0 0x7ffe 0x7f|w ?|f 1 2|c 3"
	calls, sl, err := procSleepers(100, pts5, rdAnswer("x86_64", less))
	if err != nil || len(sl) != 1 {
		t.Fatalf("procSleepers(less) = %+v, %v", sl, err)
	}
	if b, _ := sl[0].blocked(calls, tty.Mode{}); !b {
		t.Error("less polling its /dev/tty in raw mode is not blocked")
	}
	if b, _ := sl[0].blocked(calls, tty.Mode{Canonical: true}); b {
		t.Error("a poll with the terminal canonical is taken for a read")
	}
	// The same process on another terminal: its /dev/tty is not the pane's.
	other := strings.Replace(less, " 34821 ", " 34822 ", 1)
	calls, sl, _ = procSleepers(100, pts5, rdAnswer("x86_64", strings.Replace(other, "f 1 2", "f", 1)))
	if len(sl) != 1 || len(sl[0].ctl) != 0 {
		t.Errorf("a process on another terminal keeps its /dev/tty: %+v", sl)
	} else if b, _ := sl[0].blocked(calls, tty.Mode{}); b {
		t.Error("a process polling another terminal's /dev/tty is blocked on the pane's")
	}
	// A process whose state is no longer S (it woke since the reader
	// looked) reads nothing.
	if _, sl, err = procSleepers(100, pts5, rdAnswer("x86_64", "r 202|s R 1 200 1 34821 200|y running|w 0|f 0|c")); err != nil || len(sl) != 0 {
		t.Errorf("a running process is a sleeper: %+v, %v", sl, err)
	}
}

func TestProcSleepersSayWhyTheyCannotTell(t *testing.T) {
	if _, _, err := procSleepers(100, pts5, []string{"m x86_64", "s -"}); !errors.Is(err, tty.ErrNoProc) || !errors.Is(err, ports.ErrUnsupported) {
		t.Errorf("no entry: %v, want ErrNoProc and ErrUnsupported", err)
	}
	if _, _, err := procSleepers(100, pts5, []string{"m x86_64", "s S 1 100 100 34822 200 0"}); !errors.Is(err, ports.ErrUnsupported) {
		t.Errorf("another terminal: %v, want ErrUnsupported", err)
	}
	for _, bad := range [][]string{
		nil, {"m x86_64"}, {"x", "s S 1 100 100 34821 200 0"},
		rdAnswer("x86_64", "r 1|s S 1 200 1 34821 200|y ?|w ?|f 0"),
		rdAnswer("x86_64", "r x|s S 1 200 1 34821 200|y ?|w ?|f 0|c"),
		rdAnswer("x86_64", "r 1|s S 1 200 1 34821 200|y ?|w ?|f a|c"),
		rdAnswer("x86_64", "r 1|s S 1 200 1 34821 200|y ?|w ?|f0|c"),
	} {
		if _, _, err := procSleepers(100, pts5, bad); err == nil || errors.Is(err, ports.ErrUnsupported) {
			t.Errorf("procSleepers(%q) = %v, want a protocol error", bad, err)
		}
	}
}

// readingOf asks the mode and what the reader runs only when a sleeper
// may be reading, and a second "who" when the first it asked about turns
// out not to read (a poll, the terminal canonical).
func TestReadingOfAsksOnlyWhatItNeeds(t *testing.T) {
	calls, _ := tty.CallsOf("x86_64")
	poller := sleeper{pid: 201, st: tty.Stat{State: 'S', TTYNr: pts5}, syscall: "7 0x1 0x1 0x0 0 0 0 0 0", hasSys: true, pts: []int{0}}
	reader := sleeper{pid: 202, st: tty.Stat{State: 'S', TTYNr: pts5}, syscall: "0 0x0 0x1 0x1 0 0 0 0 0", hasSys: true, pts: []int{0}}
	sleeps := sleeper{pid: 203, st: tty.Stat{State: 'S', TTYNr: pts5}, syscall: "230 0x0 0x0 0x0 0 0 0 0 0", hasSys: true, pts: []int{0}}
	cooked := []string{"p 1", "t", "speed 38400 baud; line = 0;", "-ignbrk icanon -echo echoe", "x ok"}
	who := func(id, exe string) []string {
		return []string{"=" + id + " (x) S 1", "=" + exe, "a " + id, "=/usr/bin/" + exe + "-alias", "e " + id + " ok"}
	}
	var asked []string
	ask := func(_ context.Context, qs ...procQuery) ([][]string, error) {
		var out [][]string
		for _, q := range qs {
			asked = append(asked, q.verb)
			switch {
			case q.verb == "mode":
				out = append(out, cooked)
			case q.verb == "who" && q.args[0] == 201:
				out = append(out, who("201", "/usr/bin/vi"))
			case q.verb == "who" && q.args[0] == 202:
				out = append(out, who("202", "/usr/bin/cat"))
			default:
				t.Fatalf("asked %+v", q)
			}
		}
		return out, nil
	}
	ctx := t.Context()
	r, err := readingOf(ctx, ask, 100, 5, callsOf{calls, true}, []sleeper{sleeps})
	if err != nil || r.Blocked || len(asked) != 0 {
		t.Errorf("a sleep alone = %+v, %v, asked %q; want nothing asked", r, err, asked)
	}
	r, err = readingOf(ctx, ask, 100, 5, callsOf{calls, true}, []sleeper{sleeps, poller, reader})
	want := ports.Reading{Blocked: true, Canonical: true, PID: 202, Program: "cat", Command: "cat-alias"}
	if err != nil || r != want || !slices.Equal(asked, []string{"mode", "who", "who"}) {
		t.Errorf("readingOf = %+v, %v, asked %q; want %+v after mode, who, who", r, err, asked, want)
	}
	cooked[2] = "x ?"
	cooked = cooked[:3]
	if _, err := readingOf(ctx, ask, 100, 5, callsOf{calls, true}, []sleeper{reader}); !errors.Is(err, ports.ErrUnsupported) {
		t.Errorf("stty failed: %v, want ErrUnsupported", err)
	}
}

func TestProcWhoNamesTheProgramAsTheLocalDoes(t *testing.T) {
	for _, c := range []struct {
		lines            []string
		program, command string
	}{
		{[]string{"=7 (less) S 1", "=/usr/bin/less", "a 7", "=less", "e 7 ok"}, "less", "less"},
		{[]string{"=7 (python3) S 1", "=/usr/bin/python3.11 (deleted)", "a 7", "=/usr/bin/irb", "e 7 ok"}, "python3", "irb"},
		{[]string{"z", "z", "a 7", "e 7 -"}, "", ""},
		{[]string{"=7 (sh) S 1", "z", "a 7", " 73 68 00", "e 7 ok"}, "sh", "sh"},
	} {
		program, command, err := procWho(7, c.lines)
		if err != nil || program != c.program || command != c.command {
			t.Errorf("procWho(%q) = %q, %q, %v; want %q, %q", c.lines, program, command, err, c.program, c.command)
		}
	}
	for _, bad := range [][]string{nil, {"z", "z", "a 8", "e 7 ok"}, {"x", "z", "a 7", "e 7 ok"}, {"z", "z", "a 7", "=a"}} {
		if _, _, err := procWho(7, bad); err == nil {
			t.Errorf("procWho(%q) took it", bad)
		}
	}
}

func TestNewProcQueriesAreNumbersOnly(t *testing.T) {
	for _, c := range []struct {
		q    procQuery
		want string
	}{
		{procQuery{"last", nil}, "3 last\n"},
		{procQuery{"ps", []int{9, 0, 34816}}, "3 ps 9 0 34816\n"},
		{procQuery{"rd", []int{9, 0}}, "3 rd 9 0\n"},
		{procQuery{"who", []int{9}}, "3 who 9\n"},
	} {
		if got, err := c.q.line(3); err != nil || got != c.want {
			t.Errorf("%+v.line(3) = %q, %v; want %q", c.q, got, err, c.want)
		}
	}
	for _, q := range []procQuery{{"last", []int{1}}, {"ps", []int{0, 1, 2}}, {"ps", []int{1, 2}}, {"rd", []int{0, 1}}, {"who", []int{-1}}} {
		if _, err := q.line(3); err == nil {
			t.Errorf("%+v.line(3) is written", q)
		}
	}
}
