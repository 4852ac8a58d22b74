package domain

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/domain/policy"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// startingPasteWait bounds how long paste_text waits for a starting shell
// (see ready.go): paste_text has no timeout of its own.
const startingPasteWait = 10 * time.Second

// PasteText delivers req.Text to the pane through a paste buffer, exactly
// as given, and presses Enter afterwards if req.Enter.
//
// A text holding the end of a bracketed paste (see pasteEnd) is refused
// before anything is sent: it would end the paste early, and the program
// would read the rest of the text as typed keys.
//
// A pane that run_shell_command holds is busy, except to the caller whose
// command a call reported as awaiting input (req.Caller): its text is the
// answer, pasted under the command's reservation, the write policy
// applied.
//
// Errors: *fault.ArgumentError for such a text; *fault.BusyError when
// another writer holds the pane; *fault.RefusalError when the policy
// forbids writing to it; wrapped ports errors from the terminal.
func (s *Service) PasteText(ctx context.Context, req PasteRequest) (PasteResult, error) {
	if at, form := pasteEnd(req.Text); at >= 0 {
		return PasteResult{}, &fault.ArgumentError{Field: "text", Reason: fmt.Sprintf(
			"holds %s at byte %d, the end of a bracketed paste: the paste would end there, and the "+
				"program would read the rest of the text as typed keys (a shell runs each line of it); "+
				"nothing was pasted", form, at)}
	}
	// The answer to a command of this caller's that asked for input goes
	// through that command's reservation.
	ran, err := s.writers.WhileAnswerable(req.PaneID, req.Caller, func() error {
		info, err := s.describe(ctx, req.PaneID)
		if err != nil {
			return err
		}
		if err := policy.Check(info, policy.Type, req.Force, ""); err != nil {
			return err
		}
		return s.paste(ctx, req)
	})
	if ran {
		if err != nil {
			return PasteResult{}, err
		}
		return PasteResult{PaneID: req.PaneID, Bytes: int64(len(req.Text))}, nil
	}
	if res, err, ok := s.pasteGuarded(ctx, req); ok {
		return res, err
	}
	hold, err := s.hold(ctx, req.PaneID, "paste_text")
	if err != nil {
		return PasteResult{}, err
	}
	defer hold.Release()
	info, err := s.writable(ctx, hold, req.PaneID, req.Force)
	if err != nil {
		return PasteResult{}, err
	}
	if s.starting.has(req.PaneID) {
		w := s.newWaiter(startingPasteWait, nil)
		o := s.awaitStarted(ctx, w, info)
		w.stop()
		switch o {
		case OutcomeTimedOut:
			reason := "its shell is still starting and does not read input yet"
			if now, err := s.term.Pane(ctx, req.PaneID); err == nil {
				if _, shell := policy.ShellOf(now.Program, now.Command); !shell && now.Command != "" {
					// Some other program has been in front all this time:
					// a shell's rc files still running, or the program the
					// pane runs instead of a shell. The pane is waited for
					// no longer, so the next paste goes to that program.
					s.starting.done(req.PaneID)
					reason = fmt.Sprintf("%q, not a shell, has been in front of its terminal for %v since the pane was made, "+
						"so its shell may still be starting; if %q is the program to paste into, paste again and the text goes to it",
						now.Command, startingPasteWait, now.Command)
				}
			}
			return PasteResult{}, &fault.RefusalError{Pane: req.PaneID, Why: fault.RefusedShellStarting, Reason: reason}
		case OutcomeCancelled:
			return PasteResult{}, ctx.Err()
		}
	}
	if err := s.paste(ctx, req); err != nil {
		return PasteResult{}, err
	}
	return PasteResult{PaneID: req.PaneID, Bytes: int64(len(req.Text))}, nil
}

// pasteGuarded is PasteText's own write in one guarded exchange (see
// guarded.go), when the terminal can, the text fits in one and the pane's
// shell is not starting: ok is false when the caller is to paste the
// usual way, nothing having been sent.
func (s *Service) pasteGuarded(ctx context.Context, req PasteRequest) (_ PasteResult, _ error, ok bool) {
	gw, can := s.guardedWriter()
	if !can || s.starting.has(req.PaneID) {
		return PasteResult{}, nil, false
	}
	hold, err := s.writers.Reserve(ctx, req.PaneID, "paste_text")
	if err != nil {
		return PasteResult{}, err, true
	}
	defer hold.Release()
	if s.starting.has(req.PaneID) {
		return PasteResult{}, nil, false
	}
	_, err = s.writeGuarded(ctx, gw, req.PaneID, policy.Type, req.Force, ports.GuardedAction{Paste: req.Text, Enter: req.Enter}, "paste_text")
	if errors.Is(err, ports.ErrUnsupported) {
		return PasteResult{}, nil, false
	}
	if err != nil {
		return PasteResult{}, err, true
	}
	return PasteResult{PaneID: req.PaneID, Bytes: int64(len(req.Text))}, nil, true
}

// paste pastes req's text and presses Enter if asked.
func (s *Service) paste(ctx context.Context, req PasteRequest) error {
	if req.Text != "" {
		if err := s.term.Paste(ctx, req.PaneID, req.Text); err != nil {
			return err
		}
	}
	if req.Enter {
		if err := s.term.SendKeys(ctx, req.PaneID, []string{"Enter"}); err != nil {
			return fmt.Errorf("press Enter after pasting: %w", err)
		}
	}
	return nil
}

// pasteEnd finds the first end of a bracketed paste in text, the control
// sequence CSI 2 0 1 ~ that the multiplexer sends after a pasted text when
// the program asked for bracketed paste, and returns its byte offset and
// how it is written, or -1 when there is none. Within a paste it would end
// the paste early, and the program would read what follows as typed keys,
// line ends as Enter; terminal emulators strip it from what they paste for
// that reason. It is a matter of the terminal protocol, the same whatever
// the multiplexer.
//
// CSI has two forms, ESC [ and the C1 control 0x9b, and both count: the
// second as the character U+009B or as a byte outside any UTF-8
// character. A 0x9b that ends another character's encoding (Û is C3 9B)
// does not, for a program that reads UTF-8 reads the character.
//
// The start of a bracketed paste, CSI 2 0 0 ~, passes: within a paste the
// programs that ask for bracketing (readline, zsh's line editor, vim) look
// for the end alone and take a start as pasted text, and a program that
// did not ask reads every paste as typed anyway.
func pasteEnd(text string) (at int, form string) {
	at = strings.Index(text, "\x1b[201~")
	if at >= 0 {
		form = `ESC [ 2 0 1 ~ ("\u001b[201~")`
	}
	if i, f := c1PasteEnd(text); i >= 0 && (at < 0 || i < at) {
		at, form = i, f
	}
	return at, form
}

// c1PasteEnd is pasteEnd for the 8-bit form alone.
func c1PasteEnd(text string) (at int, form string) {
	for from := 0; ; {
		i := strings.Index(text[from:], "\x9b201~")
		if i < 0 {
			return -1, ""
		}
		i += from
		switch r, n := utf8.DecodeLastRuneInString(text[:i+1]); {
		case r == '\u009b':
			return i - 1, `CSI 2 0 1 ~ in its 8-bit form, U+009B then "201~" ("\u009b201~")`
		case r == utf8.RuneError && n == 1:
			return i, `CSI 2 0 1 ~ in its 8-bit form, the byte 0x9b then "201~"`
		}
		from = i + 1
	}
}
