#!/bin/sh
# Tries the release make release built in dist/ as a user would meet it:
# the .deb for this machine is unpacked and its tmux-mcp asked for its
# version and answers an MCP initialize; the checksums, the formula and the
# rpm (read with rpm where it is, as in CI) carry the same version. In CI (CI=true) the .deb is also
# installed with dpkg -i, run from /usr/bin and removed again. .ci/run
# calls this after make release; make test does not.
#
#	sh packaging/check-deb.sh [DIST]
set -eu
cd "$(dirname "$0")/.."
dist=${1:-dist}
fail() { echo "check-deb: $*" >&2; exit 1; }

version=${VERSION:-$(sh packaging/version.sh)}
arch=$(dpkg --print-architecture)
deb=$dist/tmux-mcp_${version}_$arch.deb
# nfpm writes a semver pre-release (0.1.0-dev.g...) the way dpkg orders it
# before the release: with ~ for its first -.
debversion=$(echo "$version" | sed 's/-/~/')
[ -f "$deb" ] || deb=$(ls "$dist"/tmux-mcp_*_"$arch".deb 2>/dev/null | head -n1)
[ -f "$deb" ] || fail "no .deb for $arch in $dist: run make release"

got=$(dpkg-deb -f "$deb" Version)
[ "$got" = "$debversion" ] || fail "$deb is version $got; the release is $version (as dpkg: $debversion): run make release again"
[ "$(dpkg-deb -f "$deb" Package)" = tmux-mcp ] || fail "$deb is not the package tmux-mcp"
dpkg-deb -f "$deb" Depends | grep -qw tmux || fail "$deb does not depend on tmux"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
dpkg-deb -x "$deb" "$work/root"
for f in usr/bin/tmux-mcp usr/share/doc/tmux-mcp/README.md usr/share/doc/tmux-mcp/copyright \
	usr/share/man/man1/tmux-mcp.1.gz; do
	[ -f "$work/root/$f" ] || fail "$deb has no /$f"
done
cmp -s LICENSE "$work/root/usr/share/doc/tmux-mcp/copyright" || fail "$deb's copyright is not LICENSE"
zcat "$work/root/usr/share/man/man1/tmux-mcp.1.gz" | grep -q "^\.TH TMUX\\\\-MCP 1 \"\" \"tmux-mcp $version\"" ||
	fail "$deb's manual page does not name version $version"

# check_binary BIN: -version and the initialize reply both say $version.
check_binary() {
	out=$("$1" -version) || fail "$1 -version failed"
	[ "$out" = "tmux-mcp $version" ] || fail "$1 -version printed \"$out\", want \"tmux-mcp $version\""
	reply=$(printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"check-deb","version":"0"}}}' |
		"$1" -backend fake 2>"$work/stderr") || { cat "$work/stderr" >&2; fail "$1 -backend fake failed"; }
	echo "$reply" | grep -q '"id":1,"result":' || fail "$1 gave no initialize result: $reply"
	echo "$reply" | grep -q "\"serverInfo\":{[^}]*\"version\":\"$version\"" ||
		fail "$1's initialize reply does not carry version $version: $reply"
	echo "check-deb: $1: tmux-mcp $version, and initialize says so"
}
check_binary "$work/root/usr/bin/tmux-mcp"

# The rest of the release at the same version.
(cd "$dist" && sha256sum --quiet -c SHA256SUMS) || fail "$dist/SHA256SUMS does not match the files"
for target in linux_amd64 linux_arm64 darwin_amd64 darwin_arm64; do
	grep -q " tmux-mcp_${version}_$target.tar.gz\$" "$dist/SHA256SUMS" || fail "SHA256SUMS lists no tmux-mcp_${version}_$target.tar.gz"
done
rpmfile=$(ls "$dist"/tmux-mcp-"$debversion"-1.*.rpm 2>/dev/null | head -n1)
[ -f "$rpmfile" ] || fail "no rpm of version $debversion in $dist"
# rpm itself, where it is (CI installs it), reads the rpm as dnf would.
if command -v rpm >/dev/null 2>&1; then
	got=$(rpm -qp --queryformat '%{NAME} %{VERSION} %{LICENSE}' "$rpmfile")
	[ "$got" = "tmux-mcp $debversion MIT" ] || fail "$rpmfile is \"$got\", want \"tmux-mcp $debversion MIT\""
	rpm -qp --requires "$rpmfile" | grep -qx tmux || fail "$rpmfile does not require tmux"
	files=$(rpm -qpl "$rpmfile")
	for f in /usr/bin/tmux-mcp /usr/share/doc/tmux-mcp/README.md /usr/share/licenses/tmux-mcp/LICENSE \
		/usr/share/man/man1/tmux-mcp.1.gz; do
		echo "$files" | grep -qx "$f" || fail "$rpmfile has no $f"
	done
	rpm -qpL "$rpmfile" | grep -qx /usr/share/licenses/tmux-mcp/LICENSE || fail "$rpmfile does not mark its LICENSE as the license"
	rpm -qpd "$rpmfile" | grep -qx /usr/share/doc/tmux-mcp/README.md || fail "$rpmfile does not mark its README as documentation"
elif [ "${CI:-}" = true ]; then
	fail "rpm is needed in CI to read $rpmfile"
fi
formula=$dist/homebrew/Formula/tmux-mcp.rb
[ -f "$formula" ] || fail "no Homebrew formula at $formula"
grep -q "version \"$version\"" "$formula" || fail "$formula is not at version $version"
for sum in $(grep 'sha256 "' "$formula" | sed 's/.*sha256 "\([0-9a-f]*\)".*/\1/'); do
	grep -q "^$sum " "$dist/SHA256SUMS" || fail "$formula names the digest $sum, which SHA256SUMS does not list"
done
echo "check-deb: SHA256SUMS, the rpm and the formula are at $version"

if [ "${CI:-}" = true ]; then
	if dpkg-query -W -f '${Status}' tmux-mcp 2>/dev/null | grep -q installed; then
		fail "tmux-mcp is installed already; this check installs and removes its own"
	fi
	dpkg -i "$deb"
	# Removed however the check ends, so that a failure leaves no package
	# behind for the next run to trip over.
	trap 'dpkg -r tmux-mcp >/dev/null 2>&1 || true; rm -rf "$work"' EXIT INT TERM
	check_binary /usr/bin/tmux-mcp
	if command -v man >/dev/null 2>&1; then
		[ "$(man -w tmux-mcp)" = /usr/share/man/man1/tmux-mcp.1.gz ] || fail "man does not find tmux-mcp(1) after dpkg -i"
	fi
	dpkg -r tmux-mcp
	[ ! -e /usr/bin/tmux-mcp ] || fail "dpkg -r tmux-mcp left /usr/bin/tmux-mcp behind"
	echo "check-deb: dpkg -i and dpkg -r of $deb"
fi
echo "check-deb: ok"
