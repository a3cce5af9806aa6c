"""Docs that cannot drift: every dotted ``perfgate.*`` / ``termplan.*`` name and every path
of this repository named in docs/*.md or in a module docstring resolves (issue 49, 3).

A dotted name resolves when its longest importable prefix is a module and the rest are its
attributes (``tool.perfgate.*`` TOML tables are not names). A path resolves against the
repository, the two source roots, the two packages, the folder of the file naming it, or a
package folder that ends with it (``attribution/sides.py``, named from ``sim/``), or the
installed packages (``asv/step_detect.py``, asv's own); only paths whose first folder is
one of this repository's are checked, so a user's project files and output folders in an
example are left alone, except those in `EXAMPLES`.
"""

from __future__ import annotations

import ast
import importlib
import re
import sysconfig
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = (ROOT / "perfgate" / "src" / "perfgate", ROOT / "termplan" / "src" / "termplan")
SITE = Path(sysconfig.get_paths()["purelib"])
BASES = (ROOT, ROOT / "perfgate" / "src", ROOT / "termplan" / "src", *PACKAGES, SITE)
FOLDERS = {p.name for base in (ROOT, *PACKAGES) for p in base.iterdir() if p.is_dir()}
DOTTED = re.compile(r"(?<![\w.])((?:perfgate|termplan)(?:\.[A-Za-z_]\w*)+)")
PATH = re.compile(r"(?<![\w./-])((?:[\w.-]+/)+[\w.-]+\.(?:py|md|j2|toml|sh))\b")
#: paths of a user's project named in an example (not this repository's files)
EXAMPLES = frozenset({"tests/test_core.py", "tests/a_test.py", "benchmarks/sim_kernels.py"})
FILE_SUFFIXES = frozenset({"py", "md", "toml", "yml", "json", "j2", "sh"})


def resolves(name: str) -> bool:
    """True when ``name`` is an importable module, or attributes of one (see the module)."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            if not hasattr(found, attr):
                return False
            found = getattr(found, attr)
        return True
    return False


def path_exists(path: str, here: Path) -> bool:
    """True when ``path`` names a file of this repository (or an installed package)."""
    if any((base / path).exists() for base in (*BASES, here)):
        return True
    return any(True for package in PACKAGES for _ in package.rglob(path))


def texts() -> Iterator[tuple[Path, str]]:
    """Each doc page, each module docstring of the two packages, and each command's help."""
    for page in sorted((ROOT / "docs").glob("*.md")):
        yield page, page.read_text(encoding="utf-8")
    for package in PACKAGES:
        for module in sorted(package.rglob("*.py")):
            tree = ast.parse(module.read_text(encoding="utf-8"))
            doc = ast.get_docstring(tree)
            if doc:
                yield module, doc
            yield from ((module, text) for text in _help_texts(tree))


def _help_texts(tree: ast.Module) -> Iterator[str]:
    """A command's help (``DESCRIPTION = "..."`` at module level): a docstring in all but name."""
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            if names == ["DESCRIPTION"] and isinstance(node.value.value, str):
                yield node.value.value


def dangling(where: Path, text: str) -> list[str]:
    """The names and paths in ``text`` that do not resolve."""
    out = []
    for match in DOTTED.finditer(text):
        name = match.group(1)
        if name.rsplit(".", 1)[-1] not in FILE_SUFFIXES and not resolves(name):
            out.append(name)
    for match in PATH.finditer(text):
        path = match.group(1)
        if path.split("/")[0] in FOLDERS and path not in EXAMPLES:
            if not path_exists(path, where.parent):
                out.append(path)
    return out


@pytest.mark.subprocess  # importing the sim suites asks valgrind its version
def test_every_name_and_path_in_the_docs_and_docstrings_exists() -> None:
    found = {
        str(where.relative_to(ROOT)): names
        for where, text in texts()
        if (names := dangling(where, text))
    }
    assert found == {}, f"names or paths that do not exist: {found}"


def test_a_stale_name_or_path_is_caught(tmp_path: Path) -> None:
    """The check itself: names and paths the house no longer has are reported."""
    text = (
        "`perfgate.gate.context.kernel_cache_env`, `calibration/calibrate.py`, "
        "`perfgate.gate.caches.kernel_cache_env`, `gate/calibrate.py`, tool.perfgate.costs"
    )
    assert dangling(tmp_path / "page.md", text) == [
        "perfgate.gate.context.kernel_cache_env",
        "calibration/calibrate.py",
    ]
