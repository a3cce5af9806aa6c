"""Reading the ``perf-results`` branch through git plumbing: its tip (fetched into a private
ref), its tree, its blobs, and first-parent history. Every git call is isolated
(`perfgate.git.Git` with ``isolated=True``); every failure is a `HistoryError`.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from pathlib import Path

from perfgate.git import Git
from perfgate.history.order import check_commit


class HistoryError(RuntimeError):
    """A failure that must stop the history command (and fail the CI step)."""


def branch_git(repo: Path) -> Git:
    """The isolated git runner of the history commands (failures are HistoryErrors)."""
    return Git(repo, isolated=True, error=HistoryError)


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
