"""`perfgate calibrate`: A/A rounds -> a new noise file per run; stored with its digest on the
perf-results branch (`perfgate history append-noise`), the gate reads the newest from there,
never from its work folder."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from gate_fakes import CASES, FakeSides, hooks, make_repo

from perfgate import stats
from perfgate.calibration.floors import case_floor, window_ratios
from perfgate.calibration.stored import append_noise
from perfgate.commands import calibrate as calibrate_cmd
from perfgate.formats.noise import (
    newest_noise_file,
    noise_dir,
    read_noise_floors,
    write_noise_floors_atomic,
)
from perfgate.gate import run as gate
from perfgate.gate.context import machine_id, pin_plan
from perfgate.settings import GateOptions

pytestmark = pytest.mark.subprocess


def test_window_ratios_known_values() -> None:
    """Windows of 2 rounds over 3 rounds: two pooled-median ratios."""
    base = [(1.0, 1.0), (2.0, 2.0), (1.0, 1.0)]
    head = [(1.0, 1.0), (2.0, 2.0), (2.0, 2.0)]
    assert window_ratios(base, head, 2) == [1.0, pytest.approx(4 / 3)]
    with pytest.raises(ValueError, match="window"):
        window_ratios(base, head, 4)


def test_calibrate_writes_new_file_each_time(tmp_path: Path) -> None:
    """Two calibrations: two files, never overwritten; floors are noise_floor of windows."""
    repo = make_repo(tmp_path)
    opts = GateOptions(base="HEAD", head="HEAD", repo=repo)
    out: list[str] = []
    assert calibrate_cmd.run(opts, 8, hooks(FakeSides(), out)) == 0
    assert calibrate_cmd.run(opts, 8, hooks(FakeSides(seed=2), out)) == 0
    folder = next((repo / ".perfgate" / "noise").iterdir())
    files = sorted(folder.glob("*.json"))
    assert len(files) == 2
    floors = read_noise_floors(files[-1])
    assert set(floors) == set(CASES.values())
    assert all(0.0 <= f < 0.05 for f in floors.values())  # 1% noise, pooled over 6 rounds
    doc = json.loads(files[-1].read_text())
    assert doc["window"] == 6 and doc["cases"][0]["pairs"] == 3
    assert newest_noise_file(repo / ".perfgate", folder.name) == files[-1]


def _store(repo: Path, doc: dict, name: str = "20260101T000000Z.json") -> str:  # type: ignore[type-arg]
    """Append ``doc`` as a noise file (with its digest) to the repo's perf-results branch."""
    path = repo.parent / name
    path.write_text(json.dumps(doc))
    append_noise(repo, path, str(repo), "perf-results")
    return "perf-results"


def _edit(repo: Path, ref: str) -> Path:
    """A worktree of ``ref`` (the perf-results branch), to change it by hand."""
    work = repo.parent / "edit"
    subprocess.run(["git", "-C", str(repo), "worktree", "add", "-q", str(work), ref], check=True)
    return work


def _commit(work: Path, message: str) -> None:
    ident = ["-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "-C", str(work), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(work), *ident, "commit", "-qm", message], check=True)


def test_floor_raises_gate_threshold(tmp_path: Path) -> None:
    """A stored floor above the configured threshold becomes the case's threshold."""
    repo = make_repo(tmp_path)
    out: list[str] = []
    fake = hooks(FakeSides(), out)
    fp = fake.fingerprint(pin_plan())
    ref = _store(repo, _noise_doc(machine_id(fp), fp.to_dict()))
    opts = GateOptions(
        base="HEAD", head="HEAD", repo=repo, report_dir=repo / "out", floors_ref=ref
    )
    assert gate.run(opts, fake) == 0
    cases = json.loads((repo / "out" / "verdict.json").read_text())["cases"]
    thresholds = {c["params"]["path"]: c["threshold"] for c in cases}
    assert thresholds == {"assembled": 0.05, "handwritten": 0.2, "numpy": 0.05}
    assert "noise floors: perf-results@" in (repo / "out" / "report.md").read_text()


def test_floors_in_the_work_folder_are_not_read(tmp_path: Path) -> None:
    """A floor file in the work folder (which the benchmarks of a pull request could write)
    loosens nothing: the gate reads floors only from the perf-results branch."""
    repo = make_repo(tmp_path)
    fake = hooks(FakeSides(), [])
    fp = fake.fingerprint(pin_plan())
    name = machine_id(fp)
    write_noise_floors_atomic(
        noise_dir(repo / ".perfgate", name) / "1.json", _noise_doc(name, fp.to_dict())
    )
    opts = GateOptions(base="HEAD", head="HEAD", repo=repo, report_dir=repo / "out")
    assert gate.run(opts, fake) == 0
    verdict = json.loads((repo / "out" / "verdict.json").read_text())
    assert {c["threshold"] for c in verdict["cases"]} == {0.05}


@pytest.mark.parametrize("damage", ["edited", "no digest"])
def test_a_floor_file_failing_its_digest_is_refused(tmp_path: Path, damage: str) -> None:
    """A noise file on perf-results changed apart from its digest (floors raised by hand),
    or one without a digest: the gate refuses it, exit 3 with a clear message."""
    repo = make_repo(tmp_path)
    fake = hooks(FakeSides(), [])
    fp = fake.fingerprint(pin_plan())
    name = machine_id(fp)
    ref = _store(repo, _noise_doc(name, fp.to_dict()))
    work = _edit(repo, ref)
    stored = work / "noise" / name / "20260101T000000Z.json"
    if damage == "edited":
        stored.write_text(stored.read_text().replace("0.2", "9.5"))
    else:
        (work / "noise" / name / "20260101T000000Z.digest.json").unlink()
    _commit(work, "loosen")
    opts = GateOptions(
        base="HEAD~0", head="HEAD", repo=repo, report_dir=repo / "out", floors_ref=ref
    )
    assert gate.run(opts, fake) == 3
    report = (repo / "out" / "report.md").read_text()
    expected = "content digest mismatch" if damage == "edited" else "no content digest"
    assert expected in report and "refusing" in report


def _noise_doc(machine_name: str, fingerprint: dict, window: int = 6) -> dict:  # type: ignore[type-arg]
    key = CASES["b"]
    return {
        "api_version": 1,
        "kind": "perfgate-noise",
        "machine": machine_name,
        "window": window,
        "fingerprint": fingerprint,
        "cases": [{"benchmark": key.benchmark, "params": dict(key.params), "noise_floor": 0.2}],
    }


@pytest.mark.parametrize("change", ["machine", "fingerprint", "window"])
def test_a_foreign_or_stale_noise_file_is_not_applied(tmp_path: Path, change: str) -> None:
    """A floor calibrated for another machine name, another comparable fingerprint (turbo on)
    or another window would loosen the gate: it is skipped, and the report says why."""
    repo = make_repo(tmp_path)
    fake = hooks(FakeSides(), [])
    fp = fake.fingerprint(pin_plan())
    name = machine_id(fp)
    recorded = fp.to_dict()
    if change == "fingerprint":
        recorded = {**recorded, "turbo": "on" if recorded.get("turbo") != "on" else "off"}
    doc = _noise_doc(
        "elsewhere" if change == "machine" else name,
        recorded,
        9 if change == "window" else 6,
    )
    ref = _store(repo, doc)
    if change == "machine":  # a file copied into this machine's folder, digest and all
        work = _edit(repo, ref)
        (work / "noise" / "elsewhere").rename(work / "noise" / name)
        _commit(work, "copy another machine's floors")
    opts = GateOptions(
        base="HEAD", head="HEAD", repo=repo, report_dir=repo / "out", floors_ref=ref
    )
    assert gate.run(opts, fake) == 0
    verdict = json.loads((repo / "out" / "verdict.json").read_text())
    assert {c["threshold"] for c in verdict["cases"]} == {0.05}
    assert "ignored" in (repo / "out" / "report.md").read_text()


def test_too_few_rounds_is_error(tmp_path: Path) -> None:
    """Fewer rounds than min_samples cannot calibrate: exit 3, nothing written."""
    repo = make_repo(tmp_path)
    opts = GateOptions(base="HEAD", head="HEAD", repo=repo)
    assert calibrate_cmd.run(opts, 3, hooks(FakeSides(), [])) == 3
    assert not (repo / ".perfgate" / "noise").exists()


def test_noise_floor_matches_stats() -> None:
    """case_floor uses stats.noise_floor on the window ratios."""
    from perfgate.model import Measurement

    key = CASES["a"]
    base = Measurement(key, (1.0,) * 4, rounds=((1.0,),) * 4)
    head = Measurement(key, (1.0, 1.1, 1.0, 0.9), rounds=((1.0,), (1.1,), (1.0,), (0.9,)))
    floor = case_floor(base, head, 2)
    ratios = window_ratios(base.rounds, head.rounds, 2)  # type: ignore[arg-type]
    assert floor.noise_floor == stats.noise_floor(ratios) and floor.windows == 3


def test_a_machine_that_changes_during_calibration_writes_no_floor(tmp_path: Path) -> None:
    """Fingerprint at the start and at the end: turbo switched on meanwhile -> exit 3,
    nothing stored (such a floor describes neither state of the host)."""
    from gate_fakes import fingerprint

    repo = make_repo(tmp_path)
    opts = GateOptions(base="HEAD", head="HEAD", repo=repo)
    prints = [fingerprint(), fingerprint(turbo="on")]
    assert calibrate_cmd.run(opts, 6, hooks(FakeSides(), [], prints)) == 3
    assert not list((repo / ".perfgate").glob("noise/*/*.json"))
