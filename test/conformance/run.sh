#!/bin/sh
# Runs the generic server scenarios of the official MCP conformance suite
# against a tmux-mcp binary: the binary is started on the fake backend (no
# tmux needed) over streamable HTTP, on a free loopback port and without a
# token, each scenario is run, and the server is stopped.
#
# Usage: run.sh BINARY
#
# Needs npx (Node.js) and the npm registry, from which npx fetches the
# suite and a Node 22 on the first run; later runs use npm's cache. Without
# npx, or when the suite can be neither fetched (offline, the registry
# unreachable) nor found in npm's cache, the run is skipped, saying why,
# and succeeds: nothing is known about the server then. Any other failure
# to start the suite, and any failing scenario, exits 1.
#
# CONFORMANCE_FETCH_TIMEOUT bounds, in seconds, the first fetch of the suite
# (default 300; needs timeout(1)).
set -eu

bin=${1:?usage: run.sh BINARY}
suite=@modelcontextprotocol/conformance@0.1.16
scenarios="server-initialize ping tools-list logging-set-level resources-list prompts-list dns-rebinding-protection"
fetch_timeout=${CONFORMANCE_FETCH_TIMEOUT:-300}

if ! command -v npx >/dev/null 2>&1; then
	echo "conformance: SKIPPED: npx is not installed; install Node.js to run the MCP conformance suite"
	exit 0
fi

work=$(mktemp -d)
pid=
cleanup() {
	if [ -n "$pid" ]; then
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# Get the suite (or find it in npm's cache) before anything else. npm's
# retries are off here, so that an unreachable registry is told in a second
# rather than after a minute of back-off.
probe() {
	if command -v timeout >/dev/null 2>&1; then
		npm_config_fetch_retries=0 timeout "$fetch_timeout" npx -y -p node@22 -p "$suite" conformance --help
	else
		npm_config_fetch_retries=0 npx -y -p node@22 -p "$suite" conformance --help
	fi
}
status=0
probe >"$work/probe.log" 2>&1 || status=$?
if [ "$status" -ne 0 ]; then
	if npm_config_offline=true probe >"$work/probe-offline.log" 2>&1; then
		echo "conformance: the npm registry cannot be reached; using $suite from npm's cache"
		export npm_config_offline=true
	elif [ "$status" -eq 124 ] ||
		grep -q -E 'E(CONNREFUSED|CONNRESET|NOTFOUND|TIMEDOUT|AI_AGAIN|HOSTUNREACH|NETUNREACH|NOTCACHED)|network|socket hang up|getaddrinfo' "$work/probe.log"; then
		registry=$(npm config get registry 2>/dev/null || echo "the npm registry")
		if [ "$status" -eq 124 ]; then
			why="no answer within ${fetch_timeout}s"
		else
			why=$(grep -m 1 -E 'E[A-Z_]{4,}|network' "$work/probe.log" | sed 's/^npm error //' || true)
		fi
		echo "conformance: SKIPPED: npx could not fetch $suite from $registry, and npm's cache does not hold it${why:+ ($why)}"
		echo "conformance: SKIPPED: run 'make conformance' where the registry can be reached, once; npm caches the suite"
		exit 0
	else
		echo "conformance: npx could not start $suite:"
		cat "$work/probe.log"
		exit 1
	fi
fi

# Port 0: the kernel picks a free port, and the server logs the URL it got.
# The token variable is cleared: the suite sends no Authorization header.
TMUX_MCP_TOKEN= "$bin" -backend fake -transport http -listen 127.0.0.1:0 </dev/null 2>"$work/server.log" &
pid=$!

url=
tries=0
while [ -z "$url" ]; do
	url=$(sed -n 's/.*"url": "\(http:[^"]*\)".*/\1/p' "$work/server.log" | head -n 1)
	[ -n "$url" ] && break
	if ! kill -0 "$pid" 2>/dev/null || [ "$tries" -ge 100 ]; then
		echo "conformance: the server did not start; its log:"
		cat "$work/server.log"
		exit 1
	fi
	tries=$((tries + 1))
	sleep 0.1
done
echo "conformance: $suite against $url"

failed=
npassed=0
nfailed=0
for s in $scenarios; do
	# The suite's own exit status says whether every check passed; its
	# report is shown only for a failure.
	if npx -y -p node@22 -p "$suite" conformance server --url "$url" --scenario "$s" >"$work/$s.out" 2>&1; then
		echo "conformance: $s: ok"
		npassed=$((npassed + 1))
	else
		echo "conformance: $s: FAILED"
		grep -v -e '^npm warn' "$work/$s.out" || true
		failed="$failed $s"
		nfailed=$((nfailed + 1))
	fi
done

if [ -n "$failed" ]; then
	echo "conformance: failed:$failed"
fi
# The plain closing line CI reads.
echo "conformance: $npassed passed, $nfailed failed"
[ -z "$failed" ]
