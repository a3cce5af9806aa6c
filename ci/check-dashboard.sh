#!/usr/bin/env bash
# Build the asv dashboard from real results of two commits and check it renders.
#
# In a throwaway git repo under /tmp (never the project checkout) holding this project's
# asv.conf.json and benchmarks/, two commits are made and a fast subset of the suites is run
# for each (`asv run --quick --python=same --set-commit-hash`, i.e. the current venv's
# termplan). The results go through the history branch (append to a local bare origin,
# export back), then `asv publish` + ci/dashboard_assets.py build the static site, served by
# `python -m http.server` on 127.0.0.1 and loaded in headless Chromium: the benchmark grid, a
# benchmark graph page and the regressions page are screenshotted, and the graph page's DOM
# must contain flot's plot canvases.
#
# Env: PYTHON (default .venv/bin/python), CHROMIUM (default chromium),
#      DASHBOARD_OUT (screenshots + DOM dumps; default reports/dashboard-check),
#      DASHBOARD_BENCH (asv -b regex; default: the hot_slice and paired_ratio suites).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PY="${PYTHON:-$ROOT/.venv/bin/python}"
CHROMIUM="${CHROMIUM:-chromium}"
OUT="${DASHBOARD_OUT:-$ROOT/reports/dashboard-check}"
BENCH="${DASHBOARD_BENCH:-^(hot_slice|paired_ratio)\.}"
export NUMBA_CACHE_DIR="${NUMBA_CACHE_DIR:-$ROOT/.cache/numba}"

WORK="$(mktemp -d /tmp/perfgate-dashboard.XXXXXX)"
SERVER_PID=""
cleanup() {
    if [[ -n "$SERVER_PID" ]]; then kill "$SERVER_PID" 2>/dev/null || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT
mkdir -p "$OUT"

# 1. A throwaway repo with two commits (HOME is private, so ~/.asv-machine.json is too).
REPO="$WORK/repo"
mkdir -p "$REPO"
cp "$ROOT/asv.conf.json" "$REPO/"
cp -r "$ROOT/benchmarks" "$REPO/"
find "$REPO/benchmarks" -name __pycache__ -prune -exec rm -rf {} +
export HOME="$WORK/home" GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME=dashboard-check GIT_AUTHOR_EMAIL=dashboard-check@example.invalid
export GIT_COMMITTER_NAME=dashboard-check GIT_COMMITTER_EMAIL=dashboard-check@example.invalid
mkdir -p "$HOME"
git -C "$REPO" init -q -b main
git -C "$REPO" add -A
git -C "$REPO" commit -q -m "c1: suites"
echo "second commit" > "$REPO/CHANGES.txt"
git -C "$REPO" add -A
git -C "$REPO" commit -q -m "c2: a change"
C1="$(git -C "$REPO" rev-parse HEAD~1)"
C2="$(git -C "$REPO" rev-parse HEAD)"

# 2. Real results for both commits, then the static site.
cd "$REPO"
"$PY" -m asv machine --yes --machine dashboard-check >/dev/null
for commit in "$C1" "$C2"; do
    "$PY" -m asv run --quick --python=same --machine dashboard-check \
        --set-commit-hash "$commit" -b "$BENCH"
done
# The site is built from what the history branch stores: append both runs to a local bare
# "origin", then publish from a results dir exported back from the branch.
git init -q --bare "$WORK/origin.git"
git -C "$REPO" remote add origin "$WORK/origin.git"
"$PY" -m perfgate.cli history append --repo "$REPO" --results .asv/results
mv .asv/results "$WORK/local-results"
"$PY" -m perfgate.cli history export --repo "$REPO" --dest .asv/results >/dev/null
"$PY" -m asv publish
"$PY" "$ROOT/ci/dashboard_assets.py" .asv/html --cache "$ROOT/.asv/vendor-cache"
HTML="$REPO/.asv/html"
for f in index.html index.json regressions.json regressions.xml vendor/jquery.min.js; do
    [[ -s "$HTML/$f" ]] || { echo "error: $f missing from the published site" >&2; exit 1; }
done
GRAPH="$(find "$HTML/graphs" -name 'hot_slice.HotSlice.time_compute.json' \
    -path '*machine-dashboard-check*' | head -n1)"
[[ -n "$GRAPH" ]] || { echo "error: no graph data for hot_slice" >&2; exit 1; }
"$PY" - "$GRAPH" <<'EOF'
import json, sys
points = json.load(open(sys.argv[1]))
assert len(points) >= 2, f"expected >= 2 commits in {sys.argv[1]}, got {len(points)}"
print(f"graph data: {len(points)} commits in {sys.argv[1].split('/graphs/')[1]}")
EOF

# 3. Serve on 127.0.0.1 and render in headless Chromium.
PORT="$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
"$PY" -m http.server --bind 127.0.0.1 --directory "$HTML" "$PORT" >"$WORK/http.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 50); do
    curl -fs "http://127.0.0.1:$PORT/index.html" >/dev/null && break
    sleep 0.1
done
BASE="http://127.0.0.1:$PORT/index.html"
PAGE="hot_slice.HotSlice.time_compute?p-task=%27g1_walk%27&p-path=%27numpy%27"
chrome() {  # chrome <action flag> <url>
    "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$WORK/chrome" --window-size=1280,900 --virtual-time-budget=10000 \
        "$1" "$2" 2>>"$WORK/chrome.log"
}
chrome --screenshot="$OUT/grid.png" "$BASE#/"
chrome --screenshot="$OUT/graph.png" "$BASE#$PAGE"
chrome --screenshot="$OUT/regressions.png" "$BASE#/regressions"
chrome --dump-dom "$BASE#$PAGE" >"$OUT/graph.dom.html"
chrome --dump-dom "$BASE#/" >"$OUT/grid.dom.html"

# 4. The graph page drew flot canvases; the grid lists benchmark thumbnails.
grep -q 'class="flot-base"' "$OUT/graph.dom.html" \
    || { echo "error: no flot plot canvas on the graph page" >&2; exit 1; }
grep -q 'hot_slice.HotSlice.time_compute' "$OUT/grid.dom.html" \
    || { echo "error: the benchmark grid does not list hot_slice" >&2; exit 1; }
for png in grid graph regressions; do
    [[ -s "$OUT/$png.png" ]] || { echo "error: no $png.png screenshot" >&2; exit 1; }
done
echo "dashboard OK: commits ${C1:0:8} ${C2:0:8}; screenshots and DOM dumps in $OUT"
