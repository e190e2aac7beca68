#!/usr/bin/env bash
# The README's main job: run the leaking demo service unchanged under the
# probe, snapshot it at exit, and let refscope-cli explain the leak.
#   run-demo.sh BUILD_DIR
set -euo pipefail
build="${1:?usage: run-demo.sh BUILD_DIR}"
demo="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cli="$build/app/cli/refscope-cli"
out="$build/demo"
mkdir -p "$out"
snapshot="$out/leaky_service.rscope"

echo "== running the demo service under the probe (python3 -m refscope run ...)"
PYTHONPATH="$build/python" python3 -m refscope run "$demo/leaky_service.py" 300 \
    --snapshot-at-exit "$snapshot"
echo
echo "== $cli info $snapshot"
"$cli" info "$snapshot"
echo
echo "== biggest groups by type"
"$cli" summary "$snapshot" --by type --top 8
echo
echo "== why is a leaked Response still alive?"
"$cli" path "$snapshot" --type response_cache.Response
echo
echo "== the same leak as a picture (Graphviz): $out/leak-path.svg"
"$cli" export-path "$snapshot" --type response_cache.Response -o "$out/leak-path.svg"
