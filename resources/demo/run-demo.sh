#!/usr/bin/env bash
# The README's main job: snapshot the leaking demo service under the probe,
# let refscope-cli explain the leak, then open the snapshots in the desktop
# app with the top leak suspect selected and its path shown.
#   run-demo.sh BUILD_DIR
#
# The service runs in two rounds (snapshot_service.py): 100 requests,
# snapshot #1, 200 more, snapshot #2. Two snapshots of one process show what
# grows, and the growth points at the leak: the cache dict.
#
# With a display ($DISPLAY or $WAYLAND_DISPLAY set) the app's window opens
# and stays open. Without one the app runs headless — under xvfb-run when it
# is installed, else on Qt's offscreen platform — saves a screenshot, prints
# the leak's path and where the screenshot is, and exits. REFSCOPE_DEMO_HEADLESS=1
# forces the headless run.
set -euo pipefail
build="$(cd "${1:?usage: run-demo.sh BUILD_DIR}" && pwd)"
demo="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cli="$build/app/cli/refscope-cli"
app="$build/app/gui/window/refscope"
out="$build/demo"
mkdir -p "$out"
before="$out/before.rscope"
after="$out/after.rscope"
screenshot="$out/refscope-demo.png"

echo "== running the demo service under the probe, snapshotting it after 100 and after 300 requests"
PYTHONPATH="$build/python" python3 "$demo/snapshot_service.py" "$out"
echo
echo "== $cli info $after"
"$cli" info "$after"
echo
echo "== what grew between the two snapshots: leak suspects"
"$cli" suspects "$after" --baseline "$before" --top 5
echo
echo "== why is a leaked Response still alive?"
"$cli" path "$after" --type response_cache.Response
echo
echo "== the same leak as a picture (Graphviz): $out/leak-path.svg"
"$cli" export-path "$after" --type response_cache.Response -o "$out/leak-path.svg"
echo

if [ ! -x "$app" ]; then
    echo "== the desktop app was not built ($app): configure with -DREFSCOPE_BUILD_APP=ON" >&2
    exit 1
fi
app_args=("$before" "$after" --select-top-suspect --print-path --screenshot "$screenshot" --window-size 1500x950)
headless=0
if [ "${REFSCOPE_DEMO_HEADLESS:-0}" = 1 ] || { [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; }; then
    headless=1
fi
if [ "$headless" = 0 ]; then
    echo "== opening the snapshots in refscope (the top leak suspect selected, its path shown)"
    echo "   $app ${app_args[*]}"
    exec "$app" "${app_args[@]}"
fi

# No display: run the app headless, print what it shows, keep a screenshot.
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"
app_args+=(--quit-after-screenshot)
if command -v xvfb-run >/dev/null 2>&1 && [ "${QT_QPA_PLATFORM:-}" != offscreen ]; then
    echo "== no display: running refscope under xvfb-run, top leak suspect selected; its path:"
    xvfb-run -a -s "-screen 0 1600x1000x24" "$app" "${app_args[@]}"
else
    echo "== no display: running refscope on Qt's offscreen platform, top leak suspect selected; its path:"
    QT_QPA_PLATFORM=offscreen "$app" "${app_args[@]}"
fi
echo
echo "The window as it looked: $screenshot"
echo "(on a machine with a display the same command opens it: $app $before $after --select-top-suspect)"
