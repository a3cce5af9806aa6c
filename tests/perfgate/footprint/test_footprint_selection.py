"""perfgate.footprint.selection: which cases a diff cannot have moved, and why the rest are
measured."""

from __future__ import annotations

import pytest

from perfgate.footprint.selection import Footprint, doubt_in_diff, select
from perfgate.model import CaseKey

ENV = {"interpreter": "a", "distributions": "b", "cpu": "c"}
G1 = CaseKey("sim_hot.SimHot.track_cycles", (("task", "g1_walk"),))
MOTION = CaseKey("sim_hot.SimHot.track_cycles", (("task", "motion_tracking"),))
SHARED = frozenset({"termplan/src/termplan/runtime.py", "benchmarks/sim_hot.py"})
FOOTPRINTS = {
    G1: Footprint(G1, SHARED | {"termplan/src/termplan/tasks/g1_walk/kernel.py"}, ENV),
    MOTION: Footprint(MOTION, SHARED | {"termplan/src/termplan/tasks/motion_tracking/k.py"}, ENV),
}


def _select(changed: list[str] | None, env: dict[str, str] = ENV) -> object:
    return select([G1, MOTION], FOOTPRINTS, changed, env, "benchmarks")


def test_a_readme_change_leaves_every_case_unchanged_with_its_proof() -> None:
    chosen = _select(["README.md"])
    assert set(chosen.unchanged) == {G1, MOTION} and not chosen.measured
    proof = chosen.unchanged[G1]
    assert proof.digest == FOOTPRINTS[G1].digest and len(proof.digest) == 12
    assert proof.text() == (
        f"unchanged: nothing it reads changed (footprint {proof.digest}: 3 files, none "
        "among the 1 the diff touches)"
    )


def test_a_task_change_measures_that_task_and_a_shared_change_every_case() -> None:
    motion = _select(["termplan/src/termplan/tasks/motion_tracking/k.py", "docs/x.md"])
    assert set(motion.unchanged) == {G1}
    assert motion.measured == {
        MOTION: "it reads changed files: termplan/src/termplan/tasks/motion_tracking/k.py"
    }
    shared = _select(["termplan/src/termplan/runtime.py"])
    assert not shared.unchanged and set(shared.measured) == {G1, MOTION}


@pytest.mark.parametrize(
    ("path", "says"),
    [
        ("pyproject.toml", "decides how the run is built or judged"),
        ("sub/perfgate.toml", "decides how the run is built or judged"),
        ("termplan/src/sitecustomize.py", "decides how the run is built or judged"),
        ("termplan/src/hook.pth", "without an import naming it"),
        ("termplan/src/termplan/__pycache__/runtime.cpython-311.pyc", "without an import"),
        ("termplan/src/termplan/_ext.so", "without an import naming it"),
        ("benchmarks/_common.py", "a file of the benchmark suites"),
    ],
)
def test_any_doubt_measures_every_case(path: str, says: str) -> None:
    """A hostile head's hiding places: an import hook or compiled code Python loads on its
    own, the policy, the suites (their footprint is the suite's, which the head rewrote)."""
    chosen = _select([path])
    assert not chosen.unchanged and set(chosen.measured) == {G1, MOTION}
    assert says in chosen.doubt and chosen.measured[G1] == chosen.doubt
    assert doubt_in_diff(["README.md", "docs/a.md"], "benchmarks") == ""


def test_no_diff_no_footprint_or_another_environment_measures() -> None:
    assert _select(None).doubt == "git could not give the diff"
    moved = _select(["README.md"], {**ENV, "cpu": "other"})
    assert moved.measured[G1] == "the environment changed (cpu)" and not moved.unchanged
    alone = select([G1, MOTION], {G1: FOOTPRINTS[G1]}, ["README.md"], ENV, "benchmarks")
    assert set(alone.unchanged) == {G1}
    assert alone.measured == {MOTION: "no footprint recorded for it at the base"}
