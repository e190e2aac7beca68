#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine: installs what is missing
# (Debian packages only), configures, builds, then runs the job asked for.
#
#   packaging/bootstrap.sh demo   build, snapshot the bundled leaking demo under
#                                 the probe, explain it with refscope-cli, then
#                                 open it in the app with the top leak suspect
#                                 selected (no display: headless under xvfb-run,
#                                 prints the path, screenshot in
#                                 build/dev/demo/refscope-demo.png)
#   packaging/bootstrap.sh test   build (dev, ASan and fuzz presets), run every test
#                                 and each fuzzer for a minute, then build and test
#                                 inside the Debian 13 and Debian testing roots
#                                 (packaging/distro-root.sh), then assemble the user
#                                 guide with the tests' pictures (build/dev/guide)
#   packaging/bootstrap.sh build  only install and build (dev preset; the build
#                                 includes the probe's wheels, build/dev/wheels)
#
# Every Python 3.9-3.15 found (Debian's python3 and pyenv's) gets the probe;
# see probe/CMakeLists.txt for the discovery rules.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mode="${1:-build}"
case "$mode" in demo|test|build) ;; *)
    echo "usage: packaging/bootstrap.sh demo|test|build" >&2; exit 2;;
esac

# Debian packages the build and the tests need. Keep in sync with the README.
packages=(
    build-essential cmake ninja-build pkg-config
    libzstd-dev libgtest-dev
    python3 python3-dev
    python3-venv                 # the wheel tests' fresh venvs (tests/packaging)
    libgraphviz-dev fonts-dejavu-core
    qt6-base-dev qt6-svg-dev libgl-dev xvfb xauth
    # C/C++ extension support (tests/cpp_ext): pybind11's headers for the
    # probe's recogniser and the fixtures; NumPy, Numba and pytest for
    # Debian's python3 (the pyenv Pythons get the header-only parts only).
    pybind11-dev python3-pybind11 python3-numpy python3-numba python3-pytest
    python3-django python3-sympy python3-pandas  # the real-program tier (tests/realprograms)
    python3-objgraph             # the side-by-side benchmark (tests/bench/bench_side_by_side.py)
    gdb                          # python -m refscope attach, and its tests
    python3-markdown             # the user guide's HTML (the guide target, docs/make_guide.py)
    debootstrap curl             # the Debian 13/testing test roots (packaging/distro-root.sh)
    clang libclang-rt-14-dev     # the libFuzzer targets (tests/fuzz, the fuzz preset)
)
# Only the test run needs node/npm (an independent reader, memlab, checks the
# Chrome .heapsnapshot export); use the machine's node if it already has one.
if [ "$mode" = test ] && ! { command -v node && command -v npm; } >/dev/null 2>&1; then
    packages+=(nodejs npm)
fi

install_missing() {
    local missing=()
    for p in "${packages[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
            || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "bootstrap: installing ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

build_preset() {
    cmake --preset "$1" -S "$here" >/dev/null
    cmake --build --preset "$1" -- -j"$(nproc)"
}

install_missing
cd "$here"
# Other pybind11/nanobind releases' headers, so the probe recognises them too
# (packaging/third-party-debs.txt); without them it recognises fewer, and says so.
bash "$here/packaging/fetch-third-party.sh" \
    || echo "bootstrap: some third-party headers could not be fetched (see above)" >&2
build_preset dev

case "$mode" in
build) ;;
test)
    # memlab, for tests/export: from the npm registry, pinned by the
    # committed package-lock.json; --ignore-scripts because one of its
    # dependencies would otherwise try to download a browser. If this fails
    # the memlab test reports itself skipped, it does not pass silently.
    if [ ! -d tests/export/js/node_modules ]; then
        npm ci --prefix tests/export/js --ignore-scripts --no-audit --no-fund --loglevel=error \
            || echo "bootstrap: npm ci failed; the memlab cross-check will be skipped" >&2
    fi
    # CTest prints "N tests passed, N failed" style totals; keep its output.
    # Each tier says how long it took (docs/support.md lists typical times).
    tier() { local t=$SECONDS; "$@"; echo "bootstrap: [$* ] took $((SECONDS - t)) s"; }
    tier ctest --preset dev -j"$(nproc)"
    tier build_preset asan
    tier ctest --preset asan -j"$(nproc)"
    # The libFuzzer targets (clang): CTest replays every committed corpus
    # input, then each target is fuzzed for a bounded time from its corpus
    # (docs/fuzzing.md; REFSCOPE_FUZZ_SECONDS, default 60 each, two at once).
    tier build_preset fuzz
    tier ctest --preset fuzz -j"$(nproc)"
    tier bash "$here/tests/fuzz/run-fuzzers.sh" --seconds "${REFSCOPE_FUZZ_SECONDS:-60}"
    # Today's stack: the same sources built and tested inside Debian 13 and
    # Debian testing roots (created once, cached in /var/cache/refscope/roots).
    # REFSCOPE_ROOTS_SKIP=1 skips them for a quick local run; CI never sets it.
    if [ "${REFSCOPE_ROOTS_SKIP:-0}" != 1 ]; then
        for root in trixie forky; do
            tier bash "$here/packaging/distro-root.sh" test "$root"
        done
        # The user guide, with the pictures the tests saved: the torch hunts'
        # pictures are taken on the host from the snapshots the Debian 13
        # root's run of the same test left (torch is not in Debian 12), so
        # that test runs again now, told those snapshots are this commit's
        # (REFSCOPE_USE_ROOT_SNAPSHOTS), then the guide is assembled; it fails
        # naming any picture a chapter shows that no test saved
        # (docs/packaging.md, "The user guide").
        tier env REFSCOPE_USE_ROOT_SNAPSHOTS=1 ctest --preset dev -R '^cpp_ext[.]test_guide_hunts'
        tier cmake --build --preset dev --target guide
    else
        echo "bootstrap: the user guide is not assembled: its torch pictures come from the Debian 13 root" >&2
    fi
    ;;
demo)
    exec bash "$here/resources/demo/run-demo.sh" "$here/build/dev"
    ;;
esac
