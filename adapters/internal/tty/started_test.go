package tty

import (
	"errors"
	"os"
	"os/exec"
	"slices"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/ports"
	"github.com/tmux-mcp/tmux-mcp/test/gate"
)

func TestParseLoadavgReadsTheNewestProcessID(t *testing.T) {
	if n, err := ParseLoadavg("0.52 0.58 0.59 2/467 12345\n"); n != 12345 || err != nil {
		t.Errorf("ParseLoadavg = %d, %v", n, err)
	}
	for _, bad := range []string{"", "0.5 0.5 0.5 1/2", "0.5 0.5 0.5 1/2 x", "0.5 0.5 0.5 1/2 -3"} {
		if _, err := ParseLoadavg(bad); !errors.Is(err, ports.ErrUnsupported) {
			t.Errorf("ParseLoadavg(%q) = %v, want ErrUnsupported", bad, err)
		}
	}
}

func TestIDsSinceReadsTheWholeTableAfterAWrapOrALongSpan(t *testing.T) {
	if ids, all := idsSince(10, 13); all || !slices.Equal(ids, []int{11, 12, 13}) {
		t.Errorf("idsSince(10, 13) = %v, %v", ids, all)
	}
	if ids, all := idsSince(98, 2); !all || ids != nil {
		t.Errorf("idsSince across the wrap = %v, %v, want the whole table read", ids, all)
	}
	if ids, all := idsSince(7, 7); all || len(ids) != 0 {
		t.Errorf("idsSince with no new ids = %v, %v", ids, all)
	}
	if ids, all := idsSince(1, 1+scanAll+1); !all || ids != nil {
		t.Errorf("idsSince over %d ids = %d ids, all %v; want the whole table read", scanAll, len(ids), all)
	}
	for _, c := range []struct {
		id, mark, upto int
		want           bool
	}{{11, 10, 13, true}, {10, 10, 13, false}, {14, 10, 13, false}, {99, 98, 2, true}, {1, 98, 2, true}, {50, 98, 2, false}} {
		if got := since(c.id, c.mark, c.upto); got != c.want {
			t.Errorf("since(%d, %d, %d) = %v", c.id, c.mark, c.upto, got)
		}
	}
}

func TestParseTgidTellsAThreadFromAProcess(t *testing.T) {
	if n := ParseTgid("Name:\tfish\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t25768\nNgid:\t0\nPid:\t26011\n"); n != 25768 {
		t.Errorf("ParseTgid = %d", n)
	}
	if n := ParseTgid("Name:\tx\n"); n != 0 {
		t.Errorf("ParseTgid with no Tgid = %d", n)
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc")
	}
	if isThread(os.Getpid()) {
		t.Error("this process is taken for a thread")
	}
}

func TestLastPIDGrowsWithANewProcess(t *testing.T) {
	if _, err := os.Stat("/proc/loadavg"); err != nil {
		t.Skip("no /proc")
	}
	gate.Real(t, "a process started")
	before, err := LastPID()
	if err != nil || before <= 0 {
		t.Fatalf("LastPID = %d, %v", before, err)
	}
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	after, err := LastPID()
	if err != nil || after < cmd.Process.Pid {
		t.Errorf("LastPID after starting %d = %d, %v; want at least that", cmd.Process.Pid, after, err)
	}
}
