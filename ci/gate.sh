#!/usr/bin/env bash
# Run the performance gate for one pull request and (optionally) post the result.
#
#   base = merge base of the target branch and the PR head; head = the PR head commit.
#   Writes $REPORT_DIR/{report.md,report.html,verdict.json} (the contract with `perfgate post`).
#
# Environment:
#   HEAD_SHA        PR head commit (default: git rev-parse HEAD)
#   BASE_SHA        target branch commit; the gate uses merge-base(BASE_SHA, HEAD_SHA)
#                   (default: origin/main)
#   REPORT_DIR      default reports/gate
#   PERFGATE_POST   "1": post the comment + status now (needs GITHUB_TOKEN, GITHUB_REPOSITORY,
#                   PR_NUMBER); otherwise print what would be posted (--dry-run). In
#                   perf-gate.yml the benchmark job has no write token, so a separate job posts.
#   REPORT_URL      link for the status (e.g. the workflow run holding the HTML artifact)
#   PERFGATE_WORK_DIR  exports and rounds (default: .perfgate in the checkout). Noise floors
#                   are never read from it: the benchmarks of the pull request could write it
#   PERFGATE_FLOORS_REF  a fetched ref of the perf-results branch (e.g.
#                   refs/remotes/origin/perf-results): the gate reads the newest calibrated
#                   noise floors of its machine there, verified against their digest; unset
#                   or absent: no floors (the report says "none calibrated")
#   PERFGATE_SHARD  "K/N": measure shard K of N only (`perfgate gate --shard`): REPORT_DIR
#                   gets the shard's samples and shard.json for `perfgate merge`, nothing is
#                   decided or posted
#   PERFGATE_PARITY_RESULT  CI's parity result for HEAD_SHA (`perfgate parity-result`): the
#                   gate takes it instead of running parity itself, and refuses it (exit 3)
#                   when it is missing or of another commit; unset: the gate runs parity
#   PYTHON          default .venv/bin/python (created by `make venv`)
#   GITHUB_OUTPUT   set by GitHub Actions: the gate appends report-digest=sha256:... (the
#                   report files as it wrote them) for `perfgate post --expect-digest`
#
# Exit code: the gate's (0 pass, 1 regression, 2 parity failure, 3 error); 3 when the gate
# passed but posting failed. A shard: 0 when it measured, 2 parity failure, 3 error. Nothing
# here ever turns an error into a pass.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-.venv/bin/python}
REPORT_DIR=${REPORT_DIR:-reports/gate}
HEAD_SHA=${HEAD_SHA:-$(git rev-parse HEAD)}
BASE_SHA=${BASE_SHA:-origin/main}
BASE=$(git merge-base "$BASE_SHA" "$HEAD_SHA")

if [[ ! -x "$PY" ]]; then
    make venv
fi

echo "perfgate gate: base=$BASE (merge base of $BASE_SHA) head=$HEAD_SHA"
gate_args=(--base "$BASE" --head "$HEAD_SHA" --report-dir "$REPORT_DIR")
if [[ -n "${PERFGATE_WORK_DIR:-}" ]]; then
    gate_args+=(--work-dir "$PERFGATE_WORK_DIR")
fi
# the digest of the report files as the gate wrote them, for the job that posts them
if [[ -n "${GITHUB_OUTPUT:-}" ]]; then
    gate_args+=(--digest-output "$GITHUB_OUTPUT")
fi
if [[ -n "${PERFGATE_FLOORS_REF:-}" ]]; then
    if git rev-parse --verify --quiet "${PERFGATE_FLOORS_REF}^{commit}" >/dev/null; then
        gate_args+=(--floors-ref "$PERFGATE_FLOORS_REF")
    else
        echo "perfgate gate: no $PERFGATE_FLOORS_REF (no perf-results branch yet): no noise floors"
    fi
fi
if [[ -n "${PERFGATE_PARITY_RESULT:-}" ]]; then
    gate_args+=(--parity-result "$PERFGATE_PARITY_RESULT")
fi
if [[ -n "${PERFGATE_SHARD:-}" ]]; then
    echo "perfgate gate: shard $PERFGATE_SHARD into $REPORT_DIR"
    exec "$PY" -m perfgate.cli gate "${gate_args[@]}" --shard "$PERFGATE_SHARD"
fi
gate_status=0
"$PY" -m perfgate.cli gate "${gate_args[@]}" || gate_status=$?

# The job summary shows the report even when nobody may post it (fork pull requests).
if [[ -n "${GITHUB_STEP_SUMMARY:-}" && -f "$REPORT_DIR/report.md" ]]; then
    cat "$REPORT_DIR/report.md" >>"$GITHUB_STEP_SUMMARY"
fi

post_args=(--report-dir "$REPORT_DIR" --sha "$HEAD_SHA")
if [[ -n "${REPORT_URL:-}" ]]; then
    post_args+=(--report-url "$REPORT_URL")
fi
post_status=0
if [[ "${PERFGATE_POST:-0}" == "1" ]]; then
    "$PY" -m perfgate.cli post --pr "${PR_NUMBER:?PR_NUMBER is required to post}" \
        "${post_args[@]}" || post_status=$?
else
    "$PY" -m perfgate.cli post --pr "${PR_NUMBER:-0}" "${post_args[@]}" --dry-run \
        || post_status=$?
fi

if [[ "$gate_status" -eq 0 && "$post_status" -ne 0 ]]; then
    exit 3
fi
exit "$gate_status"
