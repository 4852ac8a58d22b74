package ports

import (
	"errors"
	"io"
)

// An OutputStore keeps the whole output of commands, one growing sequence
// of bytes per run, named by the run's id, so that what a result could
// not carry can be read later (read_output). It only keeps what it is
// given: what to keep, the budget, and which run to evict to stay within
// it are the domain's to decide (domain/runlog), the same for every store.
//
// A run id is 1 to 64 ASCII letters and digits, as an IDSource makes
// them; a store refuses any other, so that no id can name a file outside
// it.
//
// Implementations must be safe for concurrent use: one run's output is
// read while it is written, and runs are written at once.
type OutputStore interface {
	// Create makes run id's output, empty, and returns the writer that
	// appends to it. A Write appends all of p or returns an error; Close
	// ends the writer, and the output stays until Remove.
	//
	// Errors: ErrInvalidRunID for an id of another form; ErrRunExists
	// when id has an output already; others (wrapped) when the store
	// cannot keep it, such as a full disk.
	Create(id string) (io.WriteCloser, error)

	// Open returns a reader of run id's output. ReadAt reads any byte
	// written before it is called, while the writer appends; at the end
	// of what is written so far it returns io.EOF.
	//
	// Errors: ErrRunNotFound when no output has that id (it was never
	// created, or it was removed), an id of another form included.
	Open(id string) (OutputReader, error)

	// Remove deletes run id's output; its writer then fails and its
	// readers may.
	//
	// Errors: ErrRunNotFound, as for Open.
	Remove(id string) error
}

// An OutputReader reads one run's output at offsets; Close releases it.
type OutputReader interface {
	io.ReaderAt
	io.Closer
}

// Errors of an OutputStore, and of reading a run's output, possibly
// wrapped. The MCP adapter maps them to tool errors once, at the
// transport.
var (
	// ErrRunNotFound: no run's output has the given id: it is not one a
	// result of this server process gave, or it is older than the oldest
	// the server still remembers.
	ErrRunNotFound = errors.New("run not found")

	// ErrRunEvicted: the run's output was removed to keep what the server
	// keeps within its budget (the oldest runs go first). The domain
	// returns it for a run it remembers evicting; a store never does.
	ErrRunEvicted = errors.New("run output evicted")

	// ErrRunExists: Create was given the id of an output that exists.
	ErrRunExists = errors.New("run output exists")

	// ErrInvalidRunID: a run id that is not 1 to 64 ASCII letters and
	// digits.
	ErrInvalidRunID = errors.New("invalid run id")
)

// ValidRunID reports whether id has the form of a run id: 1 to 64 ASCII
// letters and digits.
func ValidRunID(id string) bool {
	if len(id) == 0 || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}
