//go:build linux && (arm64 || riscv64 || loong64)

package tty

// System call numbers of the generic Linux table (arm64, riscv64,
// loong64), as /proc/PID/syscall gives them; these have no poll, select
// or epoll_wait of their own.
const sysRead = 63

// waitsOnMany are pselect6, ppoll, epoll_pwait and epoll_pwait2.
var waitsOnMany = map[int]bool{72: true, 73: true, 22: true, 441: true}
