#!/usr/bin/env bash
# Append this run's asv result files to the append-only `perf-results` branch.
# Thin wrapper: the policy (append-only, race retries) lives in perfgate/src/perfgate/history/.
# Usage: ci/append-results.sh [extra args for `python -m perfgate.cli history append`]
# Env: PYTHON (default .venv/bin/python), RESULTS_DIR (.asv/results), HISTORY_REMOTE (origin),
#      HISTORY_BRANCH (perf-results).
set -euo pipefail
cd "$(dirname "$0")/.."
exec "${PYTHON:-.venv/bin/python}" -m perfgate.cli history append \
    --results "${RESULTS_DIR:-.asv/results}" \
    --remote "${HISTORY_REMOTE:-origin}" \
    --branch "${HISTORY_BRANCH:-perf-results}" \
    "$@"
