"""`perfgate history append-noise`: a calibrated noise file and its digest on perf-results;
`export` leaves them out (they are not asv results)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from history_fakes import git

from perfgate import cli
from perfgate.calibration.stored import newest_noise
from perfgate.formats.noise import content_digest
from perfgate.history.export import export

pytestmark = pytest.mark.subprocess

DOC = {
    "api_version": 1,
    "kind": "perfgate-noise",
    "machine": "perfgate-abc123",
    "window": 6,
    "cases": [{"benchmark": "b", "params": {"n": "8"}, "noise_floor": 0.07}],
}


def _project(tmp_path: Path) -> tuple[Path, Path]:
    bare, repo = tmp_path / "remote.git", tmp_path / "repo"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    git(repo, "remote", "add", "origin", str(bare))
    git(repo, "commit", "-q", "--allow-empty", "-m", "c0")
    return bare, repo


def test_append_noise_stores_the_file_and_its_digest(tmp_path: Path) -> None:
    bare, repo = _project(tmp_path)
    noise = tmp_path / "20260101T000000Z.json"
    noise.write_text(json.dumps(DOC))
    argv = ["history", "append-noise", "--repo", str(repo), "--file", str(noise)]
    assert cli.main(argv) == 0
    assert cli.main(argv) == 0  # the same file again: nothing new
    folder = "noise/perfgate-abc123"
    digest = json.loads(git(bare, "show", f"perf-results:{folder}/20260101T000000Z.digest.json"))
    assert digest["sha256"] == content_digest(noise.read_bytes())
    assert git(bare, "rev-list", "--count", "perf-results") == "1"
    git(repo, "fetch", "-q", "origin", "perf-results:refs/remotes/origin/perf-results")
    found = newest_noise(repo, "origin/perf-results", "perfgate-abc123")
    assert found is not None and found.floors() and found.machine == "perfgate-abc123"
    assert newest_noise(repo, "origin/perf-results", "other-machine") is None
    written = export(repo, "origin", "perf-results", tmp_path / "out")
    assert not any(path.startswith("noise/") for path in written)


def test_append_noise_refuses_an_invalid_file(tmp_path: Path) -> None:
    """A file that is not a valid noise document, or names a machine that is not a plain
    name (a path), is refused: exit 1, nothing pushed."""
    bare, repo = _project(tmp_path)
    for bad in ({**DOC, "machine": "../x"}, {**DOC, "cases": [{"benchmark": "b"}]}):
        noise = tmp_path / "20260101T000000Z.json"
        noise.write_text(json.dumps(bad))
        argv = ["history", "append-noise", "--repo", str(repo), "--file", str(noise)]
        assert cli.main(argv) == 1
    assert git(bare, "branch", "--list") == ""


def test_a_file_named_to_sort_last_is_not_a_noise_file(tmp_path: Path) -> None:
    """``zz.json`` with a matching digest, pushed beside a calibration, sorted after every
    UTC time and its floors (9.0) were applied; only names that are UTC times count, and
    append-noise refuses any other name."""
    from perfgate.formats.noise import digest_document
    from perfgate.history.append import append

    bare, repo = _project(tmp_path)
    noise = tmp_path / "20260101T000000Z.json"
    noise.write_text(json.dumps(DOC))
    assert cli.main(["history", "append-noise", "--repo", str(repo), "--file", str(noise)]) == 0
    planted = {**DOC, "cases": [{**DOC["cases"][0], "noise_floor": 9.0}]}  # type: ignore[dict-item]
    scratch = tmp_path / "scratch" / "noise" / "perfgate-abc123"
    scratch.mkdir(parents=True)
    content = json.dumps(planted).encode()
    (scratch / "zz.json").write_bytes(content)
    (scratch / "zz.digest.json").write_text(json.dumps(digest_document("zz.json", content)))
    append(repo, tmp_path / "scratch", "origin", "perf-results")
    git(repo, "fetch", "-q", "origin", "perf-results:refs/remotes/origin/perf-results")
    found = newest_noise(repo, "origin/perf-results", "perfgate-abc123")
    assert found is not None and found.path.name.endswith("20260101T000000Z.json")
    odd = tmp_path / "zz.json"
    odd.write_bytes(content)
    assert cli.main(["history", "append-noise", "--repo", str(repo), "--file", str(odd)]) == 1
