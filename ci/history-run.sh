#!/usr/bin/env bash
# The history job's benchmark run (perf-history.yml, bench job, "Run the suites"): one asv
# machine entry and one `asv run` of the listed commits in the environment asv builds from
# asv.conf.json (termplan built at each commit, perfgate from this checkout: the suites in
# benchmarks/ import perfgate.sim). The workflow and its test
# (tests/perfgate/history/test_history_asv_env.py) both run this script, so they cannot drift.
# Usage: ci/history-run.sh MACHINE HASHFILE [BENCH-REGEX ...]   (no regex: every benchmark)
# Env: ASV (default .venv/bin/asv), PYTHON (.venv/bin/python: writes PERFGATE_BENCH).
# Exit: asv's: 0, 2 when a benchmark failed on a commit (its results are saved all the
# same), anything else a failed run.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ $# -lt 2 ]]; then
    echo "usage: ci/history-run.sh MACHINE HASHFILE [BENCH-REGEX ...]" >&2
    exit 64
fi
machine=$1 hashfile=$2
shift 2
if [[ ! -s $hashfile ]]; then
    echo "ci/history-run.sh: $hashfile: expected a file of commit hashes, one a line" >&2
    exit 64
fi
asv=${ASV:-.venv/bin/asv}
bench=()
for regex in "$@"; do bench+=(--bench "$regex"); done
# the sim family's harness counts only the cases these regexes select (perfgate.sim.suite)
if [[ $# -gt 0 && -z ${PERFGATE_BENCH:-} ]]; then
    PERFGATE_BENCH=$("${PYTHON:-.venv/bin/python}" -c \
        'import json, sys; print(json.dumps(sys.argv[1:]))' "$@")
    export PERFGATE_BENCH
fi
"$asv" machine --yes --machine "$machine"
# asv discovers the suites at the first hash: the shard's newest commit, which the append
# step names the suite after. --record-samples: a short history's change points are tested
# on the samples of each commit (perfgate watch), not on one median per commit.
# --interleave-rounds (asv's default here, stated so it stays): each benchmark's rounds (4
# for the hot slice) are spread over all commits of the run, so a drift of the machine
# during it hits every commit alike.
exec "$asv" run --machine "$machine" --show-stderr --record-samples \
    --interleave-rounds "${bench[@]}" "HASHFILE:$hashfile"
