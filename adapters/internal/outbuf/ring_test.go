package outbuf

import (
	"bytes"
	"testing"
)

func TestRingKeepsTheNewestBytesAtTheirOffsets(t *testing.T) {
	r := ring{max: 10}
	steps := []struct {
		do         func()
		name       string
		from       int64
		want       string
		start, end int64
	}{
		{func() { r.write([]byte("hello")) }, "5 bytes", 0, "hello", 0, 5},
		{func() { r.write([]byte("world!!")) }, "12 bytes, 2 dropped", 0, "lloworld!!", 2, 12},
		{func() {}, "reading from the middle", 5, "world!!", 2, 12},
		{func() {}, "reading from near the end", 10, "!!", 2, 12},
		{func() {}, "reading from the end", 12, "", 2, 12},
		{func() {}, "reading from past the end", 99, "", 2, 12},
		{func() { r.write(nil) }, "an empty write", 0, "lloworld!!", 2, 12},
		{func() { r.write([]byte("0123456789abc")) }, "a write longer than the ring", 0, "3456789abc", 15, 25},
		{func() { r.skip(1) }, "a skip", 0, "", 26, 26},
		{func() { r.write([]byte("xy")) }, "a write after a skip", 20, "xy", 26, 28},
		{func() { r.release() }, "a release", 0, "", 28, 28},
		{func() { r.write([]byte("z")) }, "a write after a release", 0, "z", 28, 29},
	}
	for _, st := range steps {
		st.do()
		got := r.read(st.from, r.end)
		if string(got) != st.want || r.start != st.start || r.end != st.end {
			t.Fatalf("after %s: read(%d) = %q with start %d, end %d; want %q, %d, %d",
				st.name, st.from, got, r.start, r.end, st.want, st.start, st.end)
		}
	}
}

func TestRingReadStopsAtTo(t *testing.T) {
	r := ring{max: 8}
	r.write([]byte("abcdefghij")) // retains cdefghij at 2..10
	cases := []struct {
		from, to int64
		want     string
	}{
		{0, 10, "cdefghij"},
		{3, 6, "def"},
		{0, 4, "cd"},
		{6, 6, ""},
		{7, 5, ""},
		{8, 99, "ij"},
		{0, 1, ""},
	}
	for _, c := range cases {
		if got := string(r.read(c.from, c.to)); got != c.want {
			t.Errorf("read(%d, %d) = %q, want %q", c.from, c.to, got, c.want)
		}
	}
}

func TestRingWithNoRoomRetainsNothingButCounts(t *testing.T) {
	r := ring{max: 0}
	r.write([]byte("abc"))
	if r.start != 3 || r.end != 3 || r.read(0, 3) != nil {
		t.Errorf("start %d, end %d, read %q; want 3, 3, nothing", r.start, r.end, r.read(0, 3))
	}
}

func TestRingMatchesAPlainLogUnderManyWrites(t *testing.T) {
	for _, size := range []int{1, 7, 1000, 3 * minAlloc} {
		r := ring{max: size}
		var log []byte
		for i := 0; i < 600; i++ {
			p := bytes.Repeat([]byte{byte('a' + i%26)}, (i*37)%301)
			if i%50 == 0 {
				p = bytes.Repeat([]byte{'#'}, size+i) // larger than the ring
			}
			r.write(p)
			log = append(log, p...)
			keep := log[max(0, len(log)-size):]
			if got := r.read(0, r.end); !bytes.Equal(got, keep) {
				t.Fatalf("size %d, write %d: ring holds %d bytes that differ from the newest %d of the log", size, i, len(got), len(keep))
			}
			if r.end != int64(len(log)) || r.start != int64(len(log)-len(keep)) {
				t.Fatalf("size %d, write %d: start %d, end %d; log is %d bytes", size, i, r.start, r.end, len(log))
			}
		}
		if len(r.buf) != size {
			t.Errorf("size %d: buffer is %d bytes, want it grown to the size", size, len(r.buf))
		}
	}
}

func TestRingGrowsOnlyAsBytesCome(t *testing.T) {
	r := ring{max: 1 << 20}
	if r.buf != nil {
		t.Fatal("an empty ring allocated a buffer")
	}
	r.write([]byte("x"))
	if len(r.buf) != minAlloc {
		t.Errorf("after 1 byte the buffer is %d bytes, want %d", len(r.buf), minAlloc)
	}
	r.write(make([]byte, minAlloc))
	if len(r.buf) != 2*minAlloc {
		t.Errorf("after %d bytes the buffer is %d bytes, want %d", minAlloc+1, len(r.buf), 2*minAlloc)
	}
}
