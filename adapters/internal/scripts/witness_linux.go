package scripts

import (
	"errors"
	"os"
	"strconv"
	"syscall"
	"unsafe"
)

// A witness follows, through inotify, who opens the scripts of one
// directory: a script is exposed when it was opened more often, while it
// still held what was put there, than the one shell that reads it does,
// or when the directory itself was listed, changed or moved. Its methods
// are called under the Dir's lock.
type witness struct {
	fd      int
	files   map[string]*watched // by base name, and by the name of its unnamed file
	changed bool                // the directory was listed, changed or moved
	buf     []byte
}

// watched is what the witness knows of one script.
type watched struct {
	name    string // its base name in the directory
	tmpName string // the name inotify gives its file before it was linked; "" if none
	linked  bool   // the name was seen made
	own     int    // opens by this process that the witness will see
	opens   int    // opens seen while it held what was put there
	emptied bool   // something wrote it and closed it: the shell emptied it
	exposed bool
}

// shellOpens is how often the one shell that runs a script opens it up to
// the moment it has emptied it: once to read it, once to empty it
// (": >|path", the first thing the script does).
const shellOpens = 2

// watchMask asks for every event on the directory and its files, those
// the witness does not count included: inotify merges an event with an
// identical one queued just before it, so two opens come as two only
// when something else (a read, a close) lies between them.
const watchMask = syscall.IN_ALL_EVENTS | syscall.IN_ONLYDIR

func newWitness(dir string) (*witness, error) {
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		return nil, os.NewSyscallError("inotify_init1", err)
	}
	if _, err := syscall.InotifyAddWatch(fd, dir, watchMask); err != nil {
		syscall.Close(fd)
		return nil, os.NewSyscallError("inotify_add_watch", err)
	}
	return &witness{fd: fd, files: make(map[string]*watched), buf: make([]byte, 64<<10)}, nil
}

// settle drops the events queued so far: the directory's own making.
func (w *witness) settle() {
	w.drain()
	w.changed = false
}

func (w *witness) close() { syscall.Close(w.fd) }

// tampered reports whether the directory was listed, changed or moved.
func (w *witness) tampered() bool {
	w.drain()
	return w.changed
}

// exposed reports whether the script at path was exposed (see Dir.Exposed).
func (w *witness) exposed(path string) bool {
	w.drain()
	f, ok := w.files[baseName(path)]
	return !ok || f.exposed || w.changed && !f.emptied
}

// forget stops following the script at path.
func (w *witness) forget(path string) {
	w.drain()
	if f, ok := w.files[baseName(path)]; ok {
		delete(w.files, f.name)
		if f.tmpName != "" {
			delete(w.files, f.tmpName)
		}
	}
}

// drain reads every event queued, without waiting.
func (w *witness) drain() {
	for {
		n, err := syscall.Read(w.fd, w.buf)
		if n <= 0 || err != nil {
			if err != nil && !errors.Is(err, syscall.EAGAIN) && !errors.Is(err, syscall.EINTR) {
				// The witness can no longer tell: assume the worst.
				w.lost()
			}
			return
		}
		for off := 0; off+syscall.SizeofInotifyEvent <= n; {
			ev := (*syscall.InotifyEvent)(unsafe.Pointer(&w.buf[off]))
			name := w.buf[off+syscall.SizeofInotifyEvent : off+syscall.SizeofInotifyEvent+int(ev.Len)]
			for i, c := range name {
				if c == 0 {
					name = name[:i]
					break
				}
			}
			w.event(ev.Mask, string(name))
			off += syscall.SizeofInotifyEvent + int(ev.Len)
		}
	}
}

// lost marks every script not yet emptied as exposed: events were lost.
func (w *witness) lost() {
	w.changed = true
	for _, f := range w.files {
		if !f.emptied {
			f.exposed = true
		}
	}
}

func (w *witness) event(mask uint32, name string) {
	if mask&syscall.IN_Q_OVERFLOW != 0 {
		w.lost()
		return
	}
	if name == "" {
		// The directory itself: opened (listed), its mode or owner
		// changed, or moved or removed. Nothing this package does.
		if mask&(syscall.IN_OPEN|syscall.IN_ATTRIB|syscall.IN_DELETE_SELF|syscall.IN_MOVE_SELF|syscall.IN_IGNORED) != 0 {
			w.lost()
		}
		return
	}
	f, ok := w.files[name]
	if !ok {
		if mask&(syscall.IN_CREATE|syscall.IN_MOVED_TO) != 0 {
			// A file this package did not put there: nothing of ours.
			return
		}
		return
	}
	switch {
	case name == f.tmpName:
		// The unnamed file, opened through a /proc/PID/fd link: only
		// once linked is an open someone else's (this process opened it
		// to make it).
		if mask&syscall.IN_OPEN != 0 && f.linked && !f.emptied {
			f.exposed = true
		}
	case mask&(syscall.IN_CREATE|syscall.IN_MOVED_TO) != 0:
		f.linked = true
	case f.emptied:
	case mask&syscall.IN_OPEN != 0:
		if f.opens++; f.opens > shellOpens+f.own {
			f.exposed = true
		}
	case mask&syscall.IN_CLOSE_WRITE != 0:
		f.emptied = true
	}
}

// follow starts following a script about to be linked at path; tmpIno is
// the inode number of its unnamed file, or 0 when it was made by name
// (own is then the one open this process made).
func (w *witness) follow(path string, tmpIno uint64, own int) {
	f := &watched{name: baseName(path), own: own}
	w.files[f.name] = f
	if tmpIno != 0 {
		f.tmpName = "#" + strconv.FormatUint(tmpIno, 10)
		w.files[f.tmpName] = f
	} else {
		f.linked = true
	}
}

func baseName(path string) string {
	for i := len(path) - 1; i >= 0; i-- {
		if path[i] == '/' {
			return path[i+1:]
		}
	}
	return path
}

// oTmpfile is Linux's O_TMPFILE on the architectures the releases are
// built for (amd64, arm64): __O_TMPFILE | O_DIRECTORY.
const oTmpfile = 0o20000000 | syscall.O_DIRECTORY

// atSymlinkFollow is linkat's AT_SYMLINK_FOLLOW.
const atSymlinkFollow = 0x400

// writeWhole writes content to a new file at path in dir and returns it
// open for reading back. Where the file system can (O_TMPFILE), the file
// is written before it has a name, so that no process can open it while
// it is incomplete, and the witness, if any, sees no open of this
// process's by name.
func writeWhole(dir, path string, content []byte, w *witness) (*os.File, error) {
	fd, err := syscall.Open(dir, oTmpfile|syscall.O_RDWR|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		// No unnamed files here: make it by name, an open the witness
		// counts as this process's.
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return nil, err
		}
		if w != nil {
			w.follow(path, 0, 1)
		}
		if _, err := f.Write(content); err != nil {
			f.Close()
			os.Remove(path)
			return nil, err
		}
		return f, nil
	}
	f := os.NewFile(uintptr(fd), path)
	var st syscall.Stat_t
	if _, err := f.Write(content); err != nil {
		f.Close()
		return nil, err
	}
	if err := syscall.Fstat(fd, &st); err != nil {
		f.Close()
		return nil, os.NewSyscallError("fstat", err)
	}
	if w != nil {
		w.follow(path, st.Ino, 0)
	}
	if err := linkat("/proc/self/fd/"+strconv.Itoa(fd), path); err != nil {
		if w != nil {
			w.forget(path)
		}
		f.Close()
		return nil, err
	}
	return f, nil
}

func linkat(oldpath, newpath string) error {
	o, err := syscall.BytePtrFromString(oldpath)
	if err != nil {
		return err
	}
	n, err := syscall.BytePtrFromString(newpath)
	if err != nil {
		return err
	}
	atFDCWD := -100
	_, _, e := syscall.Syscall6(syscall.SYS_LINKAT, uintptr(atFDCWD), uintptr(unsafe.Pointer(o)),
		uintptr(atFDCWD), uintptr(unsafe.Pointer(n)), atSymlinkFollow, 0)
	if e != 0 {
		return os.NewSyscallError("linkat", e)
	}
	return nil
}
