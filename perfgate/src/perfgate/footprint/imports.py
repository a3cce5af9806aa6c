"""A footprint closed over the static imports of the project's own files (pure, but for
reading them): a module's constants and the Numba kernels it calls live in the files it
imports, whose code may never run as a Python frame.

Every ``import`` and ``from ... import`` of a file (anywhere in it, relative ones resolved
against its package) is resolved under the import roots to a module file or package
``__init__.py`` (a ``from p import name`` also to ``p/name.py`` where that is a module), with
the ``__init__.py`` of every package on the way; the closure follows the files it finds.
Files outside the roots (the standard library, installed distributions) are the
environment's, digested elsewhere. A file that does not parse is kept, not followed.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Sequence
from pathlib import Path


def _module_of(path: Path, roots: Sequence[Path]) -> tuple[str, ...] | None:
    """The dotted name of ``path`` (as parts) under the first root that holds it."""
    for root in roots:
        if path.is_relative_to(root):
            parts = path.relative_to(root).with_suffix("").parts
            return parts[:-1] if parts and parts[-1] == "__init__" else parts
    return None


def _files_of(parts: Sequence[str], roots: Sequence[Path]) -> list[Path]:
    """The module file of ``parts`` and the ``__init__.py`` of each package on the way."""
    out: list[Path] = []
    for root in roots:
        found = [
            root.joinpath(*parts[:i], "__init__.py")
            for i in range(1, len(parts) + 1)
            if root.joinpath(*parts[:i], "__init__.py").is_file()
        ]
        module = root.joinpath(*parts).with_suffix(".py")
        if module.is_file():
            found.append(module)
        if found:
            out += found
    return out


def _imported(tree: ast.AST, package: tuple[str, ...]) -> Iterable[tuple[str, ...]]:
    """The dotted names a module's import statements name (``from p import n``: p and p.n)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (tuple(a.name.split(".")) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level > len(package):
                continue  # beyond the top package: Python refuses it too
            base = package[: len(package) - node.level + 1] if node.level else ()
            target = (*base, *(node.module.split(".") if node.module else ()))
            yield target
            yield from ((*target, a.name) for a in node.names if a.name != "*")


def closure(files: Iterable[Path], roots: Sequence[Path]) -> set[Path]:
    """``files`` (resolved) and every project file their static imports reach under
    ``roots`` (see the module)."""
    roots = [r.resolve() for r in roots]
    todo = [f.resolve() for f in files]
    seen: set[Path] = set()
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        parts = _module_of(path, roots)
        if path.suffix != ".py" or parts is None or not path.is_file():
            continue
        try:
            tree = ast.parse(path.read_bytes(), filename=str(path))
        except (SyntaxError, ValueError):
            continue
        package = parts if path.name == "__init__.py" else parts[:-1]
        for name in _imported(tree, package):
            todo += [f for f in _files_of(name, roots) if f not in seen]
    return seen
