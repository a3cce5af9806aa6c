"""The content-addressed module cache: create, reuse, detect damage, survive concurrency."""

from __future__ import annotations

import linecache
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import tp_toy

from termplan.codegen import generate_source
from termplan.compile import MODULE_PREFIX, CacheStatus, cache_dir, load_source, source_key

TEXT = "VALUE = 41 + 1\n\ndef answer():\n    return VALUE\n"


def _forget(key: str) -> None:
    sys.modules.pop(MODULE_PREFIX + key, None)


def test_create_then_reuse(tmp_path: Path) -> None:
    """The first load writes the file; a new import of the same text reuses it."""
    first = load_source(TEXT, tmp_path)
    assert first.status is CacheStatus.CREATED
    assert first.path == tmp_path / f"tp_{source_key(TEXT)}.py"
    assert first.module.answer() == 42
    assert first.module.__name__ == MODULE_PREFIX + first.key
    assert load_source(TEXT, tmp_path).status is CacheStatus.REUSED  # same process
    _forget(first.key)
    again = load_source(TEXT, tmp_path)
    assert again.status is CacheStatus.REUSED
    assert linecache.getline(str(again.path), 1).startswith("VALUE = 41")


@pytest.mark.parametrize(
    "damage",
    [
        lambda text: text[: len(text) // 2],  # truncated
        lambda text: "raise SystemExit('executed a damaged file')\n",  # foreign content
        lambda text: text.replace("41", "40"),  # edited
    ],
)
def test_damaged_file_is_rebuilt_not_executed(tmp_path: Path, damage) -> None:  # type: ignore[no-untyped-def]
    """A file that does not hash to its name is replaced before anything is executed."""
    key = source_key(TEXT)
    path = tmp_path / f"tp_{key}.py"
    path.write_text(damage(TEXT), encoding="utf-8")
    _forget(key)
    loaded = load_source(TEXT, tmp_path)
    assert loaded.status is CacheStatus.REBUILT
    assert loaded.module.answer() == 42
    assert path.read_text(encoding="utf-8") == TEXT
    _forget(key)


def test_cache_dir_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """TERMPLAN_CACHE_DIR wins, else NUMBA_CACHE_DIR/termplan."""
    monkeypatch.setenv("TERMPLAN_CACHE_DIR", str(tmp_path / "a"))
    assert cache_dir() == tmp_path / "a"
    monkeypatch.delenv("TERMPLAN_CACHE_DIR")
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "b"))
    assert cache_dir() == tmp_path / "b" / "termplan"


_CHILD = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    sys.path.insert(0, {tests!r})
    import tp_toy
    from termplan.codegen import ScaleMode
    from termplan.runtime import FusedRuntime
    rt = FusedRuntime(tp_toy.make_plan(), 8, num_threads=1, cache_directory=Path({root!r}))
    report = rt.warm(["step_serial"])
    print(report.module_status.value, report.cache_hits["step_serial"])
    """
)


def _child(root: Path) -> subprocess.Popen[str]:
    code = _CHILD.format(tests=str(Path(__file__).parent), root=str(root))
    env = {**os.environ, "NUMBA_CACHE_DIR": str(root / "numba")}
    return subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, env=env
    )


def test_processes_share_the_cache(tmp_path: Path) -> None:
    """Concurrent processes build the same module safely; a later one hits Numba's cache."""
    children = [_child(tmp_path) for _ in range(3)]
    outputs = [c.communicate(timeout=300)[0].split() for c in children]
    assert all(c.returncode == 0 for c in children)
    assert {o[0] for o in outputs} <= {"created", "reused"}
    text = generate_source(tp_toy.make_plan()).text
    files = list(tmp_path.glob("tp_*.py"))
    assert files == [tmp_path / f"tp_{source_key(text)}.py"]
    assert files[0].read_text(encoding="utf-8") == text
    assert not list(tmp_path.glob(".tp_*"))  # no temporary files left behind
    late = _child(tmp_path)
    status, hits = late.communicate(timeout=300)[0].split()
    assert (status, int(hits)) == ("reused", 1)


def test_cached_files_are_readable_by_other_users(tmp_path: Path) -> None:
    """mkstemp creates 0600 files; a cache shared by several users needs 0644."""
    loaded = load_source("SHARED = 1\n", tmp_path)
    assert loaded.path.stat().st_mode & 0o777 == 0o644


def test_an_unusable_cache_folder_falls_back_to_a_private_one(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """TERMPLAN_CACHE_DIR below a regular file (unwritable for anyone, root included): the
    module is written to this user's folder under the temporary directory instead."""
    from termplan import compile as tp_compile

    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("TERMPLAN_CACHE_DIR", str(blocker / "cache"))
    monkeypatch.setattr(tp_compile.tempfile, "gettempdir", lambda: str(tmp_path / "tmp"))
    text = "FALLBACK = 7\n"
    _forget(source_key(text))
    loaded = load_source(text)
    assert loaded.path.parent == tp_compile.fallback_dir() and loaded.module.FALLBACK == 7
    with pytest.raises(OSError):
        load_source("EXPLICIT = 1\n", blocker / "cache")  # an explicit folder is not replaced
