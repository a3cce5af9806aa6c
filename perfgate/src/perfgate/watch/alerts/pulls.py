"""The pull request a commit of main came from (pure): from its subject line, else from the
pull requests GitHub associates with the commit.

GitHub writes the number into the subject of the commit it makes on merge: a squash merge
ends the subject with ``(#123)``, a merge commit starts ``Merge pull request #123 from
owner/branch``. A rebase merge keeps the pull request's own subjects, which name none: for
those the watch asks GitHub (``GET /repos/{owner}/{repo}/commits/{sha}/pulls``, through
`perfgate.watch.alerts.issues`) and `pull_for_commit` picks the merged one that brought the commit
in. A commit pushed to main directly has none.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

_SQUASH = re.compile(r"\(#(\d+)\)\s*$")
_MERGE = re.compile(r"^Merge pull request #(\d+)\b")


def pull_request_number(subject: str) -> int | None:
    """The pull request number in a commit ``subject``, or None when it names none."""
    line = subject.strip().splitlines()[0] if subject.strip() else ""
    found = _MERGE.match(line) or _SQUASH.search(line)
    return int(found.group(1)) if found else None


@dataclass(frozen=True)
class PullRef:
    """A pull request GitHub associates with a commit: its number, whether it was merged,
    the commit its merge made, and the branch it targeted."""

    number: int
    merged: bool
    merge_commit_sha: str | None
    base: str


def pull_for_commit(sha: str, pulls: Sequence[PullRef], branch: str | None) -> int | None:
    """The merged pull request that brought ``sha`` into ``branch`` (None: any branch):
    the one whose merge made ``sha`` first, else the only merged one into that branch.
    Unmerged pull requests (others built on the commit) never count; two candidates and
    none made ``sha``: None rather than a guess."""
    merged = [p for p in pulls if p.merged and (branch is None or p.base == branch)]
    made = [p for p in merged if p.merge_commit_sha == sha]
    if made:
        return made[0].number
    return merged[0].number if len(merged) == 1 else None
