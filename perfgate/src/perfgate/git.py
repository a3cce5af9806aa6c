"""The one git runner, and the git questions perfgate asks (revisions, merge base, changed
files, a file at a commit, a commit's tree exported for measuring).

`Git` runs ``git -C REPO ...`` in the allow-list environment of every child process
(``secrets.child_environment``) and returns the completed process, or its output with a failure
raised as an error naming the command. ``isolated=True`` (the history branch writer, which
holds push credentials on runners that also build pull requests) ignores the global and
system git configuration and every hook.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Mapping
from pathlib import Path

from perfgate import tree_export
from perfgate.errors import RunnerError, UserError
from perfgate.secrets import child_environment, redact_url

#: Settings for every isolated git call: the push credentials live in this process's
#: environment (GIT_CONFIG_* from the workflow), and a runner that also benchmarks pull
#: requests may hold a planted ``~/.gitconfig`` or hooks; none of that may run, or see them.
_ISOLATED_ENV = {
    "GIT_TERMINAL_PROMPT": "0",  # never wait for a password: missing credentials are errors
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}
#: What an isolated (history-writing) git keeps beyond the allow-list: its push credentials
#: (GIT_CONFIG_*, GIT_ASKPASS, GIT_SSH_COMMAND) and the ssh agent, which no other child gets.
_ISOLATED_PASSTHROUGH = ("GIT_", "SSH_AUTH_SOCK")
_ISOLATED_ARGS = ("-c", f"core.hooksPath={os.devnull}", "-c", "core.fsmonitor=false")
_SHA = re.compile(r"[0-9a-f]{40}")
_COMPLETE = ".perfgate-export-complete"


class GitError(RunnerError):
    """A git command failed; the message is git's own (credentials in URLs redacted)."""


class GitMissingError(GitError, UserError):
    """git itself cannot be run (not on PATH, not executable): the environment is wrong, so
    every command reports it as a clean error (exit 3), never a traceback."""


class Git:
    """Runs git commands in one repository; failures of :meth:`out` raise ``error``."""

    def __init__(
        self,
        repo: Path,
        env: Mapping[str, str] | None = None,
        *,
        isolated: bool = False,
        error: type[Exception] = GitError,
    ) -> None:
        self.repo = repo
        inherited = child_environment(os.environ, _ISOLATED_PASSTHROUGH if isolated else ())
        self.env = {**inherited, **(_ISOLATED_ENV if isolated else {}), **(env or {})}
        self.args = _ISOLATED_ARGS if isolated else ()
        self.error = error

    def run(
        self, *args: str, stdin: bytes | None = None, env: Mapping[str, str] | None = None
    ) -> subprocess.CompletedProcess[bytes]:
        """Run ``git args`` and return the completed process (no exception on failure; a
        git that cannot be started at all is a `GitMissingError`)."""
        full = {**self.env, **(env or {})}
        try:
            return subprocess.run(
                ["git", *self.args, "-C", str(self.repo), *args],
                input=stdin,
                capture_output=True,
                env=full,
                check=False,
            )
        except OSError as exc:
            raise GitMissingError(
                f"cannot run git ({exc.strerror or exc}): perfgate needs git on PATH "
                f"(PATH={full.get('PATH', '')!r})"
            ) from None

    def out(
        self, *args: str, stdin: bytes | None = None, env: Mapping[str, str] | None = None
    ) -> str:
        """Run ``git args``; a failure raises ``error`` with git's (redacted) message."""
        done = self.run(*args, stdin=stdin, env=env)
        if done.returncode != 0:
            message = done.stderr.decode(errors="replace").strip()
            raise self.error(redact_url(f"git {args[0]} failed: {message}"))
        return done.stdout.decode(errors="replace").strip()


def resolve(repo: Path, rev: str) -> str:
    """The full commit SHA of ``rev`` in ``repo``; an unknown revision is a GitError."""
    done = Git(repo).run("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    sha = done.stdout.decode(errors="replace").strip()
    if done.returncode != 0 or not _SHA.fullmatch(sha):
        raise GitError(f"unknown revision {rev!r} in {repo}")
    return sha


def is_shallow(repo: Path) -> bool:
    """True when ``repo`` is a shallow clone (its history is cut off)."""
    done = Git(repo).run("rev-parse", "--is-shallow-repository")
    return done.stdout.decode(errors="replace").strip() == "true"


def merge_base(repo: Path, a: str, b: str) -> str | None:
    """The best common ancestor of commits ``a`` and ``b``; None when they share no history.

    A shallow clone that cut the common history off is a GitError saying so.
    """
    done = Git(repo).run("merge-base", a, b)
    sha = done.stdout.decode(errors="replace").strip()
    if done.returncode == 1 and not sha:
        if is_shallow(repo):
            raise GitError(
                f"no merge base of {a[:12]} and {b[:12]} in the shallow clone {repo}: "
                "fetch the full history (actions/checkout fetch-depth: 0, git fetch --unshallow)"
            )
        return None
    if done.returncode != 0 or not _SHA.fullmatch(sha):
        stderr = done.stderr.decode(errors="replace").strip()
        raise GitError(f"git merge-base {a[:12]} {b[:12]} in {repo}: {stderr}")
    return sha


def changed_files(repo: Path, sha: str, path: Path) -> list[str]:
    """Files under ``path`` whose working-tree state differs from commit ``sha`` (untracked too).

    Paths are relative to ``repo``, sorted; a git failure is a GitError.
    """
    where = path.resolve().relative_to(repo.resolve()).as_posix()
    commands = (  # -z: names as they are (no C quoting of non-ASCII, quotes, newlines)
        ("diff", "-z", "--name-only", "--no-renames", sha, "--", where),
        ("ls-files", "-z", "--others", "--exclude-standard", "--", where),
    )
    found: set[str] = set()
    for command in commands:
        done = Git(repo).run(*command)
        if done.returncode != 0:
            message = done.stderr.decode(errors="replace").strip()[-300:]
            raise GitError(f"{shlex.join(['git', command[0]])} in {repo}: {message}")
        found.update(name for name in done.stdout.decode(errors="replace").split("\0") if name)
    return sorted(found)


def show(repo: Path, sha: str, path: str) -> str:
    """The text of ``path`` at commit ``sha``; a missing file is a GitError."""
    done = Git(repo).run("show", f"{sha}:{path}")
    if done.returncode != 0:
        raise GitError(f"{path} at {sha[:12]}: {done.stderr.decode(errors='replace')[-300:]}")
    return done.stdout.decode("utf-8", errors="strict")


def file_at(repo: Path, sha: str, path: str) -> str | None:
    """The text of ``path`` at commit ``sha``, None when the commit has no such file."""
    if Git(repo).run("cat-file", "-e", f"{sha}:{path}").returncode != 0:
        return None
    return show(repo, sha, path)


def working_copy(repo: Path, sha: str, dest: Path) -> Path:
    """A checkout of ``sha`` at ``dest`` with its git metadata (a clone sharing ``repo``'s
    objects), for a build whose backend reads the version from git; an export has none."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    source = str(repo.resolve())
    Git(dest.parent).out("clone", "--quiet", "--shared", "--no-checkout", source, str(dest))
    Git(dest).out("checkout", "--quiet", "--detach", sha)
    return dest


def export_folder(root: Path, sha: str) -> Path:
    """Where `export_commit` puts the tree of ``sha`` under ``root``."""
    return root / sha


def export_commit(repo: Path, sha: str, root: Path) -> Path:
    """Export the tree of ``sha`` to `export_folder` ``(root, sha)`` once; later calls reuse
    it.

    The export is built in a temporary sibling and renamed into place, so a killed run
    never leaves a half-written tree that a later run would take as complete. (``git
    archive`` sets file mtimes to the commit time, so Numba's on-disk cache stays valid.)
    A committed symbolic link is exported as a link, one pointing out of the tree too
    (`perfgate.tree_export`): never followed, nothing written through it.
    """
    final = export_folder(root, sha)
    if (final / _COMPLETE).exists():
        return final
    root.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{sha[:12]}-", dir=root))
    try:
        archive = Git(repo).run("archive", "--format=tar", sha)
        if archive.returncode != 0:
            raise GitError(f"git archive {sha[:12]} failed: {archive.stderr.decode()[-500:]}")
        tar_path = tmp / ".export.tar"
        tar_path.write_bytes(archive.stdout)
        with tarfile.open(tar_path) as tar:
            tree_export.extract_tree(tar, tmp)  # links out of the tree kept as links
        tar_path.unlink()
        (tmp / _COMPLETE).write_text(sha + "\n")
        if final.exists():
            shutil.rmtree(final)
        os.replace(tmp, final)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return final
