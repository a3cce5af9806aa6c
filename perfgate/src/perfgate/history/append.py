"""Appending a run's asv results to the ``perf-results`` branch (see `perfgate.history`).

The branch is written with git plumbing (a private index file, ``commit-tree``, ``push``), so
the main checkout, its index and HEAD are never touched. A push rejected because the tip
moved is retried on a fresh fetch with backoff and jitter, a bounded number of times.
"""

from __future__ import annotations

import enum
import hashlib
import json
import os
import random
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from perfgate.git import Git
from perfgate.history import quarantine
from perfgate.history.branch import (
    HistoryError,
    branch_git,
    fetch_tip,
    list_tree,
    read_blobs,
    resolve_commit,
)
from perfgate.history.measured import missing_commits, no_results_problem, stored_commits
from perfgate.history.order import suite_path
from perfgate.retry import RetryPolicy
from perfgate.secrets import redact_url

METADATA_NAMES = frozenset({"benchmarks.json", "machine.json"})
BOT_IDENTITY = {
    "GIT_AUTHOR_NAME": "perfgate-history",
    "GIT_AUTHOR_EMAIL": "perfgate-history@users.noreply.invalid",
    "GIT_COMMITTER_NAME": "perfgate-history",
    "GIT_COMMITTER_EMAIL": "perfgate-history@users.noreply.invalid",
}
#: Retries of a push that raced another writer.
HISTORY_RETRY = RetryPolicy(attempts=8, base_delay=0.5, max_delay=30.0)


class Action(enum.Enum):
    """What happens to one file of the run."""

    ADD = "add"
    UNCHANGED = "unchanged"
    ADD_RENAMED = "add-renamed"  # differing re-run result stored under a content-derived name
    REPLACE = "replace"  # differing metadata file
    QUARANTINE = "quarantine"  # a damaged stored file, moved aside (perfgate.history.quarantine)
    REMOVE = "move-away"  # the damaged file's old path, emptied by the move

    @property
    def writes(self) -> bool:
        """True when the action changes the branch."""
        return self is not Action.UNCHANGED


@dataclass(frozen=True)
class ResultFile:
    """One file of the run: its path relative to the results dir, content and blob id."""

    path: str
    content: bytes
    blob: str


@dataclass(frozen=True)
class Change:
    """The decision for one file: ``target`` is the branch path it ends up at."""

    source: str
    target: str
    blob: str
    action: Action


def renamed_path(path: str, content: bytes) -> str:
    """``m/abc-env.json`` -> ``m/abc-env.<sha256[:12]>.json`` (deterministic per content)."""
    pure = PurePosixPath(path)
    digest = hashlib.sha256(content).hexdigest()[:12]
    return str(pure.with_name(f"{pure.stem}.{digest}{pure.suffix}"))


def plan_changes(existing: Mapping[str, str], files: Iterable[ResultFile]) -> list[Change]:
    """Decide, per file, how it joins a branch tree ``existing`` (path -> blob id). Pure."""
    changes = []
    for item in sorted(files, key=lambda f: f.path):
        stored = existing.get(item.path)
        if stored is None:
            action, target = Action.ADD, item.path
        elif stored == item.blob:
            action, target = Action.UNCHANGED, item.path
        elif PurePosixPath(item.path).name in METADATA_NAMES:
            action, target = Action.REPLACE, item.path
        else:
            target = renamed_path(item.path, item.content)
            if existing.get(target) not in (None, item.blob):
                raise HistoryError(f"{item.path}: {target} exists with other content")
            action = Action.UNCHANGED if existing.get(target) == item.blob else Action.ADD_RENAMED
        changes.append(Change(item.path, target, item.blob, action))
    return changes


def read_results_dir(results_dir: Path) -> dict[str, bytes]:
    """Every ``*.json`` below ``results_dir`` (posix relative path -> bytes), validated.

    A file that is not a JSON object is an error naming it: a truncated result must not be
    stored forever.
    """
    if not results_dir.is_dir():
        raise HistoryError(f"--results: {results_dir} is not a directory")
    found: dict[str, bytes] = {}
    for path in sorted(results_dir.rglob("*.json")):
        rel = path.relative_to(results_dir).as_posix()
        if any(part.startswith(".") for part in PurePosixPath(rel).parts):
            continue
        content = path.read_bytes()
        try:
            if not isinstance(json.loads(content), dict):
                raise ValueError("not a JSON object")
        except ValueError as exc:
            raise HistoryError(f"{path}: expected an asv JSON object ({exc})") from None
        found[rel] = content
    if not found:
        raise HistoryError(f"--results: no *.json result files under {results_dir}")
    return found


class PushOutcome(enum.Enum):
    """How one push attempt ended."""

    PUSHED = "pushed"
    RACED = "raced"  # the branch tip moved (or its ref was locked): fetch again and retry


#: Push rejections caused by a concurrent writer; every other failure is fatal.
_RACE_MARKERS = (
    "[rejected]",
    "fetch first",
    "non-fast-forward",
    "cannot lock ref",
    "failed to update ref",
    "incorrect old value",
    "reference already exists",
)


def classify_push(returncode: int, output: str) -> PushOutcome:
    """Map ``git push --porcelain`` output to an outcome; a non-race failure raises."""
    if returncode == 0:
        return PushOutcome.PUSHED
    rejected = [line for line in output.splitlines() if line.startswith("!")]
    if rejected and all(any(m in line for m in _RACE_MARKERS) for line in rejected):
        return PushOutcome.RACED
    raise HistoryError(redact_url(f"git push failed: {output.strip()}"))


def hash_files(git: Git, results_dir: Path, files: Mapping[str, bytes]) -> list[ResultFile]:
    """Write every file as a blob into the repository's object store; one git call."""
    paths = sorted(files)
    stdin = "".join(f"{(results_dir / p).resolve()}\n" for p in paths).encode()
    blobs = git.out("hash-object", "-w", "--stdin-paths", stdin=stdin).split()
    if len(blobs) != len(paths):
        raise HistoryError(f"git hash-object returned {len(blobs)} ids for {len(paths)} files")
    return [ResultFile(p, files[p], b) for p, b in zip(paths, blobs, strict=True)]


def with_suite(git: Git, files: Sequence[ResultFile], suite_ref: str) -> list[ResultFile]:
    """``files`` plus their ``benchmarks.json`` (if any) again as ``suites/<commit>.json``."""
    suite = [f for f in files if f.path == "benchmarks.json"]
    if not suite:
        return list(files)
    path = suite_path(resolve_commit(git, suite_ref, "--suite-ref"))
    return [*files, *(ResultFile(path, f.content, f.blob) for f in suite)]


def build_commit(git: Git, parent: str | None, changes: Sequence[Change], message: str) -> str:
    """A commit = ``parent``'s tree plus the writing changes, built in a private index."""
    with tempfile.TemporaryDirectory(prefix="perfgate-history-") as tmp:
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
        git.out("read-tree", *([parent] if parent else ["--empty"]), env=env)
        info = "".join(_index_line(c) for c in changes if c.action.writes)
        git.out("update-index", "-z", "--index-info", stdin=info.encode(), env=env)
        tree = git.out("write-tree", env=env)
    identity = {k: os.environ.get(k, v) for k, v in BOT_IDENTITY.items()}
    parents = ["-p", parent] if parent else []
    return git.out("commit-tree", tree, *parents, "-m", message, env=identity)


def _index_line(change: Change) -> str:
    """``update-index --index-info`` input: the file at its target, or its removal."""
    if change.action is Action.REMOVE:
        return f"0 {'0' * 40}\t{change.target}\0"
    return f"100644 {change.blob}\t{change.target}\0"


def quarantine_changes(
    git: Git, tree: Mapping[str, str], known: dict[str, str | None]
) -> tuple[list[Change], dict[str, str]]:
    """The moves of every damaged asv file of ``tree`` to ``quarantine/`` (with a record of
    why), and the tree after them (`perfgate.history.quarantine`)."""
    damaged = quarantine.find_damaged(tree, lambda blobs: read_blobs(git, blobs), known)
    changes: list[Change] = []
    after = dict(tree)
    for path, problem in damaged.items():
        blob = after.pop(path)
        note = quarantine.record(path, blob, problem)
        note_blob = git.out("hash-object", "-w", "--stdin", stdin=note)
        changes += [
            Change(path, path, blob, Action.REMOVE),
            Change(path, quarantine.quarantine_path(path), blob, Action.QUARANTINE),
            Change(path, quarantine.record_path(path), note_blob, Action.ADD),
        ]
        after[quarantine.quarantine_path(path)] = blob
        after[quarantine.record_path(path)] = note_blob
    return changes, after


def commit_message(changes: Sequence[Change]) -> str:
    """Subject plus one line per written file."""
    written = [c for c in changes if c.action.writes]
    lines = [
        f"{c.action.value}: {c.source} -> {c.target}"
        if c.action is Action.QUARANTINE
        else f"{c.action.value}: {c.target}"
        for c in written
    ]
    return f"perf-results: append {len(written)} file(s)\n\n" + "\n".join(lines) + "\n"


@dataclass(frozen=True)
class AppendReport:
    """The outcome of :func:`append`: per-file decisions of the winning attempt."""

    changes: list[Change]
    commit: str | None  # None when every file was already stored
    attempts: int
    missing: tuple[str, ...] = ()  # measured commits without a result (``measured``)


def append(
    repo: Path,
    results_dir: Path,
    remote: str,
    branch: str,
    policy: RetryPolicy | None = None,
    sleep: Callable[[float], None] = time.sleep,
    rng: random.Random | None = None,
    before_push: Callable[[int], None] | None = None,
    suite_ref: str = "HEAD",
    measured: Sequence[str] | None = None,
) -> AppendReport:
    """Append the files of ``results_dir`` to ``remote``'s ``branch`` (see module docstring).

    ``suite_ref`` names the commit whose suites the run discovered (asv discovers them at the
    first commit it is given: the tip). ``before_push(attempt)`` is a test seam called right
    before each push. ``measured`` (a benchmark run's results: the commits it measured) makes
    a results dir without any asv result file an error, and one without a result of every
    measured commit a report with those ``missing`` (the others are appended), so a run that
    stored nothing is never "pushed". Damaged files already on the branch are moved to
    ``quarantine/`` by the same commit (`quarantine_changes`).
    """
    policy = policy or HISTORY_RETRY
    rng = rng or random.Random()
    git = branch_git(repo)
    found = read_results_dir(results_dir)
    missing: tuple[str, ...] = ()
    if measured is not None:
        problem = no_results_problem(found, results_dir)
        if problem is not None:
            raise HistoryError(f"{problem}; measured: {', '.join(c[:12] for c in measured)}")
        missing = tuple(missing_commits(measured, stored_commits(found)))
        if len(missing) == len(measured):
            raise HistoryError(
                f"--results: {results_dir} holds no result of the measured commit(s) "
                f"{', '.join(c[:12] for c in missing)}: nothing appended"
            )
    files = with_suite(git, hash_files(git, results_dir, found), suite_ref)
    known: dict[str, str | None] = {}
    for attempt in range(1, policy.attempts + 1):
        parent = fetch_tip(git, remote, branch)
        moves, tree = quarantine_changes(git, list_tree(git, parent), known)
        changes = moves + plan_changes(tree, files)
        if not any(c.action.writes for c in changes):
            return AppendReport(changes, None, attempt, missing)
        commit = build_commit(git, parent, changes, commit_message(changes))
        if before_push is not None:
            before_push(attempt)
        pushed = git.run(
            "push", "--porcelain", "--no-verify", remote, f"{commit}:refs/heads/{branch}"
        )
        output = (pushed.stdout + pushed.stderr).decode(errors="replace")
        if classify_push(pushed.returncode, output) is PushOutcome.PUSHED:
            return AppendReport(changes, commit, attempt, missing)
        if attempt < policy.attempts:
            sleep(policy.delay(attempt, rng))
    raise HistoryError(
        f"push to {redact_url(remote)} {branch}: still racing after {policy.attempts} attempts"
    )
