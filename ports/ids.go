package ports

// An IDSource makes the ids that tie a call to what it leaves in a pane
// (the markers of a framed command, and the secret its end marker carries)
// and that tell this server's cursors from another's.
//
// Implementations must be safe for concurrent use and return ids of 8 to
// 32 ASCII letters and digits that nobody can guess and that never repeat
// (adapters/random reads crypto/rand; adapters/fake counts, for tests).
type IDSource interface {
	NewID() string
}
