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

pytestmark = [pytest.mark.numba("termplan"), pytest.mark.subprocess]

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


@pytest.fixture
def tmp_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A private temporary directory standing in for /tmp (the real one is never touched),
    and no replacement folder remembered from an earlier test."""
    from termplan import compile as tp_compile

    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tp_compile.tempfile, "tempdir", str(tmp))
    monkeypatch.setenv("TMPDIR", str(tmp))
    monkeypatch.setattr(tp_compile, "_REPLACEMENT", {})
    return tmp


def _preferred(tmp: Path) -> Path:
    return tmp / f"termplan-cache-{os.getuid()}"


def _refused_for(tmp: Path, match: str) -> Path:
    """fallback_dir() with the preferred folder refused: a fresh private one instead."""
    from termplan.compile import CacheDirWarning, fallback_dir

    with pytest.warns(CacheDirWarning, match=match):
        chosen = fallback_dir()
    assert chosen != _preferred(tmp) and chosen.parent == tmp
    assert chosen.name.startswith("termplan-cache-")
    info = os.lstat(chosen)
    assert info.st_uid == os.getuid() and info.st_mode & 0o777 == 0o700
    assert fallback_dir() == chosen  # reused by later calls, announced once (no 2nd warning)
    return chosen


def test_fallback_folder_is_created_private(tmp_dir: Path) -> None:
    """The normal case: the folder is made 0700 for this user and used, without a warning."""
    from termplan.compile import fallback_dir

    assert fallback_dir() == _preferred(tmp_dir)
    info = os.lstat(_preferred(tmp_dir))
    assert info.st_uid == os.getuid() and info.st_mode & 0o777 == 0o700
    assert fallback_dir() == _preferred(tmp_dir)  # existing and private: used again


def test_existing_own_readable_fallback_folder_is_kept(tmp_dir: Path) -> None:
    """A folder of ours made 0755 by an earlier version is no risk: its cache is kept."""
    from termplan.compile import fallback_dir

    _preferred(tmp_dir).mkdir(mode=0o755)
    os.chmod(_preferred(tmp_dir), 0o755)
    assert fallback_dir() == _preferred(tmp_dir)


def test_world_writable_fallback_folder_is_not_used(tmp_dir: Path) -> None:
    """Ours but mode 0777 (anyone could plant Numba's pickled index): a fresh private folder
    is used instead, and the refused one is left as it was."""
    planted = _preferred(tmp_dir)
    planted.mkdir()
    os.chmod(planted, 0o777)
    _refused_for(tmp_dir, r"mode 0777")
    assert os.lstat(planted).st_mode & 0o777 == 0o777


@pytest.mark.parametrize("dangling", [False, True])
def test_fallback_symlink_is_not_followed(tmp_dir: Path, tmp_path: Path, dangling: bool) -> None:
    """A symlink at the fallback path is refused, whether it leads to a folder that would
    pass every check or to nothing (which must not be created through it)."""
    target = tmp_path / "elsewhere"
    if not dangling:
        target.mkdir(mode=0o700)
    _preferred(tmp_dir).symlink_to(target)
    _refused_for(tmp_dir, "symbolic link")
    if dangling:
        assert not target.exists()
    else:
        assert list(target.iterdir()) == []


def test_fallback_file_is_refused(tmp_dir: Path) -> None:
    """A plain file at the fallback path: refused, not replaced."""
    _preferred(tmp_dir).write_text("")
    _refused_for(tmp_dir, "not a directory")


@pytest.mark.parametrize("owner", ["simulated", "chown"])
def test_fallback_folder_of_another_user_is_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_dir: Path, owner: str
) -> None:
    """Another user's folder, even 0700: refused. The owner is either faked through
    os.lstat (any user) or, when running as root, really changed to nobody (65534)."""
    from termplan import compile as tp_compile

    foreign = _preferred(tmp_dir)
    foreign.mkdir(mode=0o700)
    if owner == "chown":
        if os.getuid() != 0:
            pytest.skip("chown to another user needs root")
        os.chown(foreign, 65534, 65534)
    else:
        real_lstat = os.lstat

        def lstat(path: os.PathLike[str] | str) -> os.stat_result:
            info = real_lstat(path)
            if Path(path) != foreign:
                return info
            fields = list(info)
            fields[4] = os.getuid() + 1  # st_uid
            return os.stat_result(fields)

        monkeypatch.setattr(tp_compile.os, "lstat", lstat)
    _refused_for(tmp_dir, "owned by uid")


def test_load_source_uses_the_replacement_folder(
    monkeypatch: pytest.MonkeyPatch, tmp_dir: Path, tmp_path: Path
) -> None:
    """End to end: an unusable cache folder and a world-writable fallback folder; the module
    is still built and imported, from the private replacement folder."""
    from termplan.compile import CacheDirWarning

    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("TERMPLAN_CACHE_DIR", str(blocker / "cache"))
    _preferred(tmp_dir).mkdir()
    os.chmod(_preferred(tmp_dir), 0o777)
    text = "REPLACED = 3\n"
    _forget(source_key(text))
    with pytest.warns(CacheDirWarning, match="mode 0777"):
        loaded = load_source(text)
    assert loaded.module.REPLACED == 3 and loaded.status is CacheStatus.CREATED
    assert loaded.path.parent.parent == tmp_dir
    assert loaded.path.parent != _preferred(tmp_dir)
    assert list(_preferred(tmp_dir).iterdir()) == []
    _forget(loaded.key)


def test_world_writable_cache_root_is_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_dir: Path, tmp_path: Path
) -> None:
    """TERMPLAN_CACHE_DIR writable by all (even sticky, like /tmp): the fallback is used with
    a warning; passed explicitly, it is an error naming the folder. Group write is allowed
    (a shared cache trusts its group)."""
    from termplan.compile import CacheDirWarning, UnsafeCacheDirError

    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o1777)
    monkeypatch.setenv("TERMPLAN_CACHE_DIR", str(shared))
    text = "SHARED_ROOT = 5\n"
    _forget(source_key(text))
    with pytest.warns(CacheDirWarning, match="writable by all users"):
        loaded = load_source(text)
    assert loaded.path.parent == _preferred(tmp_dir) and loaded.module.SHARED_ROOT == 5
    assert list(shared.iterdir()) == []
    with pytest.raises(UnsafeCacheDirError, match=str(shared)):
        load_source("EXPLICIT_SHARED = 1\n", shared)
    os.chmod(shared, 0o2775)
    _forget(loaded.key)
    assert load_source(text, shared).path.parent == shared
    _forget(loaded.key)
