package ports

import "context"

// A GuardedWriter is a Terminal that can check a pane and write to it in
// one exchange with the multiplexer, the check made by the multiplexer
// itself right before the write, so that nothing can change the pane in
// between: a light write (keys, a paste) then costs one round trip and
// leaves no window between the description the write policy judged and
// the bytes sent. A backend that cannot offers no such role, and the
// domain describes the pane, judges it, then writes, as before.
//
// The check compares the pane with a Guard, an opaque value that the
// backend made with a description of the pane (DescribeGuarded, or the
// last GuardedWrite): the write happens only when every fact of that
// description the write policy reads is still as described — the pane's
// process (Generation), whether it is dead, its mode, who views it, its
// synchronized input — and, when Owner is set, no other owner holds an
// unexpired lease on it (see Leaser).
type GuardedWriter interface {
	// DescribeGuarded is Terminal.Pane, and the Guard of that very
	// description. Errors are Pane's.
	DescribeGuarded(ctx context.Context, pane PaneID) (PaneInfo, Guard, error)

	// GuardedWrite performs w.Action when the pane still matches w.Guard
	// and its lease allows it, all in one exchange. Whether or not it
	// wrote, the result holds the pane's description and its Guard as
	// they were when the check was made, for the next write or for
	// judging why this one was not made. Nothing at all is sent when
	// the check fails.
	//
	// Errors: those of Terminal.SendKeys, SendText and Paste (an unknown
	// key name is refused before anything is sent); ErrUnsupported when
	// the action is one the backend cannot make atomically (too long a
	// text), which the caller then makes the usual way.
	GuardedWrite(ctx context.Context, w GuardedWrite) (GuardedResult, error)
}

// A Guard is a backend's summary of the facts of one pane description
// that the write policy reads, for GuardedWrite to compare the pane with.
// Only the backend that made it reads it; the zero Guard matches nothing.
type Guard string

// GuardedWrite is one write for GuardedWriter.GuardedWrite.
type GuardedWrite struct {
	Pane  PaneID
	Guard Guard
	// Owner, when not "", makes the write also depend on the pane's lease:
	// nobody holds it, Owner does, or it has expired. The write does not
	// take the lease: it is over, all of it, before the multiplexer
	// serves anyone else.
	Owner  string
	Action GuardedAction
}

// A GuardedAction is what a guarded write sends, in this order: Text
// typed literally (as SendText), Keys pressed (as SendKeys), Paste pasted
// (as Paste), then Enter pressed if set.
type GuardedAction struct {
	Text  string
	Keys  []string
	Paste string
	Enter bool
}

// GuardedResult is the outcome of a guarded write.
type GuardedResult struct {
	// Written reports that the check held and the action was sent.
	Written bool
	// Info and Guard describe the pane as the check found it.
	Info  PaneInfo
	Guard Guard
	// Holder, when the write was not made because another owner holds
	// the pane's lease, names that owner.
	Holder string
}
