package test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/tmux"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// paste_text into real programs that ask for bracketed paste, as bash
// 5.2, zsh and vim do by default: nothing in a pasted text may end the
// paste that tmux wraps around it, for the program would read the rest as
// typed keys.

// bracketingShells are the shells of shells that ask for bracketed paste
// by default.
var bracketingShells = []string{"bash", "zsh"}

// waitRow waits until a row of p's screen is exactly row.
func (s *tmuxServer) waitRow(t testing.TB, p ports.PaneID, row string) {
	t.Helper()
	eventually(t, 10*time.Second, "the row "+row+" in "+string(p), func() bool {
		return slices.Contains(strings.Split(s.screen(t, p), "\n"), row)
	})
}

// A text holding the end of a bracketed paste is refused, and the line
// after the sequence does not run: before the guard, bash and zsh ran both
// lines of the tester's text, with enter false.
func TestTmuxPasteCannotEndItsBracketingInAShell(t *testing.T) {
	inBracketingShells(t, func(t *testing.T, r *rig, ctx context.Context) {
		for _, text := range []string{
			"echo one-$((0+1))\x1b[201~\necho INJECTED-$((1+1))\n",
			"echo one-$((0+1))\u009b201~\necho INJECTED-$((1+1))\n",
		} {
			_, err := r.svc.PasteText(ctx, domain.PasteRequest{PaneID: r.pane, Text: text})
			var arg *fault.ArgumentError
			if !errors.As(err, &arg) || arg.Field != "text" {
				t.Errorf("paste_text %q: %v, want an ArgumentError on text", text, err)
			}
		}
		// The shell reads its input in order: once this line has run,
		// whatever of the refused texts had reached it would have run.
		if _, err := r.svc.PasteText(ctx, domain.PasteRequest{PaneID: r.pane, Text: "echo after-$((2+3))", Enter: true}); err != nil {
			t.Fatal(err)
		}
		r.srv.waitRow(t, r.pane, "after-5")
		if rows := strings.Split(r.srv.screen(t, r.pane), "\n"); slices.Contains(rows, "INJECTED-2") || slices.Contains(rows, "one-1") {
			t.Errorf("a line of a refused paste ran:\n%s", strings.Join(rows, "\n"))
		}
	})
}

// inBracketingShells runs test in a rig of each shell that asks for
// bracketed paste, in parallel.
func inBracketingShells(t *testing.T, test func(t *testing.T, r *rig, ctx context.Context)) {
	t.Helper()
	needTmux(t)
	for _, sh := range shells {
		if !slices.Contains(bracketingShells, sh.name) {
			continue
		}
		t.Run(sh.name, func(t *testing.T) {
			t.Parallel()
			test(t, newRig(t, sh), itContext(t))
		})
	}
}

// The start of a bracketed paste inside a text is pasted, and it cannot
// make the rest typed: the shell's line editor takes it as pasted text
// and runs nothing until Enter.
func TestTmuxPasteOfAStartSequenceRunsNothing(t *testing.T) {
	inBracketingShells(t, func(t *testing.T, r *rig, ctx context.Context) {
		if _, err := r.svc.PasteText(ctx, domain.PasteRequest{PaneID: r.pane, Text: "echo one-$((0+1))\x1b[200~\necho two-$((1+1))\n"}); err != nil {
			t.Fatal(err)
		}
		// The line editor shows the paste's last line once it has read
		// the whole paste; had it taken the first line's end for
		// Enter, that line would have run before.
		eventually(t, 10*time.Second, "the pasted lines in the line editor", func() bool {
			return strings.Contains(r.srv.screen(t, r.pane), "echo two-$((1+1))")
		})
		if rows := strings.Split(r.srv.screen(t, r.pane), "\n"); slices.Contains(rows, "one-1") || slices.Contains(rows, "two-2") {
			t.Errorf("a pasted line ran without Enter:\n%s", strings.Join(rows, "\n"))
		}
	})
}

// In vim, what followed the sequence was read as typed, in normal mode:
// ":qa!" quit it. Refused, none of it reaches vim.
func TestTmuxPasteCannotEndItsBracketingInVim(t *testing.T) {
	needTmux(t)
	needShell(t, shellSpec{name: "vim"})
	srv, _ := newTmuxServer(t, bash)
	p := ports.PaneID(srv.tmux(t, "new-session", "-d", "-s", "vim", "-x", "120", "-y", "40", "-c", srv.home,
		"-P", "-F", "#{pane_id}", "--", "vim", "--clean", "-n"))
	srv.waitCommand(t, p, "vim")
	// vim asks for bracketed paste before it draws the screen; its ruler
	// is drawn last.
	eventually(t, 10*time.Second, "vim's screen", func() bool {
		return strings.Contains(srv.screen(t, p), "0,0-1")
	})
	svc := service(t, srv.terminal(t, tmux.Options{}))
	ctx := itContext(t)
	if _, err := svc.PasteText(ctx, domain.PasteRequest{PaneID: p, Text: "pasted\x1b[201~:qa!\r"}); !errors.Is(err, fault.ErrInvalidArgument) {
		t.Errorf("paste_text into vim: %v, want an ArgumentError", err)
	}
	// vim reads its input in order: once this paste is in the buffer,
	// whatever of the refused one had reached vim would have been read.
	if _, err := svc.PasteText(ctx, domain.PasteRequest{PaneID: p, Text: "after-paste"}); err != nil {
		t.Fatal(err)
	}
	srv.waitRow(t, p, "after-paste")
	if got := srv.tmux(t, "display-message", "-p", "-t", string(p), "#{pane_current_command}"); got != "vim" {
		t.Errorf("the pane runs %q, want vim still", got)
	}
}
