"""The content-keyed Numba cache of termplan's kernels (termplan.numba_cache).

The ``test_subprocess_*`` tests run kernels in child processes (Numba loads a cache entry once
per process): each copies the termplan package to two folders (other paths, other mtimes),
adds a tiny probe kernel and a helper it calls, and runs the probe in each copy with one
shared ``NUMBA_CACHE_DIR``, reading ``dispatcher.stats`` (cache hits and misses) and the
result. The other tests are in-process checks of the key, the import closure and the folder.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

import termplan
from termplan import compile as tp_compile
from termplan import numba_cache
from termplan.compile import CacheDirWarning

pytestmark = [pytest.mark.numba("termplan"), pytest.mark.subprocess]

PACKAGE_DIR = Path(termplan.__file__).resolve().parent

HELPER = """\
import numba

from termplan.kernel_options import SERIAL_OPTIONS


@numba.njit(**SERIAL_OPTIONS)
def bump(x):
    return x + 1.0
"""

PROBE = """\
import numba

from termplan.cache_probe_helper import bump
from termplan.kernel_options import SERIAL_OPTIONS


@numba.njit(**SERIAL_OPTIONS)
def probe(x):
    return bump(x) * 3.0
"""

#: A generated-style module (imported by termplan.compile.load_source) calling the helper.
GENERATED = """\
from numba import njit

from termplan.cache_probe_helper import bump


@njit(cache=True)
def probe(x):
    return bump(x) * 5.0
"""

RUN_PROBE = """\
import json
import termplan.cache_probe as module
kernel = module.probe
"""

RUN_GENERATED = f"""\
import json
import termplan.kernel_options
from termplan.compile import load_source
kernel = load_source({GENERATED!r}).module.probe
"""

REPORT = """\
result = kernel(2.0)
stats = kernel.stats
print(json.dumps({"result": result, "hits": sum(stats.cache_hits.values()),
                  "misses": sum(stats.cache_misses.values()), "path": stats.cache_path}))
"""


@dataclass(frozen=True)
class Run:
    """What one child process saw."""

    result: float
    hits: int
    misses: int
    path: str


def _copy_tree(dest: Path, mtime: float) -> Path:
    """termplan plus the probe modules under ``dest``, every file's mtime set to ``mtime``."""
    package = dest / "termplan"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(PACKAGE_DIR, package, ignore=ignore, copy_function=shutil.copyfile)
    (package / "cache_probe_helper.py").write_text(HELPER, encoding="utf-8")
    (package / "cache_probe.py").write_text(PROBE, encoding="utf-8")
    for path in package.rglob("*.py"):
        os.utime(path, (mtime, mtime))
    return dest


def _run(root: Path, cache: Path, script: str) -> Run:
    """Run ``script`` + report in a child whose termplan is the copy under ``root``."""
    env = {k: v for k, v in os.environ.items() if k != "TERMPLAN_CACHE_DIR"}
    env.update(PYTHONPATH=str(root), NUMBA_CACHE_DIR=str(cache), PYTHONDONTWRITEBYTECODE="1")
    env["TERMPLAN_CACHE_DIR"] = str(root / "generated")
    done = subprocess.run(
        [sys.executable, "-c", script + REPORT],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return Run(**json.loads(done.stdout.strip().splitlines()[-1]))


def _edit_in_place(path: Path, old: str, new: str) -> None:
    """Replace ``old`` by ``new`` (same length) keeping the file's size and mtime."""
    assert len(old) == len(new)
    info = path.stat()
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1
    path.write_text(text.replace(old, new), encoding="utf-8")
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))
    assert path.stat().st_size == info.st_size


@pytest.fixture
def copies(tmp_path: Path) -> tuple[Path, Path, Path]:
    """Two copies of the package at different paths and mtimes, and a shared cache folder."""
    first = _copy_tree(tmp_path / "export-a", 1_600_000_000.0)
    second = _copy_tree(tmp_path / "elsewhere" / "export-b", 1_700_000_000.0)
    cache = tmp_path / "numba-cache"
    cache.mkdir(mode=0o755)
    return first, second, cache


def test_subprocess_unchanged_copy_elsewhere_hits(copies: tuple[Path, Path, Path]) -> None:
    """Same content at another path with other mtimes: loaded from the cache, not compiled."""
    first, second, cache = copies
    cold = _run(first, cache, RUN_PROBE)
    assert (cold.result, cold.hits, cold.misses) == (9.0, 0, 1)
    warm = _run(second, cache, RUN_PROBE)
    assert (warm.result, warm.hits, warm.misses) == (9.0, 1, 0)
    assert warm.path == cold.path
    assert Path(warm.path).parent == cache / numba_cache.KERNELS_FOLDER


def test_subprocess_one_byte_kernel_change_misses(copies: tuple[Path, Path, Path]) -> None:
    """A one-byte edit of the kernel's file in place (same path, size and mtime) recompiles:
    the entry of the old content is never loaded for it; that content, elsewhere, still hits."""
    first, second, cache = copies
    _run(first, cache, RUN_PROBE)
    _edit_in_place(first / "termplan" / "cache_probe.py", "* 3.0", "* 4.0")
    changed = _run(first, cache, RUN_PROBE)
    assert (changed.result, changed.hits, changed.misses) == (12.0, 0, 1)
    original = _run(second, cache, RUN_PROBE)
    assert (original.result, original.hits, original.misses) == (9.0, 1, 0)


def test_subprocess_one_byte_helper_change_misses(copies: tuple[Path, Path, Path]) -> None:
    """A one-byte edit in place of a module the kernel calls (the kernel's file unchanged)
    recompiles; Numba's own locator would load the kernel with the old helper compiled in."""
    first, second, cache = copies
    _run(first, cache, RUN_PROBE)
    _edit_in_place(first / "termplan" / "cache_probe_helper.py", "+ 1.0", "+ 2.0")
    changed = _run(first, cache, RUN_PROBE)
    assert (changed.result, changed.hits, changed.misses) == (12.0, 0, 1)
    original = _run(second, cache, RUN_PROBE)
    assert (original.result, original.hits, original.misses) == (9.0, 1, 0)


def test_subprocess_kernel_options_change_misses(copies: tuple[Path, Path, Path]) -> None:
    """A change of the shared options (LLVM options, fast-math flags) recompiles."""
    first, _, cache = copies
    _run(first, cache, RUN_PROBE)
    options = first / "termplan" / "kernel_options.py"
    _edit_in_place(options, "SCEV_CHECK_THRESHOLD = 256", "SCEV_CHECK_THRESHOLD = 257")
    changed = _run(first, cache, RUN_PROBE)
    assert (changed.hits, changed.misses) == (0, 1)


def test_subprocess_generated_module_hits_across_folders(
    copies: tuple[Path, Path, Path],
) -> None:
    """A generated module whose file lives in another folder per copy (TERMPLAN_CACHE_DIR)
    still hits; a one-byte change of a helper it imports misses."""
    first, second, cache = copies
    cold = _run(first, cache, RUN_GENERATED)
    assert (cold.result, cold.hits, cold.misses) == (15.0, 0, 1)
    warm = _run(second, cache, RUN_GENERATED)
    assert (warm.result, warm.hits, warm.misses) == (15.0, 1, 0)
    _edit_in_place(second / "termplan" / "cache_probe_helper.py", "+ 1.0", "+ 2.0")
    changed = _run(second, cache, RUN_GENERATED)
    assert (changed.result, changed.hits, changed.misses) == (20.0, 0, 1)


def _package(tmp_path: Path) -> Path:
    """A fake termplan package: a kernel module importing two helpers, one relatively."""
    package = tmp_path / "termplan"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("import termplan.unused\n", encoding="utf-8")
    (package / "kernel_options.py").write_text("FLAGS = 1\n", encoding="utf-8")
    (package / "sub" / "__init__.py").write_text("", encoding="utf-8")
    (package / "sub" / "kern.py").write_text(
        "import numpy\nfrom termplan.helper import f\nfrom . import near\n", encoding="utf-8"
    )
    (package / "sub" / "near.py").write_text("def g():\n    import termplan.deep\n", "utf-8")
    (package / "helper.py").write_text("def f():\n    pass\n", encoding="utf-8")
    (package / "deep.py").write_text("X = 1\n", encoding="utf-8")
    (package / "unused.py").write_text("Y = 1\n", encoding="utf-8")
    return package


def test_closure_follows_termplan_imports(tmp_path: Path) -> None:
    """Absolute, relative and function-level imports are followed, and parent packages are
    in (not what they import); other packages are not; kernel_options is always in."""
    package = _package(tmp_path)
    kern = package / "sub" / "kern.py"
    closure = numba_cache.source_closure("termplan.sub.kern", kern, package)
    expected = {"termplan", "termplan.sub", "termplan.sub.kern", "termplan.sub.near"}
    expected |= {"termplan.helper", "termplan.deep", "termplan.kernel_options"}
    assert set(closure) == expected
    assert closure["termplan.deep"] == b"X = 1\n"


def _key(package: Path) -> str:
    path = package / "sub" / "kern.py"
    return numba_cache.content_key(numba_cache.source_closure("termplan.sub.kern", path, package))


def test_key_is_content_not_path(tmp_path: Path) -> None:
    """The same bytes at two paths give one key; one changed byte in the closure another."""
    one = _package(tmp_path / "one")
    two = _package(tmp_path / "two")
    assert _key(one) == _key(two)
    (two / "unused.py").write_text("Y = 2\n", encoding="utf-8")
    assert _key(one) == _key(two)  # nobody's import reaches it (the parent's is not followed)
    for name in ("deep.py", "kernel_options.py", "__init__.py"):
        before = _key(two)
        path = two / name
        path.write_bytes(path.read_bytes() + b" ")
        assert _key(two) != before, name


def test_world_writable_root_is_refused(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A cache root anyone may write to is not used (compile's rule): the private fallback
    folder is, with a warning."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tp_compile.tempfile, "tempdir", str(tmp))
    monkeypatch.setattr(tp_compile, "_REPLACEMENT", {})
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    with pytest.warns(CacheDirWarning, match="writable by all users"):
        root = numba_cache.kernels_root.__wrapped__(shared)
    assert root == tp_compile.fallback_dir() / numba_cache.KERNELS_FOLDER
    assert not (shared / numba_cache.KERNELS_FOLDER).exists()
    private = tmp_path / "private"
    assert numba_cache.kernels_root.__wrapped__(private) == private / numba_cache.KERNELS_FOLDER


def test_locator_is_registered_first_for_termplan_only() -> None:
    """Registered (once) ahead of Numba's locators; functions outside termplan are left to
    Numba."""
    from numba.core.caching import CacheImpl

    import termplan.kernel_options  # noqa: F401  (registers the locator)

    numba_cache.register()
    classes = CacheImpl._locator_classes
    assert classes[0] is numba_cache.ContentCacheLocator
    assert classes.count(numba_cache.ContentCacheLocator) == 1

    def outside() -> None:
        pass

    assert numba_cache.ContentCacheLocator.from_function(outside, __file__) is None
    assert numba_cache.is_kernel_module("termplan.intrinsics")
    assert numba_cache.is_kernel_module(tp_compile.MODULE_PREFIX + "abc")
    assert not numba_cache.is_kernel_module("termplanner")
