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
//	last       "l" and the line of /proc/loadavg, whose last field is
//	           the newest process id, or "l ?"
//	ps PID MARK DEV
//	           "p", as for mode, then what last prints, then, with /proc,
//	           "u" and the line of /proc/uptime; then, for each process
//	           whose id was given out after MARK up to the newest (each
//	           id in turn when there are at most 256 of them, else what
//	           /proc lists, which wraps) and whose terminal is DEV (as
//	           /proc/PID/stat numbers one), that is no zombie and no
//	           thread of another process (its status file's Tgid):
//	           "i ID", the whole of its stat file as one raw item, "g"
//	           and that Tgid line, and its command line as fg prints
//	           one, cut at 1025 bytes or 64 arguments (then "e ID +");
//	           at most 64 of them, then "o" when there are more
//	rd PID N   who of the foreground group of the terminal PID is on,
//	           /dev/pts/N, sleeps: "m" and what uname -m printed as the
//	           reader started ("?" when it is not a plain word), then
//	           "s" as fg prints it, then for each process of that group
//	           among PID and its descendants (at most 512 looked at, in
//	           the order found), that sleeps (state S): "r ID", "s" and
//	           its stat fields, "y" and its /proc/PID/syscall or "y ?",
//	           "w" and its wchan or "w ?", "f" and the descriptors (of
//	           its first 1024) that are /dev/pts/N, "c" and those that
//	           are /dev/tty
//	who PID    the whole of /proc/PID/stat as one raw item, or "z"; the
//	           target of /proc/PID/exe (readlink) as one raw item, or
//	           "z"; its command line as fg prints one
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
// leading its session, cannot take the terminal for its own. Whether a
// descriptor is the terminal is told by test -ef on /proc/PID/fd/FD,
// which names the file it has open (dash, bash, mksh, ksh and zsh have
// -ef), and a directory is listed by pathname expansion, turned on for
// that word alone; each name it gives is checked as a number before use.
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
M=$(uname -m </dev/null)
case $M in ''|*[!A-Za-z0-9_]*) M=?;; esac
NL='
'
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
	args_ "$S_t" 65537 65537
}
args_() {
	printf 'a %s\n' "$1"
	if [ "$R" = 1 ]; then
		A_s=?
		if command exec 3<"/proc/$1/cmdline"; then
			A_s=ok A_n=0 A_c=0
			printf 'b\n'
			while IFS= read -r -d '' A_a <&3 || [ -n "$A_a" ]; do
				A_n=$((A_n + ${#A_a} + 1)) A_c=$((A_c + 1))
				if [ "$A_n" -gt "$2" ] || [ "$A_c" -gt "$3" ]; then A_s=+; break; fi
				printf '+%s\0' "$A_a"
			done
			printf '\n'
			exec 3<&-
		elif [ ! -e "/proc/$1" ]; then
			A_s=-
		fi
		printf 'e %s %s\n' "$1" "$A_s"
	elif od -An -v -tx1 -N "$2" "/proc/$1/cmdline" </dev/null; then
		printf 'e %s ok\n' "$1"
	elif [ -e "/proc/$1" ]; then
		printf 'e %s ?\n' "$1"
	else
		printf 'e %s -\n' "$1"
	fi
}
dev_() {
	if D_v=$(stat -L -c '%t %T' "/dev/pts/$1" </dev/null); then
		printf 'd %s\n' "$D_v"
	else
		printf 'd ?\n'
	fi
}
alive_() {
	M_a=?
	if [ "$P" = 1 ]; then
		if [ -e "/proc/$1" ]; then M_a=1; elif [ "$H" = 0 ]; then M_a=0; fi
	elif kill -0 "$1"; then
		M_a=1
	fi
	printf 'p %s\n' "$M_a"
}
mode_() {
	alive_ "$1"
	printf 't\n'
	if stty -a <"/dev/pts/$2"; then printf 'x ok\n'; else printf 'x ?\n'; fi
}
last_() {
	L_l=
	if [ "$P" = 1 ] && command exec 3</proc/loadavg; then
		IFS= read -r L_l <&3
		exec 3<&-
	fi
	case $L_l in
	''|*[!0-9./\ ]*) L_l=; printf 'l ?\n';;
	*) printf 'l %s\n' "$L_l";;
	esac
}
line_() {
	O_l=
	command exec 3<"$1" || return 1
	IFS= read -r O_l <&3 || [ -n "$O_l" ] || { exec 3<&-; return 1; }
	exec 3<&-
}
ps_() {
	U_m=$2 U_d=$3 U_n=0
	alive_ "$1"
	last_
	[ -n "$L_l" ] || return 0
	set -- $L_l
	U_u=$5
	num "$U_u" || return 0
	if line_ /proc/uptime; then printf 'u %s\n' "$O_l"; else printf 'u ?\n'; fi
	if [ "$U_u" -ge "$U_m" ] && [ $((U_u - U_m)) -le 256 ]; then
		U_i=$((U_m + 1))
		while [ "$U_i" -le "$U_u" ] && one_ "$U_i"; do U_i=$((U_i + 1)); done
	else
		set +f
		set -- /proc/[1-9]*
		set -f
		for U_f; do
			U_i=${U_f#/proc/}
			pid "$U_i" || continue
			if [ "$U_m" -le "$U_u" ]; then
				[ "$U_i" -gt "$U_m" ] && [ "$U_i" -le "$U_u" ] || continue
			else
				[ "$U_i" -gt "$U_m" ] || [ "$U_i" -le "$U_u" ] || continue
			fi
			one_ "$U_i" || break
		done
	fi
}
text_() {
	O_a= O_z= O_l=
	command exec 3<"$1" || return 1
	while IFS= read -r O_l <&3; do O_a=$O_a$O_l$NL O_z=$O_l; done
	[ -n "$O_l" ] && O_a=$O_a$O_l O_z=$O_l
	exec 3<&-
	case $O_z in *")"*) ;; *) return 1;; esac
}
one_() {
	text_ "/proc/$1/stat" || return 0
	set -- "$1" ${O_z##*)}
	[ "$6" = "$U_d" ] || return 0
	case $2 in Z|X) return 0;; esac
	O_g=
	if command exec 3<"/proc/$1/status"; then
		while IFS= read -r O_l <&3; do
			case $O_l in Tgid:*) O_g=$O_l; break;; esac
		done
		exec 3<&-
	fi
	set -- "$1" $O_g
	[ -z "$3" ] || [ "$3" = "$1" ] || return 0
	if [ "$U_n" -ge 64 ]; then printf 'o\n'; return 1; fi
	U_n=$((U_n + 1))
	printf 'i %s\nb\n+%s\0\n' "$1" "$O_a"
	[ -z "$O_g" ] || printf 'g %s\n' "$O_g"
	args_ "$1" 1025 64
}
rd_() {
	printf 'm %s\n' "$M"
	stat_ "$1" || return 0
	pid "$S_t" || return 0
	W_g=$S_t W_t=$2 W_q=$1 W_n=0 W_s=' '
	while [ -n "$W_q" ] && [ "$W_n" -lt 512 ]; do
		set -- $W_q
		W_p=$1
		shift
		W_q=$*
		pid "$W_p" || continue
		case $W_s in *" $W_p "*) continue;; esac
		W_s="$W_s$W_p "
		W_n=$((W_n + 1))
		sleeper_ "$W_p"
		set +f
		set -- "/proc/$W_p/task/"*/children
		set -f
		for W_x; do
			line_ "$W_x" && W_q="$W_q $O_l"
		done
	done
}
sleeper_() {
	text_ "/proc/$1/stat" || return 0
	W_r=${O_z##*)}
	set -- "$1" $W_r
	[ "$4" = "$W_g" ] && [ "$2" = S ] || return 0
	printf 'r %s\ns%s\n' "$1" "$W_r"
	if line_ "/proc/$1/syscall"; then printf 'y %s\n' "$O_l"; else printf 'y ?\n'; fi
	if line_ "/proc/$1/wchan"; then printf 'w %s\n' "$O_l"; else printf 'w ?\n'; fi
	set +f
	set -- "/proc/$1/fd/"*
	set -f
	W_f= W_c= W_k=0
	for W_x; do
		W_k=$((W_k + 1))
		[ "$W_k" -le 1024 ] || break
		W_d=${W_x##*/}
		num "$W_d" || continue
		if [ "$W_x" -ef "/dev/pts/$W_t" ]; then
			W_f="$W_f $W_d"
		elif [ "$W_x" -ef /dev/tty ]; then
			W_c="$W_c $W_d"
		fi
	done
	printf 'f%s\nc%s\n' "$W_f" "$W_c"
}
who_() {
	if text_ "/proc/$1/stat"; then printf 'b\n+%s\0\n' "$O_a"; else printf 'z\n'; fi
	if O_e=$(readlink "/proc/$1/exe" </dev/null) && [ -n "$O_e" ]; then
		printf 'b\n+%s\0\n' "$O_e"
	else
		printf 'z\n'
	fi
	args_ "$1" 65537 65537
}
while IFS=' ' read -r Q_i Q_v Q_a Q_b Q_c Q_x; do
	num "$Q_i" || exit 1
	case $Q_v in
	fg) if [ -z "$Q_b$Q_c$Q_x" ] && pid "$Q_a"; then fg_ "$Q_a"; else printf '!\n'; fi;;
	dev) if [ -z "$Q_b$Q_c$Q_x" ] && num "$Q_a"; then dev_ "$Q_a"; else printf '!\n'; fi;;
	mode) if [ -z "$Q_c$Q_x" ] && pid "$Q_a" && num "$Q_b"; then mode_ "$Q_a" "$Q_b"; else printf '!\n'; fi;;
	last) if [ -z "$Q_a$Q_b$Q_c$Q_x" ]; then last_; else printf '!\n'; fi;;
	ps) if [ -z "$Q_x" ] && pid "$Q_a" && num "$Q_b" && pid "$Q_c"; then ps_ "$Q_a" "$Q_b" "$Q_c"; else printf '!\n'; fi;;
	rd) if [ -z "$Q_c$Q_x" ] && pid "$Q_a" && num "$Q_b"; then rd_ "$Q_a" "$Q_b"; else printf '!\n'; fi;;
	who) if [ -z "$Q_b$Q_c$Q_x" ] && pid "$Q_a"; then who_ "$Q_a"; else printf '!\n'; fi;;
	*) printf '!\n';;
	esac
	printf '. %s\n' "$Q_i"
done
`
