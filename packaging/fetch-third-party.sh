#!/usr/bin/env bash
# Downloads and unpacks the Debian packages listed in
# packaging/third-party-debs.txt (headers of library versions the probe
# recognises: other pybind11 and nanobind releases than the build machine's,
# and the robin_map those nanobind packages need: Debian 12 has only 1.2.1),
# so that a probe built on a plain Debian 12 machine knows them too.
#
#   packaging/fetch-third-party.sh [DIR]
#
# DIR (default $REFSCOPE_THIRD_PARTY, else /var/cache/refscope/third-party)
# gets one folder per package, <name>-<version>/, holding the package's files
# as dpkg -x lays them out (e.g. pybind11-dev-3.1.0-2/usr/include/pybind11).
# A folder is complete once its .complete marker exists; complete folders are
# reused. Every download is checked against the SHA-256 in the list. A package
# that cannot be had is reported and skipped: the build then recognises the
# versions it has, and says which (probe/CMakeLists.txt).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${1:-${REFSCOPE_THIRD_PARTY:-/var/cache/refscope/third-party}}"
mkdir -p "$dest"

mirror() {
    local uri
    uri="$(grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}' | grep -v security | head -n1)"
    [ -n "$uri" ] || uri="$(grep -hs '^deb ' /etc/apt/sources.list | awk '{print $2}' | head -n1)"
    echo "${uri:-http://deb.debian.org/debian}"
}
base="$(mirror)"
status=0
while read -r name version pool sha; do
    case "$name" in ''|'#'*) continue ;; esac
    out="$dest/$name-$version"
    [ -f "$out/.complete" ] && continue
    deb="$(mktemp "$dest/.download.XXXXXX")"
    if ! curl -fsS --retry 2 -m 300 -o "$deb" "$base/$pool"; then
        echo "fetch-third-party: cannot download $name $version from $base/$pool; skipped" >&2
        rm -f "$deb"; status=1; continue
    fi
    if [ "$(sha256sum "$deb" | cut -d' ' -f1)" != "$sha" ]; then
        echo "fetch-third-party: $name $version: checksum mismatch; skipped" >&2
        rm -f "$deb"; status=1; continue
    fi
    rm -rf "$out"
    dpkg -x "$deb" "$out"
    rm -f "$deb"
    touch "$out/.complete"
    echo "fetch-third-party: $name $version in $out"
done <"$here/packaging/third-party-debs.txt"
exit $status
