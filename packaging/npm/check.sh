#!/bin/sh
# Tries the npm packages make npm built in dist/npm as npx users get them:
# every package is packed with npm pack, the command's tarball and this
# system's platform tarball are installed from those files into an empty
# directory with npm offline, and the installed tmux-mcp is asked for its
# version, spoken MCP to over stdio (initialize, tools/list), and shown to
# pass its binary's exit status and a signal's end through. .ci/run calls
# this after make npm; make test does not.
#
#	sh packaging/npm/check.sh [DIST]
set -eu
cd "$(dirname "$0")/../.."
dist=${1:-dist}
fail() { echo "check-npm: $*" >&2; exit 1; }

version=${VERSION:-$(sh packaging/version.sh)}
case "$(uname -s)/$(uname -m)" in
Linux/x86_64) platform=linux-x64 ;;
Linux/aarch64 | Linux/arm64) platform=linux-arm64 ;;
Darwin/x86_64) platform=darwin-x64 ;;
Darwin/arm64) platform=darwin-arm64 ;;
*) fail "no npm platform package for $(uname -s)/$(uname -m)" ;;
esac

work=$(mktemp -d)
pids=
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null || true; done
	rm -rf "$work"
}
trap cleanup EXIT INT TERM
mkdir "$work/tarballs" "$work/app" "$work/cache"
# A cache of its own, so that nothing a machine cached before counts.
export npm_config_cache="$work/cache"

n=0
for dir in "$dist"/npm/*/; do
	[ -f "$dir/package.json" ] || continue
	(cd "$dir" && npm pack --silent --pack-destination "$work/tarballs" >/dev/null) || fail "npm pack $dir failed"
	n=$((n + 1))
done
[ "$n" = 5 ] || fail "packed $n packages from $dist/npm, want 5 (the command and 4 platforms): run make release and make npm"
main=$work/tarballs/tmux-mcp-$version.tgz
native=$work/tarballs/tmux-mcp-$platform-$version.tgz
[ -f "$main" ] && [ -f "$native" ] || fail "no $(basename "$main") and $(basename "$native") packed: $(ls "$work/tarballs")"
for t in "$work"/tarballs/tmux-mcp-*-"$version".tgz; do
	tar -tvzf "$t" package/bin/tmux-mcp 2>/dev/null | grep -q '^-rwx' || fail "$(basename "$t") has no executable package/bin/tmux-mcp"
done

# Only the tarballs and an empty directory: --offline forbids the registry,
# and the platform packages for other systems, which npm cannot fetch so,
# are optional ones it leaves out.
(cd "$work/app" && echo '{"name":"try-tmux-mcp","private":true}' > package.json &&
	npm install --offline --no-audit --no-fund --silent "$main" "$native") || fail "npm install --offline of the tarballs failed"
bin=$work/app/node_modules/.bin/tmux-mcp
[ -x "$bin" ] || fail "npm installed no node_modules/.bin/tmux-mcp"
real=$work/app/node_modules/@tmux-mcp/$platform/bin/tmux-mcp
[ -x "$real" ] || fail "npm installed no @tmux-mcp/$platform binary"

# Without its platform package (npm install --omit=optional), the command
# says what is missing and how to get it, and fails.
mkdir "$work/bare"
(cd "$work/bare" && echo '{"name":"try-tmux-mcp-bare","private":true}' > package.json &&
	npm install --offline --no-audit --no-fund --silent --omit=optional "$main") || fail "npm install --omit=optional of $(basename "$main") failed"
"$work/bare/node_modules/.bin/tmux-mcp" -version >"$work/out" 2>"$work/stderr" && fail "tmux-mcp without its platform package ran: $(cat "$work/out")"
grep -q "@tmux-mcp/$platform.*not installed.*without that option" "$work/stderr" ||
	fail "tmux-mcp without its platform package said: $(cat "$work/stderr")"
[ ! -s "$work/out" ] || fail "tmux-mcp without its platform package wrote to stdout: $(cat "$work/out")"
echo "check-npm: without @tmux-mcp/$platform the command says so and fails"

out=$("$bin" -version) || fail "tmux-mcp -version failed"
[ "$out" = "tmux-mcp $version" ] || fail "tmux-mcp -version printed \"$out\", want \"tmux-mcp $version\""
out=$(cd "$work/app" && npm exec --offline --no -- tmux-mcp -version) || fail "npm exec tmux-mcp -version failed"
[ "$out" = "tmux-mcp $version" ] || fail "npm exec tmux-mcp -version printed \"$out\""

reply=$(printf '%s\n' \
	'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"check-npm","version":"0"}}}' \
	'{"jsonrpc":"2.0","method":"notifications/initialized"}' \
	'{"jsonrpc":"2.0","id":2,"method":"tools/list"}' | "$bin" -backend fake 2>"$work/stderr") ||
	{ cat "$work/stderr" >&2; fail "tmux-mcp -backend fake over stdio failed"; }
echo "$reply" | grep -q "\"id\":1,\"result\":.*\"serverInfo\":{[^}]*\"version\":\"$version\"" ||
	fail "no initialize reply with version $version: $reply"
echo "$reply" | grep '"id":2,"result"' | grep -q '"name":"run_shell_command"' ||
	fail "tools/list did not list run_shell_command: $reply"
echo "check-npm: the installed tmux-mcp $version answered initialize and tools/list over stdio"

# Exit status: a bad flag ends the launcher as it ends the binary.
"$real" -no-such-flag 2>/dev/null && want=0 || want=$?
"$bin" -no-such-flag 2>"$work/stderr" && got=0 || got=$?
[ "$want" != 0 ] && [ "$got" = "$want" ] || fail "tmux-mcp -no-such-flag exited $got through npm, $want itself"
grep -q 'no-such-flag' "$work/stderr" || fail "the launcher lost the binary's error: $(cat "$work/stderr")"

# A signal to the launcher reaches the server, and the launcher ends as
# the server did: SIGTERM, which the server handles and exits on, and
# SIGHUP, which it does not and is ended by. When the server is killed
# outright (SIGKILL, to it, not the launcher), the launcher ends by the
# same signal too.
signal_status() { # signal_status PROGRAM SIGNAL [child]: PROGRAM's status when SIGNAL reaches it (or its child) while serving
	rm -f "$work/in" && mkfifo "$work/in"
	"$1" -backend fake <"$work/in" >/dev/null 2>&1 &
	p=$!
	pids="$pids $p"
	exec 3>"$work/in"
	printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"check-npm","version":"0"}}}' >&3
	sleep 1
	target=$p
	if [ "${3:-}" = child ]; then
		target=$(ps -o pid= --ppid "$p" | tr -d ' ')
		[ -n "$target" ] || fail "$1 started no server process"
	fi
	kill "-$2" "$target"
	s=0
	{ wait "$p"; } 2>/dev/null || s=$?
	exec 3>&-
	echo "$s"
}
for sig in TERM HUP; do
	want=$(signal_status "$real" $sig)
	got=$(signal_status "$bin" $sig)
	[ "$got" = "$want" ] || fail "on SIG$sig tmux-mcp ended with status $got through npm, $want itself"
	echo "check-npm: SIG$sig to the launcher ends it as it ends the server (status $want)"
done
got=$(signal_status "$bin" KILL child)
[ "$got" = 137 ] || fail "the launcher of a server killed by SIGKILL ended with status $got, want 137 (killed by SIGKILL)"
if ps -eo args | grep -F "$real" | grep -qv grep; then
	fail "a server binary outlived its launcher: $(ps -eo pid,args | grep -F "$real" | grep -v grep)"
fi
echo "check-npm: the exit status and the signal of the server's end pass through the launcher"
echo "check-npm: ok"
