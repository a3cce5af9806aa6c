"""Per-commit asv results kept forever on an append-only git branch (``perf-results``).

After a benchmark run on main, ``append`` adds the run's result files to the branch with git
plumbing (a private index file, ``commit-tree``, ``push``), so the main checkout, its index
and HEAD are never touched. The branch mirrors asv's ``results_dir`` layout
(``benchmarks.json``, ``<machine>/machine.json``, ``<machine>/<hash>-<env>.json``), so
``export`` followed by ``asv publish`` rebuilds the dashboard from it.

Policy (decided per file, before anything is written):

* a *result* file (``<machine>/<hash>-<env>.json``) that is absent is added; one already
  present with identical content is a no-op; one present with *different* content (a re-run
  of the same commit) is never overwritten: it is stored next to it as
  ``<hash>-<env>.<sha256[:12] of the content>.json``. The name depends on the content only,
  so a retry after a lost race is again a no-op, and asv loads both files as two runs of the
  same commit (``asv publish`` plots their mean);
* the *metadata* files ``benchmarks.json`` (the suite description) and ``machine.json`` are
  not results: a differing one replaces the stored one (the newest run describes the
  machine). The suite is also kept per commit, as ``suites/<commit>.json`` (the commit the
  run's suites were discovered at, ``--suite-ref``, default HEAD), and ``export`` writes out
  the suite of the newest commit of the exported history (``--ref``), so the order in which
  machines or catch-up runs append never decides which benchmarks the dashboard shows
  (:mod:`perfgate.history_order`).

``pending`` prints the commits a run on one machine should measure: the tip and the older
first-parent commits that have no results of that machine yet (runs GitHub dropped, pushes of
several commits), newest first, for ``asv run HASHFILE:...``.

Concurrent writers race on the branch tip. A push rejected because the tip moved is retried
on a fresh fetch with exponential backoff and jitter, a bounded number of times; every other
git failure is an error (fail closed). Exit codes of the CLI: 0 success, 1 error, 2 usage.
"""

from __future__ import annotations

import argparse
import enum
import hashlib
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from perfgate.cli_types import positive_int
from perfgate.history_order import (
    check_commit,
    check_machine,
    commits_to_measure,
    export_layout,
    measured_prefixes,
    suite_blobs,
    suite_path,
)

METADATA_NAMES = frozenset({"benchmarks.json", "machine.json"})
BOT_IDENTITY = {
    "GIT_AUTHOR_NAME": "perfgate-history",
    "GIT_AUTHOR_EMAIL": "perfgate-history@users.noreply.invalid",
    "GIT_COMMITTER_NAME": "perfgate-history",
    "GIT_COMMITTER_EMAIL": "perfgate-history@users.noreply.invalid",
}
_CREDENTIALS = re.compile(r"(?<=://)[^/@\s]+@")


class HistoryError(RuntimeError):
    """A failure that must stop the append (and fail the CI step)."""


class Action(enum.Enum):
    """What happens to one file of the run."""

    ADD = "add"
    UNCHANGED = "unchanged"
    ADD_RENAMED = "add-renamed"  # differing re-run result stored under a content-derived name
    REPLACE = "replace"  # differing metadata file

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


def redact(text: str) -> str:
    """Remove ``user:token@`` from URLs, so remotes with credentials never reach a log."""
    return _CREDENTIALS.sub("***@", text)


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


#: Settings for every git call: the push credentials live in this process's environment
#: (GIT_CONFIG_* from the workflow), and a runner that also benchmarks pull requests may
#: hold a planted ``~/.gitconfig`` or hooks; none of that may run, or see them.
_ISOLATED_ENV = {
    "GIT_TERMINAL_PROMPT": "0",  # never wait for a password: missing credentials are errors
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}
_ISOLATED_ARGS = ("-c", f"core.hooksPath={os.devnull}", "-c", "core.fsmonitor=false")


class Git:
    """Thin runner of git commands in one repository (the only I/O with git).

    Global and system git configuration and every hook are ignored (``_ISOLATED_ENV``): the
    branch is written with plumbing only, so nothing else is needed.
    """

    def __init__(self, repo: Path, env: Mapping[str, str] | None = None) -> None:
        self.repo = repo
        self.env = {**os.environ, **_ISOLATED_ENV, **(env or {})}

    def run(
        self, *args: str, stdin: bytes | None = None, env: Mapping[str, str] | None = None
    ) -> subprocess.CompletedProcess[bytes]:
        """Run ``git args`` and return the completed process (no exception on failure)."""
        return subprocess.run(
            ["git", *_ISOLATED_ARGS, "-C", str(self.repo), *args],
            input=stdin,
            capture_output=True,
            env={**self.env, **(env or {})},
            check=False,
        )

    def out(
        self, *args: str, stdin: bytes | None = None, env: Mapping[str, str] | None = None
    ) -> str:
        """Run ``git args``; a failure is a HistoryError with git's (redacted) message."""
        done = self.run(*args, stdin=stdin, env=env)
        if done.returncode != 0:
            message = done.stderr.decode(errors="replace").strip()
            raise HistoryError(redact(f"git {args[0]} failed: {message}"))
        return done.stdout.decode(errors="replace").strip()


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
    raise HistoryError(redact(f"git push failed: {output.strip()}"))


def hash_files(git: Git, results_dir: Path, files: Mapping[str, bytes]) -> list[ResultFile]:
    """Write every file as a blob into the repository's object store; one git call."""
    paths = sorted(files)
    stdin = "".join(f"{(results_dir / p).resolve()}\n" for p in paths).encode()
    blobs = git.out("hash-object", "-w", "--stdin-paths", stdin=stdin).split()
    if len(blobs) != len(paths):
        raise HistoryError(f"git hash-object returned {len(blobs)} ids for {len(paths)} files")
    return [ResultFile(p, files[p], b) for p, b in zip(paths, blobs, strict=True)]


def fetch_tip(git: Git, remote: str, branch: str) -> str | None:
    """The commit at ``remote``'s ``branch`` (fetched into a private ref), or None if absent.

    The private ref is unique per call, so writers sharing one clone never fight over a ref.
    """
    if not git.out("ls-remote", "--heads", remote, f"refs/heads/{branch}"):
        return None
    ref = f"refs/perfgate/fetch/{uuid.uuid4().hex}"
    spec = f"+refs/heads/{branch}:{ref}"
    git.out("fetch", "--quiet", "--no-tags", "--no-write-fetch-head", remote, spec)
    try:
        return git.out("rev-parse", "--verify", f"{ref}^{{commit}}")
    finally:
        git.out("update-ref", "-d", ref)


def list_tree(git: Git, commit: str | None) -> dict[str, str]:
    """Every file of ``commit``'s tree: path -> blob id (empty when there is no commit)."""
    if commit is None:
        return {}
    listing = git.run("ls-tree", "-r", "-z", commit)
    if listing.returncode != 0:
        raise HistoryError(f"git ls-tree {commit} failed: {listing.stderr.decode().strip()}")
    tree = {}
    for entry in listing.stdout.decode().split("\0"):
        if entry:
            meta, path = entry.split("\t", 1)
            tree[path] = meta.split()[2]
    return tree


def resolve_commit(git: Git, ref: str, what: str) -> str:
    """The full commit id ``ref`` names in ``git``'s repository; an error names ``what``."""
    done = git.run("rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}")
    if done.returncode != 0:
        raise HistoryError(f"{what}: {ref!r} names no commit in {git.repo}")
    return check_commit(done.stdout.decode().strip(), what)


def first_parent_history(git: Git, ref: str, what: str, limit: int | None = None) -> list[str]:
    """Commits of ``ref``'s first-parent chain, newest first (at most ``limit``)."""
    commit = resolve_commit(git, ref, what)
    count = [f"--max-count={limit}"] if limit is not None else []
    return git.out("rev-list", "--first-parent", *count, commit).split()


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
        info = "".join(f"100644 {c.blob}\t{c.target}\0" for c in changes if c.action.writes)
        git.out("update-index", "-z", "--index-info", stdin=info.encode(), env=env)
        tree = git.out("write-tree", env=env)
    identity = {k: os.environ.get(k, v) for k, v in BOT_IDENTITY.items()}
    parents = ["-p", parent] if parent else []
    return git.out("commit-tree", tree, *parents, "-m", message, env=identity)


def commit_message(changes: Sequence[Change]) -> str:
    """Subject plus one line per written file."""
    written = [c for c in changes if c.action.writes]
    lines = [f"{c.action.value}: {c.target}" for c in written]
    return f"perf-results: append {len(written)} file(s)\n\n" + "\n".join(lines) + "\n"


@dataclass(frozen=True)
class RetryPolicy:
    """Bounded retries with exponential backoff and jitter (delays in seconds)."""

    attempts: int = 8
    base_delay: float = 0.5
    max_delay: float = 30.0

    def __post_init__(self) -> None:
        if self.attempts < 1 or self.base_delay < 0 or self.max_delay < self.base_delay:
            raise ValueError(
                "retry policy: expected attempts >= 1 and 0 <= base_delay <= max_delay, got "
                f"{self.attempts}, {self.base_delay}, {self.max_delay}"
            )

    def delay(self, attempt: int, rng: random.Random) -> float:
        """Seconds to wait after failed attempt ``attempt`` (1-based): full jitter."""
        return rng.uniform(0.0, min(self.max_delay, self.base_delay * 2 ** (attempt - 1)))


@dataclass(frozen=True)
class AppendReport:
    """The outcome of :func:`append`: per-file decisions of the winning attempt."""

    changes: list[Change]
    commit: str | None  # None when every file was already stored
    attempts: int


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
) -> AppendReport:
    """Append the files of ``results_dir`` to ``remote``'s ``branch`` (see module docstring).

    ``suite_ref`` names the commit whose suites the run discovered (asv discovers them at the
    first commit it is given: the tip). ``before_push(attempt)`` is a test seam called right
    before each push.
    """
    policy = policy or RetryPolicy()
    rng = rng or random.Random()
    git = Git(repo)
    files = with_suite(git, hash_files(git, results_dir, read_results_dir(results_dir)), suite_ref)
    for attempt in range(1, policy.attempts + 1):
        parent = fetch_tip(git, remote, branch)
        changes = plan_changes(list_tree(git, parent), files)
        if not any(c.action.writes for c in changes):
            return AppendReport(changes, None, attempt)
        commit = build_commit(git, parent, changes, commit_message(changes))
        if before_push is not None:
            before_push(attempt)
        pushed = git.run(
            "push", "--porcelain", "--no-verify", remote, f"{commit}:refs/heads/{branch}"
        )
        output = (pushed.stdout + pushed.stderr).decode(errors="replace")
        if classify_push(pushed.returncode, output) is PushOutcome.PUSHED:
            return AppendReport(changes, commit, attempt)
        if attempt < policy.attempts:
            sleep(policy.delay(attempt, rng))
    raise HistoryError(
        f"push to {redact(remote)} {branch}: still racing after {policy.attempts} attempts"
    )


def read_blobs(git: Git, blobs: Sequence[str]) -> list[bytes]:
    """The contents of ``blobs`` through one ``git cat-file --batch`` process."""
    done = git.run("cat-file", "--batch", stdin="".join(f"{b}\n" for b in blobs).encode())
    if done.returncode != 0:
        raise HistoryError(f"git cat-file failed: {done.stderr.decode().strip()}")
    data, pos, out = done.stdout, 0, []
    for blob in blobs:
        header_end = data.index(b"\n", pos)
        header = data[pos:header_end].decode().split()
        if len(header) != 3 or header[0] != blob:
            raise HistoryError(f"git cat-file: unexpected header {header} for {blob}")
        size = int(header[2])
        out.append(data[header_end + 1 : header_end + 1 + size])
        pos = header_end + 1 + size + 1
    return out


def _staged(path: Path, content: bytes) -> str:
    """A temporary file beside ``path`` holding ``content``; the caller publishes it (link or
    replace) and removes the temporary name."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(content)
    except BaseException:
        os.unlink(tmp)
        raise
    return tmp


def write_new_file(path: Path, content: bytes) -> bool:
    """Write ``path`` atomically unless it exists (then return False; never overwrite)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = _staged(path, content)
    try:
        os.link(tmp, path)  # atomic, and fails if the path exists
        return True
    except FileExistsError:
        return False
    finally:
        os.unlink(tmp)


def export(repo: Path, remote: str, branch: str, dest: Path, ref: str = "HEAD") -> dict[str, str]:
    """Copy the branch's files into ``dest`` (for ``asv publish``); path -> status.

    ``benchmarks.json`` is the suite of the newest commit of ``ref``'s first-parent history
    that has one (``suites/`` itself is not copied). Missing files are written; existing ones
    are never overwritten: ``same`` when equal, ``kept-local`` when they differ (the local run
    is the newer one). The one exception is a ``benchmarks.json`` that an earlier export
    wrote (its content is a suite stored on the branch): it is ``replaced`` by the chosen one,
    or a second export would keep publishing the first one's suite.
    """
    git = Git(repo)
    history = first_parent_history(git, ref, "--ref")
    tip = fetch_tip(git, remote, branch)
    if tip is None:
        raise HistoryError(f"{redact(remote)} has no branch {branch!r} to export")
    tree = list_tree(git, tip)
    layout = export_layout(tree, history)
    paths = sorted(layout)
    status = {}
    for path, content in zip(paths, read_blobs(git, [layout[p] for p in paths]), strict=True):
        target = dest / path
        if write_new_file(target, content):
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


def replace_file(path: Path, content: bytes) -> None:
    """Write ``path`` atomically, replacing it (metadata only: results are never replaced)."""
    tmp = _staged(path, content)
    try:
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def pending(
    repo: Path, remote: str, branch: str, machine: str, ref: str = "HEAD", max_commits: int = 1
) -> list[str]:
    """Commits a run of ``machine`` for ``ref`` should measure, newest first.

    ``ref`` itself, then its first-parent ancestors without a result file of ``machine`` on
    the branch, back to the newest measured one, ``max_commits`` in all at most
    (:func:`perfgate.history_order.commits_to_measure`). No branch yet: nothing is measured.
    """
    check_machine(machine)
    git = Git(repo)
    history = first_parent_history(git, ref, "--ref", limit=max_commits)
    tip = fetch_tip(git, remote, branch)
    measured = measured_prefixes(list_tree(git, tip), machine)
    return commits_to_measure(history, measured, max_commits)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m perfgate.history", description=__doc__)
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    sub = parser.add_subparsers(dest="command", required=True)
    commands = (
        ("append", "append a results dir"),
        ("export", "write the branch out"),
        ("pending", "print the commits a run should measure, newest first"),
    )
    for name, text in commands:
        p = sub.add_parser(name, help=text)
        p.add_argument("--repo", type=Path, default=Path("."), help="git repository (default .)")
        p.add_argument("--remote", default="origin", help="remote name or URL (default origin)")
        p.add_argument("--branch", default="perf-results", help="history branch")
    append_p, export_p, pending_p = (sub.choices[name] for name, _ in commands)
    append_p.add_argument("--results", type=Path, default=Path(".asv/results"))
    append_p.add_argument("--attempts", type=int, default=RetryPolicy.attempts)
    append_p.add_argument("--retry-delay", type=float, default=RetryPolicy.base_delay)
    append_p.add_argument(
        "--suite-ref", default="HEAD", help="commit the run discovered its suites at (HEAD)"
    )
    export_p.add_argument("--dest", type=Path, default=Path(".asv/results"))
    export_p.add_argument("--ref", default="HEAD", help="history whose newest suite is used")
    pending_p.add_argument("--machine", required=True, help="asv machine name")
    pending_p.add_argument("--ref", default="HEAD", help="the commit the run is for (HEAD)")
    pending_p.add_argument("--max-commits", type=positive_int, default=1, help="cap (default 1)")
    return parser


def _run(args: argparse.Namespace) -> None:
    """Carry out one parsed command, printing its outcome on stdout."""
    if args.command == "append":
        policy = RetryPolicy(args.attempts, args.retry_delay, max(30.0, args.retry_delay))
        report = append(
            args.repo, args.results, args.remote, args.branch, policy, suite_ref=args.suite_ref
        )
        for change in report.changes:
            print(f"{change.action.value:12} {change.target}")
        where = f"{redact(args.remote)}/{args.branch}"
        done = f"pushed {report.commit}" if report.commit else "nothing new"
        print(f"{done} to {where} (attempts: {report.attempts})")
    elif args.command == "export":
        for path, state in export(
            args.repo, args.remote, args.branch, args.dest, args.ref
        ).items():
            print(f"{state:10} {path}")
    else:
        commits = pending(
            args.repo, args.remote, args.branch, args.machine, args.ref, args.max_commits
        )
        print("\n".join(commits))


def main(argv: Sequence[str] | None = None) -> int:
    """CLI entry point; returns the exit code (0 ok, 1 error, 2 usage)."""
    args = _parser().parse_args(argv)
    try:
        _run(args)
    except (HistoryError, ValueError) as exc:
        print(f"error: {redact(str(exc))}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
