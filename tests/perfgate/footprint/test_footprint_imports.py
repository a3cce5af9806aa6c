"""perfgate.footprint.imports: a footprint closed over the static imports of project files."""

from __future__ import annotations

from pathlib import Path

from perfgate.footprint.imports import closure


def _tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_a_kernels_module_and_its_constants_are_reached_through_imports(tmp_path: Path) -> None:
    """The caller's file ran; the kernel's module and the module of a constant it took by
    name never ran a frame during the case, and are found; unrelated files are not."""
    _tree(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/task/__init__.py": "",
        "pkg/task/path.py": "from .kernel import kernel\nimport pkg.shared\n",
        "pkg/task/kernel.py": "from pkg.task.layout import TILE\n\ndef kernel(): return TILE\n",
        "pkg/task/layout.py": "TILE = 512\n",
        "pkg/shared.py": "import numpy\nfrom . import helpers\n",
        "pkg/helpers.py": "",
        "pkg/other/__init__.py": "",
        "pkg/other/path.py": "",
    })  # fmt: skip
    found = closure([tmp_path / "pkg/task/path.py"], [tmp_path])
    names = {p.relative_to(tmp_path).as_posix() for p in found}
    assert names == {
        "pkg/__init__.py", "pkg/task/__init__.py", "pkg/task/path.py", "pkg/task/kernel.py",
        "pkg/task/layout.py", "pkg/shared.py", "pkg/helpers.py",
    }  # fmt: skip


def test_imports_inside_functions_count_and_bad_files_are_kept_not_followed(
    tmp_path: Path,
) -> None:
    _tree(tmp_path, {
        "a.py": "def f():\n    import b\n",
        "b.py": "this is not python (\n",
        "c.py": "from .. import x\n",
    })  # fmt: skip
    found = {p.name for p in closure([tmp_path / "a.py", tmp_path / "c.py"], [tmp_path])}
    assert found == {"a.py", "b.py", "c.py"}


def test_files_outside_the_roots_are_kept_but_not_followed(tmp_path: Path) -> None:
    _tree(tmp_path, {"src/m.py": "import n\n", "src/n.py": "", "data/x.json": "{}"})
    found = closure([tmp_path / "src/m.py", tmp_path / "data/x.json"], [tmp_path / "src"])
    assert {p.name for p in found} == {"m.py", "n.py", "x.json"}
