package tmux

// procScript is what the remote reader runs (see remoteproc.go), under
// bash or /bin/sh on the remote host (procCommand): a loop that reads one
// question a line from its standard input and answers on its standard
// output. It is fixed text, no byte of it comes from a client, and it is
// the one program the adapter runs on the remote host besides tmux.
//
// A question is "ID VERB ARG...": ID numbers it, and every ARG is a
// number, checked here as Go checked it before sending (digits, no
// leading zero, at most nine), and a process id is above zero. Nothing
// else is ever read from the line, and no read value reaches anything but
// a path under /proc or /dev/pts and a test or kill -0; pathname
// expansion is off, so that an unquoted expansion splits and no more. A
// line that is not such a question is answered "!", or, with a bad ID,
// ends the reader.
//
// The answer is lines, then ". ID". The first line the reader prints,
// before any answer, is "tmux-mcp-proc 1 P H R PID": protocol 1; P is 1
// when /proc has Linux's /proc/PID/stat, H is 1 when /proc hides other
// users' processes (mounted with hidepid; pid 1 is not seen), so that a
// missing entry does not tell that a process exited; R is 1 when this
// shell's read splits its input at NULs (read -d with an empty
// delimiter, as bash, mksh, ksh and zsh do; dash does not), tried on a
// sample as the reader starts; PID is the reader's own.
//
// A line "b" starts raw bytes, which no line framing could carry: items,
// each "+", bytes that are not NUL, and a NUL, until a line feed where
// the next "+" would be.
//
//	fg PID     the terminal PID is on, and its foreground group:
//	           "s" and the fields of /proc/PID/stat after the command
//	           name (its last ")"), or "s -" without an entry, "s ?"
//	           when it cannot be read; then, for the foreground group T
//	           when it is one (the sixth of those fields),
//	           "k T CHILD..." (its leader's children, from
//	           /proc/T/task/T/children) or "k T ?", and "a T", its
//	           leader's /proc/T/cmdline (read with read -d '' where R
//	           is 1, one raw item an argument; else as od prints it in
//	           hex), at most 65537 bytes of it, and "e T ok", or "e T +"
//	           when it is longer, "e T -" when T has no entry any more,
//	           "e T ?" when it could not be read
//	dev N      "d MAJOR MINOR" in hex, the device of /dev/pts/N, or "d ?"
//	mode PID N "p 1" when PID has an entry (or, without /proc, answers
//	           kill -0), "p 0" when it has none, "p ?" when that cannot be
//	           told; "t", what stty -a prints of /dev/pts/N, and "x ok",
//	           or "x ?" when stty failed
//
// The command name in /proc/PID/stat is whatever the process set, ")"
// and line feeds included, so the stat file is read to its last line and
// cut after its last ")": the fields after it are numbers and a state
// letter. A command line may hold any byte but NUL between its NULs:
// such a read splits it exactly, and a shell whose read cannot (dash, the
// /bin/sh of Debian) has od print it, the one process a question then
// starts. So the reader runs under bash where the host has it
// (procCommand), and a question about the foreground starts no process
// there; stat and stty run for the questions asked once per pane and
// while a shell starts. A file that vanishes between a test and its opening
// fails its redirection, which, made through "command exec", costs the
// loop nothing (POSIX: command takes exec's special-builtin exit away).
// stty reads the terminal from a child of the reader, which, not
// leading its session, cannot take the terminal for its own.
const procScript = `set -f
LC_ALL=C
export LC_ALL
exec 2>/dev/null
P=0
[ -r /proc/self/stat ] && P=1
H=0
[ "$P" = 1 ] && [ ! -e /proc/1 ] && H=1
R=0
R_p=$(printf 'ab\0c d\0' | { IFS= read -r -d '' R_x && IFS= read -r -d '' R_y && printf '%s|%s' "$R_x" "$R_y"; })
[ "$R_p" = 'ab|c d' ] && R=1
printf 'tmux-mcp-proc 1 %s %s %s %s\n' "$P" "$H" "$R" "$$"
num() {
	case $1 in ''|*[!0-9]*|0?*) return 1;; esac
	[ ${#1} -le 9 ]
}
pid() { num "$1" && [ "$1" -gt 0 ]; }
stat_() {
	S_l= S_z=
	if [ "$P" != 1 ]; then
		printf 's ?\n'; return 1
	elif command exec 3<"/proc/$1/stat"; then
		while IFS= read -r S_l <&3; do S_z=$S_l; done
		[ -n "$S_l" ] && S_z=$S_l
		exec 3<&-
	elif [ -e "/proc/$1" ]; then
		printf 's ?\n'; return 1
	else
		printf 's -\n'; return 1
	fi
	case $S_z in *")"*) ;; *) printf 's ?\n'; return 1;; esac
	S_r=${S_z##*)}
	printf 's%s\n' "$S_r"
	set -- $S_r
	S_t=$6
}
fg_() {
	stat_ "$1" || return 0
	pid "$S_t" || return 0
	F_c=/proc/$S_t/task/$S_t/children
	F_k=
	if [ -r "$F_c" ] && command exec 3<"$F_c"; then
		IFS=' ' read -r F_k <&3
		exec 3<&-
		printf 'k %s %s\n' "$S_t" "$F_k"
	else
		printf 'k %s ?\n' "$S_t"
	fi
	printf 'a %s\n' "$S_t"
	if [ "$R" = 1 ]; then
		F_s=?
		if command exec 3<"/proc/$S_t/cmdline"; then
			F_s=ok F_n=0
			printf 'b\n'
			while IFS= read -r -d '' F_a <&3 || [ -n "$F_a" ]; do
				F_n=$((F_n + ${#F_a} + 1))
				if [ "$F_n" -gt 65537 ]; then F_s=+; break; fi
				printf '+%s\0' "$F_a"
			done
			printf '\n'
			exec 3<&-
		elif [ ! -e "/proc/$S_t" ]; then
			F_s=-
		fi
		printf 'e %s %s\n' "$S_t" "$F_s"
	elif od -An -v -tx1 -N 65537 "/proc/$S_t/cmdline" </dev/null; then
		printf 'e %s ok\n' "$S_t"
	elif [ -e "/proc/$S_t" ]; then
		printf 'e %s ?\n' "$S_t"
	else
		printf 'e %s -\n' "$S_t"
	fi
}
dev_() {
	if D_v=$(stat -L -c '%t %T' "/dev/pts/$1" </dev/null); then
		printf 'd %s\n' "$D_v"
	else
		printf 'd ?\n'
	fi
}
mode_() {
	M_a=?
	if [ "$P" = 1 ]; then
		if [ -e "/proc/$1" ]; then M_a=1; elif [ "$H" = 0 ]; then M_a=0; fi
	elif kill -0 "$1"; then
		M_a=1
	fi
	printf 'p %s\n' "$M_a"
	printf 't\n'
	if stty -a <"/dev/pts/$2"; then printf 'x ok\n'; else printf 'x ?\n'; fi
}
while IFS=' ' read -r Q_i Q_v Q_a Q_b Q_x; do
	num "$Q_i" || exit 1
	case $Q_v in
	fg) if [ -z "$Q_b$Q_x" ] && pid "$Q_a"; then fg_ "$Q_a"; else printf '!\n'; fi;;
	dev) if [ -z "$Q_b$Q_x" ] && num "$Q_a"; then dev_ "$Q_a"; else printf '!\n'; fi;;
	mode) if [ -z "$Q_x" ] && pid "$Q_a" && num "$Q_b"; then mode_ "$Q_a" "$Q_b"; else printf '!\n'; fi;;
	*) printf '!\n';;
	esac
	printf '. %s\n' "$Q_i"
done
`
