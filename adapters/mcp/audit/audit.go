// Package audit is the opt-in audit log (-audit PATH): one JSON line per
// tool call saying when it ran, which tool on which pane, how it ended and
// how long it took. What a call typed into a pane (a command, a text, key
// names) is recorded only as its SHA-256 digest, never as itself, so the
// log proves what was sent to anyone who knows it without disclosing it to
// anyone who reads the log.
//
// A line looks like this (fields absent when empty, except outcome):
//
//	{"time":"2026-11-30T11:00:00.123456789Z","tool":"run_shell_command","paneId":"%3",
//	 "outcome":"completed","durationMs":1520,"sha256":{"command":"9f86d0…"}}
//
// outcome is the tool's own outcome when it has one ("completed",
// "timed_out", "pane_died", "cancelled", "matched", ...), "ok" for a tool
// without one, and "error" for a call that ended in a tool error; errorKind
// then says which kind, as the caller named it (see Entry.ErrorKind).
package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// Entry is one tool call.
type Entry struct {
	// Time is when the call started; zero means when Record runs.
	Time time.Time

	Tool   string
	PaneID string // "" for a call about no single pane

	// Outcome is the result's outcome, if the tool reports one; "" means
	// "ok". It is ignored when ErrorKind is set.
	Outcome string

	// ErrorKind is the kind of error the call ended with ("refused",
	// "pane_not_found", ...), or "" if it did not end in one; Record then
	// writes outcome "error" and this kind. The caller classifies the
	// error, so that the log names it as the client was told; an Entry
	// has no room for the error's message, which may quote what was sent.
	ErrorKind string

	Duration time.Duration

	// Secret holds the arguments to record only by digest, by argument
	// name: "command", "text", "keys". Record writes the SHA-256 of each
	// value in hex; the values themselves never reach the log.
	Secret map[string]string
}

// line is what one Entry becomes.
type line struct {
	Time       string            `json:"time"`
	Tool       string            `json:"tool"`
	PaneID     string            `json:"paneId,omitempty"`
	Outcome    string            `json:"outcome"`
	ErrorKind  string            `json:"errorKind,omitempty"`
	DurationMs int64             `json:"durationMs"`
	SHA256     map[string]string `json:"sha256,omitempty"`
}

// Log writes Entries to a writer, one JSON line each. It is safe for
// concurrent use: each line reaches the writer in one Write call, whole.
// A nil *Log records nothing, so that an audit log can be left out.
type Log struct {
	mu     sync.Mutex
	w      io.Writer
	closer io.Closer
	now    func() time.Time
}

// New returns a Log that writes to w.
func New(w io.Writer) *Log { return &Log{w: w, now: time.Now} }

// Open returns a Log that appends to the file at path, creating it with
// mode 0600 (the log says what ran where, which is nobody else's
// business). Close closes the file.
func Open(path string) (*Log, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open audit log: %w", err)
	}
	l := New(f)
	l.closer = f
	return l, nil
}

// Record writes e as one line. It returns the writer's error; the caller
// decides whether a call may go unaudited.
func (l *Log) Record(e Entry) error {
	if l == nil {
		return nil
	}
	if e.Time.IsZero() {
		e.Time = l.now()
	}
	ln := line{
		Time:       e.Time.UTC().Format(time.RFC3339Nano),
		Tool:       e.Tool,
		PaneID:     e.PaneID,
		Outcome:    e.Outcome,
		DurationMs: e.Duration.Milliseconds(),
	}
	switch {
	case e.ErrorKind != "":
		ln.Outcome, ln.ErrorKind = "error", e.ErrorKind
	case ln.Outcome == "":
		ln.Outcome = "ok"
	}
	if len(e.Secret) > 0 {
		ln.SHA256 = make(map[string]string, len(e.Secret))
		for name, v := range e.Secret {
			ln.SHA256[name] = Digest(v)
		}
	}
	b, err := json.Marshal(ln)
	if err != nil {
		return fmt.Errorf("audit %s: %w", e.Tool, err)
	}
	b = append(b, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := l.w.Write(b); err != nil {
		return fmt.Errorf("audit %s: %w", e.Tool, err)
	}
	return nil
}

// Close closes the file Open opened; for a Log from New it does nothing.
func (l *Log) Close() error {
	if l == nil || l.closer == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.closer.Close()
}

// Digest returns the SHA-256 of s in lower-case hex, as the log writes
// it: `printf %s "$text" | sha256sum` gives the same.
func Digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// SecretArgs picks, from a call's arguments, the ones the log records only
// by digest: string values named command, text or keys. It is a helper
// for the transport, which has the arguments as decoded JSON.
func SecretArgs(args map[string]any) map[string]string {
	var out map[string]string
	for _, name := range SecretNames {
		if v, ok := args[name].(string); ok {
			if out == nil {
				out = map[string]string{}
			}
			out[name] = v
		}
	}
	return out
}

// SecretNames are the arguments SecretArgs picks.
var SecretNames = []string{"command", "text", "keys"}
