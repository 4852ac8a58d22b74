package tty

import (
	"errors"
	"os"
	"slices"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

func TestParseStatCountsFieldsFromTheLastParenthesis(t *testing.T) {
	// A command name may hold spaces and parentheses.
	st, err := ParseStat(7, "7 (a) b (c) S 1 42 42 34816 99 4194560 0 0 0")
	if err != nil || st != (Stat{Comm: "a) b (c", State: 'S', PPID: 1, Pgrp: 42, TTYNr: 34816, Tpgid: 99}) {
		t.Errorf("ParseStat = %+v, %v", st, err)
	}
	for _, bad := range []string{"", "7 (x", "7 (x) S 1 2", "7 (x) S 1 a 3 4 5"} {
		if _, err := ParseStat(7, bad); !errors.Is(err, ports.ErrUnsupported) {
			t.Errorf("ParseStat(%q) = %v, want ErrUnsupported", bad, err)
		}
	}
}

func TestReadStatOfAProcessThatIsNotThere(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	if _, err := ReadStat(1 << 30); !errors.Is(err, ErrNoProc) || !errors.Is(err, ports.ErrUnsupported) {
		t.Errorf("ReadStat of no process = %v", err)
	}
	st, err := ReadStat(os.Getpid())
	if err != nil || st.Pgrp <= 0 {
		t.Errorf("ReadStat of this process = %+v, %v", st, err)
	}
	if Exists(1<<30) || !Exists(os.Getpid()) {
		t.Error("Exists is wrong")
	}
}

func TestForegroundOfAProcessOnAnotherTerminalIsUnsupported(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	st, err := ReadStat(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Foreground(os.Getpid(), st.TTYNr+1); !errors.Is(err, ports.ErrUnsupported) {
		t.Errorf("Foreground with the wrong terminal = %v, want ErrUnsupported", err)
	}
}

func TestParseArgsSplitsAtEachNUL(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"bash\x00", []string{"bash"}},
		{"/bin/bash\x00./build.sh\x00a b\x00", []string{"/bin/bash", "./build.sh", "a b"}},
		// An empty argument is one: bash -c ''.
		{"bash\x00-c\x00\x00", []string{"bash", "-c", ""}},
	} {
		if got := ParseArgs([]byte(tt.in)); !slices.Equal(got, tt.want) || (got == nil) != (tt.want == nil) {
			t.Errorf("ParseArgs(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestReadArgsOfThisProcessAndOfNone(t *testing.T) {
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip("no /proc")
	}
	if got := ReadArgs(os.Getpid()); !slices.Equal(got, os.Args) {
		t.Errorf("ReadArgs of this process = %q, want %q", got, os.Args)
	}
	if got := ReadArgs(1 << 30); got == nil || len(got) != 0 {
		t.Errorf("ReadArgs of no process = %#v, want empty, not nil: it has exited", got)
	}
}
