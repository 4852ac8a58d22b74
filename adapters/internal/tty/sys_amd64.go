//go:build linux && amd64

package tty

// System call numbers of x86_64 Linux, as /proc/PID/syscall gives them.
const sysRead = 0

// waitsOnMany are poll, select, pselect6, ppoll, epoll_wait, epoll_pwait
// and epoll_pwait2.
var waitsOnMany = map[int]bool{7: true, 23: true, 270: true, 271: true, 232: true, 281: true, 441: true}
