"""What every item stands on: the table's rows, finished commands, the work folder; running
the installed perfgate's command line in a clean environment, git repositories made and
committed to with a fixed identity, making a path immutable, and the tests' fake GitHub API.
Nothing here judges what ran (judging.py) or knows the tiny project (tiny_project.py)."""

from __future__ import annotations

import functools
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from gh_env import TOKEN
from gh_fake_api import FakeGitHub, FakeServer
from gh_openapi import OpenApi

#: this checkout: the repository ci/probe_holes/ lives in
SOURCE = Path(__file__).resolve().parents[2]
#: environment variables never passed on from the caller (secrets, GitHub, CI)
DROPPED = ("GITHUB_", "ACTIONS_", "RUNNER_", "PERFGATE_")


@dataclass(frozen=True)
class Row:
    """One line of the table; ``ok`` None: the row could not be run (``observed`` says why)."""

    item: str
    done: str
    expected: str
    observed: str
    ok: bool | None


class Unrunnable(Exception):
    """This machine cannot run a reproduction (the reason is the message)."""


@dataclass(frozen=True)
class Ran:
    """One finished (or timed out: code None) command."""

    code: int | None
    out: str
    err: str
    seconds: float

    @property
    def text(self) -> str:
        return self.out + self.err


@dataclass(frozen=True)
class Ctx:
    """Where items work and with which interpreter."""

    work: Path
    python: str

    def folder(self, name: str) -> Path:
        """A new, empty folder for one item."""
        path = self.work / name
        shutil.rmtree(path, ignore_errors=True)
        path.mkdir(parents=True)
        return path


# -- running things ----------------------------------------------------------------------


def base_env(ctx: Ctx) -> dict[str, str]:
    """The caller's environment without secrets, GitHub's or CI's variables; a private HOME
    (asv's machine file) and the checkout's Numba cache."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(DROPPED)}
    env = {k: v for k, v in env.items() if "TOKEN" not in k and "SECRET" not in k}
    env.pop("DATABASE_URL", None)
    env.pop("CI", None)
    (ctx.work / "home").mkdir(parents=True, exist_ok=True)
    env["HOME"] = str(ctx.work / "home")
    env.setdefault("NUMBA_CACHE_DIR", str(SOURCE / ".cache" / "numba"))
    return env


def run(argv: Sequence[str], cwd: Path, env: Mapping[str, str], timeout: float = 900) -> Ran:
    """Run ``argv`` in a session of its own; never raises for its exit code. A run past
    ``timeout`` is killed with its whole process group (code None)."""
    t0 = time.monotonic()
    with subprocess.Popen(
        list(argv), cwd=cwd, env=dict(env), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, start_new_session=True,
    ) as proc:  # fmt: skip
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            with suppress(ProcessLookupError):  # the group may have ended meanwhile
                os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            return Ran(
                None, out, err + f"\ntimed out after {timeout:.0f} s", time.monotonic() - t0
            )
    return Ran(proc.returncode, out, err, time.monotonic() - t0)


def perfgate(
    ctx: Ctx, cwd: Path, *args: str, env: Mapping[str, str] | None = None, timeout: float = 900
) -> Ran:
    """The installed perfgate's command line, as a user runs it."""
    full = {**base_env(ctx), **(env or {})}
    return run([ctx.python, "-m", "perfgate.cli", *args], cwd, full, timeout)


def git(repo: Path, *args: str) -> str:
    """git in ``repo`` with a fixed identity; stdout."""
    ident = {"GIT_AUTHOR_NAME": "probe", "GIT_AUTHOR_EMAIL": "probe@invalid"}
    ident |= {"GIT_COMMITTER_NAME": "probe", "GIT_COMMITTER_EMAIL": "probe@invalid"}
    done = subprocess.run(
        ["git", *args], cwd=repo, env={**os.environ, **ident}, capture_output=True, text=True,
        check=True,
    )  # fmt: skip
    return done.stdout.strip()


def write_files(repo: Path, files: Mapping[str, str]) -> None:
    """Write ``files`` (path -> text) under ``repo``."""
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)


def new_repo(repo: Path, files: Mapping[str, str]) -> Path:
    """A git repository on ``main`` whose one commit holds ``files``."""
    repo.mkdir(parents=True, exist_ok=True)
    write_files(repo, files)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "tiny project")
    return repo


def commit_branch(
    repo: Path, branch: str, files: Mapping[str, str], links: Mapping[str, str]
) -> str:
    """Commit ``files`` and symbolic ``links`` (path -> target) on a new ``branch`` from
    main, back on main afterwards; the branch's SHA."""
    git(repo, "checkout", "-q", "-b", branch, "main")
    write_files(repo, files)
    for rel, target in links.items():
        os.symlink(target, repo / rel)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", f"{branch}: the probe's head")
    sha = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "main")
    return sha


@contextmanager
def immutable(path: Path) -> Iterator[None]:
    """``path`` immutable (``chattr +i``: root too cannot write it) while inside."""
    done = subprocess.run(["chattr", "+i", str(path)], capture_output=True, text=True)
    if done.returncode != 0:
        msg = f"chattr +i {path} failed (it needs root and ext4 or alike): {done.stderr.strip()}"
        raise Unrunnable(msg)
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=False)


@functools.cache
def openapi() -> OpenApi:
    """GitHub's OpenAPI description the fake checks requests against (loaded once)."""
    return OpenApi.load("api.github.com")


@contextmanager
def fake_github(token: str = TOKEN) -> Iterator[FakeServer]:
    """The fake GitHub API on 127.0.0.1 accepting ``token`` only."""
    with FakeServer(FakeGitHub(openapi(), token)) as server:
        yield server
