#!/bin/sh
# Prints the project's version, the one the Makefile stamps into the binary
# and goreleaser and make npm write into every package (see the Makefile's
# comment on VERSION): X.Y.Z on a clean checkout of the tag vX.Y.Z, else the
# VERSION file's next version, -dev and the revision.
set -eu
cd "$(dirname "$0")/.."
next=$(tr -d ' \n' < VERSION)
case $next in
'' | *[!0-9.]* | .* | *. | *..*)
	echo "VERSION holds \"$next\"; want the next release as X.Y.Z" >&2
	exit 1
	;;
esac
if ! git rev-parse --git-dir >/dev/null 2>&1; then
	echo "$next-dev"
	exit 0
fi
dirty=
if [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then
	dirty=.dirty
fi
if [ -z "$dirty" ] && tag=$(git describe --tags --exact-match --match 'v[0-9]*' 2>/dev/null); then
	if [ "${tag#v}" != "$next" ]; then
		# server.json and the npm manifest are checked against VERSION,
		# so a release whose tag says otherwise would describe itself
		# wrongly.
		echo "HEAD is tagged $tag but VERSION holds $next: set VERSION (and server.json, packaging/npm/package.json) to ${tag#v} before tagging" >&2
		exit 1
	fi
	echo "$next"
	exit 0
fi
echo "$next-dev.g$(git rev-parse --short=7 HEAD)$dirty"
