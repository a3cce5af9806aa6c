"""Generated source -> content-addressed file -> imported module (Numba caches its machine code).

``exec`` of a string cannot use Numba's disk cache (numba#3501), so the text is written to
``<cache dir>/tp_<key>.py``, where ``key`` hashes the text and the numba, numpy and llvmlite
versions, and imported under the real module name ``termplan_generated_<key>``; the kernels
inside are decorated with ``cache=True``. Files are never modified in place: writers use a
temporary file plus :func:`os.replace`, so concurrent processes see either no file or a
complete one. Before import the content is hashed again; a file that does not hash to its
name (truncated, edited, corrupted) is rebuilt and never executed.
"""

from __future__ import annotations

import enum
import hashlib
import os
import sys
import tempfile
import types
from dataclasses import dataclass
from pathlib import Path

import llvmlite
import numba
import numpy as np

KEY_CHARS = 24
MODULE_PREFIX = "termplan_generated_"


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
    a private folder of this user under the system's temporary directory.
    """
    key = source_key(text)
    name = MODULE_PREFIX + key
    root = directory if directory is not None else cache_dir()
    known = sys.modules.get(name)
    imported = getattr(known, "__file__", None)
    try:
        path, status = _place(root, text, key, imported)
    except OSError:
        if directory is not None:
            raise
        path, status = _place(fallback_dir(), text, key, imported)
    if known is not None and imported == str(path):
        return LoadedModule(known, path, key, status)
    module = _import_verified(name, path, text)
    return LoadedModule(module, path, key, status)


def fallback_dir() -> Path:
    """This user's private cache folder under the system's temporary directory."""
    return Path(tempfile.gettempdir()) / f"termplan-cache-{os.getuid()}"


def _place(root: Path, text: str, key: str, imported: str | None) -> tuple[Path, CacheStatus]:
    """The verified file of ``text`` under ``root`` (written when missing or damaged);
    not read again when this process already imported the module from it (``imported``)."""
    root.mkdir(parents=True, exist_ok=True, mode=0o755)
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
