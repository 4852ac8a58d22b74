//go:build linux && (386 || arm)

package tty

// System call numbers of i386 and 32-bit arm Linux, which share read,
// poll and _newselect; the others differ.
const sysRead = 3

// waitsOnMany are poll, _newselect, and pselect6, ppoll, epoll_wait,
// epoll_pwait (i386 numbers, then arm's), and epoll_pwait2.
var waitsOnMany = map[int]bool{168: true, 142: true, 308: true, 309: true, 256: true, 319: true,
	335: true, 336: true, 252: true, 346: true, 441: true}
