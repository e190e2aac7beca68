#!/usr/bin/env bash
# Test roots for today's stack: Debian 13 (trixie) and Debian testing (forky)
# as minbase chroots built with debootstrap from the archive apt already uses,
# cached outside the checkout and reused. refscope is built inside a root from
# the working tree (bind-mounted read-only at /src; the headers of
# packaging/fetch-third-party.sh at /third-party) and its probe, scenario and
# C/C++-extension suites run there against that distribution's Python, NumPy,
# pybind11, nanobind, PyTorch, Qt, Graphviz and GCC.
#
#   packaging/distro-root.sh create trixie|forky   create the root, or reuse the cached one
#   packaging/distro-root.sh test   trixie|forky   create/reuse, build, run the suites
#   packaging/distro-root.sh run    trixie|forky CMD...   run CMD inside (checkout at /src)
#   packaging/distro-root.sh versions trixie|forky print the stack's versions
#
# Inside, the build goes to $REFSCOPE_ROOT_BUILD (default /build/<checkout>-<hash
# of its path>, kept in the cached root so a rerun builds incrementally; one
# per checkout, because ninja decides by modification times and another
# checkout's older files would otherwise look up to date); $REFSCOPE_CTEST_ARGS is
# passed to ctest (e.g. "-R probe.test_threads").
#
# Where: $REFSCOPE_ROOTS (default /var/cache/refscope/roots)/<name>. A root is
# reused while its stamp matches the package list below; a changed list, or a
# half-made root (no stamp), makes a new one. Needs root (debootstrap, chroot,
# unshare); mounts live in a private mount namespace (unshare -m), so nothing
# stays mounted when a command ends or is killed.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"  # -P: the path CMake hashes too (tests/cpp_ext)
: "${REFSCOPE_ROOT_BUILD:=/build/$(basename "$here")-$(printf %s "$here" | md5sum | cut -c1-8)}"
export REFSCOPE_ROOT_BUILD
roots="${REFSCOPE_ROOTS:-/var/cache/refscope/roots}"

usage() { echo "usage: packaging/distro-root.sh create|test|versions NAME | run NAME CMD..." >&2; exit 2; }
[ $# -ge 2 ] || usage
verb="$1" name="$2"; shift 2

# What every root holds: the build tools and the libraries users run today.
common=(
    g++ cmake ninja-build pkg-config libzstd-dev libgtest-dev zstd ca-certificates
    libgraphviz-dev graphviz fonts-dejavu-core qt6-base-dev qt6-svg-dev libgl-dev
    pybind11-dev python3-pybind11 nanobind-dev python3-nanobind
    python3-numpy python3-torch python3-numba python3-pytest gdb
    python3-django python3-sympy python3-pandas   # the real-program tier (tests/realprograms)
)
case "$name" in
# -venv: ensurepip, so that packaging.test_wheel installs the wheel into a
# fresh venv of every Python of the root (issue 15), not only checks its contents.
trixie) suite=trixie; extra=(python3-dev python3.13-dev python3.13-venv) ;;
forky)  suite=forky;  extra=(python3-dev python3.14-dev python3.15-dev python3.14-venv python3.15-venv) ;;
*) echo "distro-root.sh: unknown root '$name' (trixie or forky)" >&2; exit 2 ;;
esac
packages=("${common[@]}" "${extra[@]}")
dir="$roots/$name"
stamp_text="suite=$suite packages=${packages[*]}"

# The mirror this machine's apt already uses (deb822 or one-line sources).
mirror() {
    local uri
    uri="$(grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}' | grep -v security | head -n1)"
    [ -n "$uri" ] || uri="$(grep -hs '^deb ' /etc/apt/sources.list | awk '{print $2}' | head -n1)"
    echo "${uri:-http://deb.debian.org/debian}"
}

# Runs "$@" inside the root, as root, with /proc, /dev and the checkout
# mounted in a private mount namespace.
in_root() {
    unshare -m --propagation private -- /bin/sh -c '
        root="$1"; src="$2"; third="$3"; shift 3
        mount -t proc proc "$root/proc"
        mount --rbind /dev "$root/dev"
        mkdir -p "$root/src"
        mount --bind "$src" "$root/src"
        mount -o remount,bind,ro "$root/src"
        if [ -d "$third" ]; then
            mkdir -p "$root/third-party"
            mount --bind "$third" "$root/third-party"
            mount -o remount,bind,ro "$root/third-party"
        fi
        exec chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
            LANG=C.UTF-8 TERM="${TERM:-dumb}" CI="${CI:-}" \
            REFSCOPE_ROOT_BUILD="$REFSCOPE_ROOT_BUILD" \
            REFSCOPE_CTEST_ARGS="${REFSCOPE_CTEST_ARGS:-}" "$@"
    ' in_root "$dir" "$here" "${REFSCOPE_THIRD_PARTY:-/var/cache/refscope/third-party}" "$@"
}

create() {
    if [ -f "$dir/.refscope-stamp" ] && [ "$(cat "$dir/.refscope-stamp")" = "$stamp_text" ]; then
        return 0
    fi
    # Same suite, other package list: install what is missing into the cached
    # root rather than making a new one. (Testing's Release file is older than
    # its Valid-Until in this archive: apt must not insist on it.)
    if [ -f "$dir/.refscope-stamp" ] && grep -q "^suite=$suite " "$dir/.refscope-stamp"; then
        echo "distro-root: updating the packages of $name"
        if in_root /bin/sh -c 'apt-get -qq -o Acquire::Check-Valid-Until=false update &&
                DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@"' \
                sh "${packages[@]}" >"$roots/$name.update.log" 2>&1; then
            echo "$stamp_text" >"$dir/.refscope-stamp"
            return 0
        fi
        echo "distro-root: updating $name failed (see $roots/$name.update.log); making it anew" >&2
    fi
    command -v debootstrap >/dev/null || {
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
    }
    local script=/usr/share/debootstrap/scripts/sid   # Debian 12's debootstrap has no "forky"
    local tmp="$dir.new"
    rm -rf "$tmp"
    mkdir -p "$roots"
    local list; list="$(IFS=,; echo "${packages[*]}")"
    local started=$SECONDS
    echo "distro-root: creating $name ($suite) in $dir"
    if ! debootstrap --variant=minbase --include="$list" "$suite" "$tmp" "$(mirror)" "$script" \
            >"$roots/$name.debootstrap.log" 2>&1; then
        echo "distro-root: debootstrap $suite failed; last lines of $roots/$name.debootstrap.log:" >&2
        tail -n 20 "$roots/$name.debootstrap.log" >&2
        exit 1
    fi
    cp /etc/resolv.conf "$tmp/etc/resolv.conf" 2>/dev/null || true
    rm -rf "$dir"
    mv "$tmp" "$dir"
    echo "$stamp_text" >"$dir/.refscope-stamp"
    echo "distro-root: $name created in $((SECONDS - started)) s"
}

versions() {
    in_root /bin/sh -c '
        . /etc/os-release; echo "distribution: $PRETTY_NAME"
        for py in /usr/bin/python3.[0-9]*; do
            case "$py" in *-config|*m) continue;; esac
            [ -e "$(dirname $py)/../include/$(basename $py)/Python.h" ] || continue
            echo "$(basename $py): $($py -c "import sys; print(sys.version.split()[0])")"
        done
        dpkg-query -W -f "\${Package} \${Version}\n" python3-numpy pybind11-dev nanobind-dev \
            python3-torch qt6-base-dev libgraphviz-dev g++ 2>/dev/null | sed "s/ /: /"
    '
}

case "$verb" in
create) create ;;
versions) create; versions ;;
run) [ $# -ge 1 ] || usage; create; in_root "$@" ;;
test)
    create
    versions
    started=$SECONDS
    in_root /bin/sh /src/packaging/root-test.sh
    echo "distro-root: $name build and suites took $((SECONDS - started)) s"
    ;;
*) usage ;;
esac
