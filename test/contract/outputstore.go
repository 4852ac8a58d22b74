package contract

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// RunOutputStore runs the suite that every ports.OutputStore passes: the
// in-memory one of adapters/fake and the directory of adapters/outputstore.
// newStore returns a new, empty store, which the test may leave to
// t.Cleanup.
func RunOutputStore(t *testing.T, newStore func(t *testing.T) ports.OutputStore) {
	for _, tc := range []struct {
		name string
		test func(t *testing.T, s ports.OutputStore)
	}{
		{"what is written is read back", outputRoundTrip},
		{"a reader sees the output grow", outputGrows},
		{"reading past the end is io.EOF", outputEOF},
		{"runs are kept apart", outputApart},
		{"an id is created once", outputCreateOnce},
		{"an unknown id is not found", outputUnknown},
		{"ids of another form are refused", outputBadIDs},
		{"a removed output is gone", outputRemoved},
		{"a closed writer's output stays", outputClosedStays},
		{"a megabyte in small writes", outputLarge},
		{"runs are written and read at once", outputConcurrent},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.test(t, newStore(t)) })
	}
}

func create(t *testing.T, s ports.OutputStore, id string) io.WriteCloser {
	t.Helper()
	w, err := s.Create(id)
	if err != nil {
		t.Fatalf("Create(%q): %v", id, err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

func write(t *testing.T, w io.Writer, s string) {
	t.Helper()
	if n, err := w.Write([]byte(s)); err != nil || n != len(s) {
		t.Fatalf("Write(%q) = %d, %v; want %d, nil", s, n, err, len(s))
	}
}

// readAll reads run id's output from 0 to n bytes and fails unless it
// holds exactly want.
func readBack(t *testing.T, s ports.OutputStore, id, want string) {
	t.Helper()
	r, err := s.Open(id)
	if err != nil {
		t.Fatalf("Open(%q): %v", id, err)
	}
	defer r.Close()
	buf := make([]byte, len(want)+16)
	n, err := r.ReadAt(buf, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		t.Fatalf("ReadAt: %v", err)
	}
	if got := string(buf[:n]); got != want {
		t.Fatalf("run %s holds %q, want %q", id, got, want)
	}
}

func outputRoundTrip(t *testing.T, s ports.OutputStore) {
	w := create(t, s, "run1")
	write(t, w, "hello\n")
	write(t, w, "wörld, no newline")
	readBack(t, s, "run1", "hello\nwörld, no newline")
}

func outputGrows(t *testing.T, s ports.OutputStore) {
	w := create(t, s, "grows")
	write(t, w, "one\n")
	r, err := s.Open("grows")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	write(t, w, "two\n")
	buf := make([]byte, 8)
	if n, err := r.ReadAt(buf, 0); n != 8 || (err != nil && !errors.Is(err, io.EOF)) || string(buf) != "one\ntwo\n" {
		t.Fatalf("ReadAt after a second write = %d %q, %v; want 8 \"one\\ntwo\\n\"", n, buf[:n], err)
	}
	if n, err := r.ReadAt(buf[:4], 4); n != 4 || string(buf[:4]) != "two\n" {
		t.Fatalf("ReadAt at 4 = %d %q, %v", n, buf[:n], err)
	}
}

func outputEOF(t *testing.T, s ports.OutputStore) {
	w := create(t, s, "eof")
	write(t, w, "abc")
	r, err := s.Open("eof")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	buf := make([]byte, 10)
	n, err := r.ReadAt(buf, 1)
	if n != 2 || string(buf[:2]) != "bc" || !errors.Is(err, io.EOF) {
		t.Fatalf("ReadAt past the end = %d %q, %v; want 2 \"bc\", io.EOF", n, buf[:n], err)
	}
	if n, err := r.ReadAt(buf, 3); n != 0 || !errors.Is(err, io.EOF) {
		t.Fatalf("ReadAt at the end = %d, %v; want 0, io.EOF", n, err)
	}
}

func outputApart(t *testing.T, s ports.OutputStore) {
	a, b := create(t, s, "a1"), create(t, s, "b2")
	write(t, a, "for a\n")
	write(t, b, "for b\n")
	write(t, a, "more a")
	readBack(t, s, "a1", "for a\nmore a")
	readBack(t, s, "b2", "for b\n")
}

func outputCreateOnce(t *testing.T, s ports.OutputStore) {
	w := create(t, s, "once")
	write(t, w, "kept")
	if _, err := s.Create("once"); !errors.Is(err, ports.ErrRunExists) {
		t.Fatalf("a second Create of one id: %v, want ErrRunExists", err)
	}
	readBack(t, s, "once", "kept")
}

func outputUnknown(t *testing.T, s ports.OutputStore) {
	if _, err := s.Open("never"); !errors.Is(err, ports.ErrRunNotFound) {
		t.Errorf("Open of an unknown id: %v, want ErrRunNotFound", err)
	}
	if err := s.Remove("never"); !errors.Is(err, ports.ErrRunNotFound) {
		t.Errorf("Remove of an unknown id: %v, want ErrRunNotFound", err)
	}
}

func outputBadIDs(t *testing.T, s ports.OutputStore) {
	for _, id := range []string{"", "../etc", "a/b", ".", "..", "a b", "run-1", "ünï", strings.Repeat("x", 65), "a\x00b"} {
		if w, err := s.Create(id); !errors.Is(err, ports.ErrInvalidRunID) {
			if w != nil {
				w.Close()
			}
			t.Errorf("Create(%q): %v, want ErrInvalidRunID", id, err)
		}
		if _, err := s.Open(id); !errors.Is(err, ports.ErrRunNotFound) {
			t.Errorf("Open(%q): %v, want ErrRunNotFound", id, err)
		}
		if err := s.Remove(id); !errors.Is(err, ports.ErrRunNotFound) {
			t.Errorf("Remove(%q): %v, want ErrRunNotFound", id, err)
		}
	}
	w := create(t, s, strings.Repeat("x", 64))
	write(t, w, "the longest id")
	readBack(t, s, strings.Repeat("x", 64), "the longest id")
}

func outputRemoved(t *testing.T, s ports.OutputStore) {
	w := create(t, s, "gone")
	write(t, w, "soon gone\n")
	keep := create(t, s, "kept")
	write(t, keep, "stays")
	if err := s.Remove("gone"); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	if _, err := s.Open("gone"); !errors.Is(err, ports.ErrRunNotFound) {
		t.Errorf("Open after Remove: %v, want ErrRunNotFound", err)
	}
	if err := s.Remove("gone"); !errors.Is(err, ports.ErrRunNotFound) {
		t.Errorf("a second Remove: %v, want ErrRunNotFound", err)
	}
	if _, err := w.Write([]byte("after\n")); err == nil {
		t.Error("a Write after Remove succeeded")
	}
	readBack(t, s, "kept", "stays")
}

func outputClosedStays(t *testing.T, s ports.OutputStore) {
	w := create(t, s, "closed")
	write(t, w, "all of it\n")
	if err := w.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	readBack(t, s, "closed", "all of it\n")
	if err := s.Remove("closed"); err != nil {
		t.Fatalf("Remove of a closed output: %v", err)
	}
}

func outputLarge(t *testing.T, s ports.OutputStore) {
	w := create(t, s, "large")
	var want bytes.Buffer
	for i := 0; want.Len() < 1<<20; i++ {
		line := fmt.Sprintf("line %d of many\n", i)
		want.WriteString(line)
		write(t, w, line)
	}
	r, err := s.Open("large")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, err := io.ReadAll(io.NewSectionReader(r, 0, int64(want.Len())))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("read back %d bytes, not the %d written", len(got), want.Len())
	}
}

func outputConcurrent(t *testing.T, s ports.OutputStore) {
	const runs, lines = 4, 200
	var wg sync.WaitGroup
	errs := make(chan error, runs*2)
	for i := range runs {
		id := fmt.Sprintf("conc%d", i)
		w, err := s.Create(id)
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			defer w.Close()
			for j := range lines {
				if _, err := fmt.Fprintf(w, "%s %04d\n", id, j); err != nil {
					errs <- err
					return
				}
			}
		})
		wg.Go(func() {
			r, err := s.Open(id)
			if err != nil {
				errs <- err
				return
			}
			defer r.Close()
			buf := make([]byte, 64)
			for range lines {
				if _, err := r.ReadAt(buf, 0); err != nil && !errors.Is(err, io.EOF) {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for i := range runs {
		id := fmt.Sprintf("conc%d", i)
		var want strings.Builder
		for j := range lines {
			fmt.Fprintf(&want, "%s %04d\n", id, j)
		}
		readBack(t, s, id, want.String())
	}
}
