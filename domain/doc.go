// Package domain is the pane tools' logic — run_shell_command, paste_text,
// send_keys, capture_pane, capture_since and wait_for_text — free of I/O:
// it reaches the world only through the ports package, so every rule here
// is tested on the in-memory terminal and clock of adapters/fake.
//
// The parts it is built from are packages of their own, each named after
// what it holds:
//
//   - frame: the wire format of a framed command (markers, scripts,
//     status files) and the Scanner that follows one frame in a pane's
//     output;
//   - termtext: terminal text made readable (escape sequences removed,
//     carriage returns applied) and the Tail that keeps a result's newest
//     lines and counts what it withholds;
//   - policy: the write policy and the names of keys;
//   - writers: one writer per pane, in this process (reservations) and
//     across processes (leases);
//   - lifecycle: the inspect and lifecycle tools, on the ports.Manager
//     capabilities;
//   - fault: the errors a call is declined with.
//
// Errors: a call the domain will not carry out returns a
// *fault.RefusalError (the pane is unsafe to write to), a *fault.BusyError
// (another writer holds the pane) or a *fault.ArgumentError (the request
// itself is wrong). Each wraps a sentinel for errors.Is. Errors from the
// terminal pass through as the terminal worded them. What to do about an
// error, in a transport's own words, is the transport's to add
// (adapters/mcp maps each once).
package domain
