#!/usr/bin/env bash
# Fetch pull request $PR_NUMBER's head from $SERVER/$REPO and check that it is still
# $HEAD_SHA, the commit of the event: the one a maintainer labelled `safe-to-bench`
# (perf-gate-fork.yml), or the pushed head (perf-gate.yml). The commit is only fetched (the
# checkout stays on the trusted base commit); a head that moved since exits 3, so a later
# push is never benchmarked without a new label (fork) or its own run (same repository).
set -euo pipefail

if [[ ! "${HEAD_SHA:-}" =~ ^[0-9a-f]{40}$ ]]; then
    echo "fetch-pr-head: HEAD_SHA is not a full commit SHA" >&2
    exit 2
fi
if [[ ! "${PR_NUMBER:-}" =~ ^[1-9][0-9]*$ ]]; then
    echo "fetch-pr-head: PR_NUMBER is not a pull request number" >&2
    exit 2
fi
git fetch --no-tags --quiet "${SERVER:?}/${REPO:?}.git" \
    "+refs/pull/${PR_NUMBER}/head:refs/remotes/pr/${PR_NUMBER}"
fetched=$(git rev-parse "refs/remotes/pr/${PR_NUMBER}^{commit}")
if [[ "$fetched" != "$HEAD_SHA" ]]; then
    echo "fetch-pr-head: pull request #${PR_NUMBER} moved to ${fetched} since ${HEAD_SHA}" \
        "(a fork: apply safe-to-bench again; a branch here: its new head runs on its own)" >&2
    exit 3
fi
echo "fetch-pr-head: pull request #${PR_NUMBER} at ${HEAD_SHA}"
