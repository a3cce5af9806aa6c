"""The pull request a commit of main came from, read from its subject line (pure).

GitHub writes the number into the subject of the commit it makes on merge: a squash or a
rebase merge ends the subject with ``(#123)``, a merge commit starts ``Merge pull request
#123 from owner/branch``. A commit pushed to main directly names none.
"""

from __future__ import annotations

import re

_SQUASH = re.compile(r"\(#(\d+)\)\s*$")
_MERGE = re.compile(r"^Merge pull request #(\d+)\b")


def pull_request_number(subject: str) -> int | None:
    """The pull request number in a commit ``subject``, or None when it names none."""
    line = subject.strip().splitlines()[0] if subject.strip() else ""
    found = _MERGE.match(line) or _SQUASH.search(line)
    return int(found.group(1)) if found else None
