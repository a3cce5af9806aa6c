"""The head commit's edits to the suites, which the gate does not measure (by design).

Both sides run the suites of the checkout the gate runs from, as asv does; in CI that
checkout is the base commit (the gate's tooling), so a pull request cannot change what it is
measured with, nor how. Whatever the head commit changes under the suites' folder is then
not measured at all: the report says so and names the files, so that nobody reads a pass
as a measurement of the pull request's new benchmarks.
"""

from __future__ import annotations

from pathlib import Path

from perfgate import git

#: The files named in the note; the rest are counted.
MAX_NAMED = 8


def files_named(files: list[str]) -> str:
    """Up to `MAX_NAMED` of ``files``, and how many more."""
    more = len(files) - MAX_NAMED
    return ", ".join(files[:MAX_NAMED]) + (f" and {more} more" if more > 0 else "")


def unmeasured_edits_note(repo: Path, head: str, benchmark_dir: Path) -> tuple[str, ...]:
    """The report line naming the suite files in which the checkout that ran differs from
    the head commit (none when they are the same: a local run of the head)."""
    try:
        changed = git.changed_files(repo, head, benchmark_dir)
    except (git.GitError, ValueError) as exc:
        return (f"suites: the head commit's not compared with the ones that ran ({exc})",)
    if not changed:
        return ()
    return (
        "suites: both sides ran the suites of the checkout the gate runs from (the base "
        f"commit's in CI), which differ from the head commit's in {files_named(changed)}: "
        "the head's edits there are not measured (by design: a pull request cannot change "
        "how it is judged)",
    )
