"""The package's shape: commands never import one another, and no module outgrows 450 lines."""

from __future__ import annotations

import ast
from pathlib import Path

import perfgate
from perfgate import cli

PACKAGE = Path(perfgate.__file__).parent
MAX_LINES = 450


def _imported_modules(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def test_no_command_imports_another() -> None:
    """Each command is a parser and a run over the pipeline; shared code lives outside."""
    commands = {f"perfgate.commands.{name}" for name in cli.COMMANDS}
    for path in sorted((PACKAGE / "commands").glob("*.py")):
        own = f"perfgate.commands.{path.stem}"
        assert not (_imported_modules(path) & (commands - {own})), path.name


def test_every_command_module_is_registered() -> None:
    """cli.COMMANDS names exactly the command modules."""
    modules = {p.stem for p in (PACKAGE / "commands").glob("*.py")} - {"__init__"}
    assert modules == set(cli.COMMANDS)


def test_no_module_over_450_lines() -> None:
    """Small modules with one job each."""
    sizes = {p: len(p.read_text().splitlines()) for p in PACKAGE.rglob("*.py")}
    assert {p.name: n for p, n in sizes.items() if n > MAX_LINES} == {}
