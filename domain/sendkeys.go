package domain

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/domain/policy"
	"github.com/tmux-mcp/tmux-mcp/domain/writers"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// SendKeys presses the named keys in the pane (or, with req.Literal, types
// req.Keys as text) and then Enter if req.Enter.
//
// A pane reserved by run_shell_command refuses it with a *BusyError, with
// two designed exceptions: when the call of that command has already
// returned timed_out or cancelled, keys that are all interrupts (C-c, C-\)
// are sent — without the Enter — so that a stuck command can be stopped;
// and once a call reported that the command awaits input, the keys of the
// caller that started it (req.Caller) are its answer, sent under the
// command's reservation with the write policy applied. The reservation
// itself stays until the command ends.
//
// Errors: *fault.ArgumentError for an unknown key name (nothing is sent);
// *fault.BusyError; *fault.RefusalError when the policy forbids writing to the pane;
// wrapped ports errors from the terminal.
func (s *Service) SendKeys(ctx context.Context, req SendKeysRequest) (SendKeysResult, error) {
	var keys []string
	if req.Literal {
		if req.Keys == "" && !req.Enter {
			return SendKeysResult{}, &fault.ArgumentError{Field: "keys", Reason: "is empty"}
		}
		if strings.IndexByte(req.Keys, 0) >= 0 {
			return SendKeysResult{}, &fault.ArgumentError{Field: "keys", Reason: "holds a NUL byte, which a terminal cannot be sent; nothing was typed"}
		}
	} else {
		var err error
		if keys, err = policy.ParseKeys(req.Keys); err != nil {
			return SendKeysResult{}, err
		}
	}
	if !req.Literal && allInterrupts(keys) {
		var res SendKeysResult
		ran, err := s.writers.WhileReturned(req.PaneID, func() (err error) {
			res, err = s.interrupt(ctx, req.PaneID, keys, req.Force)
			return err
		})
		if ran {
			return res, err
		}
	}
	// The answer to a command of this caller's that asked for input goes
	// through that command's reservation (see answer.go).
	var res SendKeysResult
	ran, err := s.writers.WhileAnswerable(req.PaneID, req.Caller, func() (err error) {
		info, err := s.describe(ctx, req.PaneID)
		if err != nil {
			return err
		}
		res, err = s.press(ctx, req, keys, info)
		return err
	})
	if ran {
		return res, err
	}
	if res, err, ok := s.pressGuarded(ctx, req, keys); ok {
		return res, err
	}
	hold, err := s.hold(ctx, req.PaneID, "send_keys")
	if err != nil {
		return SendKeysResult{}, err
	}
	defer hold.Release()
	info, err := s.describeHeld(ctx, hold, req.PaneID)
	if err != nil {
		return SendKeysResult{}, err
	}
	if res, err = s.press(ctx, req, keys, info); err != nil {
		return SendKeysResult{}, err
	}
	// Whoever presses keys in a new pane drives it from now on (it may
	// have started a program that is no shell): later writes do not wait
	// for its shell to start.
	s.starting.done(req.PaneID)
	return res, nil
}

// pressGuarded is SendKeys's own write in one guarded exchange (see
// guarded.go), when the terminal can and the keys fit in one: ok is false
// when the caller is to write the usual way, nothing having been sent.
func (s *Service) pressGuarded(ctx context.Context, req SendKeysRequest, keys []string) (_ SendKeysResult, _ error, ok bool) {
	gw, can := s.guardedWriter()
	if !can {
		return SendKeysResult{}, nil, false
	}
	hold, err := s.writers.Reserve(ctx, req.PaneID, "send_keys")
	if err != nil {
		return SendKeysResult{}, err, true
	}
	defer hold.Release()
	act := ports.GuardedAction{Keys: keys, Enter: req.Enter}
	res := SendKeysResult{PaneID: req.PaneID, ResolvedPaneIDs: []ports.PaneID{req.PaneID}, Sent: keys}
	if req.Literal {
		act = ports.GuardedAction{Text: req.Keys, Enter: req.Enter}
		res.Sent = nil
		if req.Keys != "" {
			res.Sent = []string{req.Keys}
		}
	}
	info, err := s.writeGuarded(ctx, gw, req.PaneID, policy.Press, req.Force, act, "send_keys")
	if errors.Is(err, ports.ErrUnsupported) {
		return SendKeysResult{}, nil, false
	}
	if err != nil {
		return SendKeysResult{}, err, true
	}
	if req.Enter {
		res.Sent = append(res.Sent[:len(res.Sent):len(res.Sent)], "Enter")
	}
	res.Attended = info.Attended
	s.starting.done(req.PaneID)
	return res, nil, true
}

// press applies the write policy to the pane described by info and
// presses req's keys (parsed: keys) there.
func (s *Service) press(ctx context.Context, req SendKeysRequest, keys []string, info ports.PaneInfo) (SendKeysResult, error) {
	if err := policy.Check(info, policy.Press, req.Force, ""); err != nil {
		return SendKeysResult{}, err
	}
	res := SendKeysResult{PaneID: req.PaneID, ResolvedPaneIDs: []ports.PaneID{req.PaneID}, Attended: info.Attended}
	if req.Literal {
		if req.Keys != "" {
			if err := s.term.SendText(ctx, req.PaneID, req.Keys); err != nil {
				return SendKeysResult{}, err
			}
			res.Sent = append(res.Sent, req.Keys)
		}
	} else {
		if err := s.term.SendKeys(ctx, req.PaneID, keys); err != nil {
			return SendKeysResult{}, err
		}
		res.Sent = append(res.Sent, keys...)
	}
	if req.Enter {
		if err := s.term.SendKeys(ctx, req.PaneID, []string{"Enter"}); err != nil {
			return SendKeysResult{}, fmt.Errorf("press Enter: %w", err)
		}
		res.Sent = append(res.Sent, "Enter")
	}
	return res, nil
}

// interrupt sends interrupt keys to a pane whose command outlived its call.
func (s *Service) interrupt(ctx context.Context, pane ports.PaneID, keys []string, force bool) (SendKeysResult, error) {
	info, err := s.describe(ctx, pane)
	if err != nil {
		return SendKeysResult{}, err
	}
	if err := policy.Check(info, policy.Press, force, ""); err != nil {
		return SendKeysResult{}, err
	}
	if err := s.term.SendKeys(ctx, pane, keys); err != nil {
		return SendKeysResult{}, err
	}
	return SendKeysResult{PaneID: pane, Sent: keys, ResolvedPaneIDs: []ports.PaneID{pane}, Attended: info.Attended}, nil
}

// writable describes the pane held by hold and applies the write policy.
func (s *Service) writable(ctx context.Context, hold *writers.Hold, pane ports.PaneID, force bool) (ports.PaneInfo, error) {
	info, err := s.describeHeld(ctx, hold, pane)
	if err != nil {
		return info, err
	}
	return info, policy.Check(info, policy.Type, force, "")
}

func allInterrupts(keys []string) bool {
	for _, k := range keys {
		if !policy.IsInterrupt(k) {
			return false
		}
	}
	return len(keys) > 0
}
