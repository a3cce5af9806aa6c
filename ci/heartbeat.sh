#!/usr/bin/env bash
# Run a command and pass its output through; whenever it has printed nothing for 10 s, print
# "<stage>: still running (<N>s elapsed)", so that a long quiet step (pip installing numba,
# scipy and MuJoCo into a fresh virtualenv) is never taken for a hang. Exit status: the
# command's.
# Usage: ci/heartbeat.sh STAGE COMMAND [ARGS...]
set -uo pipefail
stage="$1"
shift
start=$SECONDS
"$@" 2>&1 | while true; do
    if IFS= read -r -t 10 line; then
        printf '%s\n' "$line"
    elif (($? > 128)); then
        if [[ -n "${line:-}" ]]; then printf '%s\n' "$line"; fi
        printf '%s\n' "$stage: still running ($((SECONDS - start))s elapsed)"
    else
        [[ -n "${line:-}" ]] && printf '%s\n' "$line"
        break
    fi
done
exit "${PIPESTATUS[0]}"
