// Command forger is the adversary of test/forgery_test.go: a process of
// the same user as the server that tries to make run_shell_command report
// an exit status the command did not have. It learns the frame's id and
// secret one of two ways, waits until the command has ended and the real
// end marker has been printed, then prints an end marker of its own with
// status 0 on the pane's terminal and writes 0 into the script's file:
//
//	forger watch DIR TTY   watches the server's script directory with
//	                       inotify and reads each script the moment it
//	                       appears, before the pane's shell empties it;
//	                       root watches as it is, anyone else (and root
//	                       with FORGER_CHMOD=1) gives the directory read
//	                       permission first; with FORGER_LOG=FILE it
//	                       appends to FILE the id of every frame whose
//	                       secret it learnt
//	forger stream DIR TTY  reads the pane's output on its standard input
//	                       (tmux pipe-pane) and takes the secret from the
//	                       real end marker
//
// It runs until it is killed. It is built by the test; nothing else uses it.
package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"syscall"
	"time"
	"unsafe"
)

var (
	inScript = regexp.MustCompile(`tmcp;E;([A-Za-z0-9_-]+);([A-Za-z0-9_-]+);`)
	// fish's script keeps the secret in a variable for the end script.
	inFishScript = regexp.MustCompile(`set -g __tmcp_k ([A-Za-z0-9_-]+); builtin printf '\\033\]7717;tmcp;S;([A-Za-z0-9_-]+);`)
	inStream     = regexp.MustCompile("\x1b\\]7717;tmcp;E;([A-Za-z0-9_-]+);([A-Za-z0-9_-]+);-?[0-9]+\x07")
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: forger watch|stream DIR TTY")
		os.Exit(2)
	}
	mode, dir, tty := os.Args[1], os.Args[2], os.Args[3]
	switch mode {
	case "watch":
		watch(dir, tty)
	case "stream":
		stream(dir, tty)
	}
	os.Exit(2)
}

// forge prints a false end marker for the frame on the terminal and
// writes a false status into every script file of dir, 50 ms after the
// real end.
func forge(dir, tty, id, secret string) {
	time.Sleep(50 * time.Millisecond)
	if f, err := os.OpenFile(tty, os.O_WRONLY, 0); err == nil {
		fmt.Fprintf(f, "\x1b]7717;tmcp;E;%s;%s;0\x07", id, secret)
		f.Close()
	}
	overwrite(dir)
}

func overwrite(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		os.WriteFile(filepath.Join(dir, e.Name()), []byte("0\n"), 0o600)
	}
}

func stream(dir, tty string) {
	r := bufio.NewReader(os.Stdin)
	var buf []byte
	for {
		b, err := r.ReadByte()
		if err != nil {
			return
		}
		buf = append(buf, b)
		if b != 0x07 {
			if len(buf) > 1<<16 {
				buf = buf[len(buf)-4096:]
			}
			continue
		}
		if m := inStream.FindSubmatch(buf); m != nil {
			go forge(dir, tty, string(m[1]), string(m[2]))
		}
		buf = buf[:0]
	}
}

func watch(dir, tty string) {
	// Root may watch a directory it cannot read; anyone else gives it
	// read permission first, as an adversary would.
	chmod := os.Geteuid() != 0 || os.Getenv("FORGER_CHMOD") == "1"
	if chmod {
		os.Chmod(dir, 0o700)
	}
	fd, err := syscall.InotifyInit()
	if err != nil {
		os.Exit(1)
	}
	if _, err := syscall.InotifyAddWatch(fd, dir, syscall.IN_CREATE|syscall.IN_MOVED_TO); err != nil {
		os.Exit(1)
	}
	if chmod {
		os.Chmod(dir, 0o300)
	}
	buf := make([]byte, 1<<16)
	for {
		n, err := syscall.Read(fd, buf)
		if err != nil || n <= 0 {
			return
		}
		for off := 0; off+syscall.SizeofInotifyEvent <= n; {
			ev := (*syscall.InotifyEvent)(unsafe.Pointer(&buf[off]))
			name := buf[off+syscall.SizeofInotifyEvent : off+syscall.SizeofInotifyEvent+int(ev.Len)]
			for i, c := range name {
				if c == 0 {
					name = name[:i]
					break
				}
			}
			off += syscall.SizeofInotifyEvent + int(ev.Len)
			path := filepath.Join(dir, string(name))
			b, err := os.ReadFile(path)
			if err != nil {
				continue
			}
			m := inScript.FindSubmatch(b)
			if f := inFishScript.FindSubmatch(b); f != nil {
				m = [][]byte{f[0], f[2], f[1]}
			}
			if m != nil {
				if log := os.Getenv("FORGER_LOG"); log != "" {
					if f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600); err == nil {
						fmt.Fprintf(f, "%s\n", m[1])
						f.Close()
					}
				}
				go func(id, secret string) {
					// The command has ended once the script wrote its status.
					for range 2000 {
						if s, err := os.ReadFile(path); err == nil && len(s) > 0 && s[0] >= '0' && s[0] <= '9' {
							forge(dir, tty, id, secret)
							return
						}
						time.Sleep(time.Millisecond)
					}
				}(string(m[1]), string(m[2]))
			}
		}
	}
}
