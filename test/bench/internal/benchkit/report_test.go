package benchkit

import (
	"strings"
	"testing"
	"time"
)

func TestARunRowTellsItsDistanceToTheSubshellFloor(t *testing.T) {
	d := func(f float64) time.Duration { return time.Duration(f * float64(time.Millisecond)) }
	r := row{
		name:      "run_shell_command `true`",
		target:    ctlTarget(3).withSubshell(),
		samples:   []time.Duration{d(4), d(4), d(4)},
		floors:    []time.Duration{d(2)},
		ctlFloors: []time.Duration{d(0.5)},
		keyFloors: []time.Duration{d(0.1)},
		subFloors: []time.Duration{d(0.8)},
	}
	var b strings.Builder
	printRow(&b, r)
	got := b.String()
	for _, want := range []string{"8.0×", "≤ 3× ctl", "MISS", "sub floor 0.80 ms, 5.0×"} {
		if !strings.Contains(got, want) {
			t.Errorf("row %q lacks %q", got, want)
		}
	}
}

func TestWithSubshellLeavesTheTargetItCopiesAlone(t *testing.T) {
	base := ctlTarget(3)
	sub := base.withSubshell()
	if base.subshell || !sub.subshell {
		t.Fatalf("subshell note: base %v, copy %v; want false, true", base.subshell, sub.subshell)
	}
	f := floorMedians{ctl: time.Millisecond}
	if !sub.met(3*time.Millisecond, f) || sub.met(4*time.Millisecond, f) || sub.desc != base.desc {
		t.Errorf("the copy judges otherwise than the target it copies")
	}
}
