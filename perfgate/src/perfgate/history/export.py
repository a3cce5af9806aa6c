"""Writing the ``perf-results`` branch out for ``asv publish``, listing the commits a run
should measure, and planning that run's time and shards (see `perfgate.history`)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from perfgate.atomic import replace_file, write_new
from perfgate.formats.asv_results import stored_problem
from perfgate.git import Git
from perfgate.history.branch import (
    HistoryError,
    branch_git,
    fetch_tip,
    first_parent_history,
    list_tree,
    read_blobs,
)
from perfgate.history.costs import stored_durations
from perfgate.history.order import (
    check_machine,
    commits_to_measure,
    export_layout,
    measured_prefixes,
    suite_blobs,
)
from perfgate.history.plan import DEFAULT_HEADROOM, HistoryPlan, plan_history
from perfgate.secrets import redact_url


def _warn(message: str) -> None:
    print(f"perfgate history export: warning: {message}", file=sys.stderr)


def export(
    repo: Path,
    remote: str,
    branch: str,
    dest: Path,
    ref: str = "HEAD",
    warn: Callable[[str], None] = _warn,
) -> dict[str, str]:
    """Copy the branch's files into ``dest`` (for ``asv publish``); path -> status.

    A result file or ``machine.json`` that asv and ``perfgate watch`` cannot read (corrupt
    JSON, another version, the wrong shape) is exported as it is (the branch is the record;
    it is append-only) with a warning naming it and what is wrong (``warn``; default stderr).

    ``benchmarks.json`` is the suite of the newest commit of ``ref``'s first-parent history
    that has one (``suites/`` itself is not copied). Missing files are written; existing ones
    are never overwritten: ``same`` when equal, ``kept-local`` when they differ (the local run
    is the newer one). The one exception is a ``benchmarks.json`` that an earlier export
    wrote (its content is a suite stored on the branch): it is ``replaced`` by the chosen one,
    or a second export would keep publishing the first one's suite.
    """
    git = branch_git(repo)
    history = first_parent_history(git, ref, "--ref")
    tip = fetch_tip(git, remote, branch)
    if tip is None:
        raise HistoryError(f"{redact_url(remote)} has no branch {branch!r} to export")
    tree = list_tree(git, tip)
    layout = export_layout(tree, history)
    paths = sorted(layout)
    status = {}
    for path, content in zip(paths, read_blobs(git, [layout[p] for p in paths]), strict=True):
        problem = stored_problem(path, content)
        if problem is not None:
            warn(f"{path}: {problem} (on {branch}; asv and perfgate watch cannot read it)")
        target = dest / path
        if write_new(target, content):
            status[path] = "written"
        elif target.read_bytes() == content:
            status[path] = "same"
        elif path == "benchmarks.json" and _blob_id(git, target) in suite_blobs(tree):
            replace_file(target, content)  # an earlier export's suite, not a local run's
            status[path] = "replaced"
        else:
            status[path] = "kept-local"
    return status


def _blob_id(git: Git, path: Path) -> str:
    """The git blob id of a file's content (not written to the object store)."""
    return git.out("hash-object", "--", str(path.resolve()))


def pending(
    repo: Path, remote: str, branch: str, machine: str, ref: str = "HEAD", max_commits: int = 1
) -> list[str]:
    """Commits a run of ``machine`` for ``ref`` should measure, newest first.

    ``ref`` itself, then its first-parent ancestors without a result file of ``machine`` on
    the branch, back to the newest measured one, ``max_commits`` in all at most
    (:func:`perfgate.history.order.commits_to_measure`). No branch yet: nothing is measured.
    """
    check_machine(machine)
    git = branch_git(repo)
    history = first_parent_history(git, ref, "--ref", limit=max_commits)
    tip = fetch_tip(git, remote, branch)
    measured = measured_prefixes(list_tree(git, tip), machine)
    return commits_to_measure(history, measured, max_commits)


def plan_run(
    repo: Path,
    remote: str,
    branch: str,
    machine: str,
    ref: str,
    max_commits: int,
    timeout_s: float,
    headroom: float = DEFAULT_HEADROOM,
) -> HistoryPlan:
    """The planned run of ``machine`` for ``ref``: the commits `pending` would list, their
    expected time from the machine's newest stored durations, and shards that fit
    ``timeout_s`` (`perfgate.history.plan`)."""
    check_machine(machine)
    git = branch_git(repo)
    history = first_parent_history(git, ref, "--ref")
    tree = list_tree(git, fetch_tip(git, remote, branch))
    measured = measured_prefixes(tree, machine)
    commits = commits_to_measure(history[:max_commits], measured, max_commits)
    stored = stored_durations(git, tree, history, machine)
    plan = plan_history(machine, commits, stored[1] if stored else None, timeout_s, headroom)
    if stored is None:
        return plan
    return replace(plan, basis=f"{plan.basis}; durations of {stored[0][:12]}")
