"""The one golden-file convention of the test suite.

A golden file holds reviewed output byte for byte; a test compares what the code produces
now with it. After an intended change, regenerate every golden file the selected tests
check with ``pytest --update-golden`` (for example
``.venv/bin/python -m pytest --update-golden tests/termplan/test_tp_codegen.py``) and review
the diff before committing it.
"""

from __future__ import annotations

from pathlib import Path

#: Set from ``--update-golden`` by the root ``conftest.py`` (in every xdist worker too).
UPDATE = False


def check_golden(path: Path, text: str) -> None:
    """Assert ``text`` equals the golden file ``path``; with ``--update-golden`` rewrite it
    first (UTF-8), so the assertion then holds and ``git diff`` shows the change."""
    if UPDATE:
        path.write_text(text, encoding="utf-8")
    expected = path.read_text(encoding="utf-8")
    assert text == expected, (
        f"{path.name} differs from the golden file {path}; if the change is intended, "
        "rerun with --update-golden and review the diff"
    )
