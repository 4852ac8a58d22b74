package fake

import (
	"errors"
	"slices"
	"testing"
	"time"
)

// effect is what running ops without input or time would show: the
// output, the final status, whether they exit, and what blocks them.
type effect struct {
	output string
	status int
	exit   bool
	blocks []opKind
}

func run(ops []op) effect {
	var e effect
	for i := 0; i < len(ops); i++ {
		switch o := ops[i]; o.kind {
		case opOrElse:
			if e.status == 0 {
				i += o.n
			}
		case opOutput:
			e.output += o.text
		case opStatus:
			e.status = o.n
		case opExit:
			e.exit = true
			if o.n >= 0 {
				e.status = o.n
			}
			return e
		default:
			e.blocks = append(e.blocks, o.kind)
		}
	}
	return e
}

func TestInterpreter(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want effect
	}{
		{"echo hello world", effect{output: "hello world\n"}},
		{"echo", effect{output: "\n"}},
		{"echo -n no newline", effect{output: "no newline"}},
		{`echo 'single  $((1+1)) \n' "double $((2*3)) \" \$ \\" un\ quoted`, effect{output: `single  $((1+1)) \n double 6 " $ \ un quoted` + "\n"}},
		{"echo contract-$((6*7))", effect{output: "contract-42\n"}},
		{"echo $((1+2*3)) $(( (1+2)*3 )) $((-7/2)) $((7%3)) $((10-2-3))", effect{output: "7 9 -3 1 5\n"}},
		{"echo paste-rea''dy", effect{output: "paste-ready\n"}},
		{"echo a\\\nb", effect{output: "ab\n"}},
		{"echo cost: $ 5", effect{output: "cost: $ 5\n"}},
		{"echo one; echo two\necho three", effect{output: "one\ntwo\nthree\n"}},
		{"echo shown # a comment", effect{output: "shown\n"}},
		{"printf hello", effect{output: "hello"}},
		{`printf 'a\tb\n\\ \101 %%\n'`, effect{output: "a\tb\n\\ A %\n"}},
		{"printf 'fill-%s\\n' 1 2 3", effect{output: "fill-1\nfill-2\nfill-3\n"}},
		{"printf '%s=%d;' a 1 b", effect{output: "a=1;b=0;"}},
		{"printf '[%5s|%-3d|%.2s]' x 7 abc", effect{output: "[    x|7  |ab]"}},
		{"printf '%b|%c' 'x\\ty' zed", effect{output: "x\ty|z"}},
		{`printf '%b %b' '\0101' '\101'`, effect{output: "A A"}}, // %b's octal escapes, with or without a 0
		{`printf 'a\q \'`, effect{output: `a\q \`}},              // unknown and trailing backslashes stay
		{"printf '%d' nope", effect{output: "printf: nope: invalid number\n", status: 1}},
		{"printf", effect{output: "printf: usage: printf format [arguments]\n", status: 2}},
		{"true", effect{}},
		{":", effect{}},
		{"false", effect{status: 1}},
		{"false; true", effect{}},
		{"true; false", effect{status: 1}},
		{"printf hello; exit 3", effect{output: "hello", status: 3, exit: true}},
		{"exit 256", effect{status: 0, exit: true}},
		{"false; exit", effect{status: 1, exit: true}},
		{"exit; echo never", effect{exit: true}},
		{"exit x", effect{output: "sh: exit: x: numeric argument required\n", status: 2, exit: true}},
		{"make test", effect{output: "sh: make: command not found\n", status: 127}},
		{"make test 2>/dev/null", effect{status: 127}},
		{"echo hidden >/dev/null", effect{}},
		{"echo hidden > /dev/null; echo shown 1>/dev/null", effect{}},
		{"echo both 2>&1", effect{output: "both\n"}},
		{"echo err >&2", effect{output: "err\n"}},
		{"sleep 1.5; echo woke", effect{output: "woke\n", blocks: []opKind{opSleep}}},
		{"sleep", effect{output: "sleep: invalid time interval\n", status: 1}},
		{"cat >/dev/null", effect{blocks: []opKind{opRead}}},
		{"cat file", effect{output: "cat: the fake shell's cat reads only the terminal\n", status: 1}},
		{"", effect{}},
		{"false || echo x", effect{output: "x\n"}},
		{"true || echo x", effect{}},
		{"false || false || echo y; echo z", effect{output: "y\nz\n"}},
		{"echo pid=$$ \"$$\"", effect{output: "pid=7 7\n"}},
		{". /s/1 || echo unread", effect{blocks: []opKind{opSource}}},
		{"command . /s/1", effect{blocks: []opKind{opSource}}},
	} {
		got := run(compile("sh", 7, tc.src))
		if got.output != tc.want.output || got.status != tc.want.status || got.exit != tc.want.exit || !slices.Equal(got.blocks, tc.want.blocks) {
			t.Errorf("%q:\n got %+v\nwant %+v", tc.src, got, tc.want)
		}
	}
}

// What the fake shell cannot do, it says, rather than doing something
// else: a test that needs more learns it at once.
func TestInterpreterRefusesWhatItDoesNotSupport(t *testing.T) {
	for _, src := range []string{
		"echo a | wc -l", "true && echo x", "cat < file", "echo x &",
		"echo $HOME", "echo ${x}", "echo $(date)", "echo `date`", "echo $?", "(echo sub)",
		"echo > out.txt", "printf '%x' 1",
	} {
		cmds, err := parseScript(src, 7)
		if err == nil {
			// printf's conversions are checked when it runs.
			if e := run(compile("sh", 7, src)); e.status == 0 {
				t.Errorf("%q parsed as %v and ran with status 0, want it refused", src, cmds)
			}
			continue
		}
		if !errors.Is(err, errUnsupported) {
			t.Errorf("%q: error %v, want errUnsupported", src, err)
		}
	}
}

func TestInterpreterReportsSyntaxErrors(t *testing.T) {
	for _, src := range []string{"echo 'open", `echo "open`, "echo $((1+", "echo $((1/0))", "echo $((2 3))", "echo $((*))"} {
		got := run(compile("bash", 7, src))
		if got.status != 2 || got.output == "" || got.exit {
			t.Errorf("%q: %+v, want a syntax error message and status 2", src, got)
		}
	}
}

func TestSleepWaitsTheGivenTime(t *testing.T) {
	ops := compile("sh", 7, "sleep 2.5")
	if len(ops) == 0 || ops[0].kind != opSleep || ops[0].d != 2500*time.Millisecond || ops[0].command != "sleep" {
		t.Errorf("sleep 2.5 compiles to %+v, want a 2.5s sleep by the program sleep", ops)
	}
}
