// Package domain is the whole logic of the server, free of I/O: pane
// reservation (one writer per pane), command framing, output attribution,
// truncation accounting, the refusal policy and deadlines. It reaches the
// world only through the ports package, so every rule here is tested on the
// in-memory terminal and clock of adapters/fake.
//
// Errors: a call the domain will not carry out returns a *RefusalError
// (the pane is unsafe to write to), a *BusyError (another writer holds the
// pane) or an *ArgumentError (the request itself is wrong). Each wraps a
// sentinel (ErrRefused, ErrBusy, ErrInvalidArgument) for errors.Is. Errors
// from the terminal pass through wrapped. The MCP adapter turns every one of
// them into a tool error whose text is the error's message.
package domain
