package tmux

import (
	"fmt"
	"slices"
	"testing"
)

// Lists that share a head stay apart: then and and never write into the
// head's array.
func TestCmdListsSharingAHeadStayApart(t *testing.T) {
	head := make(cmdList, 0, 8).then("list-panes")
	a, b := head.then("a"), head.then("b")
	c := head.and(tmuxCmd("c").then("d"))
	if len(head) != 1 || a[1][0] != "a" || b[1][0] != "b" || len(c) != 3 || c[1][0] != "c" {
		t.Errorf("head %q, a %q, b %q, c %q; want each its own", head, a, b, c)
	}
}

// argv gives tmux, as a process's arguments, exactly the commands of the
// list: splitCommands, which reads arguments as tmux does, reads them
// back, arguments ending in ";" included.
func TestCmdListArgvIsReadBackAsItsCommands(t *testing.T) {
	l := tmuxCmd("set-option", "-p", "@x", "ends;").then("display-message", "-p", `back\;`).then("list-panes", ";")
	if got := splitCommands(l.argv()); !slices.EqualFunc(got, l, slices.Equal) {
		t.Errorf("splitCommands(%q) = %q, want %q", l.argv(), got, l)
	}
}

// The text of a list, which if-shell parses back into commands, gives
// tmux exactly the list's arguments, whatever bytes they hold, over a
// control client and as a process alike. (The lease's conditional
// commands are such a text.)
func TestCmdListTextIsParsedBackIntoItsArguments(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	term, p := controlled(t, s)
	ctx := testContext(t)
	for i, str := range nastyStrings {
		if len(str) > 1<<10 {
			// Quoted, its text is about four bytes to its byte: more than
			// a tmux process can send in one message (16 KiB).
			continue
		}
		for _, r := range []route{{pane: p}, {process: true}} {
			body := tmuxCmd("set-option", "-p", "-t", string(p), "@first", str).
				then("set-option", "-p", "-t", string(p), "@second", str)
			l := tmuxCmd("if-shell", "-F", "-t", string(p), "1", body.text())
			if _, err := term.exec(ctx, r, l); err != nil {
				t.Fatalf("string %d, process %v: if-shell: %v", i, r.process, err)
			}
			for _, opt := range []string{"@first", "@second"} {
				out, err := term.exec(ctx, route{process: true}, tmuxCmd("show-options", "-p", "-v", "-t", string(p), opt))
				if err != nil || out != str+"\n" {
					t.Errorf("string %d, process %v: %s = %.60q, %v; want %.60q", i, r.process, opt, out, err, fmt.Sprint(str))
				}
			}
		}
	}
}
