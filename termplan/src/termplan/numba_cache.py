"""Numba's on-disk cache for termplan's kernels, keyed by content instead of by path.

Why: with ``NUMBA_CACHE_DIR`` set, Numba's own locator files a kernel under a folder named
after the absolute directory of its source file, so the same unchanged sources at another
path (a fresh ``git archive`` export, another checkout) recompile every kernel. And Numba
checks only the kernel's own file: a change in a module the kernel calls into
(:mod:`termplan.intrinsics`, an inlined helper, an imported constant) or in
:mod:`termplan.kernel_options` would load the old machine code.

What: :class:`ContentCacheLocator` files each kernel of the ``termplan`` package or of a
generated module (``termplan_generated_*``) under ``<root>/termplan-kernels/<module>-<key>/``
and uses the key as the index's source stamp too (an index copied to another folder is
ignored). Other code keeps Numba's locators. The key (:func:`content_key`) hashes

* the toolchain (:func:`termplan.compile.toolchain`: numba, numpy, llvmlite, Python) and
  Numba's code-generation settings that its own key lacks (:data:`CONFIG_KNOBS`);
* the bytes of the kernel's file and of every termplan module it imports, transitively (read
  off its ``import`` statements, those inside functions too), always with
  :mod:`termplan.kernel_options` (its LLVM options and fast-math flags are literals there);
* the ``__init__.py`` of their parent packages, which run on import (their imports are not
  followed: a setting that reaches kernels without being imported belongs in kernel_options).

Paths and mtimes play no part. Numba's index key adds the signature, the target CPU name and
features (``codegen.magic_tuple()``) and the function's bytecode.

``root`` is ``NUMBA_CACHE_DIR``, else :func:`termplan.compile.cache_dir`. A root that anyone
may write to is refused by :func:`termplan.compile.check_writers` (Numba's index is a pickle:
planting one runs code) with a :class:`~termplan.compile.CacheDirWarning`; it, and a root
that cannot be created, give way to :func:`termplan.compile.fallback_dir`.

How it is hooked in: :func:`register` puts the locator at the front of
``numba.core.caching.CacheImpl._locator_classes``, the ordered list Numba asks for a locator
(the first whose ``from_function`` returns one wins). That list is Numba's extension point
for cache placement; no Numba function is replaced. :mod:`termplan.kernel_options`, which
every kernel module imports before it defines a kernel, calls it. ``NUMBA_CACHE_LOCATOR_CLASSES``
replaces that list; this locator then applies only if it is named there.

Residual race (Numba's own has it too): a kernel file edited between its import and the
hashing here (both during the import) is filed under the new content's key.
"""

from __future__ import annotations

import ast
import hashlib
import warnings
from functools import cache
from pathlib import Path
from typing import Any

import numba
from numba.core.caching import CacheImpl, _CacheLocator

from termplan.compile import (
    MODULE_PREFIX,
    CacheDirWarning,
    UnsafeCacheDirError,
    cache_dir,
    check_writers,
    fallback_dir,
    toolchain,
)

PACKAGE = "termplan"
KERNELS_FOLDER = "termplan-kernels"
KEY_CHARS = 32
#: Bumped when the key's recipe changes, so old folders are never read under a new recipe.
SCHEMA = "termplan-numba-cache/1"
#: Numba settings that change the machine code but are not in Numba's cache key.
CONFIG_KNOBS = ("OPT", "BOUNDSCHECK", "DEBUGINFO_DEFAULT")
#: Modules in every key: their settings reach every kernel without an import of a name.
ALWAYS = (f"{PACKAGE}.kernel_options",)
_PACKAGE_DIR = Path(__file__).resolve().parent


def is_kernel_module(name: str) -> bool:
    """Whether functions of module ``name`` use this locator (termplan or generated)."""
    in_package = name == PACKAGE or name.startswith(PACKAGE + ".")
    return in_package or name.startswith(MODULE_PREFIX)


def module_file(name: str, package_dir: Path) -> Path | None:
    """The source file of termplan module ``name`` under ``package_dir``, if it is one
    (a package's ``__init__.py`` before a same-named ``.py``, as Python's import does)."""
    parts = name.split(".")
    if parts[0] != PACKAGE:
        return None
    base = package_dir.joinpath(*parts[1:])
    if (base / "__init__.py").is_file():
        return base / "__init__.py"
    if len(parts) > 1 and base.with_suffix(".py").is_file():
        return base.with_suffix(".py")
    return None


def imported_modules(source: str, module: str, is_package: bool, package_dir: Path) -> set[str]:
    """Termplan modules that ``source`` (module ``module``) imports, anywhere in its text.

    ``from a import b`` names ``a`` and, when ``a.b`` is a module file, ``a.b`` too.
    """
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node, module, is_package)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return {name for name in found if module_file(name, package_dir) is not None}


def _absolute(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    """The absolute module a (possibly relative) ``from ... import`` names."""
    if node.level == 0:
        return node.module or ""
    parts = module.split(".")
    keep = len(parts) - node.level + (1 if is_package else 0)
    anchor = ".".join(parts[: max(keep, 0)])
    return f"{anchor}.{node.module}" if node.module else anchor


def source_closure(module: str, path: Path, package_dir: Path) -> dict[str, bytes]:
    """``{module: source bytes}`` of ``module`` (file ``path``), of every termplan module it
    imports, transitively, of :data:`ALWAYS`, and of their parent packages' ``__init__.py``
    (which run on import; their own imports are not followed)."""
    sources: dict[str, bytes] = {module: path.read_bytes()}
    pending = [(module, path.name == "__init__.py"), *((name, False) for name in ALWAYS)]
    while pending:
        name, is_package = pending.pop()
        if name not in sources:
            found = module_file(name, package_dir)
            if found is None:
                continue
            sources[name] = found.read_bytes()
            is_package = found.name == "__init__.py"
        text = sources[name].decode("utf-8")
        for imported in imported_modules(text, name, is_package, package_dir):
            if imported not in sources:
                pending.append((imported, False))
    for parent in {p for name in sources for p in _parents(name)} - sources.keys():
        found = module_file(parent, package_dir)
        if found is not None:
            sources[parent] = found.read_bytes()
    return sources


def _parents(name: str) -> list[str]:
    """``a.b.c`` -> ``["a", "a.b"]``."""
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def content_key(sources: dict[str, bytes]) -> str:
    """Hex key of a kernel file's closure under this toolchain and Numba configuration."""
    knobs = ";".join(f"{knob}={getattr(numba.config, knob, None)}" for knob in CONFIG_KNOBS)
    lines = [SCHEMA, toolchain(), knobs]
    for name in sorted(sources):
        lines.append(f"{name} {hashlib.sha256(sources[name]).hexdigest()}")
    return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()


@cache
def kernel_key(module: str, path: Path) -> str:
    """:func:`content_key` of ``module``'s file, once per process (read when first needed,
    which is when the module's first kernel is defined, during its import)."""
    return content_key(source_closure(module, path, _PACKAGE_DIR))


@cache
def kernels_root(configured: Path) -> Path:
    """``configured/termplan-kernels`` when ``configured`` is usable, else the same folder
    under :func:`~termplan.compile.fallback_dir` (warned once per process and root)."""
    try:
        configured.mkdir(parents=True, exist_ok=True, mode=0o755)
        check_writers(configured)
        return _made(configured / KERNELS_FOLDER)
    except UnsafeCacheDirError as exc:
        message = f"{exc}; termplan kernels use the fallback cache folder"
        warnings.warn(message, CacheDirWarning, stacklevel=2)
    except OSError:
        pass
    return _made(fallback_dir() / KERNELS_FOLDER)


def _made(folder: Path) -> Path:
    folder.mkdir(exist_ok=True, mode=0o755)
    return folder


def configured_root() -> Path:
    """``NUMBA_CACHE_DIR`` (as Numba read it), else :func:`termplan.compile.cache_dir`."""
    configured: str = getattr(numba.config, "CACHE_DIR", "")
    return Path(configured) if configured else cache_dir()


class ContentCacheLocator(_CacheLocator):
    """Numba cache locator for termplan kernels: folder and stamp from :func:`kernel_key`."""

    def __init__(self, py_func: Any, module: str, key: str, root: Path) -> None:
        self._lineno = py_func.__code__.co_firstlineno
        self._key = key
        self._cache_path = str(root / f"{module}-{key[:KEY_CHARS]}")

    def get_cache_path(self) -> str:
        return self._cache_path

    def get_source_stamp(self) -> str:
        return self._key

    def get_disambiguator(self) -> str:
        return str(self._lineno)

    @classmethod
    def from_function(cls, py_func: Any, py_file: str) -> ContentCacheLocator | None:
        """A locator for a termplan kernel backed by a real file; ``None`` for anything else
        (Numba then asks its own locators)."""
        module = getattr(py_func, "__module__", None)
        if not isinstance(module, str) or not is_kernel_module(module):
            return None
        path = Path(py_file)
        if not path.is_file():
            return None
        key = kernel_key(module, path.resolve())
        locator = cls(py_func, module, key, kernels_root(configured_root()))
        locator.ensure_cache_path()
        return locator


def register() -> None:
    """Put :class:`ContentCacheLocator` first in Numba's locator list (idempotent)."""
    classes: list[Any] = CacheImpl._locator_classes
    if ContentCacheLocator not in classes:
        classes.insert(0, ContentCacheLocator)
