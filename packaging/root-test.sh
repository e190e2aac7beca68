#!/bin/sh
# Runs inside a test root (packaging/distro-root.sh test NAME): builds refscope
# from /src (read-only) into "$build" with warnings as errors, for every
# CPython of the distribution that has headers, then runs the suites that
# depend on the distribution's stack: probe, scenarios, C/C++ extensions,
# Graphviz rendering and the format/analysis unit tests. The desktop app is
# built (Qt portability) but its window tests run only on the host, which has
# Xvfb.
set -eu
build="${REFSCOPE_ROOT_BUILD:-/build/refscope}"
mkdir -p "$build"

pythons=""
for py in /usr/bin/python3.[0-9]*; do
    case "$py" in *-config|*m) continue ;; esac
    minor="$(basename "$py")"
    [ -e "/usr/include/$minor/Python.h" ] && pythons="$pythons;$py"
done
pythons="${pythons#;}"
echo "root-test: building for $pythons"

cmake -S /src -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DREFSCOPE_WERROR=ON -DREFSCOPE_BUILD_GUI_TESTS=OFF "-DREFSCOPE_PYTHONS=$pythons" \
    -DREFSCOPE_THIRD_PARTY_DIR=/third-party >"$build.configure.log" 2>&1 \
    || { tail -n 40 "$build.configure.log"; exit 1; }
grep -E "refscope probe|pybind11|nanobind" "$build.configure.log" || true
cmake --build "$build" -- -j"$(nproc)"
cd "$build"
# Tests that exercise the distribution's own libraries; "N tests passed" totals.
ctest -j"$(nproc)" --output-on-failure -L 'probe|cpp_ext|scenarios|realprograms|graphviz|format|analysis' \
    ${REFSCOPE_CTEST_ARGS:-}
