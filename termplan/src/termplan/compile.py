"""Generated source -> content-addressed file -> imported module (Numba caches its machine code).

``exec`` of a string cannot use Numba's disk cache (numba#3501), so the text is written to
``<cache dir>/tp_<key>.py``, where ``key`` hashes the text and the numba, numpy and llvmlite
versions, and imported under the real module name ``termplan_generated_<key>``; the kernels
inside are decorated with ``cache=True``. Files are never modified in place: writers use a
temporary file plus :func:`os.replace`, so concurrent processes see either no file or a
complete one. Before import the content is hashed again; a file that does not hash to its
name (truncated, edited, corrupted) is rebuilt and never executed.

That hash covers only the ``.py`` file. Numba's cache index of its kernels (``*.nbi``, read
with :mod:`pickle`) is kept under ``NUMBA_CACHE_DIR``, else under this cache folder (see
:mod:`termplan.numba_cache`), so whoever can write to the cache folder can run code in every
process that uses it. Hence a cache folder that
anyone may write to (world-writable, sticky or not) is refused, and the fallback folder under
the shared temporary directory is used only when it is a real directory owned by this user
that nobody else may write to (see :func:`fallback_dir`). A shared cache (files 0644) trusts
its folder's owner and group.
"""

from __future__ import annotations

import atexit
import enum
import hashlib
import os
import shutil
import stat
import sys
import tempfile
import types
import warnings
from dataclasses import dataclass
from pathlib import Path

import llvmlite
import numba
import numpy as np

KEY_CHARS = 24
MODULE_PREFIX = "termplan_generated_"
FALLBACK_PREFIX = "termplan-cache-"
_REPLACEMENT: dict[str, Path] = {}  # "dir": this process's mkdtemp folder, once needed


class UnsafeCacheDirError(PermissionError):
    """A cache folder that others may write to (they could plant Numba's pickled index)."""


class CacheDirWarning(UserWarning):
    """A cache folder was refused and another one is used instead."""


class CacheStatus(enum.Enum):
    """What :func:`load_source` found on disk."""

    CREATED = "created"  # no file: written now
    REUSED = "reused"  # valid file (or module already imported in this process)
    REBUILT = "rebuilt"  # damaged file: replaced before import


@dataclass(frozen=True)
class LoadedModule:
    """An imported generated module and where it came from."""

    module: types.ModuleType
    path: Path
    key: str
    status: CacheStatus


def cache_dir() -> Path:
    """``$TERMPLAN_CACHE_DIR``, else ``$NUMBA_CACHE_DIR/termplan``, else ``~/.cache/termplan``."""
    explicit = os.environ.get("TERMPLAN_CACHE_DIR")
    if explicit:
        return Path(explicit)
    numba_dir = os.environ.get("NUMBA_CACHE_DIR")
    if numba_dir:
        return Path(numba_dir) / "termplan"
    return Path.home() / ".cache" / "termplan"


def toolchain() -> str:
    """Versions that change the meaning of a cached kernel; part of every key."""
    python = ".".join(str(v) for v in sys.version_info[:2])
    versions = (numba.__version__, np.__version__, llvmlite.__version__, python)
    return "numba={};numpy={};llvmlite={};py={}".format(*versions)


def source_key(text: str) -> str:
    """Content key of ``text`` under the current toolchain."""
    digest = hashlib.sha256((toolchain() + "\n" + text).encode("utf-8")).hexdigest()
    return digest[:KEY_CHARS]


def load_source(text: str, directory: Path | None = None) -> LoadedModule:
    """Write (if needed), verify and import the module holding ``text``.

    A cache folder this process cannot use (read-only, another user's files) falls back to
    :func:`fallback_dir`; so does one that anyone may write to, with a
    :class:`CacheDirWarning`. An explicit ``directory`` is never replaced: its errors
    (:class:`UnsafeCacheDirError` included) propagate.
    """
    key = source_key(text)
    name = MODULE_PREFIX + key
    known = sys.modules.get(name)
    imported = getattr(known, "__file__", None)
    if directory is not None:
        path, status = _place(directory, text, key, imported)
    else:
        path, status = _place_or_fall_back(text, key, imported)
    if known is not None and imported == str(path):
        return LoadedModule(known, path, key, status)
    module = _import_verified(name, path, text)
    return LoadedModule(module, path, key, status)


def _place_or_fall_back(text: str, key: str, imported: str | None) -> tuple[Path, CacheStatus]:
    """:func:`_place` under :func:`cache_dir`, else under :func:`fallback_dir`."""
    try:
        return _place(cache_dir(), text, key, imported)
    except UnsafeCacheDirError as exc:
        warnings.warn(f"{exc}; using the fallback cache folder", CacheDirWarning, stacklevel=3)
    except OSError:
        pass
    return _place(fallback_dir(), text, key, imported)


def fallback_dir() -> Path:
    """This user's private cache folder under the system's temporary directory.

    ``<tmp>/termplan-cache-<uid>`` is created with mode 0700 and, new or not, used only if
    :func:`os.lstat` shows a directory (not a symlink) owned by this user without group or
    other write bits: another local user could have created it first to plant Numba's
    pickled cache index. Otherwise it is left alone and the cache keeps working in a fresh
    :func:`tempfile.mkdtemp` folder, private to this process (reused by its later calls,
    removed at exit), after one :class:`CacheDirWarning` naming the refused folder and why.
    """
    preferred = Path(tempfile.gettempdir()) / f"{FALLBACK_PREFIX}{os.getuid()}"
    problem = _claim_private(preferred)
    if problem is None:
        return preferred
    return _replacement_dir(preferred, problem)


def _claim_private(path: Path) -> str | None:
    """Create ``path`` (mode 0700) if missing; ``None`` if it is then private, else why not."""
    try:
        path.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError:
        pass  # e.g. a dangling symlink or a file there: lstat below says what it is
    return _private_problem(path)


def _private_problem(path: Path) -> str | None:
    """``None`` if ``path`` itself is a directory of this user that only it may write to."""
    try:
        info = os.lstat(path)
    except OSError as exc:
        return f"cannot be inspected: {exc.strerror or exc}"
    if stat.S_ISLNK(info.st_mode):
        return "it is a symbolic link"
    if not stat.S_ISDIR(info.st_mode):
        return "it is not a directory"
    if info.st_uid != os.getuid():
        return f"it is owned by uid {info.st_uid}, not by this user (uid {os.getuid()})"
    if info.st_mode & 0o022:
        return f"its mode {stat.S_IMODE(info.st_mode):04o} lets group or others write to it"
    return None


def _replacement_dir(refused: Path, problem: str) -> Path:
    """This process's private ``mkdtemp`` folder, made (and announced) on first need."""
    current = _REPLACEMENT.get("dir")
    if current is not None and _private_problem(current) is None:
        return current
    fresh = Path(tempfile.mkdtemp(prefix=FALLBACK_PREFIX))
    atexit.register(shutil.rmtree, fresh, ignore_errors=True)
    _REPLACEMENT["dir"] = fresh
    message = f"termplan: not using cache folder {refused} ({problem}); using {fresh} instead"
    warnings.warn(message, CacheDirWarning, stacklevel=2)
    return fresh


def check_writers(root: Path) -> None:
    """Refuse a cache root that anyone may write to (the sticky bit does not help: others
    could still create ``__pycache__`` with a planted index); owner and group are trusted.
    Also the rule for the kernels' Numba cache (:mod:`termplan.numba_cache`)."""
    mode = os.stat(root).st_mode
    if mode & stat.S_IWOTH:
        raise UnsafeCacheDirError(
            f"termplan: cache folder {root} is writable by all users "
            f"(mode {stat.S_IMODE(mode):04o}); expected no write access for others"
        )


def _place(root: Path, text: str, key: str, imported: str | None) -> tuple[Path, CacheStatus]:
    """The verified file of ``text`` under ``root`` (written when missing or damaged);
    not read again when this process already imported the module from it (``imported``)."""
    root.mkdir(parents=True, exist_ok=True, mode=0o755)
    check_writers(root)
    path = root / f"tp_{key}.py"
    if imported == str(path):
        return path, CacheStatus.REUSED
    return path, _ensure_file(path, text, key)


def _ensure_file(path: Path, text: str, key: str) -> CacheStatus:
    try:
        stored = path.read_bytes()
    except FileNotFoundError:
        _atomic_write(path, text)
        return CacheStatus.CREATED
    if _bytes_key(stored) == key:
        return CacheStatus.REUSED
    _atomic_write(path, text)
    return CacheStatus.REBUILT


def _bytes_key(stored: bytes) -> str | None:
    try:
        return source_key(stored.decode("utf-8"))
    except UnicodeDecodeError:
        return None


def _atomic_write(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)  # mkstemp makes 0600: other users of a shared cache must read it
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _import_verified(name: str, path: Path, text: str) -> types.ModuleType:
    """Execute exactly the verified ``text`` as module ``name`` backed by file ``path``.

    Compiling the in-memory text (not re-reading the file) closes the window between the
    hash check and the import; the code object still names ``path``, so tracebacks,
    ``inspect`` and Numba's cache locator all see a real file.
    """
    module = types.ModuleType(name)
    module.__file__ = str(path)
    code = compile(text, str(path), "exec")
    sys.modules[name] = module
    try:
        exec(code, module.__dict__)
    except BaseException:
        del sys.modules[name]
        raise
    return module
