"""Projects that need a build: each side's export built and installed once, before anything
of it runs, into a folder of its own (``build = "pip"`` in ``[tool.perfgate]``).

A pure-Python project is measured from its export on ``PYTHONPATH``. A project with compiled
extensions (or a file its build generates, such as a setuptools-scm version module) cannot
be imported from its sources, so each side is built by pip (``pip install --no-deps
--target``: the project's own build backend, with build isolation unless ``PIP_*`` says
otherwise) into ``<run>/builds/<side>``, and that folder goes first on ``PYTHONPATH`` instead
of the export. pip builds from a local clone of the commit (``<run>/builds/src-<side>``),
not from the export: as when asv builds, the backend finds the git metadata that version
plugins (setuptools-scm, versioneer, hatch-vcs) read. Everything else stays as it is: the
same interpreter, the same asv invocation, and the dependencies of the gate's environment
on both sides, so the two sides differ only by their own code. A side that does not build
is an error (exit 3) naming it, with pip's last output.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from perfgate import git
from perfgate.errors import UserError
from perfgate.formats import asv_conf
from perfgate.process import run_process
from perfgate.settings import SideBuild

#: The folder of a run that holds the sides' builds.
BUILDS_DIR = "builds"
#: asv's own default for ``install_timeout`` (seconds), used when asv.conf.json sets none.
DEFAULT_TIMEOUT_S = 600.0


def pip_command(source: Path, target: Path) -> list[str]:
    """The command that builds ``source`` and installs it, without dependencies, into
    ``target`` (pure)."""
    return [
        sys.executable, "-m", "pip", "install", "--no-deps", "--no-input",
        "--disable-pip-version-check", "--quiet", "--target", str(target), str(source),
    ]  # fmt: skip


@dataclass(frozen=True)
class BuildRequest:
    """What to build: commit ``sha`` of ``repo``, the project in its folder ``subdir`` (asv's
    ``repo_subdir``; "" the root), into ``run_dir``, within ``timeout_s``."""

    repo: Path
    run_dir: Path
    subdir: str
    timeout_s: float


def build_side(request: BuildRequest, side: str, sha: str, env: Mapping[str, str]) -> SideBuild:
    """Build ``side`` (commit ``sha``) into ``run_dir/builds/<side>``."""
    folder = request.run_dir / BUILDS_DIR
    target = folder / side
    started = time.monotonic()
    try:
        clone = git.working_copy(request.repo, sha, folder / f"src-{side}")
    except git.GitError as exc:
        raise UserError(f"build of {side} {sha[:12]}: {exc}") from None
    source = clone / request.subdir if request.subdir else clone
    outcome = run_process(pip_command(source, target), source, env, request.timeout_s)
    seconds = time.monotonic() - started
    if outcome.timed_out or outcome.returncode != 0:
        why = "timed out" if outcome.timed_out else f"exit {outcome.returncode}"
        raise UserError(
            f'build of {side} {sha[:12]} failed (pip install --target, build = "pip"; {why} after '
            f"{seconds:.0f} s); pip output (tail):\n{outcome.tail[-2000:]}"
        )
    return SideBuild(side, target, seconds)


def build_sides(
    mode: str,
    conf: Mapping[str, object],
    commits: tuple[Path, str, str],
    run_dir: Path,
    env: Mapping[str, str],
) -> dict[str, SideBuild]:
    """Each side of ``commits`` (repository, base, head) built once under ``mode``
    (``build`` of ``[tool.perfgate]``; an A/A run builds once), or none for "none";
    ``conf`` is the project's asv configuration (its build timeout and ``repo_subdir``)."""
    if mode == "none":
        return {}
    repo, base_sha, head_sha = commits
    timeout = build_timeout(conf)
    request = BuildRequest(repo, run_dir, asv_conf.repo_subdir(conf), timeout)
    base = build_side(request, "base", base_sha, env)
    if head_sha == base_sha:
        return {"base": base, "head": SideBuild("head", base.folder, 0.0)}
    return {"base": base, "head": build_side(request, "head", head_sha, env)}


def build_timeout(asv_conf: Mapping[str, object]) -> float:
    """asv's ``install_timeout`` of the project (seconds), else asv's default."""
    value = asv_conf.get("install_timeout")
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return float(value)
    return DEFAULT_TIMEOUT_S


def build_note(mode: str, builds: Mapping[str, SideBuild]) -> str:
    """The report line saying how the sides were made importable."""
    if not builds:
        return f'build: none (build = "{mode}"): each side measured from its export on PYTHONPATH'
    took = ", ".join(f"{b.side} {b.seconds:.0f} s" for b in builds.values())
    return (
        'build: each side built once with pip into a folder of its own (build = "pip"; '
        f"{took}), measured from there on PYTHONPATH"
    )
