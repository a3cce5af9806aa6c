"""perfgate.atomic: new files are published whole and never replace another writer's file."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pg_results_factory as f
import pytest
from bad_dirs import BAD_KINDS, bad_output_dir

from perfgate import atomic
from perfgate.atomic import replace_file, write_new
from perfgate.errors import UserError
from perfgate.formats.samples import read_samples, write_samples_atomic


def _sample_data() -> dict[str, object]:
    return {
        "api_version": 1,
        "kind": "perfgate-samples",
        "created_at": "2026-11-29T18:00:00Z",
        "fingerprint": {"cpu": "x", "threading_layer": "omp"},
        "base": f.BASE_SHA,
        "head": f.HEAD_SHA,
        "unit": "seconds",
        "rounds": [
            {
                "order": ["base", "head"],
                "cases": [
                    {
                        "benchmark": "b",
                        "params": {"n": "8"},
                        "base": [1.0, 1.1],
                        "head": [1.2, 1.3],
                    }
                ],
            },
            {
                "order": ["head", "base"],
                "cases": [{"benchmark": "b", "params": {"n": "8"}, "base": [1.0], "head": None}],
            },
        ],
    }


def test_publish_never_clobbers_a_racing_writer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file that appears after the existence check is still not replaced."""
    target = tmp_path / "samples.json"
    real_create = atomic._create_temporary

    def racing_create(target_: Path, mode: int) -> tuple[int, Path]:
        target.write_text("other writer")
        return real_create(target_, mode)

    monkeypatch.setattr(atomic, "_create_temporary", racing_create)
    with pytest.raises(UserError, match="already exists"):
        write_samples_atomic(target, _sample_data())
    assert target.read_text() == "other writer"
    assert [p.name for p in tmp_path.iterdir()] == ["samples.json"]


def test_without_hard_links_a_racing_writer_is_not_replaced_either(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a filesystem without hard links (os.link fails with EPERM) the fallback reserves
    the name with O_EXCL: a file another writer published meanwhile survives, and a free
    name still gets the complete file."""
    target = tmp_path / "samples.json"

    def no_links(src: object, dst: object) -> None:
        target.write_text("other writer")
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(atomic.os, "link", no_links)
    with pytest.raises(UserError, match="already exists"):
        write_samples_atomic(target, _sample_data())
    assert target.read_text() == "other writer"
    monkeypatch.setattr(atomic.os, "link", _raise_eperm)
    fresh = tmp_path / "fresh.json"
    write_samples_atomic(fresh, _sample_data())
    assert read_samples(fresh).head == _sample_data()["head"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fresh.json", "samples.json"]


def _raise_eperm(src: object, dst: object) -> None:
    raise PermissionError(1, "Operation not permitted")


@pytest.mark.parametrize("kind", [k for k in BAD_KINDS if k != "unwritable"])
def test_check_output_dir_refuses_what_cannot_take_files(tmp_path: Path, kind: str) -> None:
    """A dangling symbolic link passed the check (nothing exists there, its parent is a
    writable folder) and then failed the first write with FileExistsError."""
    folder = bad_output_dir(tmp_path, kind)
    with pytest.raises(UserError, match="expected a directory") as caught:
        atomic.check_output_dir(folder, "--report-dir", "the report")
    assert str(folder) in str(caught.value)
    if "symlink" in kind:
        assert "symbolic link" in str(caught.value)


def test_check_output_dir_takes_a_symlink_to_a_folder(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    atomic.check_output_dir(tmp_path / "link", "--report-dir", "the report")
    atomic.check_output_dir(tmp_path / "link" / "new", "--report-dir", "the report")


@pytest.fixture
def umask_022() -> Iterator[None]:
    """The usual umask for the test, the process's own restored after it."""
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_new_files_get_the_usual_mode_under_the_umask(tmp_path: Path, umask_022: None) -> None:
    """Issue 37 item 14: every file perfgate wrote was 0600 (mkstemp's mode)."""
    assert write_new(tmp_path / "report.md", b"x")
    assert _mode(tmp_path / "report.md") == 0o644
    os.umask(0o077)
    assert write_new(tmp_path / "private.md", b"x")
    assert _mode(tmp_path / "private.md") == 0o600


@pytest.mark.parametrize("mode", [0o644, 0o664, 0o755, 0o600])
def test_a_replaced_file_keeps_its_mode(tmp_path: Path, umask_022: None, mode: int) -> None:
    """Issue 37 item 14: init turned an existing 0644 pyproject.toml into 0600."""
    path = tmp_path / "pyproject.toml"
    path.write_text("[project]\n")
    path.chmod(mode)
    replace_file(path, b"[project]\nname = 'x'\n")
    assert path.read_text() == "[project]\nname = 'x'\n" and _mode(path) == mode
