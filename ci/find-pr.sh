#!/usr/bin/env bash
# Print `number=N` to $GITHUB_OUTPUT for the open pull request of $REPO whose head is
# $HEAD_OWNER:$HEAD_BRANCH at commit $HEAD_SHA; print nothing when there is none (the head
# moved on, or the pull request was closed). Used by perf-gate-fork-post.yml.
#
# The branch name comes from a fork and is untrusted text: it only ever travels in quoted
# variables and as a URL-encoded query value, never into a command line or a script.
set -euo pipefail

: "${REPO:?}" "${HEAD_SHA:?}" "${HEAD_OWNER:?}" "${HEAD_BRANCH:?}" "${GITHUB_OUTPUT:?}"
if [[ ! "$HEAD_SHA" =~ ^[0-9a-f]{40}$ ]]; then
    echo "find-pr: HEAD_SHA is not a full commit SHA" >&2
    exit 2
fi

number=$(
    gh api --method GET "repos/$REPO/pulls" \
        -f state=open -f "head=$HEAD_OWNER:$HEAD_BRANCH" -f per_page=100 \
        --jq ".[] | select(.head.sha == \"$HEAD_SHA\") | .number" | head -n 1
)
if [[ -z "$number" ]]; then
    echo "find-pr: no open pull request has head $HEAD_SHA; nothing to post"
    exit 0
fi
if [[ ! "$number" =~ ^[0-9]+$ ]]; then
    echo "find-pr: unexpected pull request number from the API" >&2
    exit 2
fi
echo "find-pr: pull request #$number"
echo "number=$number" >>"$GITHUB_OUTPUT"
