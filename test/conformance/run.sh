#!/bin/sh
# Runs the generic server scenarios of the official MCP conformance suite
# against a tmux-mcp binary: the binary is started on the fake backend (no
# tmux needed) over streamable HTTP, on a free loopback port and without a
# token, each scenario is run, and the server is stopped.
#
# Usage: run.sh BINARY
#
# Needs npx (Node.js). Without it the run is skipped, with a message, and
# succeeds. The first run downloads the suite and a Node 22 through npx;
# later runs use npm's cache. Exits 1 if any scenario fails.
set -eu

bin=${1:?usage: run.sh BINARY}
suite=@modelcontextprotocol/conformance@0.1.16
scenarios="server-initialize ping tools-list logging-set-level resources-list prompts-list dns-rebinding-protection"

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
