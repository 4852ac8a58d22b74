#!/bin/sh
# The runner of every test binary in `make mutation` (go test -exec): it
# runs the binary under its own -test.timeout, plus a margin, enforced from
# outside. Gremlins stops a mutant's run by killing `go test`, which leaves
# the test binary running; and a mutant that loops in a package's
# initialisation (before the testing package arms its timeout) would run,
# and grow, until the machine runs out of memory. Without coreutils'
# timeout the binary runs as it is.
limit=
for arg in "$@"; do
	case $arg in -test.timeout=*) limit=${arg#-test.timeout=} ;; esac
done
if [ -n "$limit" ] && command -v timeout >/dev/null 2>&1; then
	# A Go duration (2m30.5s, 28.1s, 500ms) in seconds, and 5 more.
	secs=$(printf '%s\n' "$limit" | awk '{
		s = 0
		while (match($0, /^[0-9.]+(h|ms|us|µs|ns|m|s)/)) {
			n = substr($0, 1, RLENGTH); u = n; sub(/^[0-9.]+/, "", u); $0 = substr($0, RLENGTH + 1)
			s += n * (u == "h" ? 3600 : u == "m" ? 60 : u == "s" ? 1 : u == "ms" ? 0.001 : 0)
		}
		printf "%d", s + 5
	}')
	exec timeout -s KILL "$secs" "$@"
fi
exec "$@"
